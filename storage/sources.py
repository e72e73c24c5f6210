"""One repository's index as every reader uses it: `IndexSource`.

The CLI, the daemon's socket, the MCP tools and a federated search all read an index the
same way, through one `IndexSource` per index directory: opened on first use (so an
index built later is found), refreshed before each use (so later commits are seen, at the
cost of one `stat` of the manifest when nothing changed), reopened from scratch after a
read fails (an index rebuilt under us, or damaged), and shared by threads under one lock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from symfind.storage.daemon_contract import DaemonStatus
from symfind.storage.errors import IndexDamaged, StorageError
from symfind.storage.query import SearchQuery
from symfind.storage.records import SearchResponse
from symfind.storage.router import Plan
from symfind.storage.search import Searcher

logger = logging.getLogger(__name__)


class IndexSource:
    """The index in `index_dir`, read in-process (thread-safe)."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self._searcher: Searcher | None = None
        self._lock = threading.Lock()

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
            IndexMissing, SchemaMismatch, StorageError: As `reader`.
        """
        with self.reader() as searcher:
            return searcher.search(query, plan, daemon=daemon)

    def _current(self) -> Searcher:
        if self._searcher is None:
            self._searcher = Searcher(self.index_dir)
            logger.info("opened index %s (generation %d)", self.index_dir,
                        self._searcher.header.generation)
            return self._searcher
        try:
            self._searcher.refresh()
        except StorageError:
            self._searcher = None  # rebuilt under us, or damaged: reopened on the next use
            raise
        except (OSError, ValueError) as exc:
            self._searcher = None
            raise StorageError(f"the index in {self.index_dir} cannot be read: {exc}") from None
        return self._searcher
