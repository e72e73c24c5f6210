"""Rust items written inside a macro call: `cfg_net! { pub fn lookup_host ... }`.

A braced macro call where an item may stand (at a file's top level, in a `mod`, an
`impl` or a `trait`) expands to items, and crates use such calls to gate whole groups of
them behind a feature (tokio's `cfg_net!`, `cfg_rt!`; `cfg_if!`; `thread_local!`). The
grammar reads a macro's braces as a token tree, not as items, so nothing inside would be
found. `call_wrappers` and `unwrapped` blank each such call's name, `!` and braces, so that a
re-parse reads what was inside as items of the scope around the call (their qualified
names are those of the `impl` or `mod` they stand in); a call inside a call is seen by
the next re-parse, down to `MAX_DEPTH` calls deep. Calls with `(...)` or `[...]` are left
alone: at item level they are rare, and usually take arguments rather than items.

Imports: tree_sitter, `extract` modules.
"""

from __future__ import annotations

from typing import NamedTuple

from tree_sitter import Node

from symfind.extract.rewrite.offsets import Edits

#: The grammars whose trees this reads.
ITEM_MACRO_GRAMMARS = frozenset({"rust"})
#: Where a macro call stands for items: a file's top level, and the body of a `mod`, an
#: `impl` or a `trait`.
_ITEM_LISTS = frozenset({"source_file", "declaration_list"})
#: Calls inside calls unwrapped, at most (each level costs the file one more parse).
MAX_DEPTH = 4


def item_macro_calls(root: Node) -> list[Node]:
    """The braced macro calls standing where items do in `root`'s tree, in order."""
    found: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in _ITEM_LISTS:
                stack.append(child)
            elif child.type in {"mod_item", "impl_item", "trait_item"}:
                body = child.child_by_field_name("body")
                if body is not None:
                    stack.append(body)
            elif child.type == "macro_invocation" and _braced(child) is not None:
                found.append(child)
    return sorted(found, key=lambda call: call.start_byte)


class Span(NamedTuple):
    """Bytes blanked, and where they start and end as (row, column), as a parse tree's
    `edit` takes them (the same before and after: blanking moves nothing)."""

    start_byte: int
    end_byte: int
    start_point: tuple[int, int]
    end_point: tuple[int, int]


def call_wrappers(calls: list[Node]) -> list[Span]:
    """What to blank of each of `calls` so that its inside stands where it does: its name,
    `!` and `{` (one span), and its `}` (another)."""
    spans = []
    for call in calls:
        tokens = _braced(call)
        if tokens is None:
            continue
        (open_row, open_column), (close_row, close_column) = tokens.start_point, tokens.end_point
        spans.append(Span(call.start_byte, tokens.start_byte + 1,
                          tuple(call.start_point), (open_row, open_column + 1)))
        spans.append(Span(tokens.end_byte - 1, call.end_byte,
                          (close_row, close_column - 1), tuple(call.end_point)))
    return spans


def unwrapped(source: bytes, spans: list[Span]) -> bytes:
    """`source` with `spans` blanked."""
    edits = Edits(source)
    for span in spans:
        edits.blank(span.start_byte, span.end_byte)
    return edits.result()


def _braced(call: Node) -> Node | None:
    """The call's token tree when it is in braces."""
    tokens = next((child for child in call.named_children if child.type == "token_tree"), None)
    if tokens is None or tokens.child_count < 2:
        return None
    if tokens.children[0].type != "{" or tokens.children[-1].type != "}":
        return None
    return tokens
