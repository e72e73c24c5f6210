"""C and C++ macros that derail tree-sitter, blanked before parsing.

tree-sitter parses C and C++ without a preprocessor: a line that is only a macro, an
export macro between `class` and the name, an annotation macro after a parameter list,
X-macro helpers in an enum, comments inside a `#define`, or a conditional directive in
the middle of an expression make it lose the rest of a scope, and every definition in
it. `blank_macros` replaces those bytes with spaces (newlines kept), so that every byte
offset and line number stays the file's, and the definitions are read from the source as
written (parse.py).

Imports: the standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_NOT_NEWLINE = re.compile(rb"[^\n]")
# Braces and parentheses, and what to step over whole: comments, strings, characters and
# directives (with their continuation lines; `#define INIT { {`); a conditional directive
# is told apart. (An unclosed comment, string or character ends at the end of the file
# or line.) Every branch starts with one literal byte, so that the regex engine skips
# to the next such byte at C speed (with a class `[{}()]` or a `^` it tried every
# position: the sweep was a fifth of blanking a file's macros). A `#` is a directive only
# at the start of its line (`_tokens`): assembly in headers has `#0` mid-line.
_TOKENS = re.compile(
    rb"/\*.*?(?:\*/|\Z)|//[^\n]*"
    rb"|#(?P<conditional>[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b)?(?:[^\n]*\\\r?\n)*[^\n]*"
    rb"|\"(?:[^\"\\\n]|\\.)*(?:\"|$)|'(?:[^'\\\n]|\\.)*(?:'|$)|\{|\}|\(|\)",
    re.S | re.M,
)
_HASH, _OPEN_BRACE, _CLOSE_BRACE, _OPEN_PAREN, _CLOSE_PAREN = b"#{}()"


class _LinePattern:
    """A pattern that matches only at the start of a line, found fast: as `^body` with
    `re.M`, but searched for as `\\nbody`, which the regex engine skips to at C speed (a
    `^` is tried at every byte: two to three times slower), then matched again at the
    line's start, so that callers get the same matches as `^body` would give."""

    def __init__(self, body: bytes, flags: int = 0) -> None:
        self.pattern = re.compile(body, flags | re.M)
        self._after_newline = re.compile(b"\\n" + body, flags | re.M)

    def match(self, string: bytes) -> re.Match[bytes] | None:
        return self.pattern.match(string)

    def finditer(self, source: bytes) -> Iterator[re.Match[bytes]]:
        match = self.pattern.match(source)
        pos = 0
        while True:
            if match is not None:
                yield match
                pos = max(match.end(), match.start() + 1) - 1  # its end may start a line
            found = self._after_newline.search(source, pos)
            if found is None:
                return
            match = self.pattern.match(source, found.start() + 1)

