"""The server's view of one repository's index (`Repository`), and of several (`Roots`).

The MCP server only reads the index, through a `storage.IndexSource` (opened lazily,
refreshed before every use, reopened after a failed read). When no daemon runs for the
repository — no index yet, or an index built by `symfind index` — it starts the
repository's daemon as a separate process (`storage.spawn_daemon`: `symfind daemon start
REPO`, never by import), which builds the index or catches up with it, then keeps it fresh
as files change; until the first commit it answers that the index is being built, and
later commits (of the daemon or a manual `symfind index`) are seen by the next search. A
running daemon is recognised by its status file (`storage.live_daemon_status`), which it
rewrites atomically as its work goes on; a search waits a moment for changes the daemon
has seen to be committed (`settled_daemon`), and every answer says what it may miss
(`storage.freshness`). A server with several roots does all this for each. Nothing here
imports mcp: tools turn these errors into tool errors.
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from symfind.mcp_server.file_cache import VerifiedFiles
from symfind.storage import (
    BUSY_STATES,
    FRESH_WAIT_S,
    DaemonState,
    DaemonStatus,
    IndexMissing,
    IndexSource,
    IndexState,
    Manifest,
    Searcher,
    index_dir_for,
    index_state,
    live_daemon_status,
    repo_labels,
    settling,
    spawn_daemon,
)
from symfind.storage.contract.leases import DEFAULT_LEASE_S, register_client

logger = logging.getLogger(__name__)

#: Where the output of the `symfind daemon start` this server runs goes.
LAUNCH_LOG_FILE = "mcp-index.log"
#: How often a search waiting for the daemon's pending changes reads its status file.
_SETTLE_POLL_S = 0.02


class IndexBuilding(IndexMissing):
    """No usable index yet; the daemon building it runs (or just failed). Its message
    says so, and what to do: tools show it as is."""


@dataclass(frozen=True)
class Activity:
    """What is changing the index now.

    Attributes:
        indexing: The daemon we launched is starting, or a daemon batch is running.
        watching: A live daemon keeps the index up to date as files change.
        pending: Changes known but not committed yet (daemon's count, or a crashed batch).
        daemon: The daemon's status (one starting, launched by us, counts), or None.
    """

    indexing: bool
    watching: bool
    pending: int
    daemon: DaemonStatus | None = None


@dataclass
class DaemonLaunch:
    """The `symfind daemon start` process this server ran to build the index (it exits
    once the daemon it detaches answers, or fails; a thread of its own waits for it)."""

    process: subprocess.Popen[bytes]
    started_at: float
    log_path: Path

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    @property
    def exit_code(self) -> int | None:
        return self.process.poll()


class Repository:
    """One repository and its index, shared by all tool calls (thread-safe).

    Args:
        root: The repository root, already resolved.
        index_dir: Where its index lives (`storage.index_dir_for(root)`).
        auto_index: Start the daemon when there is no index.
        handle_key: The server's own key, in every read handle it signs (`handles`).
    """

    def __init__(
        self, root: Path, index_dir: Path, *, auto_index: bool = True,
        daemon_lease_s: float = DEFAULT_LEASE_S, handle_key: bytes = b"",
    ) -> None:
        self.root = root
        self.handle_key = handle_key
        self.index_dir = index_dir
        self.auto_index = auto_index
        self.daemon_lease_s = daemon_lease_s
        self._client_entry: Path | None = None
        self.launch: DaemonLaunch | None = None
        #: Verified lines of indexed files, for snippets and read_symbol.
        self.files = VerifiedFiles(root)
        self._source = IndexSource(index_dir)
        self._launch_lock = threading.Lock()

    def start(self) -> None:
        """Called once at server start: hold the lease of the repository's daemon (one
        started for MCP servers stays while any uses it), and start that daemon unless
        one runs: it builds the index if there is none, and keeps it fresh."""
        self._hold_lease()
        if self.auto_index and self.daemon_status() is None:
            missing = index_state(self.index_dir) is IndexState.MISSING
            try:
                self.start_daemon("no index yet" if missing else "no daemon keeps it fresh")
            except OSError as exc:  # a read-only index directory: answers say unwatched
                logger.warning("cannot start the daemon of %s: %s", self.root, exc)

    def _hold_lease(self) -> None:
        if self._client_entry is not None or not self.index_dir.is_dir():
            return  # held already, or nothing indexed nor being indexed yet
        try:
            self._client_entry = register_client(self.index_dir)
        except OSError as exc:
            logger.warning("cannot list this server as a client of %s: %s", self.index_dir, exc)

    def close(self) -> None:
        """Called once at server end: release the lease (a daemon started for MCP servers
        exits once none has used it for its lease)."""
        if self._client_entry is not None:
            self._client_entry.unlink(missing_ok=True)
            self._client_entry = None

    @contextmanager
    def reader(self) -> Iterator[Searcher]:
        """The refreshed Searcher, held under its source's lock for the caller's block.

        Raises:
            IndexBuilding: No index yet (the daemon has been started to build it).
            SchemaMismatch: The index needs `symfind reindex`.
            StorageError: Any other unusable index.
        """
        try:
            with self._source.reader() as searcher:
                yield searcher
        except IndexMissing:
            if self.auto_index and self.launch is None:
                self.start_daemon("no index yet")
            raise IndexBuilding(self.building_message()) from None

    def start_daemon(self, reason: str) -> DaemonLaunch | None:
        """Start the repository's daemon unless one runs; it builds the index, then keeps
        it fresh."""
        with self._launch_lock:
            if self.launch is not None and self.launch.running:
                return self.launch
            if self.daemon_status() is not None:
                return None  # a live daemon keeps the index up to date itself
            self.index_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._hold_lease()  # before the daemon starts: it must not find itself unused
            log_path = self.index_dir / LAUNCH_LOG_FILE
            # --force: the server has checked its roots (or was told to serve them anyway).
            process = spawn_daemon("start", self.root, log_path, options=[
                "--force", "--lease", repr(self.daemon_lease_s)])
            logger.info("indexing %s in the background (pid %d): %s", self.root, process.pid,
                        reason)
            # Reaped as soon as it exits: a server whose tools never ask about it (`running`
            # polls it) kept it a zombie for as long as it ran.
            threading.Thread(target=process.wait, name=f"symfind-reap-{process.pid}",
                             daemon=True).start()
            self.launch = DaemonLaunch(process=process, started_at=time.monotonic(),
                                       log_path=log_path)
            return self.launch

    def building_message(self) -> str:
        """Why there is no index yet, and what happens next."""
        launch = self.launch
        status = self.daemon_status()
        if status is not None:
            done, total = status.catch_up_done, status.catch_up_total
            progress = (f" ({done:,} of {total:,} files read so far)" if total
                        else " (listing the repository's files)")
            return (
                f"the index of {self.root} is being built by the running daemon{progress} — "
                "retry in a few seconds (index_status shows progress)"
            )
        if launch is None:
            return f"{self.root} is not indexed — run `symfind index {self.root}`"
        if launch.running:
            seconds = time.monotonic() - launch.started_at
            return (
                f"the index of {self.root} is still being built (started {seconds:.0f}s ago) — "
                "retry in a few seconds; index_status shows progress"
            )
        if launch.exit_code == 0:  # it answered, and has not written its status yet
            return (
                f"the index of {self.root} is being built by the daemon just started — "
                "retry in a few seconds; index_status shows progress"
            )
        return (
            f"indexing {self.root} failed (exit code {launch.exit_code}); see "
            f"{launch.log_path} or run `symfind index {self.root}`"
        )

    def daemon_status(self) -> DaemonStatus | None:
        """The live daemon's last status, or None when none runs for this index."""
        return live_daemon_status(self.index_dir)

    def settled_daemon(self) -> DaemonStatus | None:
        """The daemon's status (see `activity`), once the few changes it has seen are
        committed — a file just saved — waiting at most FRESH_WAIT_S (`settling`)."""
        status = self._daemon_or_launch()
        deadline = time.monotonic() + FRESH_WAIT_S
        while status is not None and settling(status) and time.monotonic() < deadline:
            time.sleep(_SETTLE_POLL_S)  # another process: its status file is the way in
            status = self._daemon_or_launch()
        return status

    def _daemon_or_launch(self) -> DaemonStatus | None:
        """The live daemon's status; while the daemon we launched has not written one
        yet, a status that says it is starting."""
        status = self.daemon_status()
        launch = self.launch
        if status is None and launch is not None and launch.running:
            return DaemonStatus(pid=launch.process.pid, repo=str(self.root),
                                state=DaemonState.STARTING)
        return status

    def activity(self, status: DaemonStatus | None = None) -> Activity:
        """What is changing the index now, from the daemon's status (`settled_daemon`'s,
        else one read of its status file)."""
        if status is None:
            status = self._daemon_or_launch()
        ours = self.launch is not None and self.launch.running
        return Activity(
            indexing=ours or (status is not None and status.state in BUSY_STATES),
            watching=status is not None,
            pending=status.pending if status else 0,
            daemon=status,
        )


