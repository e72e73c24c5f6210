"""Read an open file descriptor up to a byte limit: shared by the indexer (daemon) and
`read_symbol` (mcp_server), which may meet only through `storage`.

Imports: the standard library only.
"""

from __future__ import annotations

import os


def read_at_most(fd: int, limit: int) -> bytes:
    """The first `limit` bytes behind `fd` (fewer at end of file), read in as many calls
    as the kernel needs; the caller owns (and closes) `fd`."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, limit - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
