"""The per-repository daemon: its life cycle, and the repository's root.

Start-up takes Tantivy's writer lock (a second daemon exits naming the first one's pid),
opens the socket at once (`listener.py`), starts watching, then has the index keeper
(`keeper.py`) catch up with what changed while no daemon ran. The watcher's batches go to
the keeper, which applies and commits them one at a time; searches read the latest
commit. SIGTERM finishes the current batch, commits and exits.

The repository's root is watched too: deleted, moved away or replaced by another
directory (`rm -rf R && git clone … R`, `mv R R2 && mkdir R`) — seen by its inode and
device changing, checked every `ROOT_CHECK_S` and at once when the watcher reports the
root itself deleted or moved (a new directory may get the old one's inode number: the
watcher's report is enough) — the daemon watches the new directory and re-checks every
file; while no directory is there, its status is `error` saying so and searches are
refused, until one appears again. Its index directory removed (or replaced) under it, the
daemon stops: the index it keeps is gone.

Staying up: a fatal signal dumps every thread's stack to the log (faulthandler; `kill
-USR1 <pid>` dumps them on demand), an exception that ends the daemon is logged before it
propagates, and each shutdown step runs whatever the previous ones raised; how indexing
failures are survived is the keeper's.

Imports: setproctitle, `storage` and `daemon` modules.
"""

from __future__ import annotations

import faulthandler
import logging
import os
import signal
import socket
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import setproctitle

from symfind.daemon import registry
from symfind.daemon.batches import RESYNC_FROM_EVENTS
from symfind.daemon.client import PID_NAME
from symfind.daemon.config import Config, WatchMode
from symfind.daemon.errors import DaemonError, DaemonRunning, UnsafeSocketDirectory
from symfind.daemon.keeper import IndexKeeper
from symfind.daemon.lease import wait_for_stop
from symfind.daemon.listener import ProgressSender, SocketListener
from symfind.daemon.protocol import (
    ErrorReply,
    IndexReply,
    IndexRequest,
    OkReply,
    Reply,
    Request,
    ReferencesReply,
    ReferencesRequest,
    SearchReply,
    SearchRequest,
    StatusReply,
    StatusRequest,
    StopRequest,
)
from symfind.daemon.repair import recoverable
from symfind.daemon.walk import IgnoreRules
from symfind.daemon.warm_up import start_warm_up
from symfind.daemon.watcher import RepositoryWatcher
from symfind.storage import DaemonState, DaemonStatus, IndexDamaged, QueryError, StorageError

__all__ = ["RESYNC_FROM_EVENTS", "ROOT_CHECK_S", "Daemon", "DaemonRunning"]

logger = logging.getLogger(__name__)

#: Seconds between two looks at whether the repository's root is still the directory
#: the daemon watches (one `stat`).
ROOT_CHECK_S = 1.0


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a directory; None when there is none at `path`."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


def _enable_faulthandler() -> None:
    """Dump every thread's Python stack to stderr (the daemon log) on a fatal signal (a
    crash in Tantivy or tree-sitter), and on SIGUSR1 (a daemon that hangs)."""
    try:
        if not faulthandler.is_enabled():
            faulthandler.enable(file=sys.stderr, all_threads=True)
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    except (AttributeError, ValueError, OSError) as exc:  # stderr without a descriptor
        logger.warning("cannot enable faulthandler: %s", exc)


def _raise_open_files_limit() -> None:
    """Allow as many open files as the hard limit does: every client connection holds a
    descriptor beside the index's files, and a soft limit of 1,024 would let a few hundred
    idle connections starve the daemon of descriptors to index with."""
    try:
        import resource  # noqa: PLC0415  # POSIX only
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == hard:
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError) as exc:  # macOS refuses RLIM_INFINITY: keep the soft limit
        logger.info("open files limit stays %d: %s", soft, exc)


