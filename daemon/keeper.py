"""The index keeper: one repository's index, kept by its daemon, composed of one piece
per job.

- `WriterSlot` (`daemon.writer_slot`): the one Tantivy writer and its lock, taken at
  start, dropped and reopened, closed at shutdown;
- `RepairingIndexer` (`daemon.repair`): indexing through it that survives failures
  (reopen at the last commit, re-check without worker processes, rebuild a damaged
  index);
- `Rechecks` (`daemon.rechecks`): the whole tree re-checked at start (`catch_up`), after
  the root was replaced (`resync`) and for a client's `symfind index`/`reindex`
  (`index_for_client`);
- `BatchApplier` (`daemon.batches`): the watcher's batches (`on_batch`), whose files
  `Prefetch` (`daemon.prefetch`) extracts while they wait out the debouncer's quiet
  (`prefetch.changed`, called by the watcher);
- `SearchGate` (`daemon.search_gate`): searches (`search`);
- `Activity` (`daemon.activity`): what the daemon is doing and has survived, its status
  and `status.json`.

The daemon (`daemon.service`) holds an `IndexKeeper` and calls these under its names.

Imports: `daemon` modules.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from symfind.daemon.activity import Activity
from symfind.daemon.batches import BatchApplier
from symfind.daemon.config import Config
from symfind.daemon.prefetch import Prefetch
from symfind.daemon.protocol import IndexReport
from symfind.daemon.rechecks import Rechecks
from symfind.daemon.repair import RepairingIndexer
from symfind.daemon.search_gate import SearchGate
from symfind.daemon.walk import IgnoreRules
from symfind.daemon.watcher import Batch
from symfind.daemon.writer_slot import WriterSlot

__all__ = ["IndexKeeper"]


class IndexKeeper:
    """One repository's index, kept by one daemon; thread-safe.

    `stop` is the daemon's stop event: once set, nothing reopens the writer. `watch_mode`
    tells the status how the repository is watched; `request_resync` asks the watcher's
    thread to re-check everything (after damage is found by a search); `waiting` counts
    the changes the watcher holds for its next batch. `rules` are the repository's ignore
    rules (replaced when the root is another directory).
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
        slot = WriterSlot(config)
        activity = Activity(config, index_counts=slot.index_counts, watch_mode=watch_mode,
                            waiting=waiting)
        self.prefetch = Prefetch(str(config.repo), config.options, slot.digest_of,
                                 writing=lambda: slot.writer is not None)
        indexer = RepairingIndexer(slot, activity, self.prefetch)
        searches = SearchGate(config.index_dir, activity, damaged=indexer.damaged,
                              request_resync=request_resync)
        self._activity = activity
        self._rechecks = Rechecks(indexer, activity, stop)
        self._batches = BatchApplier(indexer, activity, stop)
        # The pieces' own methods and objects, under the names the daemon uses.
        self.open = slot.open
        self.close = slot.close
        self.search = searches.search
        self.references = searches.references
        self.source = searches.source
        self.work_lock = slot.lock
        self.status = activity.status
        self.write_status = activity.write_status
        self.set_state = activity.set_state
        self.wait_until = activity.wait_until
        self.record_failure = activity.record_failure
        self.changed = activity.changed
        self.status_file = activity.status_file

    @property
    def broken(self) -> bool:
        """Whether the last re-check failed even without worker processes."""
        return self._activity.broken

    @property
    def root_gone(self) -> str:
        """Why searches are refused while the repository's root is missing ('' if not)."""
        return self._activity.root_gone

    @root_gone.setter
    def root_gone(self, why: str) -> None:
        self._activity.root_gone = why

    def catch_up(self) -> None:
        """Make the index match the disk after a time without a daemon."""
        self._rechecks.catch_up(self.rules)

    def resync(self) -> None:
        """Re-check every file (the root is another directory)."""
        self._rechecks.resync(self.rules)

    def index_for_client(
        self, fresh: bool, progress: Callable[[int, int], None]
    ) -> tuple[IndexReport | None, str]:
        """`symfind index`, or `reindex` when `fresh`, for a client: the report, or None
        and why not."""
        return self._rechecks.index_for_client(self.rules, fresh, progress)

    def on_batch(self, batch: Batch) -> None:
        """Apply one batch of changes from the watcher (its thread) and commit it."""
        self._batches.apply(batch, self.rules)
