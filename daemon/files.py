"""Read repository files without ever blocking on one that is not a regular file.

Imports: `storage` (`read_at_most`), the standard library.

A path checked with `lstat` can be replaced before it is opened — by a FIFO, whose
blocking open waits for a writer forever (a daemon that ignores SIGTERM, a request
thread lost for good), or by a symlink. So a repository file is opened with `O_NONBLOCK`
(a FIFO opens at once; for a regular file the flag changes nothing) and `O_NOFOLLOW`,
and the descriptor itself is checked with `fstat` before anything is read.
"""

from __future__ import annotations

import os
import stat

from symfind.storage import read_at_most

_FLAGS = (os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
          | getattr(os, "O_CLOEXEC", 0))


class NotRegularFile(OSError):
    """The path is (now) a FIFO, device, socket or directory, not a regular file."""


def read_regular(path: str | os.PathLike[str], limit: int) -> tuple[bytes, os.stat_result]:
    """Read at most `limit` bytes of a regular file, never following a symlink and never
    blocking on anything else; returns the bytes and `fstat` of what was read.

    Raises:
        NotRegularFile: It is not a regular file (the descriptor's own type).
        OSError: It cannot be opened or read (ELOOP: it is a symlink; ENOENT: gone).
    """
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(f"{os.fsdecode(path)} is not a regular file")
        data = read_at_most(fd, limit)
    finally:
        os.close(fd)
    return data, info
