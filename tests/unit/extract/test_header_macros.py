"""C headers built of macros keep every definition after the constructs that used to
derail the parse. Each snippet is shaped on a real header (libuv's uv.h, uv/unix.h and
uv/tree.h, OpenSSL's err.h and ssl.h, GLib's gmain.h and gioenums.h, sqlite3.h, protobuf's
generated headers, googletest) and followed by definitions; the whole
symbol list is compared. (tests/e2e/test_c_headers.py runs the real headers.)"""

from __future__ import annotations

import pytest

from symfind.extract import extract_symbols

FIELD_MACROS = b"""\
#define UV_REQ_FIELDS                                                         \\
  /* public */                                                                \\
  void* data;                                                                 \\
  /* read-only */                                                             \\
  uv_req_type type;                                                           \\
  UV_REQ_PRIVATE_FIELDS                                                       \\

/* Abstract base class of all requests. */
struct uv_req_s {
  UV_REQ_FIELDS
};

/* Platform-specific request types. */
UV_PRIVATE_REQ_TYPES

struct uv_shutdown_s {
  UV_REQ_FIELDS
  uv_stream_t* handle;
  uv_shutdown_cb cb;
  UV_SHUTDOWN_PRIVATE_FIELDS
};

typedef struct uv_handle_s uv_handle_t;

struct uv_handle_s {
  UV_HANDLE_FIELDS
};

union uv_any_handle {
  int fd;
};
"""

X_MACROS = b"""\
#define UV_HANDLE_TYPE_MAP(XX)                                                \\
  XX(ASYNC, async)                                                            \\
  XX(CHECK, check)                                                            \\

typedef enum {
#define XX(code, _) UV_ ## code = UV__ ## code,
  UV_ERRNO_MAP(XX)
#undef XX
  UV_ERRNO_MAX = UV__EOF - 1
} uv_errno_t;

typedef enum {
  UV_UNKNOWN_HANDLE = 0,
#define XX(uc, lc) UV_##uc,
  UV_HANDLE_TYPE_MAP(XX)
#undef XX
  UV_FILE,
  UV_HANDLE_TYPE_MAX
} uv_handle_type;

struct uv_loop_s {
  void* data;
};

typedef void (*uv_close_cb)(uv_handle_t* handle);
"""

DEFINE_COMMENTS = b"""\
#define ERR_R_SYS_LIB (ERR_LIB_SYS /* 2 */ | ERR_RFLAG_COMMON)
#define ERR_R_BN_LIB (ERR_LIB_BN /* 3 */ | ERR_RFLAG_COMMON)

#define RB_INIT(root) do {                                                    \\
  (root)->rbh_root = NULL;                                                    \\
} while (/*CONSTCOND*/ 0)

#define RB_HEAD(name, type)                                                   \\
struct name {                                                                 \\
  struct type *rbh_root; /* root of the tree */                               \\
}

RB_HEAD(uv__signal_tree_s, uv_signal_s);

#define UV_REQ_PRIVATE_FIELDS  /* empty */

struct uv__work {
  void (*work)(struct uv__work *w);
};

static int uv__signal_compare(uv_signal_t* w1, uv_signal_t* w2) {
  return w1->signum - w2->signum;
}
"""

ANNOTATED_ENUMERATORS = b"""\
typedef enum /*< flags >*/
{
  G_IO_IN	GLIB_SYSDEF_POLLIN,
  G_IO_OUT	GLIB_SYSDEF_POLLOUT,
  G_IO_NVAL	GLIB_SYSDEF_POLLNVAL
} GIOCondition;

typedef enum /*< prefix=G_APPLICATION >*/
{
  G_APPLICATION_FLAGS_NONE GLIB_DEPRECATED_ENUMERATOR_IN_2_74_FOR(G_APPLICATION_DEFAULT_FLAGS),
  G_APPLICATION_DEFAULT_FLAGS GLIB_AVAILABLE_ENUMERATOR_IN_2_74 = 0,
  G_APPLICATION_IS_SERVICE  =          (1 << 0)
} GApplicationFlags;

struct _GSourceFuncs {
  int (*prepare)(void);
};
"""

