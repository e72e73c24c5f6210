"""The per-repository daemon: the index's only writer, a watcher, and a local socket.

Imports: `extract`, `storage`, `daemon` modules.

Start-up takes Tantivy's writer lock (a second daemon exits naming the first one's pid),
opens the socket at once, starts watching, then catches up with what changed while no
daemon ran. Batches of changes are applied and committed one at a time; searches read
the latest commit. SIGTERM finishes the current batch, commits and exits.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import socketserver
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import msgspec

from daemon.client import PID_NAME, STATUS_NAME, read_pid, socket_path
from daemon.config import Config
from daemon.errors import DaemonError
from daemon.indexer import apply_changes, sync_repository
from daemon.protocol import (
    DaemonStatus,
    ErrorReply,
    OkReply,
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
from daemon.walk import IGNORE_FILES, IgnoreRules, walk_repository
from daemon.watcher import Change, RepositoryWatcher
from storage import (
    SCHEMA_VERSION,
    IndexLocked,
    IndexWriter,
    QueryError,
    Searcher,
    SearchResponse,
    StorageError,
    write_atomically,
)

logger = logging.getLogger(__name__)

# Catch-up commits this often, so searches see a growing index instead of nothing.
CATCH_UP_COMMIT_EVERY = 1_000


class DaemonRunning(DaemonError):
    """Another daemon already serves this repository."""


class _Stopping(Exception):
    """Raised inside the catch-up to stop it early on SIGTERM."""


class Daemon:
    """One repository's daemon. `run()` blocks until stopped."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.rules = IgnoreRules(config.repo)
        self._stop = threading.Event()
        self._write_lock = threading.Lock()
        self._search_lock = threading.Lock()
        self._writer: IndexWriter | None = None
        self._searcher: Searcher | None = None
        self._pending = 0
        self._state = "starting"
        self._catch_up = (0, 0)
        self._started_at = time.time()
        self._server: socketserver.ThreadingUnixStreamServer | None = None
        # Notified after every commit and state change, for whoever waits on the daemon.
        self.changed = threading.Condition()

    # ---- life cycle -------------------------------------------------------------------

    def run(self) -> int:
        """Serve until SIGTERM/SIGINT or a stop request; returns the exit code.

        Raises:
            DaemonRunning: Another daemon holds the index's writer lock.
            StorageError: The index cannot be created or opened.
        """
        index_dir = self.config.index_dir
        try:
            self._writer = IndexWriter(
                index_dir, repo_root=self.config.repo, options_hash=self.config.options.fingerprint()
            )
        except IndexLocked as exc:
            pid = read_pid(index_dir)
            holder = f"pid {pid}" if pid else "another process"
            raise DaemonRunning(
                f"a symfind daemon ({holder}) already serves {self.config.repo}"
            ) from exc
        (index_dir / PID_NAME).write_text(f"{os.getpid()}\n", encoding="utf-8")
        self._install_signal_handlers()
        watcher = RepositoryWatcher(self.config.repo, self._on_batch)
        try:
            self._serve_socket()
            watcher.start()
            self._catch_up_with_disk()
            logger.info("daemon ready for %s", self.config.repo)
            self._stop.wait()
        finally:
            self._set_state("stopping")
            watcher.stop()
            self._shutdown()
        return 0

    def stop(self) -> None:
        self._stop.set()

    def _install_signal_handlers(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self._stop.set())

    def _shutdown(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            socket_path(self.config.index_dir).unlink(missing_ok=True)
        with self._write_lock:
            if self._writer is not None:
                if self._writer.staged:
                    self._writer.commit()
                self._writer.close()
                self._writer = None
        self._write_status()
        (self.config.index_dir / PID_NAME).unlink(missing_ok=True)
        logger.info("daemon stopped")

    # ---- indexing ---------------------------------------------------------------------

    def _catch_up_with_disk(self) -> None:
        self._set_state("catching_up")
        self._write_status()  # readers (the MCP server) see a daemon at work from now on

        def progress(done: int, total: int) -> None:
            self._catch_up = (done, total)
            self._pending = total - done
            if self._stop.is_set():
                raise _Stopping

        with self._write_lock:
            assert self._writer is not None
            try:
                report = sync_repository(
                    self._writer, self.config, self.rules, progress=progress,
                    commit_every=CATCH_UP_COMMIT_EVERY,
                )
                logger.info("caught up: %d files, %d extracted", report.files, report.indexed)
            except _Stopping:
                self._writer.commit()
            self._pending = 0
        self._set_state("idle")
        self._write_status()

    def _on_batch(self, changes: list[Change]) -> None:
        started = time.monotonic()
        paths, resync = self._relative_paths(changes)
        with self._write_lock:
            writer = self._writer
            if writer is None:
                return
            self._pending = len(paths)
            self._set_state("indexing")
            if resync:
                sync_repository(writer, self.config, self.rules)
            else:
                apply_changes(writer, self.config, self.rules, paths)
                if writer.staged:
                    writer.commit()
            self._pending = 0
            self._set_state("idle")
        self._write_status()
        logger.info("batch of %d paths in %.1f ms", len(paths), (time.monotonic() - started) * 1e3)

    def _relative_paths(self, changes: list[Change]) -> tuple[set[str], bool]:
        """Repo-relative file paths to re-check; True when a full re-sync is needed."""
        root = self.config.repo
        paths: set[str] = set()
        directories: set[str] = set()
        resync = False
        for change in changes:
            try:
                relative = Path(change.path).relative_to(root).as_posix()
            except ValueError:
                continue  # outside the repository (a move out reports the source too)
            name = relative.rsplit("/", 1)[-1]
            if name in IGNORE_FILES or relative == ".git/info/exclude":
                self.rules.forget(relative.rpartition("/")[0])
                resync = True
            elif change.is_directory:
                directories.add(relative)
            else:
                paths.add(relative)
        for directory in directories:
            self._files_below(directory, paths)
        return paths, resync

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

    def _set_state(self, state: str) -> None:
        with self.changed:
            self._state = state
            self.changed.notify_all()

    def wait_until(self, predicate: Callable[[DaemonStatus], bool], timeout_s: float) -> bool:
        """Block until `predicate(status)` holds (checked after every change) or time out."""
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self.status()), timeout=timeout_s)

    def status(self) -> DaemonStatus:
        writer = self._writer
        manifest = writer.manifest if writer is not None else None
        return DaemonStatus(
            pid=os.getpid(),
            repo=str(self.config.repo),
            state=self._state,
            pending=self._pending,
            files=len(manifest.files) if manifest else 0,
            symbols=sum(s.symbols for s in manifest.files.values()) if manifest else 0,
            skipped=dict(Counter(manifest.skipped.values())) if manifest else {},
            generation=manifest.generation if manifest else 0,
            updated_at=manifest.updated_at if manifest else 0.0,
            started_at=self._started_at,
            schema_version=SCHEMA_VERSION,
            catch_up_done=self._catch_up[0],
            catch_up_total=self._catch_up[1],
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
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.unlink(missing_ok=True)  # we hold the writer lock: any old socket is stale
        daemon = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                conn: socket.socket = self.request
                while True:
                    try:
                        message = receive_request(conn)
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

    def answer(self, message: Request) -> Reply:
        """Handle one request (called from socket threads)."""
        try:
            if isinstance(message, SearchRequest):
                return SearchReply(self._search(message))
            if isinstance(message, StatusRequest):
                return StatusReply(self.status())
            if isinstance(message, StopRequest):
                self._stop.set()
                return OkReply("stopping")
        except QueryError as exc:
            return ErrorReply(kind="query", message=str(exc))
        except StorageError as exc:
            return ErrorReply(kind="index", message=str(exc))
        except Exception:  # an entry point: one bad request must not kill the daemon
            logger.exception("request failed")
            return ErrorReply(kind="internal", message="internal error; see the daemon log")
        return ErrorReply(kind="query", message="unknown request")

    def _search(self, request: SearchRequest) -> SearchResponse:
        with self._search_lock:
            if self._searcher is None:
                self._searcher = Searcher(self.config.index_dir)
            else:
                self._searcher.refresh()
            searcher = self._searcher
        return searcher.search(
            request.query, limit=request.limit, kind=request.kind, language=request.language,
            path=request.path, pending=self._pending,
        )