# A C or C++ line holding nothing but a macro, without a semicolon (`FMT_BEGIN_NAMESPACE`,
# `Q_OBJECT`, `DEFINE_CHECK_OP(EQ, ==)`, an attribute macro above a declaration, its
# arguments possibly on several lines: `CASABLANCA_DEPRECATED("..."\n "...")`), derails
# tree-sitter for the rest of the scope.
MACRO_GRAMMARS = frozenset({"c", "cpp"})
_MACRO_LINE = _LinePattern(
    rb"[ \t]*[A-Z_][A-Z0-9_]{2,}"
    rb"(?:[ \t]*\([^\n;{}]*\)"  # arguments on the line, or balanced over several
    rb"|[ \t]*\((?:[^;{}()]|\([^;{}()]*\)){0,2000}\))?"
    rb"[ \t]*(?://[^\n]*)?\r?$"
)
# ... unless it continues an expression or a list (a last enumerator has no comma), or is
# a return type on its own line (`LRESULT` then `WndProc(...)`).
_CONTINUED_BY = (b",", b"(", b"=", b"+", b"-", b"*", b"/", b"&", b"|", b"?", b"<", b"\\")
_CONTINUES = (b"{", b"}", b",", b")", b";")
_BARE_DECLARATOR = re.compile(rb"[A-Za-z_~][\w:~]*\s*\(")
_CONTEXT_BYTES = 4096
# Export and attribute macros between `class` and the name (`class LEVELDB_EXPORT DB : ...`).
# (Both are tried only where `_CLASS_KEYWORD` finds a keyword: `_class_macros`.)
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
_SPECIFIERS = rb"(?:explicit|inline|static|virtual|friend|extern|constexpr)"
# Those a constructor may have: after `static` or `extern`, a capitals name then a
# function's is its return type (libuv's `static CONSOLE_CURSOR_INFO get_cursor_info(`).
_CONSTRUCTOR_SPECIFIERS = rb"(?:explicit|inline|constexpr)"
_DECLARATION_START = (
    rb"(?:" + _SPECIFIERS + rb"|const|consteval|constinit|mutable|volatile|thread_local"
    rb"|void|bool|char|short|int|long|float|double|signed|unsigned|auto|struct|class|union"
    rb"|enum|typename|operator)\b|(?:std)?::"
    rb"|[A-Za-z_][\w:<>]*[ \t*&]+(?:__[a-z]+[ \t]+)?" + _DECLARATOR_NAME + rb"[ \t]*[(;\[=,{]"
    # a qualified name, a constructor's or a function's defined out of its class
    # (`SPDLOG_INLINE logger::logger(`): no declaration starts with a type then that
    rb"|(?:[A-Za-z_]\w*(?:<[^<>()\n]*>)?::)+~?[A-Za-z_]\w*[ \t]*\("
)
# (The indent is common to the branches, and what follows it starts with a specifier's
# first letter or a macro's: most lines are given up at their first letter.)
_SPECIFIER_MACROS = _LinePattern(
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
# What stands before it: a type's last word (checked against `_NOT_TYPES`) or `*&>`.
_TYPE_BEFORE = re.compile(rb"(?:([A-Za-z_]\w*)[ \t]+|[*&>][ \t]*)\Z")
_TYPE_BEFORE_BYTES = 64
_NOT_TYPES = frozenset({
    b"static", b"inline", b"extern", b"virtual", b"explicit", b"friend", b"constexpr",
    b"consteval", b"constinit", b"const", b"volatile", b"mutable", b"thread_local",
    b"typedef", b"register", b"return", b"else", b"case", b"goto", b"throw", b"new",
    b"delete", b"co_return", b"co_yield", b"co_await", b"public", b"private", b"protected",
    b"class", b"struct", b"union", b"enum", b"typename", b"template", b"using",
    b"namespace", b"operator", b"sizeof", b"decltype", b"define", b"ifdef", b"ifndef",
    b"if", b"elif", b"undef", b"and", b"or", b"not",
})
# A calling convention before a function's name, under a name of a project's own
# (`inline bool _pplx_cdecl is_task_cancellation_requested()`): the grammar knows
# `__cdecl` and its kind, not a macro standing for one, and takes two names for a
# declaration gone wrong. A name holding a convention's name is blanked (not where a
# `#define` defines it).
_CONVENTION = re.compile(rb"cdecl|stdcall|fastcall|thiscall|vectorcall|clrcall", re.I)
# ... looked for as plain bytes first (a case-blind regex scans a file ten times slower).
_CONVENTION_WORDS = tuple(word for name in _CONVENTION.pattern.split(b"|")
                          for word in (name, name.upper()))
_WORD_START = re.compile(rb"\w*\Z")
_WORD_REST = re.compile(rb"\w*")
_FUNCTION_NAME_NEXT = re.compile(rb"[ \t]+(?=[A-Za-z_~]\w*(?:::~?\w+)*[ \t]*\()")
_DEFINED = re.compile(rb"#[ \t]*define[ \t]+\Z")
# Attribute macros with numeric arguments before a function's name (tmux's
# `static void printflike(2, 3) log_debug(const char *, ...);`).
_LEADING_ATTRIBUTE_MACROS = re.compile(
    rb"\([ \t]*\d+(?:[ \t]*,[ \t]*\d+)*[ \t]*\)(?=\s+\**[A-Za-z_]\w*[ \t]*\()"
)
# A `#define` with its continuation lines. Block comments inside one, not ending its line
# (`/* public */ \` between field lines, `(ERR_LIB_SYS /* 2 */ | ...)`, `while
# (/*CONSTCOND*/ 0)`), end the definition early in tree-sitter's C grammar: what follows
# parses as code, and a header of field macros lost everything after. (A comment that
# ends the line is read fine, and blanking it would let the value run on.)
# A macro standing for an access specifier (nlohmann's `JSON_PRIVATE_UNLESS_TESTED:`,
# `public` in its tests and `private` otherwise): the grammar reads the rest of the class
# body as a function's. It becomes the specifier its name says, padded to its length.
_ACCESS_MACRO = _LinePattern(
    rb"[ \t]*([A-Z][A-Z0-9_]*?(PRIVATE|PROTECTED|PUBLIC)[A-Z0-9_]*)[ \t]*:(?!:)"
)
# Likewise the exception macros (`JSON_TRY {` ... `JSON_CATCH (std::out_of_range&) {`,
# Boost's and Qt's alike): read as calls, they break the function around them and the
# class after it.
_TRY_MACRO = _LinePattern(
    rb"[ \t]*([A-Z][A-Z0-9_]*_(TRY|CATCH))(?=[ \t]*(?:\(|\{|\r?\n[ \t]*\{))"
)
_LINE_END = re.compile(rb"[ \t]*(?:\r?\n|\Z)")
_DEFINE = _LinePattern(rb"[ \t]*#[ \t]*define\b(?:[^\n]*\\\r?\n)*[^\n]*")
# An unclosed comment runs to the end: one scan, not one per `/*` (linear on any input).
_BLOCK_COMMENT = re.compile(rb"/\*.*?(?:\*/|\Z)", re.S)
# X-macro helpers: a function-like `#define` or an `#undef` (see `_blank_macros`).
_DIRECTIVE = _LinePattern(
    rb"[ \t]*#[ \t]*(?:undef\b|define[ \t]+\w+\()(?:[^\n]*\\\r?\n)*[^\n]*"
)
# An enumerator followed by an annotation macro (GLib's `G_IO_IN GLIB_SYSDEF_POLLIN,`,
# `G_APPLICATION_DEFAULT_FLAGS GLIB_AVAILABLE_ENUMERATOR_IN_2_74 = 0,`): the macro is
# blanked when the line is in an enum's body.
_ANNOTATED_ENUMERATOR = _LinePattern(
    rb"[ \t]*[A-Za-z_]\w*[ \t]+([A-Z][A-Z0-9_]{2,}(?:[ \t]*\([^()\n]*\))?)"
    rb"(?=[ \t]*(?:[,=}]|/[/*]|\r?$))",
)
_ENUM_HEAD = re.compile(rb"\benum\b")
_ENUM_HEAD_BYTES = 256  # `typedef enum /*< flags >*/ {`: the keyword is near the brace
_COMMENT = re.compile(rb"/\*.*?(?:\*/|\Z)|//[^\n]*", re.S)
# A macro standing for a whole catch clause, body and all (spdlog's
# `SPDLOG_LOGGER_CATCH(msg.source)`, `SPDLOG_CATCH_STD`): no `{` follows it, and as a
# bare `catch` it leaves the `try` before it and the function around it unparsable. It
# becomes a clause that catches everything, `catch(...){}`, padded to its length.
_CATCH_CLAUSE_MACRO = _LinePattern(
    rb"[ \t]*([A-Z][A-Z0-9_]*_CATCH(?:_[A-Z0-9_]*)?"
    rb"(?:[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))?)"
    rb"(?![ \t]*(?:\(|(?://[^\n]*)?\s*\{))",
)
_CATCH_ALL = b"catch(...){}"


def _previous_code_line(before: bytes) -> bytes:
    """The last line of `before` that holds code, comments removed: a complete
    preprocessor directive (`#undef XX`, `#define XX(a) a,` of an X-macro list) or a
    comment (`/* private */`) continues no expression."""
    lines = before.split(b"\n")
    index = len(lines)
    while index > 0:
        index -= 1
        line = lines[index].split(b"//", 1)[0].rstrip()
        if line.endswith(b"*/"):  # drop the block comment, back to where it opens
            while b"/*" not in line and index > 0:
                index -= 1
                line = lines[index].rstrip()
            line = line[: line.rfind(b"/*")].rstrip()
        continued = index > 0 and lines[index - 1].rstrip().endswith(b"\\")
        directive = line.lstrip().startswith(b"#") and not continued and not line.endswith(b"\\")
        if line.strip() and not directive:
            return line
    return b""


def _tokens(source: bytes, pos: int = 0, endpos: int | None = None) -> Iterator[re.Match[bytes]]:
    """`_TOKENS`' matches from `pos` to `endpos`, a `#` that does not start its line
    (only spaces before it) passed over as no token."""
    endpos = len(source) if endpos is None else endpos
    while True:
        for token in _TOKENS.finditer(source, pos, endpos):
            start = token.start()
            if source[start] == _HASH and source[source.rfind(b"\n", 0, start) + 1 : start].strip(b" \t"):
                pos = start + 1  # rare: go on from the byte after it
                break
            yield token
        else:
            return


def _token_sweep(source: bytes, offsets: list[int]) -> tuple[list[bool], list[tuple[int, int]]]:
    """One sweep over the file's braces and parentheses, not those in comments, strings and
    preprocessor directives (`#define INIT { {`): for each offset (ascending), whether the
    innermost brace open there opens an enum's body; and the spans of conditional
    directives (`#if`...`#endif` lines) inside an open parenthesis. (Whether a brace opens
    an enum is worked out only for the braces an offset asks about: a file has thousands.)"""
    inside: list[bool] = []
    conditionals: list[tuple[int, int]] = []
    stack: list[int] = []  # offsets of the open braces
    enum_brace: dict[int, bool] = {}
    depth = 0
    pending = iter(offsets)
    offset = next(pending, None)

    def innermost_is_enum() -> bool:
        if not stack:
            return False
        index = stack[-1]
        if index not in enum_brace:
            low = max(0, index - _ENUM_HEAD_BYTES)
            head = max(source.rfind(b";", low, index), source.rfind(b"}", low, index),
                       source.rfind(b"{", low, index), low)
            code = _COMMENT.sub(b" ", source[head:index])
            enum_brace[index] = _ENUM_HEAD.search(code) is not None
        return enum_brace[index]

    for token in _tokens(source):
        index = token.start()
        while offset is not None and offset <= index:
            inside.append(innermost_is_enum())
            offset = next(pending, None)
        first = source[index]  # a token's first byte tells a brace or parenthesis
        if first == _OPEN_BRACE:
            stack.append(index)
        elif first == _CLOSE_BRACE:
            if stack:
                stack.pop()
        elif first == _OPEN_PAREN:
            depth += 1
        elif first == _CLOSE_PAREN:
            depth = max(depth - 1, 0)
        elif depth and token.group("conditional") is not None:
            conditionals.append((source.rfind(b"\n", 0, index) + 1, token.end()))  # its line
    while offset is not None:
        inside.append(innermost_is_enum())
        offset = next(pending, None)
    return inside, conditionals


def _blank_macro_line(source: bytes, match: re.Match[bytes], in_enum: bool) -> bool:
    """Whether a line holding nothing but a macro is blanked: not when it continues an
    expression or list, ends an enum (its last enumerator), or is the return type on a
    line of its own -- but always the X-macro list in an enum (`UV_ERRNO_MAP(XX)` after
    `#define XX(...) ...,`) and the last field macro of a struct (`UV_HANDLE_FIELDS`
    then `}`), which leave no enumerator or field behind."""
    start, end = match.span()
    previous = _previous_code_line(source[max(0, start - _CONTEXT_BYTES) : start].rstrip())
    following = source[end : end + _CONTEXT_BYTES].lstrip()
    called = b"(" in match.group()
    if in_enum:
        if called and previous.endswith(b","):
            return True
    elif following.startswith(b"}"):
        return True
    return not (
        previous.endswith(_CONTINUED_BY)
        or following.startswith(_CONTINUES)
        or (not called and _BARE_DECLARATOR.match(following)
            and not _MACRO_LINE.match(following))  # another macro line: no declarator
    )


# Conditional groups whose first branch opens a block the others open again
# (protobuf's `#ifdef PROTOBUF_FORCE_COPY_IN_SWAP\n if (a &&\n b) {\n #else\n if (b) {\n
# #endif`): both branches read as code leave a brace unclosed and the class around them
# is lost. As ctags does, such a group is read as its first branch alone: the directives
# and the other branches are blanked. So is a group of alternative heads of one block
# (`class a : public base` or `class b : public base`, then `{` after the `#endif`).
_CONDITIONAL = _LinePattern(
    rb"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(?:[^\n]*\\\r?\n)*[^\n]*"
)
_OPENING = {b"{": 1, b"(": 1, b"}": -1, b")": -1}


def _unbalanced(code: bytes) -> bool:
    """Whether `code` opens or closes more braces and parentheses than it closes or opens."""
    return sum(_OPENING.get(token.group(), 0) for token in _tokens(code)) != 0


def _first_branches_only(source: bytes) -> list[tuple[int, int]]:
    """The spans to blank so that each unbalanced conditional group is its first branch."""
    spans: list[tuple[int, int]] = []
    groups: list[list[int]] = []  # per open group: its directive's span, where #else starts
    for directive in _CONDITIONAL.finditer(source):
        kind = directive.group(1)
        if kind.startswith(b"if"):
            groups.append([directive.start(), directive.end(), -1])
        elif not groups:
            continue  # an #else or #endif without its #if (the file starts mid-group)
        elif kind in (b"elif", b"else"):
            if groups[-1][2] < 0:
                groups[-1][2] = directive.start()
        else:
            start, end, other = groups.pop()
            if other >= 0 and (_unbalanced(source[end:other])
                               or _alternative_heads(source, end, other, directive.end())):
                spans += [(start, end), (other, directive.end())]
    return spans


def _alternative_heads(source: bytes, end: int, other: int, after: int) -> bool:
    """Whether each branch of a conditional group is a head of the block opened after
    its `#endif` (`#if defined(__APPLE__)` / `class apple_scheduler : public base` /
    `#else` / `class linux_scheduler : public base` / `#endif` / `{`): the first
    branch ends mid-declaration and the code after the group starts with `{`."""
    following = source[after : after + _CONTEXT_BYTES].lstrip()
    if following.startswith(b"/"):  # a comment first (rare: strip comments only then)
        following = _COMMENT.sub(b" ", following).lstrip()
    if not following.startswith(b"{"):
        return False
    first = _previous_code_line(source[end:other].rstrip())
    return bool(first) and not first.endswith((b";", b"{", b"}", b",", b"\\"))


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


def _macros_before_names(source: bytes) -> list[tuple[int, int]]:
    """The spans of export macros between a return type and a function's name."""
    spans = []
    for match in _MACRO_BEFORE_NAME.finditer(source):
        start = match.start(1)
        before = _TYPE_BEFORE.search(source, max(0, start - _TYPE_BEFORE_BYTES), start)
        if before is not None and before[1] not in _NOT_TYPES:
            spans.append(match.span(1))
    return spans


def _class_macros(source: bytes) -> list[tuple[int, int]]:
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


def _calling_convention_names(source: bytes) -> list[tuple[int, int]]:
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


def blank_macros(source: bytes) -> bytes:
    """Replace what derails tree-sitter in C and C++ with spaces, keeping every byte
    offset and line number: lone macro lines, class export, declaration specifier,
    trailing annotation and leading attribute macros, calling conventions, X-macro helpers in enums, comments inside `#define`s, and
    conditional directives inside parentheses; a macro standing for an access specifier,
    `try` or `catch` becomes that keyword, one standing for a whole catch clause a clause
    catching everything."""
    spans = _first_branches_only(source) if b"#" in source else []
    spans.extend(_class_macros(source))
    spans.extend(match.span(1) for match in _TRAILING_MACROS.finditer(source)
                 if not _defines_a_macro_type(source, match))
    for match in _CALLING_CONVENTION.finditer(source):
        if _name_before(source, match.start()) is not None:
            spans.append(match.span(1))
    for match in _LEADING_ATTRIBUTE_MACROS.finditer(source):
        if (start := _name_before(source, match.start())) is not None:
            spans.append((start, match.end()))
    spans.extend(_macros_before_names(source))
    spans.extend(_calling_convention_names(source))
    for match in _SPECIFIER_MACROS.finditer(source):
        spans.append(next(match.span(g) for g in (1, 2, 3) if match.group(g) is not None))
    for define in _DEFINE.finditer(source):
        for comment in _BLOCK_COMMENT.finditer(source, define.start(), define.end()):
            if not _LINE_END.match(source, comment.end()):
                spans.append(comment.span())
    lines = list(_MACRO_LINE.finditer(source))
    directives = list(_DIRECTIVE.finditer(source))
    annotated = list(_ANNOTATED_ENUMERATOR.finditer(source)) if b"enum" in source else []
    offsets = sorted({match.start() for match in (*lines, *directives, *annotated)})
    if offsets or b"#" in source:
        in_enums, conditionals = _token_sweep(source, offsets)
    else:
        in_enums, conditionals = [], []
    spans.extend(conditionals)
    in_enum = dict(zip(offsets, in_enums))
    spans.extend(match.span(1) for match in annotated if in_enum[match.start()])
    spans.extend(line.span() for line in lines
                 if _blank_macro_line(source, line, in_enum[line.start()]))
    # The grammar has no `#define`/`#undef` in an enum's body: it reads them as calls
    # missing a comma and may lose the enumerator after them. X-macro helpers are
    # blanked there (`#define XX(uc, lc) UV_##uc,` ... `#undef XX`); an alias
    # (`#define CURLOPT_PROGRESSDATA CURLOPT_XFERINFODATA`) is kept.
    spans.extend(directive.span() for directive in directives if in_enum[directive.start()])
    # (Each keyword macro holds a word looked for as plain bytes first: most files have none.)
    exceptions = b"_TRY" in source or b"_CATCH" in source
    clauses = [match for match in _CATCH_CLAUSE_MACRO.finditer(source)
               if len(match[1]) >= len(_CATCH_ALL)] if exceptions else []
    whole = {match.start(1) for match in clauses}
    keywords = [m for m in _TRY_MACRO.finditer(source) if m.start(1) not in whole] if exceptions else []
    if b"PRIVATE" in source or b"PROTECTED" in source or b"PUBLIC" in source:
        keywords.extend(_ACCESS_MACRO.finditer(source))
    if not spans and not keywords and not clauses:
        return source
    blanked = bytearray(source)
    for start, end in spans:
        blanked[start:end] = _NOT_NEWLINE.sub(b" ", source[start:end])
    for macro in keywords:
        start, end = macro.span(1)
        blanked[start:end] = macro[2].lower().ljust(end - start)
    for clause in clauses:
        start, end = clause.span(1)
        blanked[start:end] = _CATCH_ALL.ljust(end - start)
    return bytes(blanked)
