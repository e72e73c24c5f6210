"""A long-lived reader's memory stays flat while commits keep coming: freed memory goes
back to the system (after a daemon's catch-up; from an `IndexSource` that keeps loading new
commits, at most once per `RELEASE_EVERY_S`), and a `Searcher` opens Tantivy's index anew
every `RELOADS_PER_OPEN` reloads."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from symfind.extract.records import Symbol, SymbolKind
from symfind.storage import IndexWriter, Searcher, SearchQuery, sources
from symfind.storage import search as search_module
from symfind.storage.records import FileState
from symfind.storage.sources import IndexSource

# A child process fills its heap with small blocks, frees all but one block after them (so
# the heap's top cannot shrink by itself), and prints its resident KiB before and after the
# release.
_FRAGMENTED = """
from symfind.storage.heap import release_free_memory

def resident_kib():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1])

blocks = [bytearray(512) for _ in range(400_000)]
keep = bytearray(512)
del blocks
before = resident_kib()
release_free_memory()
print(before, resident_kib())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_released_memory_leaves_the_process() -> None:
    run = subprocess.run([sys.executable, "-c", _FRAGMENTED], capture_output=True, text=True,
                         check=True)
    before, after = map(int, run.stdout.split())
    # ~200 MiB were freed; glibc kept them resident until the release.
    assert before - after > 100 * 1024, (before, after)


def commit_file(writer: IndexWriter, path: str, name: str) -> None:
    """Commit `path` as holding one function, `name`."""
    state = FileState(size=1, mtime_ns=1, digest="d", language="python")
    writer.replace_file(path, state, [Symbol(
        name=name, qualname=name, kind=SymbolKind.FUNCTION, language="python", path=path,
        line=1, end_line=1, start_line=1, signature=f"def {name}()", doc="")])
    writer.commit()


def test_a_source_releases_memory_after_new_commits_at_most_once_a_period(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    releases = []

    def counted() -> None:
        releases.append(1)

    monkeypatch.setattr(sources, "release_free_memory", counted)
    index_dir = tmp_path / "index"
    with IndexWriter(index_dir, repo_root=Path("/repo"), options_hash="h") as writer:
        commit_file(writer, "a.py", "first")
        source = IndexSource(index_dir)
        monkeypatch.setattr(sources, "RELEASE_EVERY_S", 0.0)
        assert [r.name for r in source.search(SearchQuery(text="first")).results] == ["first"]
        assert releases == []  # opened, not refreshed: nothing loaded over an old commit
        commit_file(writer, "b.py", "second")
        assert [r.name for r in source.search(SearchQuery(text="second")).results] == ["second"]
        assert releases == [1]  # a new commit loaded
        source.search(SearchQuery(text="second"))
        assert releases == [1]  # no new commit: nothing to release
        monkeypatch.setattr(sources, "RELEASE_EVERY_S", 3600.0)
        commit_file(writer, "c.py", "third")
        assert [r.name for r in source.search(SearchQuery(text="third")).results] == ["third"]
        assert releases == [1]  # released less than an hour ago


def test_a_long_lived_searcher_opens_the_index_anew_every_so_many_reloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tantivy's Index keeps a little memory per reload that only a fresh Index frees.
    monkeypatch.setattr(search_module, "RELOADS_PER_OPEN", 3)
    index_dir = tmp_path / "index"
    with IndexWriter(index_dir, repo_root=Path("/repo"), options_hash="h") as writer:
        commit_file(writer, "a.py", "f0")
        searcher = Searcher(index_dir)
        opened = [id(searcher._index)]
        for n in range(1, 8):
            commit_file(writer, "a.py", f"f{n}")
            assert searcher.refresh()
            # Every commit is seen, whether reloaded or opened anew.
            found = searcher.search(SearchQuery(text=f"f{n}")).results
            assert [(r.name, r.path) for r in found] == [(f"f{n}", "a.py")]
            assert searcher.num_symbols == 1
            opened.append(id(searcher._index))
    # Reloaded twice, opened anew at the third reload; again at the sixth.
    assert [opened[i] == opened[i - 1] for i in range(1, 8)] == [
        True, True, False, True, True, False, True]
