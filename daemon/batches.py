"""The watcher's batches applied to the index, one at a time under the writer's lock.

A batch's paths are re-checked and committed together; the whole tree is re-checked
instead when the batch says changes were lost, an ignore file changed, the batch is a
burst large enough to have overflowed inotify's queue, the index was found damaged, or
applying the paths failed (`RepairingIndexer`).

Imports: `storage` and `daemon` modules.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time

from symfind.daemon.activity import Activity
from symfind.daemon.changes import changed_paths, files_to_recheck
from symfind.daemon.rechecks import CATCH_UP_COMMIT_EVERY
from symfind.daemon.repair import RepairingIndexer
from symfind.daemon.walk import IgnoreRules
from symfind.daemon.watcher import Batch
from symfind.storage import DaemonState

logger = logging.getLogger(__name__)

#: A batch of at least this many file events re-checks the whole tree instead of its
#: paths. A burst that large (a `git checkout`, a generator, `rm -rf`) has filled a good
#: part of inotify's kernel queue (16,384 events by default; a written file costs about
#: 3): events beyond the queue are dropped, and the overflow is only signalled when the
#: queue is read again. Re-checking costs a walk and one `lstat` per file (~0.3 s on
#: 10,000 files), little next to extracting thousands of files (in worker processes, as
#: a batch's paths are when there are many).
RESYNC_FROM_EVENTS = 4_096


@dataclasses.dataclass(frozen=True)
class BatchApplier:
    """Applies the watcher's batches (on its thread); `stop` is the daemon's stop event."""

    indexer: RepairingIndexer
    activity: Activity
    stop: threading.Event

    def apply(self, batch: Batch, rules: IgnoreRules) -> None:
        """Apply one batch of changes and commit it."""
        started = time.monotonic()
        activity, indexer, slot = self.activity, self.indexer, self.indexer.slot
        repo = slot.config.repo
        with slot.lock:  # also while reading what the writer knows (catch-up adds)
            if self.stop.is_set() and slot.writer is None:
                return  # shut down already
            changed = changed_paths(batch.changes, repo)
            for directory in changed.ignore_dirs:
                rules.forget(directory)
            paths = set(changed.files) if slot.writer is None else files_to_recheck(
                changed, repo, rules, slot.known_below)
            damaged = indexer.damaged.is_set()
            resync = batch.resync or ("ignore rules changed" if changed.ignore_dirs else "")
            if not resync and len(batch.changes) >= RESYNC_FROM_EVENTS:
                resync = f"{len(batch.changes)} events in one batch"
            resync = resync or ("the index was damaged" if damaged else "")
            activity.begin_work(building=damaged)
            activity.pending = len(paths)  # committed at the end of the batch, all at once
            batch.taken = True  # counted here from now on, not by the watcher
            activity.set_state(DaemonState.INDEXING)
            if damaged:  # readers see the rebuild from its start, not the damage
                activity.write_status()
            if (resync or activity.broken or slot.writer is None
                    or not indexer.apply(rules, paths)):
                # A batch whose paths failed is re-checked with all the other files.
                indexer.sync_all(rules, progress=indexer.count_progress,
                                 commit_every=CATCH_UP_COMMIT_EVERY)
            activity.end_work()
            activity.set_state(activity.resting_state())
        activity.write_status()
        logger.info(
            "batch of %d paths%s in %.1f ms", len(paths),
            f" (re-checked everything: {resync})" if resync else "",
            (time.monotonic() - started) * 1e3,
        )
