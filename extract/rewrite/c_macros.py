"""C and C++ macros that derail tree-sitter, blanked before parsing.

tree-sitter parses C and C++ without a preprocessor: a line that is only a macro, an
export macro between `class` and the name, an annotation macro after a parameter list,
X-macro helpers in an enum, comments inside a `#define`, or a conditional directive in
the middle of an expression make it lose the rest of a scope, and every definition in
it. `blank_macros` replaces those bytes with spaces (the rule of offsets.py: every byte
offset and line number stays the file's), and the definitions are read from the source
as written (parse.py).

What is known of projects' macros by name is declared first, as data (the names a
macro stands beside or for); then the shapes a macro takes, each a pattern and the scan
that finds it; `blank_macros` runs the scans of one table (`_BLANKED`) and then makes
the macros that stand for a keyword that keyword (`_keyword_macros`).

Imports: the standard library and `extract` modules only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from symfind.extract.rewrite.c_conditionals import first_branches_only
from symfind.extract.rewrite.c_tokens import (
    CONTEXT_BYTES, LinePattern, previous_code_line, token_sweep,
)
from symfind.extract.rewrite.offsets import Edits

# Declaration specifiers: an export macro may stand before or among them.
SPECIFIERS = (b"explicit", b"inline", b"static", b"virtual", b"friend", b"extern", b"constexpr")
# Those a constructor may have: after `static` or `extern`, a capitals name then a
# function's is its return type (libuv's `static CONSOLE_CURSOR_INFO get_cursor_info(`).
CONSTRUCTOR_SPECIFIERS = (b"explicit", b"inline", b"constexpr")
# Keywords that can only start a declaration: after an attribute macro, they tell it is one.
DECLARATION_KEYWORDS = (
    *SPECIFIERS, b"const", b"consteval", b"constinit", b"mutable", b"volatile",
    b"thread_local", b"void", b"bool", b"char", b"short", b"int", b"long", b"float",
    b"double", b"signed", b"unsigned", b"auto", b"struct", b"class", b"union", b"enum",
    b"typename", b"operator",
)
# Keywords before a capitals name that make it the type, not an export macro between a
# return type and a function's name (`static EFI_STATUS f(`, `return FOO_BAR(x)`).
NOT_TYPES = frozenset({
    b"static", b"inline", b"extern", b"virtual", b"explicit", b"friend", b"constexpr",
    b"consteval", b"constinit", b"const", b"volatile", b"mutable", b"thread_local",
    b"typedef", b"register", b"return", b"else", b"case", b"goto", b"throw", b"new",
    b"delete", b"co_return", b"co_yield", b"co_await", b"public", b"private", b"protected",
    b"class", b"struct", b"union", b"enum", b"typename", b"template", b"using",
    b"namespace", b"operator", b"sizeof", b"decltype", b"define", b"ifdef", b"ifndef",
    b"if", b"elif", b"undef", b"and", b"or", b"not",
})
# Calling conventions: a name of a project's own holding one (`_pplx_cdecl`) stands for it.
CALLING_CONVENTIONS = (b"cdecl", b"stdcall", b"fastcall", b"thiscall", b"vectorcall", b"clrcall")
# Macros that stand for a keyword, told by a word in their name, become it (in lower case):
# access specifiers (nlohmann's `JSON_PRIVATE_UNLESS_TESTED:`) and exception keywords
# (`JSON_TRY {`, `JSON_CATCH (std::out_of_range&) {`, Boost's and Qt's alike).
ACCESS_WORDS = (b"PRIVATE", b"PROTECTED", b"PUBLIC")
EXCEPTION_WORDS = (b"TRY", b"CATCH")
# A macro standing for a whole catch clause (`SPDLOG_CATCH_STD`) becomes one that catches
# everything.
CATCH_ALL = b"catch(...){}"


def _one_of(words: Iterable[bytes]) -> bytes:
    """A regex group matching any of `words` (tried in their order)."""
    return b"(?:" + b"|".join(words) + b")"


# A C or C++ line holding nothing but a macro, without a semicolon (`FMT_BEGIN_NAMESPACE`,
# `Q_OBJECT`, `DEFINE_CHECK_OP(EQ, ==)`, an attribute macro above a declaration, its
# arguments possibly on several lines: `CASABLANCA_DEPRECATED("..."\n "...")`), derails
# tree-sitter for the rest of the scope.
_MACRO_LINE = LinePattern(
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
_SPECIFIERS = _one_of(SPECIFIERS)
_CONSTRUCTOR_SPECIFIERS = _one_of(CONSTRUCTOR_SPECIFIERS)
_DECLARATION_START = (
    _one_of(DECLARATION_KEYWORDS) + rb"\b|(?:std)?::"
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
# A macro standing for an access specifier (nlohmann's `JSON_PRIVATE_UNLESS_TESTED:`,
# `public` in its tests and `private` otherwise): the grammar reads the rest of the class
# body as a function's. It becomes the specifier its name says, padded to its length.
_ACCESS_MACRO = LinePattern(
    rb"[ \t]*([A-Z][A-Z0-9_]*?(" + b"|".join(ACCESS_WORDS) + rb")[A-Z0-9_]*)[ \t]*:(?!:)"
)
# Likewise the exception macros: read as calls, they break the function around them and
# the class after it.
_EXCEPTION_MACRO = LinePattern(
    rb"[ \t]*([A-Z][A-Z0-9_]*_(" + b"|".join(EXCEPTION_WORDS) + rb"))"
    rb"(?=[ \t]*(?:\(|\{|\r?\n[ \t]*\{))"
)
# A `#define` with its continuation lines. Block comments inside one, not ending its line
# (`/* public */ \` between field lines, `(ERR_LIB_SYS /* 2 */ | ...)`, `while
# (/*CONSTCOND*/ 0)`), end the definition early in tree-sitter's C grammar: what follows
# parses as code, and a header of field macros lost everything after. (A comment that
# ends the line is read fine, and blanking it would let the value run on.)
_LINE_END = re.compile(rb"[ \t]*(?:\r?\n|\Z)")
_DEFINE = LinePattern(rb"[ \t]*#[ \t]*define\b(?:[^\n]*\\\r?\n)*[^\n]*")
# An unclosed comment runs to the end: one scan, not one per `/*` (linear on any input).
_BLOCK_COMMENT = re.compile(rb"/\*.*?(?:\*/|\Z)", re.S)
# X-macro helpers: a function-like `#define` or an `#undef` (see `_swept_shapes`).
_DIRECTIVE = LinePattern(
    rb"[ \t]*#[ \t]*(?:undef\b|define[ \t]+\w+\()(?:[^\n]*\\\r?\n)*[^\n]*"
)
# An enumerator followed by an annotation macro (GLib's `G_IO_IN GLIB_SYSDEF_POLLIN,`,
# `G_APPLICATION_DEFAULT_FLAGS GLIB_AVAILABLE_ENUMERATOR_IN_2_74 = 0,`): the macro is
# blanked when the line is in an enum's body.
_ANNOTATED_ENUMERATOR = LinePattern(
    rb"[ \t]*[A-Za-z_]\w*[ \t]+([A-Z][A-Z0-9_]{2,}(?:[ \t]*\([^()\n]*\))?)"
    rb"(?=[ \t]*(?:[,=}]|/[/*]|\r?$))",
)
# A macro standing for a whole catch clause, body and all (spdlog's
# `SPDLOG_LOGGER_CATCH(msg.source)`, `SPDLOG_CATCH_STD`): no `{` follows it, and as a
# bare `catch` it leaves the `try` before it and the function around it unparsable. It
# becomes `CATCH_ALL`, padded to its length.
_CATCH_CLAUSE_MACRO = LinePattern(
    rb"[ \t]*([A-Z][A-Z0-9_]*_CATCH(?:_[A-Z0-9_]*)?"
    rb"(?:[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))?)"
    rb"(?![ \t]*(?:\(|(?://[^\n]*)?\s*\{))",
)


def _blank_macro_line(source: bytes, match: re.Match[bytes], in_enum: bool) -> bool:
    """Whether a line holding nothing but a macro is blanked: not when it continues an
    expression or list, ends an enum (its last enumerator), or is the return type on a
    line of its own -- but always the X-macro list in an enum (`UV_ERRNO_MAP(XX)` after
    `#define XX(...) ...,`) and the last field macro of a struct (`UV_HANDLE_FIELDS`
    then `}`), which leave no enumerator or field behind."""
    start, end = match.span()
    previous = previous_code_line(source[max(0, start - CONTEXT_BYTES) : start].rstrip())
    following = source[end : end + CONTEXT_BYTES].lstrip()
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
        if before is not None and before[1] not in NOT_TYPES:
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


def _conditional_groups(source: bytes) -> list[tuple[int, int]]:
    """The directives and later branches of conditional groups read as their first branch."""
    return first_branches_only(source) if b"#" in source else []


def _trailing_macros(source: bytes) -> list[tuple[int, int]]:
    return [match.span(1) for match in _TRAILING_MACROS.finditer(source)
            if not _defines_a_macro_type(source, match)]


def _calling_conventions_in_pointers(source: bytes) -> list[tuple[int, int]]:
    return [match.span(1) for match in _CALLING_CONVENTION.finditer(source)
            if _name_before(source, match.start()) is not None]


def _leading_attribute_macros(source: bytes) -> list[tuple[int, int]]:
    return [(start, match.end()) for match in _LEADING_ATTRIBUTE_MACROS.finditer(source)
            if (start := _name_before(source, match.start())) is not None]


def _specifier_macros(source: bytes) -> list[tuple[int, int]]:
    return [next(match.span(g) for g in (1, 2, 3) if match.group(g) is not None)
            for match in _SPECIFIER_MACROS.finditer(source)]


def _comments_in_defines(source: bytes) -> list[tuple[int, int]]:
    return [comment.span() for define in _DEFINE.finditer(source)
            for comment in _BLOCK_COMMENT.finditer(source, define.start(), define.end())
            if not _LINE_END.match(source, comment.end())]


def _swept_shapes(source: bytes) -> list[tuple[int, int]]:
    """The shapes that one token sweep tells apart (which brace a line stands in, which
    parentheses are open): lone macro lines, annotated enumerators and X-macro helpers
    in an enum's body, and conditional directives inside parentheses."""
    lines = list(_MACRO_LINE.finditer(source))
    directives = list(_DIRECTIVE.finditer(source))
    annotated = list(_ANNOTATED_ENUMERATOR.finditer(source)) if b"enum" in source else []
    offsets = sorted({match.start() for match in (*lines, *directives, *annotated)})
    if not offsets and b"#" not in source:
        return []
    in_enums, spans = token_sweep(source, offsets)
    in_enum = dict(zip(offsets, in_enums))
    spans.extend(match.span(1) for match in annotated if in_enum[match.start()])
    spans.extend(line.span() for line in lines
                 if _blank_macro_line(source, line, in_enum[line.start()]))
    # The grammar has no `#define`/`#undef` in an enum's body: it reads them as calls
    # missing a comma and may lose the enumerator after them. X-macro helpers are
    # blanked there (`#define XX(uc, lc) UV_##uc,` ... `#undef XX`); an alias
    # (`#define CURLOPT_PROGRESSDATA CURLOPT_XFERINFODATA`) is kept.
    spans.extend(directive.span() for directive in directives if in_enum[directive.start()])
    return spans