# Shaped on protobuf 3.21's generated any.pb.h and io/gzip_stream.h, fmt 9's core.h
# (two macros before a constructor) and googletest
# 1.12's gtest-matchers.h.
PROTOBUF = b"""\
PROTOBUF_NAMESPACE_OPEN

class PROTOBUF_EXPORT Any final :
    public ::PROTOBUF_NAMESPACE_ID::Message /* @@protoc_insertion_point(class_definition:google.protobuf.Any) */ {
 public:
  inline Any() : Any(nullptr) {}
  explicit PROTOBUF_CONSTEXPR Any(::PROTOBUF_NAMESPACE_ID::internal::ConstantInitialized);
  FMT_CONSTEXPR FMT_INLINE Any(int value) : value_(value) {}

  inline Any& operator=(Any&& from) noexcept {
    if (GetOwningArena() == from.GetOwningArena()
  #ifdef PROTOBUF_FORCE_COPY_IN_MOVE
        && GetOwningArena() != nullptr
  #endif  // !PROTOBUF_FORCE_COPY_IN_MOVE
    ) {
      InternalSwap(&from);
    }
    return *this;
  }
  inline void Swap(Any* other) {
    if (other == this) return;
  #ifdef PROTOBUF_FORCE_COPY_IN_SWAP
    if (GetOwningArena() != nullptr &&
        GetOwningArena() == other->GetOwningArena()) {
   #else  // PROTOBUF_FORCE_COPY_IN_SWAP
    if (GetOwningArena() == other->GetOwningArena()) {
  #endif  // !PROTOBUF_FORCE_COPY_IN_SWAP
      InternalSwap(other);
    }
  }
  PROTOBUF_NODISCARD std::string* release_type_url();
  PROTOBUF_ALWAYS_INLINE void set_value(const std::string& value);
};

class PROTOBUF_EXPORT GzipInputStream PROTOBUF_FUTURE_FINAL
    : public ZeroCopyInputStream {
 public:
  bool Next(const void** data, int* size) override;
};

template <>
class GTEST_API_ Matcher<const std::string&>
    : public internal::MatcherBase<const std::string&> {
 public:
  Matcher() {}
};

PROTOBUF_NAMESPACE_CLOSE
"""

# Shaped on sqlite3.h 3.40, GLib's gversion.h and OpenSSL 3's ssl.h; a plain type in
# capitals is a type, not a macro.
DECLARATION_MACROS = b"""\
SQLITE_API SQLITE_EXTERN const char sqlite3_version[];
SQLITE_API const char *sqlite3_libversion(void);
GLIB_VAR const guint glib_major_version;
__owur int SSL_CTX_set_cipher_list(SSL_CTX *, const char *str);
SIZE_T total_length;
FILE *trace_file;
struct after_them { int x; };
"""

CALLING_CONVENTIONS = b"""\
typedef BOOL(WINAPI *CRYPTACQUIRECONTEXTA)(HCRYPTPROV *phProv, LPCSTR pszContainer);
typedef BOOL (PASCAL *LPFN_ACCEPTEX)
             (SOCKET sListenSocket,
              DWORD dwBytesReceived);
static long seed_initialized = 0;
"""

