"""`changed_paths`: what a batch of file events asks the daemon to re-check.

The events are what the watcher hands over for everyday edits (a fake event source: the
same `Change` records, without watchdog), and each test compares the whole answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from symfind.daemon.changes import Change, ChangedPaths, changed_paths
from symfind.daemon.walk import Relevance, judge_path

ROOT = Path("/work/repo")


def events(*items: tuple[str, bool]) -> list[Change]:
    """Changes as the watcher hands them over: absolute paths, directory or not."""
    return [Change(str(ROOT / relative) if not relative.startswith("/") else relative, is_dir)
            for relative, is_dir in items]


@pytest.mark.parametrize(
    ("name", "changes", "expected"),
    [
        (
            "an editor's save: write a temporary file, rename it over the original",
            events(("pkg/.mod.py.swp", False), ("pkg/.mod.py.swp", False), ("pkg/mod.py", False)),
            ChangedPaths(files=frozenset({"pkg/.mod.py.swp", "pkg/mod.py"})),
        ),
        (
            "a directory moved within the repository: both ends are re-checked",
            events(("old", True), ("new/place", True)),
            ChangedPaths(directories=frozenset({"old", "new/place"})),
        ),
        (
            "a file moved out of the repository reports its source only",
            events(("src/a.py", False), ("/tmp/elsewhere/a.py", False)),
            ChangedPaths(files=frozenset({"src/a.py"})),
        ),
        (
            "ignore files change the rules of their directory, git's exclude file the root's",
            events(("web/.symfindignore", False), ("lib/.ignore", False),
                   (".git/info/exclude", False), ("lib/x.c", False)),
            ChangedPaths(files=frozenset({"lib/x.c"}),
                         ignore_dirs=frozenset({"", "web", "lib"})),
        ),
        (
            "a file named like an ignore file is not one when only its prefix matches",
            events(("docs/.gitignore.bak", False), ("docs/x.gitignore", False)),
            ChangedPaths(files=frozenset({"docs/.gitignore.bak", "docs/x.gitignore"})),
        ),
        (
            "nothing inside the repository",
            events(("/tmp/a.py", False), ("/work/repository-next/b.py", False)),
            ChangedPaths(),
        ),
    ],
)
def test_changes_become_the_paths_to_recheck(
    name: str, changes: list[Change], expected: ChangedPaths
) -> None:
    assert changed_paths(changes, ROOT) == expected, name


def test_a_burst_of_a_branch_switch_is_sorted_in_one_pass() -> None:
    # `git checkout` of another branch: files rewritten, one directory created, one removed.
    rewritten = [(f"src/m{i}.py", False) for i in range(2_000)]
    changes = events(*rewritten, ("src/new_pkg", True), ("src/gone_pkg", True), *rewritten)
    assert changed_paths(changes, ROOT) == ChangedPaths(
        files=frozenset(path for path, _ in rewritten),
        directories=frozenset({"src/new_pkg", "src/gone_pkg"}),
    )


def test_events_where_the_index_never_looks_are_told_apart() -> None:
    """`walk.judge_path` as the watcher asks it: below a directory never indexed (at any
    depth for `.git`, `node_modules` and the like; at the root for `build`, `vendor`...),
    except git's own ignore file."""
    paths = ["src/a.py", ".git/index", ".git/info/exclude", "web/node_modules/x/index.js",
             "build/gen.py", "src/build/gen.py", "vendor/lib.go", "pkg/__pycache__/m.pyc",
             "node_modules", ".gitignore", "docs/.venv/bin/activate"]
    assert [p for p in paths if judge_path(p).relevance is Relevance.NEVER] == [
        ".git/index", "web/node_modules/x/index.js", "build/gen.py", "vendor/lib.go",
        "pkg/__pycache__/m.pyc", "docs/.venv/bin/activate",
    ]
