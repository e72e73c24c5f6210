"""Giving freed memory back to the system.

Imports: the standard library only.

glibc keeps the blocks a process frees mapped, for its next allocations; after a burst of
large ones (Tantivy's indexing heap, a reader's segments replaced at every commit) the
freed pieces sit between live ones and the process's resident memory stays where the
burst left it. `malloc_trim(0)` returns every free page to the system. Elsewhere than
glibc (musl, macOS) there is no such call, and nothing happens.
"""

from __future__ import annotations

import ctypes


def release_free_memory() -> None:
    """Return the pages malloc holds free to the system (glibc; elsewhere, nothing)."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):
        pass