CASES = {
    "calling-conventions": (CALLING_CONVENTIONS, [  # jansson's hashtable_seed.c, uv/win.h
        ("type", "CRYPTACQUIRECONTEXTA", 1), ("type", "LPFN_ACCEPTEX", 2),
        ("variable", "seed_initialized", 5),
    ]),
    "field-macros": (FIELD_MACROS, [
        ("constant", "UV_REQ_FIELDS", 1), ("struct", "uv_req_s", 9), ("struct", "uv_shutdown_s", 16),
        ("type", "uv_handle_t", 23), ("struct", "uv_handle_s", 25),
        ("struct", "uv_any_handle", 29),
    ]),
    "x-macros": (X_MACROS, [
        # The `XX` helpers defined inside the enums are not indexed: the grammar has no
        # directive there (they are blanked so that the enumerators after them parse).
        ("macro", "UV_HANDLE_TYPE_MAP", 1), ("constant", "UV_ERRNO_MAX", 9),
        ("type", "uv_errno_t", 10), ("constant", "UV_UNKNOWN_HANDLE", 13),
        ("constant", "UV_FILE", 17), ("constant", "UV_HANDLE_TYPE_MAX", 18),
        ("type", "uv_handle_type", 19), ("struct", "uv_loop_s", 21), ("type", "uv_close_cb", 25),
    ]),
    "annotated-enumerators": (ANNOTATED_ENUMERATORS, [
        ("constant", "G_IO_IN", 3), ("constant", "G_IO_OUT", 4), ("constant", "G_IO_NVAL", 5),
        ("type", "GIOCondition", 6), ("constant", "G_APPLICATION_FLAGS_NONE", 10),
        ("constant", "G_APPLICATION_DEFAULT_FLAGS", 11), ("constant", "G_APPLICATION_IS_SERVICE", 12),
        ("type", "GApplicationFlags", 13), ("struct", "_GSourceFuncs", 15),
    ]),
    "define-comments": (DEFINE_COMMENTS, [
        ("constant", "ERR_R_SYS_LIB", 1), ("constant", "ERR_R_BN_LIB", 2), ("macro", "RB_INIT", 4),
        ("macro", "RB_HEAD", 8), ("constant", "UV_REQ_PRIVATE_FIELDS", 15),
        ("struct", "uv__work", 17), ("function", "uv__signal_compare", 21),
    ]),
}


ACCESS_MACRO = b"""\
class iter_impl
{
  public:
    iter_impl() = default;

  JSON_PRIVATE_UNLESS_TESTED:
    /*!
    @brief set the iterator to the first value
    */
    void set_begin() noexcept
    {
        m_it = 0;
    }

  public:
    bool operator!=(const iter_impl& other) const
    {
        return true;
    }
};
"""

KEYWORD_MACROS = b"""\
class basic_json
{
  public:
    reference at(size_type idx)
    {
        JSON_TRY
        {
            return m_value.array->at(idx);
        }
        JSON_CATCH (std::out_of_range&)
        {
            JSON_THROW(out_of_range::create(401, "array index"));
        }
    }

    const_reference at(size_type idx) const
    {
        return m_value.array->at(idx);
    }

    template<typename T>
    JSON_HEDLEY_WARN_UNUSED_RESULT
    JSON_HEDLEY_DEPRECATED_FOR(3.8.0, from_cbor(ptr, ptr + len))
    static basic_json from_cbor(const T* ptr, std::size_t len)
    {
        return from_cbor(ptr, ptr + len);
    }

    template<typename ValueType>
    JSON_EXPLICIT operator ValueType() const
    {
        return get<ValueType>();
    }
};
"""

EXPORTS_AROUND_NAMES = b"""\
class value
{
public:
    _ASYNCRTIMP value() {}
    explicit _ASYNCRTIMP value(bool flag) {}
    _ASYNCRTIMP static value __cdecl parse(const char* text) { return value(); }
    void _ASYNCRTIMP __cdecl reset(bool keep) {}
    WIDGETS_DEPRECATED("renamed, use "
                       "value::serialize() instead")
    _ASYNCRTIMP std::string to_string() const { return serialize(); }
    T operator++(int) WIDGETS_NOTHROW // the spec wants a dummy argument
    {
        return *this;
    }
    std::string serialize() const { return ""; }
};

inline bool _pplx_cdecl is_cancellation_requested()
{
    return false;
}

#if defined(__APPLE__)
class apple_scheduler : public scheduler_interface
#else
class linux_scheduler : public scheduler_interface
#endif
{
    void schedule() {}
};

WIDGETS_CONSTEXPR to_lower_impl to_lower {};

namespace details
{
#ifdef _WIN32
#if _MSC_VER < 1900
static details::category_impl instance;
#endif
#endif
}
"""

