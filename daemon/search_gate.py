"""Where a daemon's searches come in: answered from the index's last commit, after a
moment's wait for a few changes already seen, with the freshness that says what the
answer may miss; refused while the repository's root is gone. A search that finds the
index's files damaged sets the state to `error` and has the index rebuilt.

Imports: `storage` and `daemon` modules.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from symfind.daemon.activity import Activity
from symfind.daemon.protocol import ReferencesRequest, SearchRequest
from symfind.storage import (
    FRESH_WAIT_S,
    DaemonState,
    IndexDamaged,
    IndexSource,
    ReferencesAnswer,
    SearchResponse,
    StorageError,
    settling,
)


class SearchGate:
    """Answers searches (called from socket threads).

    `damaged` is set when a search finds the index damaged (the next re-check rebuilds
    it); `request_resync` asks the watcher's thread for that re-check.
    """

    def __init__(
        self, index_dir: Path, activity: Activity, *, damaged: threading.Event,
        request_resync: Callable[[str], None],
    ) -> None:
        self.source = IndexSource(index_dir)
        self._activity = activity
        self._damaged = damaged
        self._request_resync = request_resync

    def search(self, request: SearchRequest) -> SearchResponse:
        """Search the last commit.

        Raises:
            QueryError: The query is refused.
            StorageError: The index cannot be read, is damaged, or the root is gone.
        """
        if self._activity.root_gone:  # what is indexed is of a tree that is not there any more
            raise StorageError(self._activity.root_gone)
        self._wait_for_pending()
        try:
            return self.source.search(request.query, daemon=self._activity.status(counts=False))
        except IndexDamaged as exc:
            self._on_damage(exc)
            raise

    def references(self, request: ReferencesRequest) -> ReferencesAnswer:
        """Where a definition is used, from the last commit (as `search`).

        Raises:
            QueryError: The query is refused.
            StorageError: The index cannot be read, is damaged, or the root is gone.
        """
        if self._activity.root_gone:
            raise StorageError(self._activity.root_gone)
        self._wait_for_pending()
        try:
            return self.source.find_references(
                request.query, daemon=self._activity.status(counts=False))
        except IndexDamaged as exc:
            self._on_damage(exc)
            raise

    def _wait_for_pending(self) -> None:
        """Let a few changes already seen (a file just saved) be committed before a search
        answers, for at most FRESH_WAIT_S: the answer then holds them (`settling`)."""
        activity = self._activity
        if not settling(activity.status(counts=False)):
            return
        with activity.changed:
            activity.changed.wait_for(lambda: not settling(activity.status(counts=False)),
                                      timeout=FRESH_WAIT_S)

    def _on_damage(self, exc: IndexDamaged) -> None:
        """Report the damage (state `error`) and have the watcher's thread rebuild the
        index from scratch."""
        if self._damaged.is_set():
            return
        self._damaged.set()
        self._activity.record_failure(exc, "reading the index")
        self._activity.set_state(DaemonState.ERROR)
        self._activity.write_status()
        self._request_resync("the index is damaged; rebuilding it")