# The shapes of macros that are blanked, each found by its scan. All of them read the
# source as written, and their spans are blanked together: their order does not matter.
_BLANKED: tuple[Callable[[bytes], list[tuple[int, int]]], ...] = (
    _conditional_groups,
    _class_macros,
    _trailing_macros,
    _calling_conventions_in_pointers,
    _leading_attribute_macros,
    _macros_before_names,
    _calling_convention_names,
    _specifier_macros,
    _comments_in_defines,
    _swept_shapes,
)


def _keyword_macros(source: bytes) -> list[tuple[int, int, bytes]]:
    """The macros that stand for a keyword, each with what it becomes: (start, end,
    keyword). Each holds a word looked for as plain bytes first: most files have none."""
    replaced: list[tuple[int, int, bytes]] = []
    if any(b"_" + word in source for word in EXCEPTION_WORDS):
        clauses = [match for match in _CATCH_CLAUSE_MACRO.finditer(source)
                   if len(match[1]) >= len(CATCH_ALL)]
        whole = {match.start(1) for match in clauses}
        replaced += [(*match.span(1), match[2].lower()) for match in _EXCEPTION_MACRO.finditer(source)
                     if match.start(1) not in whole]
    else:
        clauses = []
    if any(word in source for word in ACCESS_WORDS):
        replaced += [(*match.span(1), match[2].lower()) for match in _ACCESS_MACRO.finditer(source)]
    replaced += [(*match.span(1), CATCH_ALL) for match in clauses]
    return replaced


def blank_macros(source: bytes) -> bytes:
    """Replace what derails tree-sitter in C and C++ with spaces, keeping every byte
    offset and line number: lone macro lines, class export, declaration specifier,
    trailing annotation and leading attribute macros, calling conventions, X-macro
    helpers in enums, comments inside `#define`s, and conditional directives inside
    parentheses (`_BLANKED`); then a macro standing for an access specifier, `try` or
    `catch` becomes that keyword, one standing for a whole catch clause a clause
    catching everything (`_keyword_macros`)."""
    edits = Edits(source)
    for scan in _BLANKED:
        for start, end in scan(source):
            edits.blank(start, end)
    for start, end, keyword in _keyword_macros(source):
        edits.replace(start, end, keyword)
    return edits.result()
