"""Watch a repository and hand over debounced batches of changed paths.

Imports: watchdog, `daemon` modules. The watchdog handler only enqueues; a debouncer
thread turns bursts (an editor's write-temp-then-rename save, `git checkout` of thousands
of files) into one batch, emitted once the burst has been quiet for `quiet_s` or has
lasted `max_wait_s`.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from daemon.walk import SKIP_DIRS

logger = logging.getLogger(__name__)

QUIET_S = 0.03
MAX_WAIT_S = 0.15
# Events that change nothing on disk.
_IGNORED_EVENTS = frozenset({"opened", "closed_no_write"})


class Change:
    """A path that changed, and whether it is (or was) a directory."""

    __slots__ = ("is_directory", "path")

    def __init__(self, path: str, is_directory: bool) -> None:
        self.path = path
        self.is_directory = is_directory


class _Enqueue(FileSystemEventHandler):
    def __init__(self, root: Path, changes: queue.SimpleQueue[Change | None]) -> None:
        self._root = str(root)
        self._changes = changes

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in _IGNORED_EVENTS:
            return
        if event.is_directory and event.event_type == "modified":
            return  # a file created or deleted inside reports its own event
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            path = os.fsdecode(raw) if raw else ""
            if path and not _in_skipped_dir(self._root, path):
                self._changes.put(Change(path, event.is_directory))


def _in_skipped_dir(root: str, path: str) -> bool:
    relative = os.path.relpath(path, root)
    return any(part in SKIP_DIRS for part in relative.split(os.sep)[:-1])


class RepositoryWatcher:
    """Observes `root` recursively and calls `on_batch(changes)` from one thread."""

    def __init__(
        self,
        root: Path,
        on_batch: Callable[[list[Change]], None],
        *,
        quiet_s: float = QUIET_S,
        max_wait_s: float = MAX_WAIT_S,
    ) -> None:
        self._root = root
        self._on_batch = on_batch
        self._quiet_s = quiet_s
        self._max_wait_s = max_wait_s
        self._changes: queue.SimpleQueue[Change | None] = queue.SimpleQueue()
        self._observer = Observer()
        self._observer.schedule(_Enqueue(root, self._changes), str(root), recursive=True)
        self._thread = threading.Thread(target=self._debounce, name="symfind-debounce", daemon=True)

    def start(self) -> None:
        self._observer.start()
        self._thread.start()

    def stop(self) -> None:
        """Stop observing; the batch being handled (if any) finishes first."""
        self._observer.stop()
        self._changes.put(None)
        self._observer.join(timeout=5)
        self._thread.join(timeout=30)

    def _debounce(self) -> None:
        while True:
            first = self._changes.get()
            if first is None:
                return
            batch = [first]
            started = time.monotonic()
            stopping = False
            while (left := self._max_wait_s - (time.monotonic() - started)) > 0:
                try:
                    change = self._changes.get(timeout=min(self._quiet_s, left))
                except queue.Empty:
                    break
                if change is None:
                    stopping = True
                    break
                batch.append(change)
            try:
                self._on_batch(batch)
            except Exception:  # the watcher must outlive any one bad batch
                logger.exception("batch of %d changes failed", len(batch))
            if stopping:
                return
