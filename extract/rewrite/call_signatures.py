"""TypeScript call signatures that follow one another without a separator, separated.

In an interface or a type literal, `<T>(fn: T): T` then, on the next line, `<T>(name:
string, fn: T): T` is valid TypeScript (a newline separates members), but tree-sitter's
grammar reads the second line's `<T>` as type arguments of the first line's return type
(`T<T>(...)`), and the whole file after it becomes one ERROR node (mobx's
`api/action.ts` lost every definition; effect's `Stream.ts` too, where a documentation
comment stands between overloads and type parameters run over several lines).
`separate_call_signatures` puts a `;` in the last column of such a line's indentation
(the rule of offsets.py: every byte offset and line number stays the file's).

Imports: the standard library and `extract` modules only.
"""

from __future__ import annotations

import re

from symfind.extract.rewrite.offsets import Edits

# A line starting with a type parameter list and then a parameter list, indented; or
# with a lone `<` whose parameters follow on the next lines (`<` then `A extends X,`).
_GENERIC_CALL_SIGNATURE = re.compile(
    rb"^([ \t]+)<(?:[A-Za-z_$][^\n]*?>[ \t]*\(|[ \t]*\r?\n[ \t]*[A-Za-z_$])", re.M
)
# Code a type can end with: a name, `)`, `]`, `>`, `}` (not `=`, `,`, `(`, `=>`, `|`...).
_ENDS_A_TYPE = re.compile(rb"[\w$)\]>}]$")
_LINE_COMMENT = re.compile(rb"//[^\n]*")


def separate_call_signatures(source: bytes) -> bytes:
    """`source` with a `;` before each generic call signature that follows a member
    without a separator (see the module docstring)."""
    if b"<" not in source:
        return source
    edits = Edits(source)
    for match in _GENERIC_CALL_SIGNATURE.finditer(source):
        if _ENDS_A_TYPE.search(_previous_code_line(source, match.start())):
            edits.replace(match.end(1) - 1, match.end(1), b";")
    return edits.result()


def _previous_code_line(source: bytes, start: int) -> bytes:
    """The last line before offset `start` with code, its `//` comment dropped and the
    block comments that end lines passed over (effect documents each overload:
    `): A | Min` then `/** ... */` then `<A>(self: A): A`)."""
    end = start
    while end > 0:
        begin = source.rfind(b"\n", 0, end - 1) + 1
        line = _LINE_COMMENT.sub(b"", source[begin:end]).strip()
        if line.endswith(b"*/"):
            closing = source.rfind(b"*/", begin, end)
            end = max(source.rfind(b"/*", 0, closing), 0)  # the code before the comment
            continue
        if line:
            return line
        end = begin
    return b""