class Roots:
    """Several repositories served at once, each a `Repository` under a short label
    (`storage.repo_labels`), in the order given: the first wins ties in a fused ranking.

    Args:
        roots: Repository roots, already resolved, each once.
        auto_index: Start the daemon of a root that has no index.
        handle_key: The server's own key, in every read handle it signs (`handles`).
    """

    def __init__(
        self, roots: Sequence[Path], *, auto_index: bool = True,
        daemon_lease_s: float = DEFAULT_LEASE_S, handle_key: bytes = b"",
    ) -> None:
        self.repos: dict[str, Repository] = {
            label: Repository(root, index_dir_for(root), auto_index=auto_index,
                              daemon_lease_s=daemon_lease_s, handle_key=handle_key)
            for label, root in zip(repo_labels(roots), roots, strict=True)
        }
        #: Searches the repositories concurrently, for the server's life (Tantivy releases
        #: the GIL while it searches).
        self.executor = ThreadPoolExecutor(
            max_workers=min(len(roots), os.cpu_count() or 1), thread_name_prefix="symfind-repo"
        )

    def start(self) -> None:
        """Called once at server start: start the daemon of every root that has none
        running."""
        for repo in self.repos.values():
            repo.start()

    def close(self) -> None:
        """Called once at server end: stop the searches, close every repository."""
        self.executor.shutdown(wait=True, cancel_futures=True)
        for repo in self.repos.values():
            repo.close()
