"""Path globs become anchored regexes over whole repo-relative paths."""

from __future__ import annotations

import re

import pytest

from symfind.storage.search import glob_to_regex

PATHS = ["a.py", "src/a.py", "src/pkg/b.py", "tests/test_a.py", "src/pkg/c.go", "docs/x.md"]


@pytest.mark.parametrize(
    ("glob", "matching"),
    [
        ("*.py", ["a.py", "src/a.py", "src/pkg/b.py", "tests/test_a.py"]),
        ("src/*.py", ["src/a.py"]),
        ("src/**/*.py", ["src/a.py", "src/pkg/b.py"]),
        ("src/", ["src/a.py", "src/pkg/b.py", "src/pkg/c.go"]),
        ("src/pkg", ["src/pkg/b.py", "src/pkg/c.go"]),
        ("tests", ["tests/test_a.py"]),
        ("?.py", ["a.py", "src/a.py", "src/pkg/b.py"]),
        ("./src/pkg/c.go", ["src/pkg/c.go"]),
        ("src/(a|b).py", []),
        ("../../etc/passwd", []),
    ],
)
def test_glob_matches_whole_paths(glob: str, matching: list[str]) -> None:
    pattern = re.compile(glob_to_regex(glob))
    assert [p for p in PATHS if pattern.fullmatch(p)] == matching
