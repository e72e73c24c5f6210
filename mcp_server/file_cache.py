"""Indexed files' lines, read and verified once, kept while the file stays the same.

Imports: `mcp_server.source`, `storage` (records) and the standard library.

A search answer shows snippets from up to ten files; reading and hashing them on every
call cost more than the search itself. Every call still opens the file the safe way
(`source.open_indexed`: confined path, no symlink, inside the root, size as indexed);
only the read and the digest check are skipped when the open file is the one read
before. It is recognised by its index digest plus what `fstat` says: device, inode,
size, mtime and ctime in nanoseconds — a write changes ctime, a replace or rename changes
the inode, and ctime cannot be set back by anyone.

A file whose ctime is less than `RACY_SECONDS` older than the moment it was read is
read again on every call and never kept: a write in the same clock tick as an earlier
one can leave every stat field as it was (git's "racily clean" entries).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from symfind.mcp_server.source import open_indexed, read_bytes, split_lines
from symfind.storage import FileState

#: How long after its last change a file is trusted to stay the same without a re-read.
RACY_SECONDS = 3.0
#: Memory kept at most, in bytes (least recently used files go first).
MAX_CACHED_BYTES = 32 * 1024 * 1024
#: What a line costs besides its text: a bytes object's header and the list's pointer.
LINE_OVERHEAD_BYTES = 41

_Identity = tuple[int, int, int, int, int, str]


@dataclass(frozen=True)
class _Entry:
    identity: _Identity
    lines: list[bytes]
    size: int


class VerifiedFiles:
    """The lines of indexed files under one root, verified against the index (thread-safe).

    Args:
        root: The repository root, already resolved.
        max_bytes: Memory kept at most (file content plus a per-line overhead).
        racy_seconds: Files changed less long ago than this before they were read are not kept.
    """

    def __init__(
        self, root: Path, *, max_bytes: int = MAX_CACHED_BYTES, racy_seconds: float = RACY_SECONDS
    ) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.racy_seconds = racy_seconds
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def lines(self, path: str, files: Mapping[str, FileState]) -> list[bytes]:
        """The lines of the indexed file `path`, exactly as the index saw it.

        Args:
            path: Repo-relative path as the index stores it.
            files: The manifest's indexed files.

        Raises:
            SourceError: Refused path, not indexed, a symlink, outside the root, gone.
            FileChanged: The file on disk is not the one the index holds.
        """
        fd, state, info = open_indexed(self.root, path, files)
        identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns,
                    state.digest)
        with self._lock:
            entry = self._entries.get(path)
            if entry is not None and entry.identity == identity:
                self._entries.move_to_end(path)
                os.close(fd)
                return entry.lines
        read_at = time.time()
        lines = split_lines(read_bytes(fd, state))  # closes fd; checks size and digest
        if read_at - info.st_ctime_ns / 1e9 >= self.racy_seconds:
            size = info.st_size + LINE_OVERHEAD_BYTES * len(lines)
            self._keep(path, _Entry(identity=identity, lines=lines, size=size))
        return lines

    def check(self, path: str, files: Mapping[str, FileState]) -> None:
        """Check that `path` can be opened and has its indexed size, without reading it.

        Raises:
            SourceError: As `lines()`; FileChanged only when the size differs.
        """
        fd, _, _ = open_indexed(self.root, path, files)
        os.close(fd)

    def _keep(self, path: str, entry: _Entry) -> None:
        if entry.size > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(path, None)
            if old is not None:
                self._bytes -= old.size
            self._entries[path] = entry
            self._bytes += entry.size
            while self._bytes > self.max_bytes:
                _, evicted = self._entries.popitem(last=False)
                self._bytes -= evicted.size
