"""C and C++ macros around declarations, found for the blanking (c_macros.py): export and
attribute macros in a class head, before a declaration or between its type and name,
annotation macros after a parameter list, calling conventions under a project's names.

Imports: the standard library and `extract` modules only.
"""

from __future__ import annotations

import re

from symfind.extract.rewrite.c_names import (
    CALLING_CONVENTIONS, CONSTRUCTOR_SPECIFIERS, DECLARATION_KEYWORDS, NOT_TYPES, SPECIFIERS, one_of,
)
from symfind.extract.rewrite.c_tokens import LinePattern

# Export and attribute macros between `class` and the name (`class LEVELDB_EXPORT DB : ...`).
# (Both are tried only where `_CLASS_KEYWORD` finds a keyword: `class_macros`.)
_CLASS_MACROS = re.compile(
    rb"(?:class|struct|union)[ \t]+"
    rb"((?:[A-Z][A-Z0-9_]{2,}(?:\([^()\n]*\))?[ \t]+)+)"
    rb"(?=[A-Za-z_]\w*(?:<[^\n{;]*>)?[ \t]*(?:final\b|[A-Z][A-Z0-9_]{2,}|[:{\r\n]))"
)
# ... and after the name (`class PROTOBUF_EXPORT GzipInputStream PROTOBUF_FUTURE_FINAL`).
_CLASS_TRAILING_MACROS = re.compile(
    rb"(?:class|struct|union)[ \t]+(?:[A-Z][A-Z0-9_]{2,}[ \t]+)*[A-Za-z_]\w*[ \t]+"
    rb"([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]*(?:final\b|[:{]|\r?$))",
    re.M,
)
_CLASS_KEYWORD = re.compile(rb"(?:class|struct|union)[ \t]")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")

# Export and attribute macros at the start of a declaration, before its specifiers or type
# (`PROTOBUF_NODISCARD std::string* Release(`, `SQLITE_API SQLITE_EXTERN const char x[];`,
# `GLIB_VAR const guint v;`, OpenSSL's `__owur int SSL_f(`, `explicit PROTOBUF_CONSTEXPR
# Any(`): the grammar takes the macro for the type and loses the declaration, often the
# whole class around it. A candidate is a name with an underscore in capitals, or one
# starting with `__`, followed by what can only start a declaration: a keyword or a
# primitive type, a qualified name, or a type then a declarator; after a constructor's
# specifier (`explicit`) or another such macro, a constructor's name. A plain type (`SIZE_T len;`, `FILE *f;`) is kept.
# A declarator's name, possibly qualified (`ns::cls<T>::log`, `~cls`, `cls::operator=`).
_DECLARATOR_NAME = (rb"(?:[A-Za-z_]\w*(?:<[^<>()\n]*>)?::)*"
                    rb"(?:~?[A-Za-z_]\w*|operator[^\w\s(]*)")
_ATTRIBUTE_MACRO = rb"(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*|_[A-Z][A-Z0-9_]+|__[a-z]\w*)\b(?:[ \t]*\([^()\n]*\))?[ \t]+"
_SPECIFIERS = one_of(SPECIFIERS)
_CONSTRUCTOR_SPECIFIERS = one_of(CONSTRUCTOR_SPECIFIERS)
_DECLARATION_START = (
    one_of(DECLARATION_KEYWORDS) + rb"\b|(?:std)?::"
    rb"|[A-Za-z_][\w:<>]*[ \t*&]+(?:__[a-z]+[ \t]+)?" + _DECLARATOR_NAME + rb"[ \t]*[(;\[=,{]"
    # a qualified name, a constructor's or a function's defined out of its class
    # (`SPDLOG_INLINE logger::logger(`): no declaration starts with a type then that
    rb"|(?:[A-Za-z_]\w*(?:<[^<>()\n]*>)?::)+~?[A-Za-z_]\w*[ \t]*\("
)
# (The indent is common to the branches, and what follows it starts with a specifier's
# first letter or a macro's: most lines are given up at their first letter.)
_SPECIFIER_MACROS = LinePattern(
    rb"[ \t]*(?=[A-Z_cefisv])(?:(?:" + _SPECIFIERS + rb"[ \t]+)*((?:" + _ATTRIBUTE_MACRO + rb"){2,}"
    rb"|_[A-Z][A-Z0-9_]+[ \t]+)"  # a reserved name is no user's type: `_ASYNCRTIMP value(`
    rb"(?=[A-Za-z_]\w*[ \t]*\()"  # `FMT_CONSTEXPR FMT_INLINE format_arg_store(`: all
    rb"|(?:" + _SPECIFIERS + rb"[ \t]+)*((?:" + _ATTRIBUTE_MACRO + rb")+)"
    rb"(?=" + _DECLARATION_START + rb")"
    rb"|(?:" + _CONSTRUCTOR_SPECIFIERS + rb"[ \t]+)+((?:" + _ATTRIBUTE_MACRO + rb")+)"
    rb"(?=[A-Za-z_]\w*[ \t]*\())"
)

