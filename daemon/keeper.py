"""The index keeper: a daemon's only writer, what it is doing, and the searches it serves.

`IndexKeeper` holds the Tantivy writer and the write lock, and everything that changes
the index goes through it: the catch-up at start (`catch_up`), the watcher's batches
(`on_batch`), a client's `symfind index`/`reindex` (`index_for_client`), and a re-check
after the repository's root was replaced (`resync`). It keeps the daemon's state (`status`,
written to `status.json`): what is pending — the files of the work under way not committed
yet, and the changes the watcher holds for its next batch — and what is failing. It answers
searches from the last commit (`search`), after a moment's wait for a few pending changes,
and with the freshness that says what the answer may miss.

Staying up: indexing that fails (a Tantivy error or panic, an extraction worker that
died) is logged with its traceback, the writer is reopened from the last commit and the
whole tree re-checked, once more without worker processes if need be (`sync_all`); a
search that finds the index's files damaged sets the state to `error` and has the next
batch rebuild the index from scratch.

Imports: msgspec, `storage` and `daemon` modules.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Callable

import msgspec

from symfind.daemon.changes import Change, changed_paths
from symfind.daemon.client import read_pid
from symfind.daemon.config import Config
from symfind.daemon.errors import DaemonRunning
from symfind.daemon.indexer import (
    BULK_COMMIT_EVERY_FILES,
    BULK_HEAP_BYTES,
    apply_changes,
    sync_repository,
)
from symfind.daemon.protocol import IndexReport, SearchRequest
from symfind.daemon.status_file import StatusWriter, write_status_file
from symfind.daemon.walk import IgnoreRules, walk_repository
from symfind.daemon.watcher import Batch
from symfind.storage import (
    FRESH_WAIT_S,
    SCHEMA_VERSION,
    STATUS_NAME,
    DaemonState,
    DaemonStatus,
    IndexDamaged,
    IndexLocked,
    IndexSource,
    IndexWriter,
    ManifestHeader,
    SearchResponse,
    StorageError,
    settling,
)
from symfind.storage.manifest import DamagedLog, FileTable, read_table

logger = logging.getLogger(__name__)


def _release_free_memory() -> None:
    """Give the memory freed after a large catch-up (Tantivy's indexing heap, the outcomes)
    back to the system: glibc keeps freed blocks mapped, and a daemon that caught up with
    the kernel's `drivers/` stayed at 433 MiB (140 MiB after this). Elsewhere than glibc,
    nothing."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):
        pass


# Catch-up commits after this many files, so that searches soon see a growing index
# instead of nothing, then at intervals that double up to `symfind index`'s: a commit
# every 1,000 files made the kernel's catch-up 1.12x `symfind index` (55 commits, each a
# segment that Tantivy's merges then rewrite); see also `_open_writer`.
CATCH_UP_COMMIT_EVERY = 1_000
#: A batch of at least this many file events re-checks the whole tree instead of its
#: paths. A burst that large (a `git checkout`, a generator, `rm -rf`) has filled a good
#: part of inotify's kernel queue (16,384 events by default; a written file costs about
#: 3): events beyond the queue are dropped, and the overflow is only signalled when the
#: queue is read again. Re-checking costs a walk and one `lstat` per file (~0.3 s on
#: 10,000 files), little next to extracting thousands of files (in worker processes, as
#: a batch's paths are when there are many).
RESYNC_FROM_EVENTS = 4_096


class Stopping(Exception):
    """Raised inside the catch-up to stop it early on SIGTERM."""


def recoverable(exc: BaseException) -> bool:
    """Errors after which reopening the writer and re-checking the tree can go on: any
    Exception, and a panic inside Tantivy (pyo3's `PanicException` is a BaseException)."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


class IndexKeeper:
    """One repository's index, kept by one daemon; thread-safe.

    `stop` is the daemon's stop event: once set, nothing reopens the writer. `watch_mode`
    tells the status how the repository is watched; `request_resync` asks the watcher's
    thread to re-check everything (after damage is found by a search).
    """

    def __init__(
        self,
        config: Config,
        stop: threading.Event,
        *,
        watch_mode: Callable[[], str],
        request_resync: Callable[[str], None],
        waiting: Callable[[], int] = lambda: 0,
    ) -> None:
        self.config = config
        self.rules = IgnoreRules(config.repo)
        self.source = IndexSource(config.index_dir)
        self.root_gone = ""  # why searches are refused while the root is missing
        self._stop = stop
        self._watch_mode = watch_mode
        self._request_resync = request_resync
        self._waiting = waiting  # changes the watcher holds for the next batch
        self._write_lock = threading.Lock()
        self._writer: IndexWriter | None = None
        self._last_header: ManifestHeader | None = None  # of the writer last dropped
        # Files of the work under way not committed yet; files the last attempt left out
        # because indexing failed; whether the work builds the index, and since when.
        self._pending = 0
        self._failing = 0
        self._building = False
        self._busy_since = 0.0
        self._state = DaemonState.STARTING
        self._catch_up = (0, 0)
        self._started_at = time.time()
        # Indexing failures survived, the last one, and whether the last repair failed too.
        self._errors = 0
        self._last_error = ""
        self._broken = False
        # Set when a search found the index's files damaged: the next batch rebuilds it.
        self._damaged = threading.Event()
        # Notified after every commit and state change, for whoever waits on the daemon.
        self.changed = threading.Condition()
        # Rewrites status.json as the status changes (started and stopped by the daemon).
        self.status_file = StatusWriter(self.write_status)
        self._status_lock = threading.Lock()

    @property
    def broken(self) -> bool:
        """Whether the last re-check failed even without worker processes."""
        return self._broken

    # ---- the writer ---------------------------------------------------------------------

    def open(self) -> None:
        """Take the index's writer lock.

        Raises:
            DaemonRunning: Another daemon holds it.
            StorageError: The index cannot be created or opened.
        """
        try:
            self._writer = self._open_writer()
        except IndexLocked as exc:
            pid = read_pid(self.config.index_dir)
            holder = f"pid {pid}" if pid else "another process"
            raise DaemonRunning(
                f"a symfind daemon ({holder}) already serves {self.config.repo}"
            ) from exc

    def close(self, step: Callable[[str, Callable[[], object]], bool]) -> bool:
        """Commit what is staged and close the writer, each through `step` (the daemon's
        shutdown steps); True when the index holds everything staged."""
        saved = True
        with self._write_lock:
            writer, self._writer = self._writer, None
            if writer is not None:
                if writer.staged:
                    saved = step("commit the last changes", writer.commit)
                saved = step("close the index writer", writer.close) and saved
        return saved

    def _open_writer(self, *, fresh: bool = False) -> IndexWriter:
        # `symfind index`'s heap: a catch-up then writes the same few large segments. With
        # 128 MB and commits at doubling intervals, the kernel's catch-up ended in about a
        # dozen heap-sized segments, which Tantivy's log merge policy merges eight at a
        # time, and the first saves after it were slow (p95 219-282 ms against 83-95).
        # The heap is taken as documents arrive: a save uses little of it.
        return IndexWriter(
            self.config.index_dir, repo_root=self.config.repo,
            options_hash=self.config.options.fingerprint(), fresh=fresh,
            heap_bytes=BULK_HEAP_BYTES,
        )

    def _drop_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            self._last_header = writer.header  # what the status shows until one reopens
            self._guarded("closing the index writer", writer.close)
        del writer
        gc.collect()  # a Tantivy writer still referenced somewhere would keep its lock

    # ---- keeping the index current -------------------------------------------------------

    def catch_up(self) -> None:
        """Make the index match the disk after a time without a daemon (stops early, with
        what it did committed, when the daemon is stopped)."""
        self._begin_work(building=self._writer is None or self._writer.header.file_count == 0)
        self.set_state(DaemonState.CATCHING_UP)
        self.write_status()  # readers (the MCP server) see a daemon at work from now on

        def progress(done: int, total: int) -> None:
            self._catch_up = (done, total)
            self._count_progress(done, total)
            if self._stop.is_set():
                raise Stopping

        with self._write_lock:
            try:
                report = self._sync_all(progress=progress, commit_every=CATCH_UP_COMMIT_EVERY)
                if report is not None:
                    logger.info("caught up: %d files, %d extracted", report.files, report.indexed)
            except Stopping:
                writer = self._writer
                if writer is not None and writer.staged:
                    left = self._catch_up[1] - self._catch_up[0]  # for readers without us
                    self._guarded("committing the catch-up", lambda: writer.commit(to_index=left))
            self._end_work()
        _release_free_memory()
        self._settle()

    def resync(self) -> None:
        """Re-check every file (the root is another directory: its watcher and ignore
        rules are new already)."""
        with self._write_lock:
            self._begin_work()
            self.set_state(DaemonState.INDEXING)
            self._sync_all(progress=self._count_progress)
            self._end_work()
        self._settle()

    def on_batch(self, batch: Batch) -> None:
        """Apply one batch of changes from the watcher (its thread) and commit it."""
        started = time.monotonic()
        with self._write_lock:  # also while reading what the writer knows (catch-up adds)
            if self._stop.is_set() and self._writer is None:
                return  # shut down already
            paths, ignore_rules_changed = self._relative_paths(batch.changes)
            resync = batch.resync or ("ignore rules changed" if ignore_rules_changed else "")
            if not resync and len(batch.changes) >= RESYNC_FROM_EVENTS:
                resync = f"{len(batch.changes)} events in one batch"
            self._begin_work(building=self._damaged.is_set())
            self._pending = len(paths)  # committed at the end of the batch, all at once
            batch.taken = True  # counted here from now on, not by the watcher
            self.set_state(DaemonState.INDEXING)
            if self._damaged.is_set():
                resync = resync or "the index was damaged"
            if resync or self._broken or self._writer is None:
                self._sync_all(progress=self._count_progress)
            elif self._guarded("indexing a batch", lambda: self._apply(paths)):
                self._failing = 0
            else:
                self._drop_writer()
                # The batch's files are re-checked with all the others.
                self._sync_all(progress=self._count_progress)
            self._end_work()
            self.set_state(self._resting_state())
        self.write_status()
        logger.info(
            "batch of %d paths%s in %.1f ms", len(paths),
            f" (re-checked everything: {resync})" if resync else "",
            (time.monotonic() - started) * 1e3,
        )

    def index_for_client(
        self, fresh: bool, progress: Callable[[int, int], None]
    ) -> tuple[IndexReport | None, str]:
        """`symfind index` (re-check every file) or `reindex` (`fresh`: drop the index and
        rebuild it) for a client, waiting for the batch or catch-up under way; the report,
        or None and why not."""
        with self._write_lock:
            if self._stop.is_set():
                return None, "the daemon is stopping"
            self._begin_work(building=fresh)
            self.set_state(DaemonState.INDEXING)
            started = time.monotonic()
            try:
                report = self._index_now(fresh, progress)
            finally:
                self._end_work()
                self.set_state(DaemonState.ERROR if self._broken else DaemonState.IDLE)
        self.write_status()
        logger.info("%s for a client in %.1f s", "reindex" if fresh else "index",
                    time.monotonic() - started)
        return report, "" if report is not None else f"indexing failed: {self._last_error}"

    def _index_now(self, fresh: bool, progress: Callable[[int, int], None]) -> IndexReport | None:
        """Re-check every file, after emptying the index when `fresh` (caller holds the
        write lock); None when that failed even after the retry `_sync_all` makes."""

        def count(done: int, total: int) -> None:
            self._count_progress(done, total)
            progress(done, total)

        if fresh:
            self._drop_writer()
            if not self._guarded("dropping the index", self._open_fresh_writer):
                self._broken = True
                return None
        return self._sync_all(progress=count, commit_every=CATCH_UP_COMMIT_EVERY)

    def _open_fresh_writer(self) -> None:
        self._writer = self._open_writer(fresh=True)

    def _sync_all(
        self, *, progress: Callable[[int, int], None] | None = None,
        commit_every: int = CATCH_UP_COMMIT_EVERY,
    ) -> IndexReport | None:
        """Reconcile the index with every file on disk (caller holds the write lock).

        When that fails, the writer is reopened at the last commit (staged changes are
        dropped; a commit cut short leaves its paths `pending`, re-checked) and the sync
        runs again without worker processes. None when that fails too: the daemon is
        `broken` until a later batch's sync succeeds.
        """
        config = self.config
        if self._damaged.is_set():  # rebuild from scratch: the damaged files go
            self._drop_writer()
        for attempt in (1, 2):
            try:
                if self._writer is None:
                    self._writer = self._open_writer(fresh=self._damaged.is_set())
                    self._damaged.clear()
                report = sync_repository(
                    self._writer, config, self.rules, progress=progress,
                    commit_every=commit_every, commit_every_max=BULK_COMMIT_EVERY_FILES,
                )
                self._broken = False
                self._failing = 0
                return report
            except Stopping:
                raise
            except BaseException as exc:
                if not recoverable(exc):
                    raise
                self.record_failure(exc, f"re-checking the repository (attempt {attempt})")
            # Outside the except block: the traceback no longer pins the failed writer.
            self._drop_writer()
            config = msgspec.structs.replace(config, workers=1)
            if attempt == 1:
                logger.warning("reopening the index at its last commit and re-checking every "
                               "file again, without worker processes")
        self._broken = True
        # The files on disk the last commit lacks are left out of the index: searches say
        # so until a later sync succeeds.
        self._failing = max(self._left_out(), 1)
        logger.critical("the index cannot be brought up to date; searches show the last commit")
        return None

    def _left_out(self) -> int:
        """How many files on disk the last commit does not hold, counted afresh: what a
        failed sync had still to do cannot say it, since a commit that failed may or may
        not have taken its files with it, and its walk may not have been made at all."""
        header = self._last_header
        try:
            committed = read_table(self.config.index_dir, header) if header else FileTable()
            return sum(1 for path in walk_repository(self.config.repo, self.rules)
                       if path not in committed.files and path not in committed.skipped)
        except (OSError, DamagedLog) as exc:
            logger.warning("cannot count the files left out of the index: %s", exc)
            return self._pending

    def _apply(self, paths: set[str]) -> None:
        writer = self._writer
        assert writer is not None
        apply_changes(writer, self.config, self.rules, paths)
        if writer.staged:
            writer.commit()

    def _relative_paths(self, changes: list[Change]) -> tuple[set[str], bool]:
        """Repo-relative file paths to re-check; True when a full re-sync is needed."""
        changed = changed_paths(changes, self.config.repo)
        for directory in changed.ignore_dirs:
            self.rules.forget(directory)
        paths = set(changed.files)
        for directory in changed.directories:
            self._files_below(directory, paths)
        return paths, bool(changed.ignore_dirs)

    def _files_below(self, relative: str, paths: set[str]) -> None:
        """Add what the index knows below a created, moved or deleted directory, and what
        is on disk there now."""
        writer = self._writer
        if writer is None:
            return
        prefix = relative + "/"
        paths.update(p for p in writer.files if p.startswith(prefix))
        paths.update(p for p in writer.skipped if p.startswith(prefix))
        directory = self.config.repo / relative
        if directory.is_dir() and not directory.is_symlink():
            paths.update(walk_repository(self.config.repo, self.rules, start=relative))

    def _begin_work(self, *, building: bool = False) -> None:
        self._building = building
        self._busy_since = time.time()

    def _end_work(self) -> None:
        self._pending = 0
        self._building = False
        self._busy_since = 0.0

    def _count_progress(self, done: int, total: int) -> None:
        """A sync's progress: what it has still to do, and what it did but has not
        committed yet, is pending."""
        writer = self._writer
        self._pending = total - done + (writer.staged_since_open if writer is not None else 0)
        self.status_file.request()

    def _guarded(self, what: str, action: Callable[[], object]) -> bool:
        try:
            action()
        except BaseException as exc:
            if not recoverable(exc):
                raise
            self.record_failure(exc, what)
            return False
        return True

    def record_failure(self, exc: BaseException | str, what: str) -> None:
        """Count a failure survived; `exc` an exception (logged with its traceback) or
        what to say."""
        self._errors += 1
        if isinstance(exc, str):
            self._last_error = exc
            logger.warning("%s", exc)
            return
        self._last_error = f"{what}: {_describe(exc)}"
        logger.error("%s failed", what, exc_info=exc)

    # ---- searches -------------------------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchResponse:
        """Search the last commit (called from socket threads).

        Raises:
            QueryError: The query is refused.
            StorageError: The index cannot be read, is damaged, or the root is gone.
        """
        if self.root_gone:  # what is indexed is of a tree that is not there any more
            raise StorageError(self.root_gone)
        self._wait_for_pending()
        try:
            return self.source.search(request.query, daemon=self.status(counts=False))
        except IndexDamaged as exc:
            self._on_damage(exc)
            raise

    def _wait_for_pending(self) -> None:
        """Let a few changes already seen (a file just saved) be committed before a search
        answers, for at most FRESH_WAIT_S: the answer then holds them (`settling`)."""
        if not settling(self.status(counts=False)):
            return
        with self.changed:
            self.changed.wait_for(lambda: not settling(self.status(counts=False)),
                                  timeout=FRESH_WAIT_S)

    def _on_damage(self, exc: IndexDamaged) -> None:
        """A search found the index's files damaged: report it (state `error`) and have
        the watcher's thread rebuild the index from scratch."""
        if self._damaged.is_set():
            return
        self._damaged.set()
        self.record_failure(exc, "reading the index")
        self.set_state(DaemonState.ERROR)
        self.write_status()
        self._request_resync("the index is damaged; rebuilding it")

    # ---- status -----------------------------------------------------------------------------

    def set_state(self, state: DaemonState) -> None:
        with self.changed:
            self._state = state
            self.changed.notify_all()

    def _resting_state(self) -> DaemonState:
        return DaemonState.ERROR if self._broken or self.root_gone else DaemonState.IDLE

    def _settle(self) -> None:
        """Idle (or `error`) after some work, and say so in the status file."""
        self.set_state(self._resting_state())
        self.write_status()

    def wait_until(self, predicate: Callable[[DaemonStatus], bool], timeout_s: float) -> bool:
        """Block until `predicate(status)` holds (checked after every change) or time out."""
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self.status()), timeout=timeout_s)

    def status(self, *, counts: bool = True) -> DaemonStatus:
        """The daemon's state and the index's counts, from the last commit's header: its
        cost does not grow with the repository (`counts=False`: without the skipped files
        by reason, which does, for what every search carries)."""
        writer = self._writer
        header = writer.header if writer is not None else self._last_header
        waiting = self._waiting()
        state = self._state
        if waiting and state is DaemonState.IDLE:
            state = DaemonState.INDEXING  # a batch is being collected
        skipped = Counter(writer.skipped.values()) if writer is not None and counts else {}
        return DaemonStatus(
            pid=os.getpid(),
            repo=str(self.config.repo),
            state=state,
            pending=self._pending + waiting,
            files=header.file_count if header else 0,
            symbols=header.symbol_count if header else 0,
            skipped=dict(skipped),
            generation=header.generation if header else 0,
            updated_at=header.updated_at if header else 0.0,
            started_at=self._started_at,
            schema_version=SCHEMA_VERSION,
            catch_up_done=self._catch_up[0],
            catch_up_total=self._catch_up[1],
            watch=self._watch_mode(),
            errors=self._errors,
            last_error=self._last_error,
            failing=self._failing,
            building=self._building,
            busy_since=self._busy_since,
        )

    def write_status(self) -> None:
        # One at a time: the status is taken under the lock, so the last file written
        # holds the latest status whichever thread writes it.
        with self._status_lock:
            write_status_file(self.config.index_dir / STATUS_NAME,
                              msgspec.json.encode(self.status()))
