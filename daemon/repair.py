"""Indexing that survives its failures: the daemon's re-checks and batches, through the
one writer (`daemon.writer_slot`).

Indexing that fails (a Tantivy error or panic, an extraction worker that died) is logged
with its traceback, the writer is reopened from the last commit and the whole tree
re-checked, once more without worker processes if need be (`sync_all`); when that fails
too, the daemon is `broken` until a later re-check succeeds. An index whose files a
search found damaged (`damaged`) is rebuilt from scratch by the next re-check.

Imports: msgspec, `storage` and `daemon` modules.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

import msgspec

from symfind.daemon.activity import Activity
from symfind.daemon.indexer import (
    BULK_COMMIT_EVERY_FILES,
    BULK_HEAP_BYTES,
    apply_changes,
    sync_repository,
)
from symfind.daemon.prefetch import Prefetch
from symfind.daemon.protocol import IndexReport
from symfind.daemon.walk import IgnoreRules, walk_repository
from symfind.daemon.writer_slot import WriterSlot
from symfind.storage.manifest import DamagedLog, FileTable, read_table
from symfind.storage.rebuild import Rebuild

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


class Stopping(Exception):
    """Raised inside a re-check to stop it early on SIGTERM."""


def recoverable(exc: BaseException) -> bool:
    """Errors after which reopening the writer and re-checking the tree can go on: any
    Exception, and a panic inside Tantivy (pyo3's `PanicException` is a BaseException)."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


class RepairingIndexer:
    """Re-checks and batches applied through `slot` (its lock held by the caller), their
    failures recorded in `activity`."""

    def __init__(self, slot: WriterSlot, activity: Activity,
                 prefetch: Prefetch | None = None) -> None:
        self.slot = slot
        self._activity = activity
        self._prefetch = prefetch  # the files of a batch read ahead while it waited
        # Set when a search found the index's files damaged: the next re-check rebuilds it.
        self.damaged = threading.Event()

    def sync_all(
        self, rules: IgnoreRules, *, commit_every: int, progress: Progress | None = None,
    ) -> IndexReport | None:
        """Reconcile the index with every file on disk, committing every `commit_every`
        files (then at intervals that double).

        When that fails, the writer is reopened at the last commit (staged changes are
        dropped; a commit cut short leaves its paths `pending`, re-checked) and the sync
        runs again without worker processes. None when that fails too: the daemon is
        `broken` until a later sync succeeds.
        """
        activity, slot, config = self._activity, self.slot, self.slot.config
        if self.damaged.is_set():  # rebuild from scratch: the damaged files go
            slot.drop(self.guarded)
        for attempt in (1, 2):
            try:
                if slot.writer is None:
                    slot.reopen(fresh=self.damaged.is_set())
                    self.damaged.clear()
                assert slot.writer is not None
                report = sync_repository(
                    slot.writer, config, rules, progress=progress,
                    commit_every=commit_every, commit_every_max=BULK_COMMIT_EVERY_FILES,
                )
                activity.broken = False
                activity.failing = 0
                return report
            except Stopping:
                raise
            except BaseException as exc:
                if not recoverable(exc):
                    raise
                activity.record_failure(exc, f"re-checking the repository (attempt {attempt})")
            # Outside the except block: the traceback no longer pins the failed writer.
            slot.drop(self.guarded)
            config = msgspec.structs.replace(config, workers=1)
            if attempt == 1:
                logger.warning("reopening the index at its last commit and re-checking every "
                               "file again, without worker processes")
        activity.broken = True
        # The files on disk the last commit lacks are left out of the index: searches say
        # so until a later sync succeeds.
        activity.failing = max(self._left_out(rules), 1)
        logger.critical("the index cannot be brought up to date; searches show the last commit")
        return None

    def _left_out(self, rules: IgnoreRules) -> int:
        """How many files on disk the last commit does not hold, counted afresh: what a
        failed sync had still to do cannot say it, since a commit that failed may or may
        not have taken its files with it, and its walk may not have been made at all."""
        header, config = self.slot.last_header, self.slot.config
        try:
            committed = read_table(config.index_dir, header) if header else FileTable()
            return sum(1 for path in walk_repository(config.repo, rules)
                       if path not in committed.files and path not in committed.skipped)
        except (OSError, DamagedLog) as exc:
            logger.warning("cannot count the files left out of the index: %s", exc)
            return self._activity.pending

    def apply(self, rules: IgnoreRules, paths: Iterable[str]) -> bool:
        """Re-check `paths` and commit them; False when that failed: the writer is
        dropped then, for a `sync_all` to reopen it."""

        prefetch = self._prefetch
        reported = prefetch.mark() if prefetch is not None else 0

        def apply_and_commit() -> None:
            writer = self.slot.writer
            assert writer is not None
            apply_changes(writer, self.slot.config, rules, paths,
                          prefetch.take if prefetch is not None else None)
            if writer.staged:
                writer.commit()

        applied = self.guarded("indexing a batch", apply_and_commit)
        if prefetch is not None:
            prefetch.forget_through(reported)
        if applied:
            self._activity.failing = 0
            return True
        self.slot.drop(self.guarded)
        return False

    def rebuild(
        self, rules: IgnoreRules, *, commit_every: int, progress: Progress | None = None,
    ) -> IndexReport | None:
        """`symfind reindex` for a client: a new index built beside the one searches go on
        reading, swapped in once complete (`storage.rebuild`), and the writer reopened on
        it. None when that failed (recorded): the old index and its writer are kept.

        Raises:
            Stopping: SIGTERM came; the old index is kept, its writer reopened.
        """
        slot, config = self.slot, self.slot.config
        slot.drop(self.guarded)
        report: IndexReport | None = None

        def build() -> None:
            nonlocal report
            with Rebuild(config.index_dir, repo_root=config.repo,
                         options_hash=config.options.fingerprint(),
                         heap_bytes=BULK_HEAP_BYTES) as rebuild:
                assert rebuild.writer is not None
                built = sync_repository(rebuild.writer, config, rules, progress=progress,
                                        commit_every=commit_every,
                                        commit_every_max=BULK_COMMIT_EVERY_FILES)
                header = rebuild.swap_in()
            report = msgspec.structs.replace(built, generation=header.generation)

        try:
            build()
            done = True
        except Stopping:
            raise
        except BaseException as exc:
            if not recoverable(exc):
                raise
            self._activity.record_failure(exc, "rebuilding the index")
            done = False
        finally:  # the old index, or the new one, is written by this daemon again
            if not self.guarded("reopening the index writer", slot.reopen):
                self._activity.broken = True
        return report if done else None

    def guarded(self, what: str, action: Callable[[], object]) -> bool:
        """Run `action`; a failure is recorded (not raised) and makes it False."""
        try:
            action()
        except BaseException as exc:
            if not recoverable(exc):
                raise
            self._activity.record_failure(exc, what)
            return False
        return True

    def count_progress(self, done: int, total: int) -> None:
        """A sync's progress: what it has still to do, and what it did but has not
        committed yet, is pending."""
        writer = self.slot.writer
        staged = writer.staged_since_open if writer is not None else 0
        self._activity.pending = total - done + staged
        self._activity.status_file.request()
