"""VerifiedFiles: a file is read once while it stays the same, and again when it changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from symfind.mcp_server.file_cache import LINE_OVERHEAD_BYTES, VerifiedFiles
from symfind.mcp_server.source import FileChanged
from symfind.storage import FileState, file_digest

TEXT = b"def f():\n    return 1\n"


def indexed(root: Path, name: str, data: bytes) -> dict[str, FileState]:
    """Write `name` under `root` and return the manifest entry an index would hold for it."""
    (root / name).write_bytes(data)
    return {name: FileState(mtime_ns=0, size=len(data), digest=file_digest(data))}


def test_an_unchanged_file_is_read_once(tmp_path: Path) -> None:
    files = indexed(tmp_path, "a.py", TEXT)
    cache = VerifiedFiles(tmp_path, racy_seconds=0)
    first = cache.lines("a.py", files)
    assert first == [b"def f():\n", b"    return 1\n"]
    assert cache.lines("a.py", files) is first


def test_a_file_changed_moments_ago_is_read_every_time(tmp_path: Path) -> None:
    files = indexed(tmp_path, "a.py", TEXT)
    cache = VerifiedFiles(tmp_path)  # the default: a just-written file is racy
    first = cache.lines("a.py", files)
    assert cache.lines("a.py", files) == first
    assert cache.lines("a.py", files) is not first


def test_a_replaced_file_of_the_same_size_is_read_again_and_refused(tmp_path: Path) -> None:
    files = indexed(tmp_path, "a.py", TEXT)
    cache = VerifiedFiles(tmp_path, racy_seconds=0)
    cache.lines("a.py", files)
    (tmp_path / "new").write_bytes(TEXT.replace(b"1", b"2"))
    os.replace(tmp_path / "new", tmp_path / "a.py")  # an editor's atomic save: a new inode
    with pytest.raises(FileChanged, match="changed since it was indexed"):
        cache.lines("a.py", files)


def test_a_file_written_in_place_is_refused(tmp_path: Path) -> None:
    files = indexed(tmp_path, "a.py", TEXT)
    cache = VerifiedFiles(tmp_path, racy_seconds=0)
    cache.lines("a.py", files)
    with open(tmp_path / "a.py", "ab") as handle:
        handle.write(b"# more\n")
    with pytest.raises(FileChanged, match="changed since it was indexed"):
        cache.lines("a.py", files)
    with pytest.raises(FileChanged):
        cache.check("a.py", files)


def test_a_reindexed_file_is_read_again(tmp_path: Path) -> None:
    files = indexed(tmp_path, "a.py", TEXT)
    cache = VerifiedFiles(tmp_path, racy_seconds=0)
    cache.lines("a.py", files)
    changed = TEXT.replace(b"1", b"2")
    files = indexed(tmp_path, "a.py", changed)
    assert cache.lines("a.py", files) == [b"def f():\n", b"    return 2\n"]


def test_least_recently_used_files_go_first(tmp_path: Path) -> None:
    files = {**indexed(tmp_path, "a.py", TEXT), **indexed(tmp_path, "b.py", TEXT)}
    one_file = len(TEXT) + 2 * LINE_OVERHEAD_BYTES  # two lines
    cache = VerifiedFiles(tmp_path, max_bytes=one_file * 3 // 2, racy_seconds=0)
    a = cache.lines("a.py", files)
    b = cache.lines("b.py", files)
    assert cache.lines("b.py", files) is b
    assert cache.lines("a.py", files) is not a
