"""A saved file's extraction, started while its batch waits out the debouncer's quiet.

The debouncer hands a save over once no event has come for `watcher.QUIET_S` (10 ms):
a wait in which the daemon does nothing, and about as long as extracting one file
(definitions, uses and imports: 4–14 ms for a module of `requests`). So the watcher
reports each changed file at once (`changed`, from watchdog's thread), a thread of this
module extracts it (`process_file`) while the debouncer waits, and the batch takes the
outcome (`take`) instead of extracting the file again.

An outcome is taken only when it is the file as it is now: it was read after the last
event the watcher has reported for that path (each event numbers it; a later one makes
the outcome stale) and against the digest the index holds now. A write after the read
always makes an event: one in before the batch takes the outcome makes the batch extract
the file again itself; one that comes later is the next batch's, which reads the file
again, as a write during a batch's own extraction always was.

Only a few files at a time are read ahead (`MAX_TRACKED`): a burst of thousands (a
`git checkout`) is extracted by the batch, in worker processes.

Imports: `daemon` modules.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable

from symfind.daemon.config import IndexOptions
from symfind.daemon.extraction import FileOutcome, process_file

logger = logging.getLogger(__name__)

#: Paths tracked at once (reported and not yet taken): beyond it, a burst's files are
#: left to the batch.
MAX_TRACKED = 8
#: A save is several events (a write, a close; an editor's rename): a file is read once
#: none has come for it for this long, not once per event, or at once after an event
#: that ends a write (`changed(..., final=True)`: a close after writing, a rename).
SETTLE_S = 0.002
#: How long `take` waits for a file's extraction under way (a file that slow is past
#: `IndexOptions.parse_deadline_s` anyway): then the batch extracts it itself.
TAKE_WAIT_S = 30.0


class Prefetch:
    """Extracts reported files on its own thread, for the batch to take.

    `digest_of(path)` is the digest the index holds for a path (None: none); nothing is
    read ahead while `writing()` is false (no writer open: a catch-up or a repair is
    under way, which re-checks every file anyway).
    """

    def __init__(self, root: str, options: IndexOptions, digest_of: Callable[[str], str | None],
                 writing: Callable[[], bool]) -> None:
        self._root = root
        self._options = options
        self._digest_of = digest_of
        self._writing = writing
        self._changed = threading.Condition()
        self._event = 0
        # path → the number of its last event, and when it came (-SETTLE_S: no settling)
        self._latest: dict[str, tuple[int, float]] = {}
        self._waiting: collections.deque[str] = collections.deque()
        self._running = ""
        # path → (the event it was read after, the digest it was compared with, outcome)
        self._ready: dict[str, tuple[int, str | None, FileOutcome]] = {}
        self._closed = False
        self._thread: threading.Thread | None = None

    def changed(self, path: str, final: bool = False) -> None:
        """A file (repository-relative) was reported changed: read it ahead, once its
        events settle, or at once when this one ends a write (`final`)."""
        with self._changed:
            if self._closed or (path not in self._latest and len(self._latest) >= MAX_TRACKED):
                return
            self._event += 1
            self._latest[path] = (self._event, -SETTLE_S if final else time.monotonic())
            if path not in self._waiting:
                self._waiting.append(path)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="symfind-prefetch",
                                                daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def take(self, path: str, digest: str | None) -> FileOutcome | None:
        """The outcome of `path` read after its last event against `digest`, or None; the
        path is no longer tracked after this."""
        with self._changed:
            latest = self._last_event(path)
            if latest is None:
                return None
            thread = self._thread
            self._changed.wait_for(
                lambda: self._closed or (path not in self._waiting and self._running != path)
                or thread is None or not thread.is_alive(),
                timeout=TAKE_WAIT_S)
            ready = self._ready.pop(path, None)
            if self._last_event(path) == latest:
                del self._latest[path]
            if ready is None or ready[0] != latest or ready[1] != digest:
                return None
            return ready[2]

    def mark(self) -> int:
        """The number of the last event reported (for `forget_through`)."""
        with self._changed:
            return self._event

    def forget_through(self, mark: int) -> None:
        """Stop tracking the paths whose last event is numbered `mark` or less: a batch
        handed over after them has re-checked them, whether it took their outcome or
        not (a file the ignore rules leave out is never taken)."""
        with self._changed:
            for path in [path for path, (event, _) in self._latest.items() if event <= mark]:
                del self._latest[path]
                self._ready.pop(path, None)

    def close(self) -> None:
        """Stop reading ahead (the thread ends after the file it reads)."""
        with self._changed:
            self._closed = True
            self._waiting.clear()
            self._latest.clear()
            self._ready.clear()
            self._changed.notify_all()

    def _last_event(self, path: str) -> int | None:
        """The number of `path`'s last event while it is tracked (the lock held)."""
        tracked = self._latest.get(path)
        return tracked[0] if tracked is not None else None

    def _work(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._closed or bool(self._waiting))
                if self._closed:
                    return
                path = self._waiting[0]
                while not self._closed and path in self._latest and (
                        left := self._latest[path][1] + SETTLE_S - time.monotonic()) > 0:
                    self._changed.wait(left)
                if self._closed:
                    return
                self._waiting.popleft()
                event = self._last_event(path)
                self._running = path
            outcome: FileOutcome | None = None
            digest = None
            try:
                if event is not None and self._writing():
                    digest = self._digest_of(path)
                    outcome = process_file(self._root, path, self._options, digest)
            except Exception:  # the batch extracts the file itself, and says what failed
                logger.debug("reading %s ahead failed", path, exc_info=True)
            with self._changed:
                self._running = ""
                if outcome is not None and self._last_event(path) == event:
                    self._ready[path] = (event, digest, outcome)  # type: ignore[arg-type]
                self._changed.notify_all()
