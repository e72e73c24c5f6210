"""`extract.c_types.BUILTIN_TYPES` is what tree-sitter's C and C++ grammars read as built-in
types: each name in it parses as a `primitive_type`, and no other name tried does."""

from __future__ import annotations

import pytest
from tree_sitter import Parser
from tree_sitter_language_pack import get_language

from symfind.extract.c_types import BUILTIN_TYPES

#: Names a C grammar might read either way: standard types, keywords, a project's own.
TRIED = sorted(BUILTIN_TYPES | {
    "_Bool", "wchar_t", "off_t", "time_t", "u8", "uint128_t", "int128_t", "__int128",
    "char128_t", "Foo", "node", "string", "byte", "boolean", "size_type",
})


def read_as(language: str, name: str) -> str:
    """The node type the grammar gives `name` written as a declaration's type."""
    declaration = Parser(get_language(language)).parse(f"{name} x;".encode()).root_node.child(0)
    written = declaration.child_by_field_name("type") if declaration is not None else None
    return written.type if written is not None else ""


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_the_built_in_types_are_those_the_grammar_reads_as_primitive(language: str) -> None:
    assert {name for name in TRIED if read_as(language, name) == "primitive_type"} == (
        BUILTIN_TYPES)
