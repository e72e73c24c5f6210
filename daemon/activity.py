"""What a daemon is doing and what it has survived, and the status that says so.

`Activity` holds the daemon's state, the work under way (what is pending: the files of
that work not committed yet, and the changes the watcher holds for its next batch), what
indexing left out (`failing`), and the failures counted. `status()` builds `DaemonStatus`
from them and the index's last commit; `write_status()` writes it to `status.json` for
readers that do not talk to the daemon; `changed` is notified at every state change, for
whoever waits on the daemon (`wait_until`).

Imports: msgspec, `storage` and `daemon` modules.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

import msgspec

from symfind.daemon.config import Config
from symfind.daemon.status_file import StatusWriter, write_status_file
from symfind.storage import SCHEMA_VERSION, STATUS_NAME, DaemonState, DaemonStatus, ManifestHeader

logger = logging.getLogger(__name__)

#: The index's side of a status: the last commit's header, and the skipped files by
#: reason (empty when `counts` is False: counting them grows with the repository).
IndexCounts = Callable[[bool], tuple[ManifestHeader | None, dict[str, int]]]


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


class Activity:
    """One daemon's state and counts; any thread may read or change them.

    `index_counts` reads the index's side of a status, `watch_mode` how the repository
    is watched, `waiting` how many changes the watcher holds for its next batch.
    """

    def __init__(
        self,
        config: Config,
        *,
        index_counts: IndexCounts,
        watch_mode: Callable[[], str],
        waiting: Callable[[], int],
    ) -> None:
        self._config = config
        self._index_counts = index_counts
        self._watch_mode = watch_mode
        self._waiting = waiting
        self.root_gone = ""  # why searches are refused while the root is missing
        # Files of the work under way not committed yet; files the last attempt left out
        # because indexing failed; whether the work builds the index, and since when.
        self.pending = 0
        self.failing = 0
        self.building = False
        self.busy_since = 0.0
        self.catch_up = (0, 0)  # files done and to do, of the catch-up at start
        self.broken = False  # the last re-check failed even without worker processes
        self._state = DaemonState.STARTING
        self._started_at = time.time()
        # Indexing failures survived, and the last one (`record_failure`).
        self.errors = 0
        self.last_error = ""
        # Notified after every commit and state change, for whoever waits on the daemon.
        self.changed = threading.Condition()
        # Rewrites status.json as the status changes (started and stopped by the daemon).
        self.status_file = StatusWriter(self.write_status)
        self._status_lock = threading.Lock()

    def begin_work(self, *, building: bool = False) -> None:
        self.building = building
        self.busy_since = time.time()

    def end_work(self) -> None:
        self.pending = 0
        self.building = False
        self.busy_since = 0.0

    def record_failure(self, exc: BaseException | str, what: str) -> None:
        """Count a failure survived; `exc` an exception (logged with its traceback) or
        what to say."""
        self.errors += 1
        if isinstance(exc, str):
            self.last_error = exc
            logger.warning("%s", exc)
            return
        self.last_error = f"{what}: {_describe(exc)}"
        logger.error("%s failed", what, exc_info=exc)

    def set_state(self, state: DaemonState) -> None:
        with self.changed:
            self._state = state
            self.changed.notify_all()

    def resting_state(self) -> DaemonState:
        """The state after some work: `error` while the index is broken or the root gone."""
        return DaemonState.ERROR if self.broken or self.root_gone else DaemonState.IDLE

    def settle(self) -> None:
        """Rest after some work, and say so in the status file."""
        self.set_state(self.resting_state())
        self.write_status()

    def wait_until(self, predicate: Callable[[DaemonStatus], bool], timeout_s: float) -> bool:
        """Block until `predicate(status)` holds (checked after every change) or time out."""
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self.status()), timeout=timeout_s)

    def status(self, *, counts: bool = True) -> DaemonStatus:
        """The daemon's state and the index's counts, from the last commit's header: its
        cost does not grow with the repository (`counts=False`: without the skipped files
        by reason, which does, for what every search carries)."""
        header, skipped = self._index_counts(counts)
        waiting = self._waiting()
        state = self._state
        if waiting and state is DaemonState.IDLE:
            state = DaemonState.INDEXING  # a batch is being collected
        return DaemonStatus(
            pid=os.getpid(),
            repo=str(self._config.repo),
            state=state,
            pending=self.pending + waiting,
            files=header.file_count if header else 0,
            symbols=header.symbol_count if header else 0,
            skipped=skipped,
            generation=header.generation if header else 0,
            updated_at=header.updated_at if header else 0.0,
            started_at=self._started_at,
            schema_version=SCHEMA_VERSION,
            catch_up_done=self.catch_up[0],
            catch_up_total=self.catch_up[1],
            watch=self._watch_mode(),
            errors=self.errors,
            last_error=self.last_error,
            failing=self.failing,
            building=self.building,
            busy_since=self.busy_since,
        )

    def write_status(self) -> None:
        # One at a time: the status is taken under the lock, so the last file written
        # holds the latest status whichever thread writes it.
        with self._status_lock:
            write_status_file(self._config.index_dir / STATUS_NAME,
                              msgspec.json.encode(self.status()))
