"""Escape sequences in TypeScript template literal types, made plain characters.

A template literal type may hold escapes like any template string (`` type Hint<U> =
`use \\`${U}\\` instead` ``), but tree-sitter-typescript as bundled by the language pack
0.13 reads no escape in one: the type becomes an ERROR node, and in a large file
(effect's `Schema.ts`, 19,546 lines) the error swallowed the whole file.
`plain_template_types` turns each escape (a backslash and the character after it) into
two underscores, at the same offsets, in the template literal that is a type alias's
value: no name or line moves, and only the text of a string type changes (an escaped
newline keeps its newline: the rule of offsets.py).

Template literal types elsewhere (a parameter's annotation, a member of a union) are
left as written: recognising a type position there takes a parser, and they have not
been seen to derail a file.

Imports: the standard library and `extract` modules only.
"""

from __future__ import annotations

import re

from symfind.extract.rewrite.offsets import Edits

# `type Name<...> =` then the opening backtick of a template literal.
_ALIAS_OF_TEMPLATE = re.compile(rb"\btype[ \t]+[A-Za-z_$][\w$]*[ \t]*(?:<[^`;]*?>)?\s*=\s*`")
# Up to the closing backtick: characters, or an escape (group 1); `${...}` holes hold
# types, not backticks, in every template type seen.
_TEMPLATE_BODY = re.compile(rb"(?:[^`\\]|(\\.))*`", re.S)
_ESCAPE = re.compile(rb"\\.", re.S)
_PLAIN = b"__"


def plain_template_types(source: bytes) -> bytes:
    """`source` with the escapes of every type alias's template literal made `__`."""
    if b"`" not in source or b"\\" not in source:
        return source
    edits = Edits(source)
    for alias in _ALIAS_OF_TEMPLATE.finditer(source):
        body = _TEMPLATE_BODY.match(source, alias.end())
        if body is None or body.start(1) < 0:
            continue  # unclosed, or no escape in it
        for escape in _ESCAPE.finditer(source, body.start(), body.end()):
            edits.replace(escape.start(), escape.end(), _PLAIN)
    return edits.result()
