"""A file state reads back whole from the manifest's log, as an array of its fields;
a log frame of the map encoding (schema 11 and before) does not decode, so it can never
be misread: such an index is rebuilt for its schema version before its log is read."""

from __future__ import annotations

import msgspec
import pytest

from symfind.storage import FileState
from symfind.storage.manifest import DamagedLog, FileChanges, decode_frames


def test_a_state_reads_back_whole_every_field_set() -> None:
    state = FileState(mtime_ns=5, size=3, digest="d", ctime_ns=7, inode=11, symbols=2,
                      language="go", error_regions=1, recovered=4, uses=b"u", uses_read=False)
    frame = msgspec.msgpack.encode(FileChanges(files={"a.py": state}))
    assert msgspec.msgpack.decode(frame, type=FileChanges).files == {"a.py": state}


def test_a_frame_of_the_map_encoding_is_damaged_not_misread() -> None:
    old_frame = msgspec.msgpack.encode(
        {"files": {"a.py": {"mtime_ns": 5, "size": 3, "digest": "d", "symbols": 2}}})
    data = len(old_frame).to_bytes(4, "little") + old_frame
    with pytest.raises(DamagedLog, match="does not decode"):
        list(decode_frames("files-x.log", data))