INLINE_MACRO_DEFINITIONS = b"""\
namespace spdlog {

SPDLOG_INLINE logger::logger(const logger &other)
    : name_(other.name_)
{}

SPDLOG_INLINE logger &logger::operator=(logger other) SPDLOG_NOEXCEPT
{
    return *this;
}

template<typename Mutex>
void SPDLOG_INLINE spdlog::sinks::base_sink<Mutex>::log(const details::log_msg &msg)
{
    SPDLOG_TRY
    {
        sink_it_(msg);
    }
    SPDLOG_LOGGER_CATCH(msg.source)
}

std::string SPDLOG_INLINE getenv(const char *field)
{
    return field;
}

} // namespace spdlog
"""

CPP_CASES = {
    "inline-macro-definitions": (INLINE_MACRO_DEFINITIONS, [  # shaped on spdlog's *-inl.h
        ("module", "spdlog", 1), ("method", "spdlog::logger::logger", 3),
        ("method", "spdlog::logger::operator=", 7),
        # Written in full inside its namespace: the namespace is not repeated.
        ("method", "spdlog::sinks::base_sink::log", 13),
        ("function", "spdlog::getenv", 22),
    ]),
    "exports-around-names": (EXPORTS_AROUND_NAMES, [  # shaped on cpprestsdk's json.h, pplx
        ("class", "value", 1), ("method", "value::value", 4), ("method", "value::value", 5),
        ("method", "value::parse", 6), ("method", "value::reset", 7),
        ("method", "value::to_string", 10), ("method", "value::operator++", 11),
        ("method", "value::serialize", 15), ("function", "is_cancellation_requested", 18),
        ("class", "apple_scheduler", 24), ("method", "apple_scheduler::schedule", 29),
        ("variable", "to_lower", 32), ("module", "details", 34),
        ("variable", "details::instance", 38),
    ]),
    "protobuf": (PROTOBUF, [
        ("class", "Any", 3), ("method", "Any::Any", 6), ("method", "Any::Any", 8),
        ("method", "Any::operator=", 10), ("method", "Any::Swap", 20),
        ("class", "GzipInputStream", 35), ("class", "Matcher", 42),
        ("method", "Matcher::Matcher", 45),
    ]),
    "declaration-macros": (DECLARATION_MACROS, [
        ("variable", "sqlite3_version", 1), ("variable", "glib_major_version", 3),
        ("variable", "total_length", 5), ("variable", "trace_file", 6),
        ("struct", "after_them", 7),
    ]),
    "keyword-macros": (KEYWORD_MACROS, [  # nlohmann's json.hpp: try/catch, stacked macros
        ("class", "basic_json", 1), ("method", "basic_json::at", 4),
        ("method", "basic_json::at", 16), ("method", "basic_json::from_cbor", 24),
        ("method", "basic_json::operator ValueType", 30),
    ]),
    "access-macro": (ACCESS_MACRO, [  # nlohmann's detail/iterators/iter_impl.hpp
        ("class", "iter_impl", 1), ("method", "iter_impl::iter_impl", 4),
        ("method", "iter_impl::set_begin", 10), ("method", "iter_impl::operator!=", 16),
    ]),
}


@pytest.mark.parametrize("case", sorted(CPP_CASES))
def test_export_macros_and_conditionals_keep_the_definitions_around_them(case: str) -> None:
    """Before: protobuf's class was lost whole (its methods came out unscoped, `Swap` and
    the template specialisation not at all) and sqlite's `SQLITE_EXTERN` was a variable."""
    source, expected = CPP_CASES[case]
    symbols = extract_symbols("google/protobuf/any.pb.h", source)
    assert [(s.kind, s.qualname, s.line) for s in symbols] == expected


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_definition_after_a_macro_construct_is_kept(case: str) -> None:
    source, expected = CASES[case]
    symbols = extract_symbols("include/uv.h", source)
    assert [(s.kind, s.qualname, s.line) for s in symbols] == expected
