"""The per-repository daemon: the index's only writer, a watcher, and a local socket.

Start-up takes Tantivy's writer lock (a second daemon exits naming the first one's pid),
opens the socket at once, starts watching, then catches up with what changed while no
daemon ran. Batches of changes are applied and committed one at a time; searches read
the latest commit. SIGTERM finishes the current batch, commits and exits.

Staying up: indexing that fails (a Tantivy error or panic, an extraction worker that
died) is logged with its traceback, the writer is reopened from the last commit and the
whole tree re-checked, once more without worker processes if need be; searches are
served throughout, and the status reports the failure. A fatal signal dumps every
thread's stack to the log (faulthandler; `kill -USR1 <pid>` dumps them on demand), an
exception that ends the daemon is logged before it propagates, and each shutdown step
runs whatever the previous ones raised.
"""

from __future__ import annotations

import faulthandler
import gc
import logging
import os
import signal
import socket
import socketserver
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable

import msgspec

from symfind.daemon.changes import Change, changed_paths
from symfind.daemon.client import PID_NAME, private_socket_dir, read_pid, socket_path
from symfind.daemon.config import Config, WatchMode
from symfind.daemon.errors import DaemonRunning, UnsafeSocketDirectory
from symfind.daemon.indexer import apply_changes, sync_repository
from symfind.daemon.protocol import (
    ErrorReply,
    IndexReply,
    IndexReport,
    IndexRequest,
    OkReply,
    ProgressReply,
    ProtocolError,
    Reply,
    Request,
    SearchReply,
    SearchRequest,
    StatusReply,
    StatusRequest,
    StopRequest,
    receive_request,
    send_reply,
)
from symfind.daemon.walk import IgnoreRules, walk_repository
from symfind.daemon.watcher import Batch, RepositoryWatcher
from symfind.storage import (
    SCHEMA_VERSION,
    STATUS_NAME,
    DaemonState,
    DaemonStatus,
    IndexLocked,
    IndexSource,
    IndexWriter,
    QueryError,
    StorageError,
    write_atomically,
)

logger = logging.getLogger(__name__)

# Catch-up commits this often, so searches see a growing index instead of nothing.
CATCH_UP_COMMIT_EVERY = 1_000
#: A batch of at least this many file events re-checks the whole tree instead of its
#: paths. A burst that large (a `git checkout`, a generator, `rm -rf`) has filled a good
#: part of inotify's kernel queue (16,384 events by default; a written file costs about
#: 3): events beyond the queue are dropped, and the overflow is only signalled when the
#: queue is read again. Re-checking costs a walk and one `lstat` per file (~0.3 s on
#: 10,000 files), little next to extracting thousands of files (in worker processes, as
#: a batch's paths are when there are many).
RESYNC_FROM_EVENTS = 4_096
#: How often a client of `symfind index` hears how far the daemon got.
PROGRESS_EVERY_S = 0.1


class _Stopping(Exception):
    """Raised inside the catch-up to stop it early on SIGTERM."""


