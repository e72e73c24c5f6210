"""C and C++ macros that derail tree-sitter, blanked before parsing.

tree-sitter parses C and C++ without a preprocessor: a line that is only a macro, an
export macro between `class` and the name, an annotation macro after a parameter list,
X-macro helpers in an enum, comments inside a `#define`, or a conditional directive in
the middle of an expression make it lose the rest of a scope, and every definition in
it. `blank_macros` replaces those bytes with spaces (the rule of offsets.py: every byte
offset and line number stays the file's), and the definitions are read from the source
as written (parse.py).

What is known of projects' macros by name is data (c_names.py); each shape a macro takes
is a pattern and the scan that finds it (c_declarations.py, c_lines.py,
c_conditionals.py, over the lexing of c_tokens.py); `blank_macros` runs the scans of
one table, `_BLANKED`, and then makes a macro that stands for a keyword that keyword.

Imports: the standard library and `extract` modules only.
"""

from __future__ import annotations

from collections.abc import Callable

from symfind.extract.rewrite.c_conditionals import first_branches_only
from symfind.extract.rewrite.c_declarations import (
    calling_convention_names, calling_conventions_in_pointers, class_macros,
    leading_attribute_macros, macros_before_names, specifier_macros, trailing_macros,
)
from symfind.extract.rewrite.c_lines import comments_in_defines, keyword_macros, swept_shapes
from symfind.extract.rewrite.offsets import Edits

# The shapes of macros that are blanked, each found by its scan. All of them read the
# source as written, and their spans are blanked together: their order does not matter.
_BLANKED: tuple[Callable[[bytes], list[tuple[int, int]]], ...] = (
    first_branches_only,  # conditional groups read as their first branch
    class_macros,
    trailing_macros,
    calling_conventions_in_pointers,
    leading_attribute_macros,
    macros_before_names,
    calling_convention_names,
    specifier_macros,
    comments_in_defines,
    swept_shapes,  # lone macro lines, and what an enum's body or open parentheses tell
)


def blank_macros(source: bytes) -> bytes:
    """Replace what derails tree-sitter in C and C++ with spaces, keeping every byte
    offset and line number: lone macro lines, class export, declaration specifier,
    trailing annotation and leading attribute macros, calling conventions, X-macro
    helpers in enums, comments inside `#define`s, and conditional directives inside
    parentheses (`_BLANKED`); then a macro standing for an access specifier, `try` or
    `catch` becomes that keyword, one standing for a whole catch clause a clause
    catching everything (`c_lines.keyword_macros`)."""
    edits = Edits(source)
    for scan in _BLANKED:
        for start, end in scan(source):
            edits.blank(start, end)
    for start, end, keyword in keyword_macros(source):
        edits.replace(start, end, keyword)
    return edits.result()
