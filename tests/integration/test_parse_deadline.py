"""A file that the parse deadline cuts short is skipped with its reason, and the files read
after it by the same parser are read as themselves; deeply nested code is indexed or
skipped within the deadline (real files, real `symfind` processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import pytest

from symfind.daemon.config import load_config
from symfind.storage import Searcher

ROOT = Path(__file__).resolve().parents[2]
# More small files than the pool's threshold (daemon/workers.PARALLEL_FROM_FILES), so that
# `--workers 2` extracts in worker processes, where the big file's worker reads the files
# of its task after it.
SMALL_FILES = 70
BIG_BYTES = 200 * 1024 * 1024


def symfind(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", *args],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )


def write_big_python(path: Path, size: int) -> None:
    """Valid Python of `size` bytes or more, written a block at a time: more than the
    parse deadline lets tree-sitter read."""
    block = b"".join(b"class Big%d:\n    def method(self, x):\n        return x + %d\n\n" % (i, i)
                     for i in range(10_000))
    with path.open("wb") as out:
        while out.tell() < size:
            out.write(block)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> object:
    repo = tmp_path_factory.mktemp("timeout") / "repo"
    repo.mkdir()
    big = repo / "a_big.py"  # walked first: the small files come after it
    write_big_python(big, BIG_BYTES)
    for number in range(1, SMALL_FILES + 1):
        (repo / f"small{number:02d}.py").write_text(
            f"class Small{number}Class:\n    def run(self):\n        return {number}\n",
            encoding="utf-8",
        )
    yield repo
    big.unlink()  # 200 MB: not left for the end of the session


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_file_cut_short_by_the_parse_deadline_leaves_the_next_files_intact(
    repo: Path, workers: str
) -> None:
    result = symfind("reindex", str(repo), "--max-file-bytes", "300000000",
                     "--workers", workers, "--json")
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout)["skipped"] == {"parse_timeout": 1}

    index_dir = load_config(repo).index_dir
    symbols = sorted((s.path, s.line, s.qualname, s.kind.value)
                     for s in Searcher(index_dir).all_symbols())
    expected = sorted(
        entry
        for number in range(1, SMALL_FILES + 1)
        for entry in [(f"small{number:02d}.py", 1, f"Small{number}Class", "class"),
                      (f"small{number:02d}.py", 2, f"Small{number}Class.run", "method")]
    )
    assert symbols == expected

    found = json.loads(symfind("search", "Small1Class", "--repo", str(repo), "--json",
                               "--limit", "1").stdout)
    assert [(r["path"], r["qualname"]) for r in found["results"]] == [("small01.py", "Small1Class")]

    listed = symfind("status", str(repo), "--skipped", "--json")
    assert json.loads(listed.stdout) == {
        "not_indexed": [{"path": "a_big.py", "reason": "parse_timeout"}],
        "parsed_with_errors": [], "symfind_version": version("symfind"),
    }


# --- Deeply nested JavaScript: indexed, or passed over with its reason, within the deadline ---

# Each shape nested `depth` deep, and the (name, line) of every definition it holds.
NESTED: dict[str, tuple[Callable[[int], bytes], Callable[[int], list[tuple[str, int]]]]] = {
    "objects": (lambda depth: b"var x = " + b"{a:\n" * depth + b"1" + b"}\n" * depth + b";\n",
                lambda depth: [("x", 1)]),
    "functions": (lambda depth: b"function f(){\n" * depth + b"}\n" * depth,
                  lambda depth: [("f", line) for line in range(1, depth + 1)]),
    "classes": (lambda depth: b"class A { m() {\n" * depth + b"}}\n" * depth,
                lambda depth: [(name, line) for line in range(1, depth + 1) for name in "Am"]),
    "callbacks": (lambda depth: b"a(function(){\n" * depth + b"});\n" * depth,
                  lambda depth: []),
}


def nested_file(shape: str, size: int) -> tuple[bytes, list[tuple[str, int]]]:
    """`shape` nested deep enough to fill `size` bytes, and the definitions it holds."""
    make, defined = NESTED[shape]
    depth = size // len(make(1))
    return make(depth), sorted(defined(depth), key=lambda entry: (entry[1], entry[0]))


@pytest.mark.slow
def test_deeply_nested_javascript_is_indexed_or_passed_over_within_the_deadline(
    tmp_path: Path,
) -> None:
    # The sizes of the report: 10 KB took 3 s, 41 KB 49 s, 51 KB 115 s (and 4 KB of nested
    # object literals a minute): the time went into walking up from each definition
    # (tree-sitter keeps no parent links) and, for classes, into the tag query.
    repo = tmp_path / "repo"
    repo.mkdir()
    expected = {}
    for shape in NESTED:
        for size in (10_000, 41_000, 51_000):
            source, defined = nested_file(shape, size)
            path = f"{shape}_{size // 1000}k.js"
            (repo / path).write_bytes(source)
            expected[path] = defined
    # Without a bound this ran for hours; with it, each file costs the deadline at most.
    result = subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", "index", str(repo), "--json",
         "--workers", "1"],
        capture_output=True, text=True, check=False, cwd=ROOT, timeout=600,
    )
    assert (result.returncode, result.stderr) == (0, "")

    found: dict[str, list[tuple[str, int]]] = {}
    for symbol in Searcher(load_config(repo).index_dir).all_symbols():
        found.setdefault(symbol.path, []).append((symbol.name, symbol.line))
    listed = json.loads(symfind("status", str(repo), "--skipped", "--json").stdout)
    skipped = {entry["path"]: entry["reason"] for entry in listed["not_indexed"]}
    assert set(skipped.values()) <= {"parse_timeout"}
    for path, defined in expected.items():
        if path in skipped:
            assert path not in found
        else:  # indexed: every definition, none made up
            assert sorted(found.get(path, []), key=lambda e: (e[1], e[0])) == defined, path
    # The smallest are far inside the deadline, whatever the machine's load.
    assert not {path for path in skipped if path.endswith("_10k.js")}
