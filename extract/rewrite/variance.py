"""TypeScript variance annotations on type parameters, blanked.

TypeScript 4.7 lets a type parameter say its variance: `interface Channel<out A, in B>`,
`type Fn<in out T> = ...`. tree-sitter-typescript as bundled by the language pack 0.13
knows none of it: the declaration becomes an ERROR node, and in a large file (effect's
`Channel.ts`, `Stream.ts`, `RequestResolver.ts`) the error swallows the whole file.
`blank_variance_annotations` replaces each `in`/`out` modifier with spaces, at the same
offsets (offsets.py): the parameter is then an ordinary one, and no name or line moves.

A modifier is `in`, `out` or `in out` that begins a type parameter (right after a `<`
that follows a name, or after a `,`) and is followed by the parameter's name and what
may come after a name there (`extends`, `=`, `,`, `>`): `<in A>`, `<A, out B = never>`.
A parameter named `in` is not valid TypeScript, and one named `out` is left alone
(`<out extends X>`: no name follows it). Elsewhere in code no `in` or `out` stands
there; in comments and strings (`, in particular,`) the blanking changes nothing the
parse or the index reads (docs and signatures are read from the source as written).

Imports: the standard library and `extract` modules only.
"""

from __future__ import annotations

import re

from symfind.extract.rewrite.offsets import Edits

_MODIFIER = re.compile(
    rb"[<,]\s*((?:in|out)[ \t]+(?:out[ \t]+)?)(?=[A-Za-z_$][\w$]*\s*(?:extends\b|[=,>]))"
)
# What may stand before the `<` of a type parameter list: a declared name.
_NAME_END = re.compile(rb"[\w$][ \t]*$")
_NAME_CONTEXT_BYTES = 64


def blank_variance_annotations(source: bytes) -> bytes:
    """`source` with every variance modifier of a type parameter turned into spaces."""
    if b"in " not in source and b"out " not in source:
        return source
    edits = Edits(source)
    for match in _MODIFIER.finditer(source):
        start = match.start()
        if source[start] == ord("<") and not _NAME_END.search(
            source, max(start - _NAME_CONTEXT_BYTES, 0), start
        ):
            continue  # not after a name: `"<in progress>"` is no type parameter list
        edits.blank(*match.span(1))
    return edits.result()
