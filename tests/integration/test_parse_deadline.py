"""A file that the parse deadline cuts short is skipped with its reason, and the files read
after it by the same parser are read as themselves (real files, real `symfind` processes)."""

from __future__ import annotations

import json
import subprocess
import sys
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
        [sys.executable, "-P", "-m", "symfind.daemon", *args],
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