class Daemon:
    """One repository's daemon. `run()` blocks until stopped."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._stop = threading.Event()
        # Set to look at the root now (the watcher saw it deleted or moved, or stopping).
        self._look_at_root = threading.Event()
        # The watcher saw the root itself deleted or moved: its watch is over even when a
        # new directory got the old one's inode number (file systems reuse them at once).
        self._root_event = threading.Event()
        self._root_identity = _identity(config.repo)
        self._index_identity: tuple[int, int] | None = None  # once the index is open
        self._watcher: RepositoryWatcher | None = None
        self.keeper = IndexKeeper(
            config, self._stop, watch_mode=self._watch_mode, request_resync=self._request_resync,
            waiting=self._waiting,
        )
        self._listener = SocketListener(config.index_dir, self.answer, self.index_for)
        self._registered: Path | None = None  # this daemon's registry entry
        # Notified after every commit and state change, for whoever waits on the daemon.
        self.changed = self.keeper.changed

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
            _raise_open_files_limit()
        try:
            return self._serve()
        except (DaemonRunning, UnsafeSocketDirectory):
            raise  # not a failure of this daemon: the CLI says which one runs
        except BaseException:
            logger.critical("daemon for %s failed", self.config.repo, exc_info=True)
            raise

    def stop(self) -> None:
        self._stop.set()
        self._look_at_root.set()

    def status(self) -> DaemonStatus:
        return self.keeper.status()

    def wait_until(self, predicate: Callable[[DaemonStatus], bool], timeout_s: float) -> bool:
        """Block until `predicate(status)` holds (checked after every change) or time out."""
        return self.keeper.wait_until(predicate, timeout_s)

    def _serve(self) -> int:
        index_dir = self.config.index_dir
        self.keeper.open()
        self._index_identity = _identity(index_dir)
        (index_dir / PID_NAME).write_text(f"{os.getpid()}\n", encoding="utf-8")
        # What `ps` and `top` show: not `python3 -P -m symfind.cli …`.
        setproctitle.setproctitle(f"symfind daemon {self.config.repo}")
        self._install_signal_handlers()
        try:
            self.keeper.status_file.start()
            # Listed before it answers: `daemon start` returns once it answers, and a
            # `daemon list` right after must show it (registered after, a busy machine
            # let the first answer through before the entry was written).
            unlisted = self._register()
            self._listener.start()
            if unlisted:
                logger.warning("not listed in the daemon registry: %s", unlisted)
            self._watcher = self._start_watcher()
            self.keeper.catch_up()
            self._watcher.check_coverage()
            self.keeper.write_status()
            logger.info("daemon ready for %s (watching: %s)", self.config.repo, self._watcher.mode)
            start_warm_up(self.keeper.source, self.keeper.work_lock)
            wait_for_stop(self._stop, index_dir, self.config.lease_s,
                          wake=self._look_at_root, every_s=ROOT_CHECK_S, on_wake=self._look_around)
        finally:
            saved = self._shutdown()
        return 0 if saved and not self.keeper.broken else 1

    def _install_signal_handlers(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self.stop())

    def _shutdown(self) -> bool:
        """Stop watching, serving and writing, each step whatever the others raised;
        True when the index holds everything staged."""
        self._stop.set()  # a batch still running must not reopen the writer afterwards
        self.keeper.set_state(DaemonState.STOPPING)
        # Said at once: its socket closes before its last commit, and `daemon start` then
        # waits for it to exit instead of taking it for a daemon that cannot be reached.
        self.keeper.write_status()
        if self._watcher is not None:
            self._step("stop watching", self._watcher.stop)  # the current batch finishes
        self._step("stop reading ahead", self.keeper.prefetch.close)
        self._step("close the socket", self._listener.close)
        logger.info("stopping: socket closed, committing %d pending changes",
                    self.keeper.status().pending)
        self._step("stop writing the status", self.keeper.status_file.stop)
        saved = self.keeper.close(self._step)
        self.keeper.write_status()
        pid_file = self.config.index_dir / PID_NAME
        self._step("remove the pid file", lambda: pid_file.unlink(missing_ok=True))
        if self._registered is not None:
            entry = self._registered
            self._step("leave the registry", lambda: entry.unlink(missing_ok=True))
        logger.info("daemon stopped")
        return saved

    def _register(self) -> str:
        """List this daemon in the user's registry (`symfind daemon list`); without it the
        daemon still serves, it is only harder to find. Why it could not be listed (""
        when it is), for the caller to say once the daemon serves: a directory that
        fails the registry may fail the socket too, which says it in one line."""
        entry = registry.this_process(self.config.repo, self.config.index_dir,
                                      self.config.lease_s)
        try:
            self._registered = registry.register(entry)
        except (OSError, DaemonError) as exc:
            return str(exc)
        return ""

    @staticmethod
    def _step(what: str, action: Callable[[], object]) -> bool:
        """Run one shutdown step; log a failure and carry on."""
        try:
            action()
        except BaseException as exc:
            if not recoverable(exc):
                raise
            logger.error("stopping: cannot %s", what, exc_info=True)
            return False
        return True

    # ---- the repository's root ----------------------------------------------------------

    def _start_watcher(self) -> RepositoryWatcher:
        watcher = RepositoryWatcher(
            self.config.repo, self.keeper.on_batch,
            polling=self.config.watch == WatchMode.POLLING, on_root_event=self._on_root_event,
            on_waiting=self.keeper.status_file.request, on_change=self.keeper.prefetch.changed,
        )
        watcher.start()
        return watcher

    def _watch_mode(self) -> str:
        watcher = self._watcher
        return watcher.mode if watcher is not None else ""

    def _waiting(self) -> int:
        watcher = self._watcher
        return watcher.waiting() if watcher is not None else 0

    def _request_resync(self, reason: str) -> None:
        watcher = self._watcher
        if watcher is not None:
            watcher.request_resync(reason)

    def _on_root_event(self) -> None:
        self._root_event.set()
        self._look_at_root.set()

    def _look_around(self) -> None:
        self._check_index_dir()
        self._check_root()

    def _check_index_dir(self) -> None:
        """Stop once the index directory is removed (or replaced): the index this daemon
        keeps is gone, and a new one may already have another writer. The next `symfind
        index`, `daemon start` or MCP server builds a new one."""
        if _identity(self.config.index_dir) == self._index_identity:
            return
        logger.warning("the index directory %s was removed or replaced: stopping",
                       self.config.index_dir)
        self.stop()

    def _check_root(self) -> None:
        """Notice a root deleted, moved away or replaced by another directory."""
        reported = self._root_event.is_set()
        self._root_event.clear()
        identity = _identity(self.config.repo)
        if identity == self._root_identity and not self.keeper.root_gone and not reported:
            return
        if identity is None:
            if not self.keeper.root_gone:
                self.keeper.root_gone = (
                    f"the repository {self.config.repo} was deleted or moved away; the daemon "
                    "waits for it to come back (or stop it: `symfind daemon stop`)"
                )
                self.keeper.record_failure(self.keeper.root_gone, "watching the root")
                self.keeper.set_state(DaemonState.ERROR)
                self.keeper.write_status()
            return
        logger.warning("the repository %s is another directory now (deleted, moved or "
                       "re-created): watching it and re-checking every file", self.config.repo)
        self._root_identity = identity
        self._rewatch()

    def _rewatch(self) -> None:
        """Watch the directory now at the root and make the index match it."""
        old, self._watcher = self._watcher, None
        if old is not None:
            old.stop()  # its watches follow the old directory's inodes, wherever it went
        self.keeper.rules = IgnoreRules(self.config.repo)  # the old tree's were cached
        try:
            self._watcher = self._start_watcher()
        except OSError as exc:  # gone again already: the next look says so
            logger.warning("cannot watch %s: %s", self.config.repo, exc)
            self._root_identity = None
            return
        self.keeper.root_gone = ""
        self.keeper.resync()
        self._watcher.check_coverage()

    # ---- requests (socket threads) ---------------------------------------------------------

    def index_for(self, conn: socket.socket, request: IndexRequest) -> Reply:
        """Run `symfind index` or `symfind reindex` for a client, sending it progress on
        `conn`."""
        report, failure = self.keeper.index_for_client(request.fresh, ProgressSender(conn))
        return IndexReply(report) if report is not None else ErrorReply(kind="index",
                                                                        message=failure)

    def answer(self, message: Request) -> Reply:
        """Handle one request."""
        try:
            if isinstance(message, SearchRequest):
                return SearchReply(self.keeper.search(message))
            if isinstance(message, ReferencesRequest):
                return ReferencesReply(self.keeper.references(message))
            if isinstance(message, StatusRequest):
                return StatusReply(self.keeper.status())
            if isinstance(message, StopRequest):
                self.stop()
                return OkReply("stopping")
        except QueryError as exc:
            return ErrorReply(kind="query", message=str(exc))
        except IndexDamaged as exc:  # said as is: the client must not read the index instead
            return ErrorReply(kind="damaged", message=str(exc))
        except StorageError as exc:
            return ErrorReply(kind="index", message=str(exc))
        except BaseException as exc:  # an entry point: one bad request must not kill the daemon
            if not recoverable(exc):
                raise
            logger.exception("request failed")
            return ErrorReply(kind="internal", message="internal error; see the daemon log")
        return ErrorReply(kind="query", message="unknown request")
