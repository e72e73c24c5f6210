"""The server's view of one repository's index (`Repository`: opened lazily, refreshed
before use), and of several (`Roots`).

Imports: `storage`, `mcp_server.file_cache`, msgspec and the standard library (no mcp:
tools turn errors here into tool errors).

The MCP server only reads the index. When there is none yet it starts the repository's
daemon as a separate process (`python -m symfind.daemon daemon start REPO`, never by import),
which builds the index and then keeps it fresh, and answers that the index is being
built; the first commit makes searches work without a restart, and every search
refreshes the reader so later commits (of the daemon or a manual `symfind index`) are
seen. A running daemon is recognised by its status file in the index directory, which it
rewrites atomically after every batch. A server with several roots does all this for each.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import msgspec

from symfind.mcp_server.file_cache import VerifiedFiles
from symfind.storage import (
    IndexMissing,
    IndexState,
    Manifest,
    Searcher,
    StorageError,
    index_dir_for,
    index_state,
    repo_labels,
)
from symfind.storage.leases import DEFAULT_LEASE_S, register_client

logger = logging.getLogger(__name__)

#: Written by the daemon after every batch (the one file daemon and readers share).
DAEMON_STATUS_FILE = "status.json"
INDEX_LOG_FILE = "mcp-index.log"
#: Daemon states in which a batch may be running.
_BUSY_STATES = frozenset({"starting", "catching_up", "indexing"})


class IndexBuilding(Exception):
    """No usable index yet; the indexer is running (or just failed)."""


@dataclass(frozen=True)
class Activity:
    """What is changing the index now.

    Attributes:
        indexing: Our indexer, or a daemon batch, is running.
        watching: A live daemon keeps the index up to date as files change.
        pending: Changes known but not committed yet (daemon's count, or a crashed batch).
    """

    indexing: bool
    watching: bool
    pending: int


class DaemonStatus(msgspec.Struct, frozen=True, kw_only=True):
    """The fields of the daemon's status file this server reads (others are ignored)."""

    pid: int
    state: str = ""
    pending: int = 0


_STATUS_DECODER = msgspec.json.Decoder(DaemonStatus)


@dataclass
class Indexer:
    """The background indexer process this server started."""

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
        auto_index: Start the indexer when there is no index.
    """

    def __init__(
        self, root: Path, index_dir: Path, *, auto_index: bool = True,
        daemon_lease_s: float = DEFAULT_LEASE_S,
    ) -> None:
        self.root = root
        self.index_dir = index_dir
        self.auto_index = auto_index
        self.daemon_lease_s = daemon_lease_s
        self._client_entry: Path | None = None
        self.indexer: Indexer | None = None
        #: Verified lines of indexed files, for snippets and read_symbol.
        self.files = VerifiedFiles(root)
        self._searcher: Searcher | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Called once at server start: hold the lease of the repository's daemon (one
        started for MCP servers stays while any uses it), and begin indexing if nothing is
        indexed yet."""
        self._hold_lease()
        if self.auto_index and index_state(self.index_dir) is IndexState.MISSING:
            self.start_indexing("no index yet")

    def _hold_lease(self) -> None:
        if self._client_entry is not None or not self.index_dir.is_dir():
            return  # held already, or nothing indexed nor being indexed yet
        try:
            self._client_entry = register_client(self.index_dir)
        except OSError as exc:
            logger.warning("cannot list this server as a client of %s: %s", self.index_dir, exc)

    def stop(self) -> None:
        """Called once at server end: release the lease (a daemon started for MCP servers
        exits once none has used it for its lease)."""
        if self._client_entry is not None:
            self._client_entry.unlink(missing_ok=True)
            self._client_entry = None

    @contextmanager
    def reader(self) -> Iterator[Searcher]:
        """The refreshed Searcher, held under the lock for the caller's block.

        Raises:
            IndexBuilding: No index yet (indexing has been started).
            SchemaMismatch: The index needs `symfind reindex`.
            StorageError: Any other unusable index.
        """
        with self._lock:
            yield self._current()

    def _current(self) -> Searcher:
        if self._searcher is None:
            try:
                self._searcher = Searcher(self.index_dir)
            except IndexMissing:
                if self.auto_index and self.indexer is None:
                    self.start_indexing("no index yet")
                raise IndexBuilding(self.building_message()) from None
            logger.info("opened index %s (generation %d)", self.index_dir,
                        self._searcher.manifest.generation)
            return self._searcher
        try:
            self._searcher.refresh()
        except (StorageError, ValueError, OSError):
            # Rebuilt under us, or damaged: reopen from scratch on the next call.
            self._searcher = None
            raise
        return self._searcher

    def start_indexing(self, reason: str) -> Indexer | None:
        """Start the repository's daemon (`python -m symfind.daemon daemon start ROOT`) unless one
        runs; it builds the index, then keeps it fresh."""
        if self.indexer is not None and self.indexer.running:
            return self.indexer
        if self.daemon_status() is not None:
            return None  # a live daemon keeps the index up to date itself
        self.index_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._hold_lease()  # before the daemon starts: it must not find itself unused
        log_path = self.index_dir / INDEX_LOG_FILE
        with open(log_path, "ab") as log:
            process = subprocess.Popen(
                # -P: a directory named like our packages in the cwd must not shadow them.
                # --force: the server has checked its roots (or was told to serve them anyway).
                [sys.executable, "-P", "-m", "symfind.daemon", "daemon", "start", "--force",
                 "--lease", repr(self.daemon_lease_s), str(self.root)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                close_fds=True,
                # Its own session: a Ctrl-C meant for the MCP host must not stop a commit.
                start_new_session=True,
            )
        logger.info("indexing %s in the background (pid %d): %s", self.root, process.pid, reason)
        self.indexer = Indexer(process=process, started_at=time.monotonic(), log_path=log_path)
        return self.indexer

    def building_message(self) -> str:
        """Why there is no index yet, and what happens next."""
        indexer = self.indexer
        if self.daemon_status() is not None:
            return (
                f"the index of {self.root} is being built by the running daemon — "
                "retry in a few seconds (index_status shows progress)"
            )
        if indexer is None:
            return f"{self.root} is not indexed — run `symfind index {self.root}`"
        if indexer.running:
            seconds = time.monotonic() - indexer.started_at
            return (
                f"the index of {self.root} is still being built (started {seconds:.0f}s ago) — "
                "retry in a few seconds; index_status shows progress"
            )
        if indexer.exit_code == 0:
            return f"the index of {self.root} has just been built — retry now"
        return (
            f"indexing {self.root} failed (exit code {indexer.exit_code}); see "
            f"{indexer.log_path} or run `symfind index {self.root}`"
        )

    def daemon_status(self) -> DaemonStatus | None:
        """The live daemon's last status, or None when none runs for this index."""
        try:
            status = _STATUS_DECODER.decode((self.index_dir / DAEMON_STATUS_FILE).read_bytes())
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        if status.state == "stopping" or not _alive(status.pid):
            return None
        return status

    def activity(self, manifest: Manifest | None = None) -> Activity:
        """What is changing the index now (one read of the daemon's status file)."""
        status = self.daemon_status()
        ours = self.indexer is not None and self.indexer.running
        return Activity(
            indexing=ours or (status is not None and status.state in _BUSY_STATES),
            watching=status is not None,
            pending=max(status.pending if status else 0, len(manifest.pending) if manifest else 0),
        )


class Roots:
    """Several repositories served at once, each a `Repository` under a short label
    (`storage.repo_labels`), in the order given: the first wins ties in a fused ranking.

    Args:
        roots: Repository roots, already resolved, each once.
        auto_index: Start the indexer of a root that has no index.
    """

    def __init__(
        self, roots: Sequence[Path], *, auto_index: bool = True,
        daemon_lease_s: float = DEFAULT_LEASE_S,
    ) -> None:
        self.repos: dict[str, Repository] = {
            label: Repository(root, index_dir_for(root), auto_index=auto_index,
                              daemon_lease_s=daemon_lease_s)
            for label, root in zip(repo_labels(roots), roots, strict=True)
        }
        #: Searches the repositories concurrently, for the server's life (Tantivy releases
        #: the GIL while it searches).
        self.executor = ThreadPoolExecutor(
            max_workers=min(len(roots), os.cpu_count() or 1), thread_name_prefix="symfind-repo"
        )

    def start(self) -> None:
        """Called once at server start: begin indexing the roots that have no index."""
        for repo in self.repos.values():
            repo.start()

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)
        for repo in self.repos.values():
            repo.stop()


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True
