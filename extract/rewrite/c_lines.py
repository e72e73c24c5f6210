"""C and C++ macros that are whole lines or stand in them, found for the blanking
(c_macros.py): a line holding nothing but a macro, X-macro helpers and annotated
enumerators in an enum's body, comments inside a `#define`, conditional directives inside
parentheses; and macros that stand for a keyword (an access specifier, `try`, `catch`).

Imports: the standard library and `extract` modules only.
"""

from __future__ import annotations

import re

from symfind.extract.rewrite.c_names import ACCESS_WORDS, CATCH_ALL, EXCEPTION_WORDS
from symfind.extract.rewrite.c_tokens import (
    CONTEXT_BYTES, LinePattern, previous_code_line, token_sweep,
)

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
# X-macro helpers: a function-like `#define` or an `#undef` (see `swept_shapes`).
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


def comments_in_defines(source: bytes) -> list[tuple[int, int]]:
    """The spans of block comments inside a `#define` that do not end its line."""
    return [comment.span() for define in _DEFINE.finditer(source)
            for comment in _BLOCK_COMMENT.finditer(source, define.start(), define.end())
            if not _LINE_END.match(source, comment.end())]


def swept_shapes(source: bytes) -> list[tuple[int, int]]:
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



def keyword_macros(source: bytes) -> list[tuple[int, int, bytes]]:
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
