"""The daemon's status file, rewritten from a thread of its own when the status changes.

Imports: `storage`.

Readers that do not talk to the daemon (the MCP server) learn from `status.json` what is
changing the index: a burst the watcher is collecting, a catch-up's progress. Those change
many times a second; whoever sees a change calls `request()`, which only sets an event,
and this thread writes the file at most every `MIN_INTERVAL_S` — never on the thread
that collects or indexes changes. The end of every batch is still written at once by its
own thread (`Activity.write_status`), so the file is right as soon as work stops.

On a full disk no new file can be made to replace it with: the status is then written
over the old one's bytes (`write_status_file`), so that readers still learn that
indexing fails.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from symfind.storage import write_atomically

logger = logging.getLogger(__name__)

#: The least time between two writes the thread makes.
MIN_INTERVAL_S = 0.2


class StatusWriter:
    """Calls `write()` on its own thread after each `request()`, at most every
    MIN_INTERVAL_S."""

    def __init__(self, write: Callable[[], None]) -> None:
        self._write = write
        self._wanted = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="symfind-status", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def request(self) -> None:
        """Have the status file rewritten soon (cheap: sets an event)."""
        self._wanted.set()

    def stop(self) -> None:
        """Stop the thread (a write under way finishes first)."""
        self._stopping.set()
        self._wanted.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            if self._stopping.is_set():
                return
            self._wanted.clear()
            self._write()
            self._stopping.wait(MIN_INTERVAL_S)


def write_status_file(path: Path, data: bytes) -> None:
    """Replace the status file atomically; on a full disk, write over it in place. A
    failure is logged (the daemon goes on; its socket still answers)."""
    try:
        write_atomically(path, data)
    except OSError as exc:
        if exc.errno != errno.ENOSPC or not _overwrite(path, data):
            logger.warning("cannot write status file: %s", exc)


def _overwrite(path: Path, data: bytes) -> bool:
    """Write `data` over the file's bytes in place (a full disk: no new file can be made,
    while the blocks the file has are enough for a status). A reader may see it half
    written, which does not decode: it reads again soon. False when that failed too."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        os.write(fd, data)
        os.ftruncate(fd, len(data))
    except OSError:
        return False
    finally:
        os.close(fd)
    return True
