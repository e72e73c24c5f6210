"""The names tree-sitter's C and C++ grammars read as built-in types.

Imports: nothing. Read by `storage/references.py` when it answers for a C type.

The grammars parse each of these as a `primitive_type` wherever it is written, never as a
name: a definition of one (`typedef char bool;` in code older than C99, a project's own
`uint8_t` for an old compiler) is indexed, but no use of it is captured.
`tests/unit/extract/test_c_types.py` checks the set against the grammars.
"""

from __future__ import annotations

BUILTIN_TYPES = frozenset({
    "bool", "char", "int", "float", "double", "void",
    "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "charptr_t", "nullptr_t",
    "max_align_t",
    *(f"{kind}{bits}_t" for kind in ("int", "uint", "char") for bits in (8, 16, 32, 64)),
})
