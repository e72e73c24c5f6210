"""Watch a repository and hand over debounced batches of changed paths.

The watchdog handler only enqueues `Change`s; a debouncer
thread turns bursts (an editor's write-temp-then-rename save, `git checkout` of thousands
of files) into one batch, emitted once the burst has been quiet for `quiet_s` or has
lasted `max_wait_s` — longer for bursts of thousands of events (`BURST_EVENTS`).

Native notifications (inotify on Linux) are preferred. The watcher polls instead — a
snapshot of the tree every `POLL_INTERVAL_S`, which costs CPU on large trees — when asked
to, when the native observer cannot start (inotify's per-user instance or watch limit
reached: the warning names the sysctl to raise), or when `check_coverage` finds
directories that inotify does not watch (watchdog silently skips subdirectories it cannot
watch once the watch limit is hit).

Events can also be lost while watching: the kernel drops inotify's queue when it
overflows (`fs.inotify.max_queued_events`, 16,384 by default) and watchdog only logs it.
The watcher hears that log line and asks for a full re-sync in the next batch.
"""

from __future__ import annotations

import errno
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from watchdog.events import (
    DirAttribEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserverVFS

from symfind.daemon.changes import Change
from symfind.daemon.walk import SKIP_DIRS, Relevance, judge_path

logger = logging.getLogger(__name__)

#: One save's events (an editor's write to a temporary file and rename over the original)
#: arrive within a millisecond or two of each other, so a 10 ms quiet window still hands
#: them over as one batch; every millisecond waited here is added to save -> searchable.
QUIET_S = 0.01
MAX_WAIT_S = 0.15
#: A batch that reaches this many events by MAX_WAIT_S is a burst (a `git checkout`, a
#: code generator): it is handed over once the burst has been quiet for BURST_QUIET_S (or
#: has lasted BURST_MAX_S), as one batch, instead of in slices that each wait for the one
#: before — a slice being indexed also starves the threads that read inotify's queue.
BURST_EVENTS = 1_000
BURST_QUIET_S = 0.3
BURST_MAX_S = 10.0
#: Seconds between two snapshots of the tree when polling.
POLL_INTERVAL_S = 1.0
#: Watch modes besides the native observer's own name (`inotify`, `fsevents`, ...).
POLLING = "polling"

# Only events that can change what is indexed. Leaving out opens and read-only closes
# keeps them out of inotify's kernel queue: the indexer reading 5,000 files of a branch
# switch would otherwise add 10,000 events to it and make an overflow far more likely.
_EVENT_FILTER: list[type[FileSystemEvent]] = [
    FileCreatedEvent, FileModifiedEvent, FileAttribEvent, FileClosedEvent, FileDeletedEvent,
    FileMovedEvent, DirCreatedEvent, DirAttribEvent, DirDeletedEvent, DirMovedEvent,
]
# Events after which a file is written (`Prefetch.changed`'s `final`): closed after
# writing, moved into place (an editor's rename), deleted.
_WRITE_ENDS = frozenset({"closed", "moved", "deleted"})
# What to raise when inotify refuses to start, by errno.
_INOTIFY_SYSCTLS = {
    errno.ENOSPC: "fs.inotify.max_user_watches",
    errno.EMFILE: "fs.inotify.max_user_instances",
}
# watchdog reports a kernel queue overflow only through this logger (watchdog 7).
_OVERFLOW_LOGGER = "watchdog.observers.inotify_c"
_OVERFLOW_MESSAGE = "Inotify queue overflowed"
# Directories created while watches are being added are watched a moment later: how
# often and how long `check_coverage` looks again before it concludes that they are not.
_COVERAGE_CHECKS = 5
_COVERAGE_RECHECK_S = 0.2
# While a burst goes on, `on_waiting` is called again this often (its count grows).
_TELL_WAITING_S = 0.25


class Batch:
    """One debounced burst: its changes in order, and why the whole tree must be
    re-checked (`resync`, empty when the changes are complete).

    `known` is how many changed paths it stands for (counted by the watcher as waiting
    until whoever handles the batch counts them itself and sets `taken`).
    """

    __slots__ = ("changes", "known", "resync", "taken")

    def __init__(self, changes: list[Change], resync: str = "", known: int = 0) -> None:
        self.changes = changes
        self.resync = resync
        self.known = known
        self.taken = False


class _Resync:
    """Queued instead of a change when changes may have been lost."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


_Item = Change | _Resync | None


class _Enqueue(FileSystemEventHandler):
    def __init__(
        self, root: Path, changes: queue.SimpleQueue[_Item], on_root_event: Callable[[], None],
        on_change: Callable[[str, bool], None],
    ) -> None:
        self._root = str(root)
        self._changes = changes
        self._on_root_event = on_root_event
        self._on_change = on_change

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory and event.event_type == "modified":
            return  # a file created or deleted inside reports its own event
        if os.fsdecode(event.src_path) == self._root:
            # IN_DELETE_SELF / IN_MOVE_SELF of the root (or the polling snapshot failing):
            # whatever is at the root now, this watch is over.
            if event.event_type in ("deleted", "moved"):
                self._on_root_event()
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            path = os.fsdecode(raw)
            relative = os.path.relpath(path, self._root).replace(os.sep, "/")
            # Churn where the index never looks (`.git/`, `node_modules/`) stops here.
            if judge_path(relative, is_dir=event.is_directory).relevance is not Relevance.NEVER:
                if not event.is_directory:  # told before the debouncer can hand it over
                    try:
                        self._on_change(relative, event.event_type in _WRITE_ENDS)
                    except Exception:  # reading ahead only saves time: the change must go on
                        logger.exception("reading %s ahead failed", relative)
                self._changes.put(Change(path, event.is_directory))


class _OverflowSignal(logging.Handler):
    """Turns watchdog's 'queue overflowed' warning into a re-sync request."""

    def __init__(self, on_overflow: Callable[[], None]) -> None:
        super().__init__(logging.WARNING)
        self._on_overflow = on_overflow

    def emit(self, record: logging.LogRecord) -> None:
        if str(record.msg).startswith(_OVERFLOW_MESSAGE):
            self._on_overflow()


class _PathStat:
    """What the polling snapshot compares (watchdog's DirectorySnapshot), with the inode
    made unique per path. Watchdog reports a path whose inode turns up at another path as
    moved; file systems reuse a deleted file's inode at once, so after `rm -rf R` and a
    new tree at R, unrelated files came out as moves between old and new paths and some
    new files were never reported. Per path, every change is a create, delete or modify
    of that path: all the daemon needs, as it re-checks each path it is given."""

    __slots__ = ("st_dev", "st_ino", "st_mode", "st_mtime", "st_size")

    def __init__(self, path: str | bytes) -> None:
        info = os.lstat(path)  # never follow symlinks (a loop, or a link to `/`)
        self.st_dev = info.st_dev
        self.st_ino = hash((os.fsencode(path), info.st_ino))
        self.st_mode = info.st_mode
        # Compared for equality only: with the ctime, an edit that puts the mtime back
        # (`touch -d`, `cp -p`, `rsync -t`) is a modification too.
        self.st_mtime = (info.st_mtime_ns, info.st_ctime_ns)
        self.st_size = info.st_size


def _list_directory(path: str | None) -> Iterator[os.DirEntry[str]]:
    """`os.scandir` without the directories the index never looks into (polling only)."""
    with os.scandir(path) as entries:
        for entry in entries:
            if not (entry.name in SKIP_DIRS and entry.is_dir(follow_symlinks=False)):
                yield entry


def _watched_inodes() -> set[int] | None:
    """Inodes of everything this process's inotify instances watch (from /proc), or None
    when that cannot be read (not Linux)."""
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return None
    inodes: set[int] = set()
    for fd in fds:
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:inotify":
                continue
            with open(f"/proc/self/fdinfo/{fd}", encoding="utf-8") as info:
                lines = info.read().splitlines()
        except OSError:
            continue  # closed meanwhile
        for line in lines:
            if line.startswith("inotify wd:"):
                fields = dict(f.split(":", 1) for f in line.split()[1:] if ":" in f)
                inodes.add(int(fields["ino"], 16))
    return inodes


def unwatched_directories(root: Path, candidates: list[str] | None = None) -> list[str]:
    """Directories below `root` (or among `candidates`) that exist, can be read, and are
    not watched by any inotify instance of this process. Empty where /proc is missing.

    Symlinks are not followed, as the observer does not follow them either.
    """
    watched = _watched_inodes()
    if watched is None:
        return []
    if candidates is None:
        candidates = [current for current, _dirs, _files in os.walk(root)]
    missing = []
    for directory in candidates:
        try:
            inode = os.lstat(directory).st_ino
        except OSError:
            continue  # gone: nothing to watch
        if inode not in watched and os.access(directory, os.R_OK | os.X_OK):
            missing.append(directory)
    return missing


class RepositoryWatcher:
    """Observes `root` recursively and calls `on_batch(batch)` from one thread, and
    `on_root_event()` (from the observer's thread) when `root` itself is reported deleted
    or moved.

    `mode` is the observer in use: the native one's name (`inotify`, ...) or `polling`.
    """

    def __init__(
        self,
        root: Path,
        on_batch: Callable[[Batch], None],
        *,
        quiet_s: float = QUIET_S,
        max_wait_s: float = MAX_WAIT_S,
        polling: bool = False,
        poll_interval_s: float = POLL_INTERVAL_S,
        on_root_event: Callable[[], None] = lambda: None,
        on_waiting: Callable[[], None] = lambda: None,
        on_change: Callable[[str, bool], None] = lambda path, final: None,
    ) -> None:
        self._root = root
        # Called when changes start waiting for a batch, and now and then while a burst
        # goes on: how many wait (`waiting`) changed.
        self._on_waiting = on_waiting
        # The distinct paths of the batch being collected, and the batch handed over
        # but not yet taken: what `waiting` counts besides the queue.
        self._collecting: set[str] = set()
        self._handing: Batch | None = None
        self._on_batch = on_batch
        self._quiet_s = quiet_s
        self._max_wait_s = max_wait_s
        self._poll_interval_s = poll_interval_s
        self._force_polling = polling
        self._changes: queue.SimpleQueue[_Item] = queue.SimpleQueue()
        # Told each changed file's path (repository-relative) as its event comes, and
        # whether that event ends a write, from watchdog's thread (`daemon.prefetch`
        # reads the file ahead).
        self._handler = _Enqueue(root, self._changes, on_root_event, on_change)
        self._observer: BaseObserver | None = None
        self._overflow = _OverflowSignal(lambda: self.request_resync("inotify queue overflowed"))
        self._thread = threading.Thread(target=self._debounce, name="symfind-debounce", daemon=True)
        self.mode = ""

    # ---- life cycle -------------------------------------------------------------------

    def start(self) -> None:
        """Start observing (natively if possible, else by polling) and debouncing.

        Raises:
            OSError: Not even polling can read the repository's root.
        """
        observer = None if self._force_polling else self._start_native()
        if observer is None:
            observer = self._start_polling()
        self._observer = observer
        overflow_logger = logging.getLogger(_OVERFLOW_LOGGER)
        overflow_logger.addHandler(self._overflow)
        if not overflow_logger.isEnabledFor(logging.WARNING):
            overflow_logger.setLevel(logging.WARNING)  # the warning is our only signal
        self._thread.start()

    def stop(self) -> None:
        """Stop observing; the batch being handled (if any) finishes first."""
        logging.getLogger(_OVERFLOW_LOGGER).removeHandler(self._overflow)
        try:
            self._stop_observer(self._observer)
        finally:
            self._changes.put(None)
            if self._thread.is_alive():
                self._thread.join(timeout=30)

    def waiting(self) -> int:
        """Changed paths seen and not yet handed over as a batch (an estimate while
        events are still queued: each counts once): what a status must count as
        pending. A re-check of the whole tree waiting counts one."""
        handing = self._handing
        handed = handing.known if handing is not None and not handing.taken else 0
        return len(self._collecting) + self._changes.qsize() + handed

    def request_resync(self, reason: str) -> None:
        """Have the next batch re-check the whole tree (changes may have been lost)."""
        logger.warning("%s: re-checking the whole repository", reason)
        self._changes.put(_Resync(reason))

    def check_coverage(self) -> list[str]:
        """Fall back to polling if native watching misses directories; returns them.

        watchdog adds one inotify watch per directory and skips, without a word, the
        subdirectories it cannot watch (the per-user watch limit reached). Call this
        once the watcher has started; directories created meanwhile get a moment to be
        watched before they count as missed.
        """
        if self.mode != "inotify":
            return []
        missing = unwatched_directories(self._root)
        for _ in range(_COVERAGE_CHECKS):
            if not missing:
                return []
            time.sleep(_COVERAGE_RECHECK_S)  # watches of new directories are added async
            missing = unwatched_directories(self._root, missing)
        if missing:
            logger.warning(
                "inotify watches %d directories fewer than the repository has (first: %s); "
                "the per-user watch limit is probably reached — raise it with `sysctl "
                "fs.inotify.max_user_watches=524288`. Polling every %.0f s instead.",
                len(missing), missing[0], self._poll_interval_s,
            )
            self._switch_to_polling()
        return missing

    # ---- observers --------------------------------------------------------------------

    def _start_native(self) -> BaseObserver | None:
        """The platform's observer, started; None when it cannot start (logged)."""
        observer: BaseObserver | None = None
        try:
            observer = Observer()
            observer.schedule(self._handler, str(self._root), recursive=True,
                              event_filter=_EVENT_FILTER)
            observer.start()
        except OSError as exc:
            sysctl = _INOTIFY_SYSCTLS.get(exc.errno or 0)
            hint = (
                f"; raise it with `sysctl {sysctl}=<more>` (and in /etc/sysctl.d/ to keep it)"
                if sysctl else ""
            )
            logger.warning(
                "cannot watch %s natively (%s)%s. Polling every %.0f s instead: changes take "
                "longer to be seen and large trees cost CPU.",
                self._root, exc.strerror or exc, hint, self._poll_interval_s,
            )
            self._stop_observer(observer)
            return None
        self.mode = type(observer).__name__.removesuffix("Observer").lower()
        return observer

    def _start_polling(self) -> BaseObserver:
        observer = PollingObserverVFS(_PathStat, _list_directory,
                                      polling_interval=self._poll_interval_s)
        observer.schedule(self._handler, str(self._root), recursive=True)
        observer.start()
        self.mode = POLLING
        return observer

    def _switch_to_polling(self) -> None:
        old = self._observer
        self._observer = self._start_polling()
        self._stop_observer(old)
        # Changes made before the polling snapshot went to the incomplete native watch.
        self.request_resync("switched to polling")

    @staticmethod
    def _stop_observer(observer: BaseObserver | None) -> None:
        """Stop an observer, started or not; a failure is logged, not raised (nothing
        indexed depends on it)."""
        if observer is None:
            return
        try:
            observer.stop()
            if observer.is_alive():
                observer.join(timeout=5)
        except Exception:  # watchdog internals: stopping must go on whatever they raise
            logger.exception("stopping the file observer failed")

    # ---- debouncing -------------------------------------------------------------------

    def _debounce(self) -> None:
        while True:
            first = self._changes.get()
            if first is None:
                return
            changes: list[Change] = []
            resync = ""
            item: _Item = first
            started = told = time.monotonic()
            stopping = False
            collecting = self._collecting
            self._on_waiting()
            while True:
                if isinstance(item, _Resync):
                    resync = resync or item.reason
                    collecting.add("")  # the whole tree: counted once
                elif item is not None:
                    changes.append(item)
                    collecting.add(item.path)
                if time.monotonic() - told >= _TELL_WAITING_S:
                    told = time.monotonic()
                    self._on_waiting()
                burst = len(changes) >= BURST_EVENTS
                limit = BURST_MAX_S if burst else self._max_wait_s
                left = limit - (time.monotonic() - started)
                if left <= 0:
                    break
                try:
                    quiet = BURST_QUIET_S if burst else self._quiet_s
                    item = self._changes.get(timeout=min(quiet, left))
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                    break
            batch = Batch(changes, resync, known=len(collecting))
            self._handing = batch  # counted as waiting until the keeper takes it
            self._collecting = set()
            try:
                self._on_batch(batch)
            except Exception:  # the watcher must outlive any one bad batch
                logger.exception("batch of %d changes failed", len(changes))
            finally:
                self._handing = None
            if stopping:
                return
