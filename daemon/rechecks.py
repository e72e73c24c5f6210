"""Re-checks of the whole tree: the catch-up at a daemon's start, the re-check after the
repository's root was replaced, and a client's `symfind index` or `reindex`.

Each holds the writer's lock while it runs (a batch waits for it, and it for a batch),
says what it is doing in the daemon's `Activity`, and survives failures through
`RepairingIndexer.sync_all`.

Imports: `storage` and `daemon` modules.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable

from symfind.daemon.activity import Activity
from symfind.daemon.protocol import IndexReport
from symfind.daemon.repair import RepairingIndexer, Stopping
from symfind.daemon.walk import IgnoreRules
from symfind.storage import DaemonState
from symfind.storage.heap import release_free_memory

logger = logging.getLogger(__name__)

# Catch-up commits after this many files, so that searches soon see a growing index
# instead of nothing, then at intervals that double up to `symfind index`'s: a commit
# every 1,000 files made the kernel's catch-up 1.12x `symfind index` (55 commits, each a
# segment that Tantivy's merges then rewrite); see also `WriterSlot._open_writer`.
CATCH_UP_COMMIT_EVERY = 1_000


@dataclasses.dataclass(frozen=True)
class Rechecks:
    """Whole-tree re-checks of one index; `stop` is the daemon's stop event."""

    indexer: RepairingIndexer
    activity: Activity
    stop: threading.Event

    def catch_up(self, rules: IgnoreRules) -> None:
        """Make the index match the disk after a time without a daemon (stops early, with
        what it did committed, when the daemon is stopped)."""
        activity, indexer, slot = self.activity, self.indexer, self.indexer.slot
        writer = slot.writer
        activity.begin_work(building=writer is None or writer.header.file_count == 0)
        activity.set_state(DaemonState.CATCHING_UP)
        activity.write_status()  # readers (the MCP server) see a daemon at work from now on

        def progress(done: int, total: int) -> None:
            activity.catch_up = (done, total)
            indexer.count_progress(done, total)
            if self.stop.is_set():
                raise Stopping

        with slot.lock:
            try:
                report = indexer.sync_all(rules, progress=progress,
                                          commit_every=CATCH_UP_COMMIT_EVERY)
                if report is not None:
                    logger.info("caught up: %d files, %d extracted", report.files, report.indexed)
            except Stopping:
                writer = slot.writer
                if writer is not None and writer.staged:
                    left = activity.catch_up[1] - activity.catch_up[0]  # for readers without us
                    indexer.guarded("committing the catch-up", lambda: writer.commit(to_index=left))
            activity.end_work()
        # Tantivy's indexing heap and the outcomes are freed now, but glibc keeps them: a
        # daemon that caught up with the kernel's `drivers/` stayed at 433 MiB (140 after).
        release_free_memory()
        activity.settle()

    def resync(self, rules: IgnoreRules) -> None:
        """Re-check every file (the root is another directory: its watcher and ignore
        rules are new already)."""
        with self.indexer.slot.lock:
            self.activity.begin_work()
            self.activity.set_state(DaemonState.INDEXING)
            self.indexer.sync_all(rules, progress=self.indexer.count_progress,
                                   commit_every=CATCH_UP_COMMIT_EVERY)
            self.activity.end_work()
        self.activity.settle()

    def index_for_client(
        self, rules: IgnoreRules, fresh: bool, progress: Callable[[int, int], None]
    ) -> tuple[IndexReport | None, str]:
        """`symfind index` (re-check every file) or `reindex` (`fresh`: drop the index and
        rebuild it) for a client, after the batch or catch-up under way; the report, or
        None and why not."""
        activity, indexer = self.activity, self.indexer

        def count(done: int, total: int) -> None:
            indexer.count_progress(done, total)
            progress(done, total)

        with indexer.slot.lock:
            if self.stop.is_set():
                return None, "the daemon is stopping"
            activity.begin_work(building=fresh)
            activity.set_state(DaemonState.INDEXING)
            started = time.monotonic()
            try:
                if fresh:
                    report = indexer.rebuild(rules, progress=count,
                                             commit_every=CATCH_UP_COMMIT_EVERY)
                else:
                    report = indexer.sync_all(rules, progress=count,
                                              commit_every=CATCH_UP_COMMIT_EVERY)
            finally:
                activity.end_work()
                activity.set_state(DaemonState.ERROR if activity.broken else DaemonState.IDLE)
        activity.write_status()
        logger.info("%s for a client in %.1f s", "reindex" if fresh else "index",
                    time.monotonic() - started)
        return report, "" if report is not None else f"indexing failed: {activity.last_error}"
