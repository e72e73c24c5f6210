"""Path globs become anchored regexes over whole repo-relative paths."""

from __future__ import annotations

import re

import pytest

from symfind.storage import QueryError
from symfind.storage.globs import check_path_filter, glob_to_regex

PATHS = ["a.py", "src/a.py", "src/pkg/b.py", "tests/test_a.py", "src/pkg/c.go", "docs/x.md",
         ".github/ci.py", "app/[id]/page.ts"]


@pytest.mark.parametrize(
    ("glob", "matching"),
    [
        ("*.py", ["a.py", "src/a.py", "src/pkg/b.py", "tests/test_a.py", ".github/ci.py"]),
        ("src/*.py", ["src/a.py"]),
        ("src/**/*.py", ["src/a.py", "src/pkg/b.py"]),
        ("src/", ["src/a.py", "src/pkg/b.py", "src/pkg/c.go"]),
        ("src/pkg", ["src/pkg/b.py", "src/pkg/c.go"]),
        ("tests", ["tests/test_a.py"]),
        ("?.py", ["a.py", "src/a.py", "src/pkg/b.py"]),
        ("./src/pkg/c.go", ["src/pkg/c.go"]),
        ("src/(a|b).py", []),
        (".github/", [".github/ci.py"]),
        ("src/pkg/[bc].*", ["src/pkg/b.py", "src/pkg/c.go"]),
        ("src/pkg/[!b].*", ["src/pkg/c.go"]),
        ("src/pkg/[a-b].py", ["src/pkg/b.py"]),
        ("app/[[]id]/", ["app/[id]/page.ts"]),
        ("app/[id]/", []),
    ],
)
def test_glob_matches_whole_paths(glob: str, matching: list[str]) -> None:
    pattern = re.compile(glob_to_regex(glob))
    assert [p for p in PATHS if pattern.fullmatch(p)] == matching


@pytest.mark.parametrize(
    ("glob", "problem"),
    [
        ("../..", "leaves the repository"),
        ("src/../../etc", "leaves the repository"),
        ("/etc/*", "is absolute"),
        ("~/.ssh/", "is absolute"),
        ("C:\\Windows", "is absolute"),
        ("[[", "has an unclosed '['"),
        ("src/[a-", "has an unclosed '['"),
        ("src[/]a.py", "has a class of '/' only"),
    ],
)
def test_path_filters_outside_the_repository_or_malformed_are_refused(
    glob: str, problem: str
) -> None:
    with pytest.raises(QueryError) as caught:
        check_path_filter(glob)
    assert str(caught.value) == (
        f"path filter {glob!r} {problem}; a path filter is a glob relative to the repository "
        "root: `src/**/*.py`, `tests/`, `*.go` (`*`, `**`, `?` and `[abc]` classes)"
    )
