"""File states written before ctime and inode were recorded still read, with both at 0
(so that the next check reads such a file again once, and records them)."""

from __future__ import annotations

import msgspec

from symfind.storage import FileState
from symfind.storage.manifest import FileChanges


def test_a_log_frame_without_ctime_and_inode_reads_with_zeros() -> None:
    old_frame = msgspec.msgpack.encode(
        {"files": {"a.py": {"mtime_ns": 5, "size": 3, "digest": "d", "symbols": 2}}})
    changes = msgspec.msgpack.decode(old_frame, type=FileChanges)
    assert changes == FileChanges(
        files={"a.py": FileState(mtime_ns=5, size=3, digest="d", symbols=2, ctime_ns=0, inode=0)})


def test_a_state_with_ctime_and_inode_reads_back_whole() -> None:
    state = FileState(mtime_ns=5, size=3, digest="d", ctime_ns=7, inode=11)
    frame = msgspec.msgpack.encode(FileChanges(files={"a.py": state}))
    assert msgspec.msgpack.decode(frame, type=FileChanges).files == {"a.py": state}
