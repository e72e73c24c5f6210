"""One repository's index as every reader uses it: `IndexSource`.

The CLI, the daemon's socket, the MCP tools and a federated search all read an index the
same way, through one `IndexSource` per index directory: opened on first use (so an
index built later is found), refreshed before each use (so later commits are seen, at the
cost of one `stat` of the manifest when nothing changed), reopened from scratch after a
read fails (an index rebuilt under us, or damaged), and shared by threads under one lock.
A long-lived source that keeps loading new commits gives the memory their readers freed
back to the system now and then (`storage.heap`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from symfind.storage.contract.daemons import DaemonStatus
from symfind.storage.errors import IndexDamaged, IndexMissing, StorageError
from symfind.storage.freshness import assess, describe, is_partial
from symfind.storage.heap import release_free_memory
from symfind.storage.query import SearchQuery
from symfind.storage.records import Freshness, SearchResponse
from symfind.storage.references import ReferencesAnswer, ReferencesQuery, no_target
from symfind.storage.router import Plan
from symfind.storage.search import Searcher

logger = logging.getLogger(__name__)

#: How often, at most, a source that loaded new commits gives freed memory back. Each
#: commit replaces segment readers, and glibc keeps what the old ones freed: an MCP server
#: searched by 50 clients while a file changed every second kept steps of ~2 MB of freed
#: memory without this (bench/history/memory.md, "The server's memory under edits"). A trim
#: walks the heap (0.4–2.4 ms for 100 MB here), so once a minute costs nothing.
RELEASE_EVERY_S = 60.0


class IndexSource:
    """The index in `index_dir`, read in-process (thread-safe)."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self._searcher: Searcher | None = None
        self._lock = threading.Lock()
        self._released_at = time.monotonic()

    @contextmanager
    def reader(self) -> Iterator[Searcher]:
        """The opened, refreshed Searcher, held under the lock for the caller's block.

        Raises:
            IndexMissing: No index yet.
            SchemaMismatch: Built by another schema version; reindex.
            IndexDamaged: Its files are damaged; reindex.
            StorageError: The index cannot be read (it is reopened on the next use).
        """
        with self._lock:
            searcher = self._current()
            try:
                yield searcher
            except IndexDamaged:
                self._searcher = None  # reopened (checked again) on the next use
                raise
            except (OSError, ValueError) as exc:  # Tantivy reports read failures as ValueError
                self._searcher = None
                raise StorageError(f"the index in {self.index_dir} cannot be read: {exc}") from None

    def search(
        self, query: SearchQuery, plan: Plan | None = None, *, daemon: DaemonStatus | None = None
    ) -> SearchResponse:
        """Search the index (see `Searcher.search`; `plan`: what `query.check()` returned,
        None to check it here).

        Raises:
            QueryError: The query does not pass `SearchQuery.check`.
            IndexMissing: No index, and no live daemon (`daemon`) building one; while one
                builds it, before its first commit, the answer is empty and says so.
            SchemaMismatch, StorageError: As `reader`.
        """
        started = time.perf_counter()
        try:
            with self.reader() as searcher:
                return searcher.search(query, plan, daemon=daemon)
        except IndexMissing:
            if (fresh := _building(daemon)) is None:
                raise
            plan = query.check() if plan is None else plan
            return SearchResponse(**plan.answer_fields(query.text, started), results=[],
                                  freshness=fresh,
                                  empty_reason=describe(fresh) if query.explain else "")

    def find_references(
        self, query: ReferencesQuery, *, daemon: DaemonStatus | None = None
    ) -> ReferencesAnswer:
        """Where a definition is used (see `Searcher.find_references`).

        Raises:
            QueryError: The query is refused, or names no definition.
            IndexMissing: As `search`.
            SchemaMismatch, StorageError: As `reader`.
        """
        started = time.perf_counter()
        try:
            with self.reader() as searcher:
                return searcher.find_references(query, daemon=daemon)
        except IndexMissing:
            if (fresh := _building(daemon)) is None:
                raise
            query.check()
            return no_target(query, fresh, f"not found so far: {describe(fresh)}",
                             started=started)

    def _current(self) -> Searcher:
        if self._searcher is None:
            self._searcher = Searcher(self.index_dir)
            logger.info("opened index %s (generation %d)", self.index_dir,
                        self._searcher.header.generation)
            return self._searcher
        try:
            if self._searcher.refresh():
                self._release_now_and_then()
        except StorageError:
            self._searcher = None  # rebuilt under us, or damaged: reopened on the next use
            raise
        except (OSError, ValueError) as exc:
            self._searcher = None
            raise StorageError(f"the index in {self.index_dir} cannot be read: {exc}") from None
        return self._searcher

    def _release_now_and_then(self) -> None:
        now = time.monotonic()
        if now - self._released_at >= RELEASE_EVERY_S:
            self._released_at = now
            release_free_memory()


def _building(daemon: DaemonStatus | None) -> Freshness | None:
    """What an answer says when it finds no index while a live daemon builds one that has
    no commit yet (just started, or a damaged index dropped to be rebuilt): the index is
    being built, with the daemon's numbers — never "no index, run `symfind index`", which
    would fight the daemon for the writer lock. None when no daemon is at work on it."""
    if daemon is None:
        return None
    fresh = assess(None, daemon)
    return fresh if is_partial(fresh) else None