# Annotation macros after a parameter list (`void Lock() EXCLUSIVE_LOCK_FUNCTION() {`,
# `int f(int x)\n    REQUIRES(mu) const;`, `T operator++(int) SAFEINT_CPP_THROW // why`
# then `{`): tree-sitter takes the macro for the name. (`\b`
# after each name: without it `ABCDEF` splits into `ABC DEF` in exponentially many ways.)
_TRAILING_MACROS = re.compile(
    rb"\)[ \t]*(?:(?:const|volatile|noexcept|override|final)\b[ \t]*)*"
    rb"((?:\s*[A-Z][A-Z0-9_]{2,}\b(?:[ \t]*\([^()\n]*\))?)+)"
    rb"(?=[ \t]*(?://[^\n]*)?\s*(?:\{|;|=|:(?!:)|->|const\b|override\b|final\b|noexcept\b))"
)
# ... but a typedef of a type a macro call names (OpenSSL's `typedef STACK_OF(X509_EXTENSION)
# X509_EXTENSIONS;`) ends with the name it defines: what comes before its `)`.
_MACRO_TYPE_TYPEDEF = re.compile(
    rb"typedef[ \t]+(?:(?:const|volatile)[ \t]+)*[A-Za-z_]\w*[ \t]*\([^()\n]*\Z"
)
_TYPEDEF_NAME = re.compile(rb"\s*[A-Za-z_]\w*\s*\Z")
_MACRO_TYPE_BYTES = 256
# A calling convention in a function pointer's declarator (`typedef BOOL (WINAPI
# *CRYPTGENRANDOM)(...)`, `typedef BOOL (PASCAL *LPFN_ACCEPTEX)(...)`): two names in the
# parentheses lose the typedef and what follows it.
# (Patterns here that start at a `(` find it by a fast literal search, and check the name
# before it in Python: started at a name, they were tried at every word of every file.)
_CALLING_CONVENTION = re.compile(  # (`CALLBACK* WINEVENTPROC` too: libuv's winapi.h)
    rb"\([ \t]*([A-Z][A-Z0-9_]*)(?:[ \t]+\*|\*[ \t]+)[ \t]*[A-Za-z_]\w*[ \t]*\)\s*\("
)
_NAME_BEFORE = re.compile(rb"[A-Za-z_]\w*[ \t]*\Z")
_NAME_BEFORE_BYTES = 128
# An export macro between the return type and the name (`void _ASYNCRTIMP __cdecl f(`,
# `std::string SPDLOG_INLINE getenv(`, `char* MY_API g(`): a capitals name with an
# underscore after a type -- a name that is no keyword (`static EFI_STATUS f(` is kept:
# there the capitals name is the type), `*`, `&` or `>`.
_MACRO_BEFORE_NAME = re.compile(  # (a class first, not a lookbehind: scans 2x faster)
    rb"[ \t*&>]((?:_[A-Z][A-Z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]*)\b)[ \t]+"
    rb"(?=(?:__[a-z]+[ \t]+)?" + _DECLARATOR_NAME + rb"[ \t]*\()"
)
# What stands before it: a type's last word (checked against `NOT_TYPES`) or `*&>`.
_TYPE_BEFORE = re.compile(rb"(?:([A-Za-z_]\w*)[ \t]+|[*&>][ \t]*)\Z")
_TYPE_BEFORE_BYTES = 64
# A calling convention before a function's name, under a name of a project's own
# (`inline bool _pplx_cdecl is_task_cancellation_requested()`): the grammar knows
# `__cdecl` and its kind, not a macro standing for one, and takes two names for a
# declaration gone wrong. A name holding a convention's name is blanked (not where a
# `#define` defines it).
_CONVENTION = re.compile(b"|".join(CALLING_CONVENTIONS), re.I)
# ... looked for as plain bytes first (a case-blind regex scans a file ten times slower).
_CONVENTION_WORDS = tuple(word for name in CALLING_CONVENTIONS for word in (name, name.upper()))
_WORD_START = re.compile(rb"\w*\Z")
_WORD_REST = re.compile(rb"\w*")
_FUNCTION_NAME_NEXT = re.compile(rb"[ \t]+(?=[A-Za-z_~]\w*(?:::~?\w+)*[ \t]*\()")
_DEFINED = re.compile(rb"#[ \t]*define[ \t]+\Z")
# Attribute macros with numeric arguments before a function's name (tmux's
# `static void printflike(2, 3) log_debug(const char *, ...);`).
_LEADING_ATTRIBUTE_MACROS = re.compile(
    rb"\([ \t]*\d+(?:[ \t]*,[ \t]*\d+)*[ \t]*\)(?=\s+\**[A-Za-z_]\w*[ \t]*\()"
)


