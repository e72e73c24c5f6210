"""rewrite: what the parser reads, the source with what derails a grammar rewritten.

tree-sitter's grammars have gaps: C and C++ are parsed without a preprocessor, and some
dialects and newer syntax are unknown to the bundled grammars. Each gap is closed by one
rewrite of the bytes before parsing, in one module here, registered in `REWRITES`:

- `managed_cpp.py`: C++/CLI and C++/CX written as the C++ they mean;
- `c_macros.py`: C and C++ macros blanked (the names it knows are data in `c_names.py`;
  its scans are in `c_declarations.py`, `c_lines.py` and `c_conditionals.py`, over the
  lexing of `c_tokens.py`);
- `template_types.py`: escapes in TypeScript template literal types made plain;
- `variance.py`: TypeScript variance annotations blanked;
- `call_signatures.py`: TypeScript call signatures that follow one another separated.

Every rewrite keeps the rule of `offsets.py`: the same length, every newline where it
was, so that the parse tree's offsets and rows are the file's (names are read from the
rewritten bytes, signatures and docs from the source as written). They change bytes only
through `offsets.Edits`.

Order and composition: `parser_input` applies, in the order of `REWRITES`, every rewrite
whose grammars hold the file's grammar; each reads what the one before produced (C++/CLI
is made C++ before its macros are looked for). Several rewrites on one grammar compose
by that order alone: none is skipped because another ran, and a rewrite added to the
list runs for its grammars wherever it stands. Since each keeps the rule, so does the
whole.

After the first parse, three re-parses read the file with a part blanked: the body of a
JavaScript module wrapper alone (`module_bodies.py` finds them in the tree), the file with
Rust's braced macro calls at item level unwrapped (`item_macros.py`: their insides read as
items), and the rest of a file after a region the parser lost (error recovery, parse.py).

Imports: `extract` modules only (and, in `module_bodies.py` and `item_macros.py`, tree_sitter).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from symfind.extract.rewrite.c_macros import blank_macros
from symfind.extract.rewrite.call_signatures import separate_call_signatures
from symfind.extract.rewrite.managed_cpp import as_standard_cpp
from symfind.extract.rewrite.template_types import plain_template_types
from symfind.extract.rewrite.variance import blank_variance_annotations


class Rewrite(NamedTuple):
    """One rewrite: its name, the grammars (tree-sitter's names) it runs for, and the
    function from bytes to bytes of the same length and newlines."""

    name: str
    grammars: frozenset[str]
    apply: Callable[[bytes], bytes]


_TYPESCRIPT = frozenset({"typescript", "tsx"})

# Every rewrite, in the order they run (see the module docstring).
REWRITES: tuple[Rewrite, ...] = (
    Rewrite("managed-cpp", frozenset({"cpp"}), as_standard_cpp),
    Rewrite("c-macros", frozenset({"c", "cpp"}), blank_macros),
    Rewrite("template-types", _TYPESCRIPT, plain_template_types),
    Rewrite("variance", _TYPESCRIPT, blank_variance_annotations),
    Rewrite("call-signatures", _TYPESCRIPT, separate_call_signatures),
)


def parser_input(grammar: str, source: bytes) -> bytes:
    """What the parser of `grammar` reads for `source`: the same bytes at the same
    offsets, with every rewrite of `REWRITES` for that grammar applied in order."""
    for rewrite in REWRITES:
        if grammar in rewrite.grammars:
            source = rewrite.apply(source)
    return source


__all__ = ["REWRITES", "Rewrite", "parser_input"]
