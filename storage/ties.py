"""The tree's own order among definitions a search ranks alike: what `channels.closeness`
falls back on once what was typed has had its say, and the fast fields that let a channel
put thousands of equal matches in that order without reading their records.

Imports: `extract.records`, `storage.priors`.

The order: the product's code before its tests, the kind of definition (`KIND_ORDER`), a
definition before its declarations (`@overload` stubs, TypeScript overload signatures),
then where it is (path, line) and every other field of its record that can tell two apart
(`tie_key`), never where its document happens to sit in the index.

The start of that order lives in two fast fields of each document: `tie_flags` (tests,
kind, declaration, as one number) and `path_head` (the path's first 8 UTF-8 bytes as one
big-endian number: UTF-8 keeps code points' order, so two paths whose heads differ are in
their heads' order). A channel puts thousands of equal matches in order by these, and
reads the records of those equal on both where its cut falls only
(`storage.channels._first_by_the_tree`): mostly definitions of one file.
"""

from __future__ import annotations

import functools

from symfind.extract.records import Symbol, SymbolKind
from symfind.storage.priors import is_test_path

#: Definition kinds in tie-break order: types first, then callables, then the rest.
KIND_ORDER: dict[SymbolKind, int] = {
    kind: order
    for order, kind in enumerate(
        (
            SymbolKind.CLASS,
            SymbolKind.STRUCT,
            SymbolKind.INTERFACE,
            SymbolKind.TRAIT,
            SymbolKind.ENUM,
            SymbolKind.TYPE,
            SymbolKind.FUNCTION,
            SymbolKind.METHOD,
            SymbolKind.MACRO,
            SymbolKind.MODULE,
            SymbolKind.CONSTANT,
        )
    )
}

#: The fast fields holding the start of a document's `tree_order` (`storage.schema`).
TIE_FLAGS_FIELD = "tie_flags"
PATH_HEAD_FIELD = "path_head"
PATH_HEAD_BYTES = 8

#: `priors.is_test_path` of the paths met (a search breaks ties among hundreds of
#: candidates, most in a few files).
in_tests = functools.lru_cache(maxsize=16384)(is_test_path)


def kind_rank(symbol: Symbol) -> int:
    return KIND_ORDER.get(symbol.kind, len(KIND_ORDER))


def tie_key(symbol: Symbol) -> tuple[object, ...]:
    """The last tie-break: where the definition is and what it is, every field of its
    record that can tell two apart (never where its document happens to sit)."""
    return (symbol.path, symbol.line, symbol.name, symbol.qualname, str(symbol.kind),
            symbol.end_line, symbol.start_line, symbol.signature, symbol.doc, symbol.body)


def tree_order(symbol: Symbol) -> tuple[object, ...]:
    """A definition's place in the tree's order: tests last, then `KIND_ORDER`, a
    declaration after its definition, then `tie_key`."""
    return (in_tests(symbol.path), kind_rank(symbol), symbol.declaration, *tie_key(symbol))


def tie_flags(symbol: Symbol) -> int:
    """The first three parts of `tree_order` as one number in their order: tests, the
    kind's rank (below 32), the declaration bit."""
    return in_tests(symbol.path) << 6 | kind_rank(symbol) << 1 | symbol.declaration


@functools.lru_cache(maxsize=1024)  # a file's definitions share it
def path_head(path: str) -> int:
    """The first `PATH_HEAD_BYTES` bytes of a path's UTF-8, zero-padded, as a big-endian
    number: paths whose heads differ are in the order of their heads (no path holds a
    zero byte, so a shorter path's padding sorts first, as its string does)."""
    return int.from_bytes(path.encode()[:PATH_HEAD_BYTES].ljust(PATH_HEAD_BYTES, b"\0"), "big")
