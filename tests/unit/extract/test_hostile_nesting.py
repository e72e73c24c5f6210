"""The `#set! outside` check (parse.py) walks up from each candidate: however deep the
nesting, the walk is bounded (MAX_SCOPE_DEPTH) and the file still extracts."""

from __future__ import annotations

from symfind.extract import extract_symbols
from symfind.extract.parse import MAX_SCOPE_DEPTH


def nested_ifs(depth: int) -> bytes:
    lines = ["top = 1"]
    lines += ["    " * level + "if x:" for level in range(depth)]
    lines.append("    " * depth + "deep = 2")
    return ("\n".join(lines) + "\n").encode()


def test_a_variable_nested_past_the_bound_is_left_out_and_the_rest_extracted() -> None:
    # Each `if` puts two nodes (if_statement, block) between the assignment and the module.
    symbols = extract_symbols("deep.py", nested_ifs(MAX_SCOPE_DEPTH))
    assert [(s.name, s.line) for s in symbols] == [("top", 1)]


def test_a_variable_nested_within_the_bound_is_a_module_variable() -> None:
    symbols = extract_symbols("shallow.py", nested_ifs(20))
    assert [(s.name, s.line) for s in symbols] == [("top", 1), ("deep", 22)]