def _defines_a_macro_type(source: bytes, trailing: re.Match[bytes]) -> bool:
    """Whether a `_TRAILING_MACROS` match is the name a `typedef MACRO(T) NAME;` defines."""
    if b"typedef" not in source or not _TYPEDEF_NAME.match(trailing[1]):
        return False
    start = trailing.start()
    return _MACRO_TYPE_TYPEDEF.search(source, max(0, start - _MACRO_TYPE_BYTES), start) is not None


def _name_before(source: bytes, offset: int) -> int | None:
    """Where the name right before `offset` (spaces between allowed) starts, if one is."""
    match = _NAME_BEFORE.search(source, max(0, offset - _NAME_BEFORE_BYTES), offset)
    if match is None or (match.start() > 0 and source[match.start() - 1:match.start()].isalnum()):
        return None
    return match.start()


def macros_before_names(source: bytes) -> list[tuple[int, int]]:
    """The spans of export macros between a return type and a function's name."""
    spans = []
    for match in _MACRO_BEFORE_NAME.finditer(source):
        start = match.start(1)
        before = _TYPE_BEFORE.search(source, max(0, start - _TYPE_BEFORE_BYTES), start)
        if before is not None and before[1] not in NOT_TYPES:
            spans.append(match.span(1))
    return spans


def class_macros(source: bytes) -> list[tuple[int, int]]:
    """The spans of `_CLASS_MACROS` and `_CLASS_TRAILING_MACROS`, as each pattern's own
    scan from a word boundary would find them, from one scan for the keywords: each
    pattern started at a word, scanning took twice as long."""
    spans = []
    next_start = [0, 0]  # where each pattern's own scan would look on from
    for keyword in _CLASS_KEYWORD.finditer(source):
        start = keyword.start()
        if start and source[start - 1] in _WORD_BYTES:
            continue  # no word boundary: `subclass`, `my_struct`
        for number, pattern in enumerate((_CLASS_MACROS, _CLASS_TRAILING_MACROS)):
            if start >= next_start[number] and (match := pattern.match(source, start)):
                spans.append(match.span(1))
                next_start[number] = match.end()
    return spans


def calling_convention_names(source: bytes) -> list[tuple[int, int]]:
    """The spans of names holding a calling convention's (`_pplx_cdecl`, `__stdcall`)
    before a function's name, except where a `#define` defines one. Found from the
    convention's name outwards: a scan for a word holding it, at every word of every
    file, cost as much as all the other macro patterns together."""
    if not any(word in source for word in _CONVENTION_WORDS):
        return []
    spans = []
    for match in _CONVENTION.finditer(source):
        start = _WORD_START.search(source, max(0, match.start() - 64), match.start()).start()
        end = _WORD_REST.match(source, match.end()).end()
        if (_FUNCTION_NAME_NEXT.match(source, end)
                and not _DEFINED.search(source, max(0, start - 32), start)):
            spans.append((start, end))
    return spans


def trailing_macros(source: bytes) -> list[tuple[int, int]]:
    """The spans of annotation macros after a parameter list (`_TRAILING_MACROS`)."""
    return [match.span(1) for match in _TRAILING_MACROS.finditer(source)
            if not _defines_a_macro_type(source, match)]


def calling_conventions_in_pointers(source: bytes) -> list[tuple[int, int]]:
    """The spans of calling conventions in a function pointer's declarator."""
    return [match.span(1) for match in _CALLING_CONVENTION.finditer(source)
            if _name_before(source, match.start()) is not None]


def leading_attribute_macros(source: bytes) -> list[tuple[int, int]]:
    """The spans of attribute macros with numeric arguments before a function's name."""
    return [(start, match.end()) for match in _LEADING_ATTRIBUTE_MACROS.finditer(source)
            if (start := _name_before(source, match.start())) is not None]


def specifier_macros(source: bytes) -> list[tuple[int, int]]:
    """The spans of export and attribute macros at the start of a declaration."""
    return [next(match.span(g) for g in (1, 2, 3) if match.group(g) is not None)
            for match in _SPECIFIER_MACROS.finditer(source)]