def _recoverable(exc: BaseException) -> bool:
    """Errors after which reopening the writer and re-checking the tree can go on: any
    Exception, and a panic inside Tantivy (pyo3's `PanicException` is a BaseException)."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


def _enable_faulthandler() -> None:
    """Dump every thread's Python stack to stderr (the daemon log) on a fatal signal (a
    crash in Tantivy or tree-sitter), and on SIGUSR1 (a daemon that hangs)."""
    try:
        if not faulthandler.is_enabled():
            faulthandler.enable(file=sys.stderr, all_threads=True)
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    except (AttributeError, ValueError, OSError) as exc:  # stderr without a descriptor
        logger.warning("cannot enable faulthandler: %s", exc)


class _ProgressSender:
    """Sends a client's indexing progress, at most every PROGRESS_EVERY_S and at the
    end; a client gone away stops the messages, not the indexing."""

    def __init__(self, conn: socket.socket) -> None:
        self._conn = conn
        self._last = 0.0
        self._gone = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self._gone or (done < total and now - self._last < PROGRESS_EVERY_S):
            return
        self._last = now
        try:
            send_reply(self._conn, ProgressReply(done=done, total=total))
        except OSError:
            self._gone = True


class Daemon:
    """One repository's daemon. `run()` blocks until stopped."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.rules = IgnoreRules(config.repo)
        self._stop = threading.Event()
        self._write_lock = threading.Lock()
        self._writer: IndexWriter | None = None
        self._source = IndexSource(config.index_dir)
        self._watcher: RepositoryWatcher | None = None
        self._pending = 0
        self._state = DaemonState.STARTING
        self._catch_up = (0, 0)
        self._started_at = time.time()
        self._server: socketserver.ThreadingUnixStreamServer | None = None
        # Indexing failures survived, the last one, and whether the last repair failed too.
        self._errors = 0
        self._last_error = ""
        self._broken = False
        # Notified after every commit and state change, for whoever waits on the daemon.
        self.changed = threading.Condition()

    # ---- life cycle -------------------------------------------------------------------

    def run(self) -> int:
        """Serve until SIGTERM/SIGINT or a stop request; returns the exit code (0 when
        everything was committed, 1 when indexing or saving failed; see the log).

        Raises:
            DaemonRunning: Another daemon holds the index's writer lock.
            StorageError: The index cannot be created or opened.
        """
        if threading.current_thread() is threading.main_thread():
            _enable_faulthandler()
        try:
            return self._serve()
        except (DaemonRunning, UnsafeSocketDirectory):
            raise  # not a failure of this daemon: the CLI says which one runs
        except BaseException:
            logger.critical("daemon for %s failed", self.config.repo, exc_info=True)
            raise

    def stop(self) -> None:
        self._stop.set()

    def _serve(self) -> int:
        index_dir = self.config.index_dir
        try:
            self._writer = self._open_writer()
        except IndexLocked as exc:
            pid = read_pid(index_dir)
            holder = f"pid {pid}" if pid else "another process"
            raise DaemonRunning(
                f"a symfind daemon ({holder}) already serves {self.config.repo}"
            ) from exc
        (index_dir / PID_NAME).write_text(f"{os.getpid()}\n", encoding="utf-8")
        self._install_signal_handlers()
        try:
            self._serve_socket()
            self._watcher = RepositoryWatcher(
                self.config.repo, self._on_batch, polling=self.config.watch == WatchMode.POLLING
            )
            self._watcher.start()
            self._catch_up_with_disk()
            self._watcher.check_coverage()
            self._write_status()
            logger.info("daemon ready for %s (watching: %s)", self.config.repo, self._watcher.mode)
            self._stop.wait()
        finally:
            saved = self._shutdown()
        return 0 if saved and not self._broken else 1

    def _install_signal_handlers(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self._stop.set())

    def _shutdown(self) -> bool:
        """Stop watching, serving and writing, each step whatever the others raised;
        True when the index holds everything staged."""
        self._stop.set()  # a batch still running must not reopen the writer afterwards
        self._set_state(DaemonState.STOPPING)
        if self._watcher is not None:
            self._step("stop watching", self._watcher.stop)  # the current batch finishes
        if self._server is not None:
            self._step("close the socket", self._close_socket)
        saved = True
        with self._write_lock:
            writer, self._writer = self._writer, None
            if writer is not None:
                if writer.staged:
                    saved = self._step("commit the last changes", writer.commit)
                saved = self._step("close the index writer", writer.close) and saved
        self._write_status()
        pid_file = self.config.index_dir / PID_NAME
        self._step("remove the pid file", lambda: pid_file.unlink(missing_ok=True))
        logger.info("daemon stopped")
        return saved

    @staticmethod
    def _step(what: str, action: Callable[[], object]) -> bool:
        """Run one shutdown step; log a failure and carry on."""
        try:
            action()
        except BaseException as exc:
            if not _recoverable(exc):
                raise
            logger.error("stopping: cannot %s", what, exc_info=True)
            return False
        return True

    def _close_socket(self) -> None:
        assert self._server is not None
        try:
            self._server.shutdown()
            self._server.server_close()
        finally:
            socket_path(self.config.index_dir).unlink(missing_ok=True)

    # ---- indexing ---------------------------------------------------------------------

    def _open_writer(self) -> IndexWriter:
        return IndexWriter(
            self.config.index_dir, repo_root=self.config.repo,
            options_hash=self.config.options.fingerprint(),
        )

    def _catch_up_with_disk(self) -> None:
        self._set_state(DaemonState.CATCHING_UP)
        self._write_status()  # readers (the MCP server) see a daemon at work from now on

        def progress(done: int, total: int) -> None:
            self._catch_up = (done, total)
            self._pending = total - done
            if self._stop.is_set():
                raise _Stopping

        with self._write_lock:
            try:
                report = self._sync_all(progress=progress, commit_every=CATCH_UP_COMMIT_EVERY)
                if report is not None:
                    logger.info("caught up: %d files, %d extracted", report.files, report.indexed)
            except _Stopping:
                if self._writer is not None and self._writer.staged:
                    self._guarded("committing the catch-up", self._writer.commit)
            self._pending = 0
        self._set_state(DaemonState.ERROR if self._broken else DaemonState.IDLE)
        self._write_status()

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
        for attempt in (1, 2):
            try:
                if self._writer is None:
                    self._writer = self._open_writer()
                report = sync_repository(
                    self._writer, config, self.rules, progress=progress, commit_every=commit_every
                )
                self._broken = False
                return report
            except _Stopping:
                raise
            except BaseException as exc:
                if not _recoverable(exc):
                    raise
                self._record_failure(exc, f"re-checking the repository (attempt {attempt})")
            # Outside the except block: the traceback no longer pins the failed writer.
            self._drop_writer()
            config = msgspec.structs.replace(config, workers=1)
            if attempt == 1:
                logger.warning("reopening the index at its last commit and re-checking every "
                               "file again, without worker processes")
        self._broken = True
        logger.critical("the index cannot be brought up to date; searches show the last commit")
        return None

    def _drop_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            self._guarded("closing the index writer", writer.close)
        del writer
        gc.collect()  # a Tantivy writer still referenced somewhere would keep its lock

    def _guarded(self, what: str, action: Callable[[], object]) -> bool:
        try:
            action()
        except BaseException as exc:
            if not _recoverable(exc):
                raise
            self._record_failure(exc, what)
            return False
        return True

    def _record_failure(self, exc: BaseException, what: str) -> None:
        self._errors += 1
        self._last_error = f"{what}: {_describe(exc)}"
        logger.error("%s failed", what, exc_info=exc)

    def _on_batch(self, batch: Batch) -> None:
        started = time.monotonic()
        with self._write_lock:  # also while reading what the writer knows (catch-up adds)
            if self._stop.is_set() and self._writer is None:
                return  # shut down already
            paths, ignore_rules_changed = self._relative_paths(batch.changes)
            resync = batch.resync or ("ignore rules changed" if ignore_rules_changed else "")
            if not resync and len(batch.changes) >= RESYNC_FROM_EVENTS:
                resync = f"{len(batch.changes)} events in one batch"
            self._pending = len(paths)
            self._set_state(DaemonState.INDEXING)
            if resync or self._broken or self._writer is None:
                self._sync_all()
            elif not self._guarded("indexing a batch", lambda: self._apply(paths)):
                self._drop_writer()
                self._sync_all()  # the batch's files are re-checked with all the others
            self._pending = 0
            self._set_state(DaemonState.ERROR if self._broken else DaemonState.IDLE)
        self._write_status()
        logger.info(
            "batch of %d paths%s in %.1f ms", len(paths),
            f" (re-checked everything: {resync})" if resync else "",
            (time.monotonic() - started) * 1e3,
        )

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

    # ---- status -----------------------------------------------------------------------

    def _set_state(self, state: DaemonState) -> None:
        with self.changed:
            self._state = state
            self.changed.notify_all()

    def wait_until(self, predicate: Callable[[DaemonStatus], bool], timeout_s: float) -> bool:
        """Block until `predicate(status)` holds (checked after every change) or time out."""
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self.status()), timeout=timeout_s)

    def status(self) -> DaemonStatus:
        """The daemon's state and the index's counts, from the last commit's header: its
        cost does not grow with the repository."""
        writer = self._writer
        header = writer.header if writer is not None else None
        watcher = self._watcher
        return DaemonStatus(
            pid=os.getpid(),
            repo=str(self.config.repo),
            state=self._state,
            pending=self._pending,
            files=header.file_count if header else 0,
            symbols=header.symbol_count if header else 0,
            skipped=dict(Counter(writer.skipped.values())) if writer is not None else {},
            generation=header.generation if header else 0,
            updated_at=header.updated_at if header else 0.0,
            started_at=self._started_at,
            schema_version=SCHEMA_VERSION,
            catch_up_done=self._catch_up[0],
            catch_up_total=self._catch_up[1],
            watch=watcher.mode if watcher is not None else "",
            errors=self._errors,
            last_error=self._last_error,
        )

    def _write_status(self) -> None:
        try:
            write_atomically(
                self.config.index_dir / STATUS_NAME, msgspec.json.encode(self.status())
            )
        except OSError as exc:
            logger.warning("cannot write status file: %s", exc)

    # ---- socket -----------------------------------------------------------------------

    def _serve_socket(self) -> None:
        path = socket_path(self.config.index_dir)
        if path.parent != self.config.index_dir:
            private_socket_dir(path, create=True)
        path.unlink(missing_ok=True)  # we hold the writer lock: any old socket is stale
        daemon = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                conn: socket.socket = self.request
                while True:
                    try:
                        message = receive_request(conn)
                        if isinstance(message, IndexRequest):
                            send_reply(conn, daemon.index_for(conn, message))
                        else:
                            send_reply(conn, daemon.answer(message))
                    except (ProtocolError, OSError):  # the client went away
                        return

        old_umask = os.umask(0o177)  # the socket is the user's only (0600)
        try:
            self._server = socketserver.ThreadingUnixStreamServer(str(path), Handler)
        finally:
            os.umask(old_umask)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="symfind-socket", daemon=True).start()

    def index_for(self, conn: socket.socket, request: IndexRequest) -> Reply:
        """Run `symfind index` (re-check every file) or `symfind reindex` (`fresh`: drop
        the index and rebuild it) for a client, sending it progress on `conn` (called from
        a socket thread; waits for the batch or catch-up under way)."""
        client = _ProgressSender(conn)
        with self._write_lock:
            if self._stop.is_set():
                return ErrorReply(kind="index", message="the daemon is stopping")
            self._set_state(DaemonState.INDEXING)
            started = time.monotonic()
            try:
                report = self._index_now(request.fresh, client)
            finally:
                self._pending = 0
                self._set_state(DaemonState.ERROR if self._broken else DaemonState.IDLE)
        self._write_status()
        logger.info("%s for a client in %.1f s", "reindex" if request.fresh else "index",
                    time.monotonic() - started)
        if report is None:
            return ErrorReply(kind="index", message=f"indexing failed: {self._last_error}")
        return IndexReply(report)

    def _index_now(self, fresh: bool, progress: Callable[[int, int], None]) -> IndexReport | None:
        """Re-check every file, after emptying the index when `fresh` (caller holds the
        write lock); None when that failed even after the retry `_sync_all` makes."""

        def count(done: int, total: int) -> None:
            self._pending = total - done
            progress(done, total)

        if fresh:
            self._drop_writer()
            if not self._guarded("dropping the index", self._open_fresh_writer):
                self._broken = True
                return None
        return self._sync_all(progress=count, commit_every=CATCH_UP_COMMIT_EVERY)

    def _open_fresh_writer(self) -> None:
        self._writer = IndexWriter(
            self.config.index_dir, repo_root=self.config.repo,
            options_hash=self.config.options.fingerprint(), fresh=True,
        )

    def answer(self, message: Request) -> Reply:
        """Handle one request (called from socket threads)."""
        try:
            if isinstance(message, SearchRequest):
                return SearchReply(self._source.search(message.query, pending=self._pending))
            if isinstance(message, StatusRequest):
                return StatusReply(self.status())
            if isinstance(message, StopRequest):
                self._stop.set()
                return OkReply("stopping")
        except QueryError as exc:
            return ErrorReply(kind="query", message=str(exc))
        except StorageError as exc:
            return ErrorReply(kind="index", message=str(exc))
        except BaseException as exc:  # an entry point: one bad request must not kill the daemon
            if not _recoverable(exc):
                raise
            logger.exception("request failed")
            return ErrorReply(kind="internal", message="internal error; see the daemon log")
        return ErrorReply(kind="query", message="unknown request")
