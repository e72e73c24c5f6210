"""The slot that holds a daemon's one index writer: taken at start (a second daemon is
told which one runs), dropped after a failure (releasing Tantivy's lock) and opened again,
emptied for a `reindex`, committed and closed at shutdown; and what the status and a
batch read of what it holds.

Imports: `storage` and `daemon` modules.
"""

from __future__ import annotations

import gc
import threading
from collections import Counter
from collections.abc import Callable

from symfind.daemon.client import read_pid
from symfind.daemon.config import Config
from symfind.daemon.errors import DaemonRunning
from symfind.daemon.indexer import BULK_HEAP_BYTES
from symfind.storage import IndexHeld, IndexLocked, IndexWriter, ManifestHeader
from symfind.storage.rebuild import settle_rebuilds


class WriterSlot:
    """One repository's index writer: `writer`, None while closed or dropped; `lock` is
    held by whoever changes the index (one piece of work at a time), and so by whatever
    parses files in this process (a language's parser is one object, not thread-safe)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.lock = threading.Lock()
        self.writer: IndexWriter | None = None
        self.last_header: ManifestHeader | None = None  # of the writer last dropped

    def open(self) -> None:
        """Take the index's writer lock.

        Raises:
            DaemonRunning: Another daemon holds it.
            StorageError: The index cannot be created or opened (`IndexHeld`: a stopped
                process holds it).
        """
        try:
            self.writer = self._open_writer()
        except IndexHeld:
            raise  # not a daemon's writer lock: a process stopped while loading a commit
        except IndexLocked as exc:
            pid = read_pid(self.config.index_dir)
            holder = f"pid {pid}" if pid else "another process"
            raise DaemonRunning(
                f"a symfind daemon ({holder}) already serves {self.config.repo}"
            ) from exc

    def close(self, step: Callable[[str, Callable[[], object]], bool]) -> bool:
        """Commit what is staged and close the writer, each through `step` (the daemon's
        shutdown steps); True when the index holds everything staged."""
        saved = True
        with self.lock:
            writer, self.writer = self.writer, None
            if writer is not None:
                if writer.staged:
                    saved = step("commit the last changes", writer.commit)
                saved = step("close the index writer", writer.close) and saved
        return saved

    def _open_writer(self, *, fresh: bool = False) -> IndexWriter:
        # `symfind index`'s heap: a catch-up then writes the same few large segments. With
        # 128 MB and commits at doubling intervals, the kernel's catch-up ended in about a
        # dozen heap-sized segments, which Tantivy's log merge policy merges eight at a
        # time, and the first saves after it were slow (p95 219-282 ms against 83-95).
        # The heap is taken as documents arrive: a save uses little of it.
        settle_rebuilds(self.config.index_dir)  # what a `symfind reindex` cut short left
        return IndexWriter(
            self.config.index_dir, repo_root=self.config.repo,
            options_hash=self.config.options.fingerprint(), fresh=fresh,
            heap_bytes=BULK_HEAP_BYTES,
        )

    def drop(self, step: Callable[[str, Callable[[], object]], bool]) -> None:
        """Close the writer through `step` (which survives a failure; staged changes are
        lost) and release its lock."""
        writer, self.writer = self.writer, None
        if writer is not None:
            self.last_header = writer.header  # what the status shows until one reopens
            step("closing the index writer", writer.close)
        del writer
        gc.collect()  # a Tantivy writer still referenced somewhere would keep its lock

    def reopen(self, *, fresh: bool = False) -> None:
        """Open the writer again after `drop`, at the last commit or on an empty index
        (`fresh`: a `reindex`, a damaged index).

        Raises:
            StorageError: The index cannot be opened or created.
        """
        self.writer = self._open_writer(fresh=fresh)

    def digest_of(self, path: str) -> str | None:
        """The digest the writer holds for a file (None: none, or no writer open)."""
        writer = self.writer
        state = writer.files.get(path) if writer is not None else None
        return state.digest if state is not None else None

    def known_below(self, prefix: str) -> list[str]:
        """The paths the index holds (indexed or skipped) that start with `prefix`."""
        writer = self.writer
        if writer is None:
            return []
        return [p for known in (writer.files, writer.skipped) for p in known
                if p.startswith(prefix)]

    def index_counts(self, counts: bool) -> tuple[ManifestHeader | None, dict[str, int]]:
        """The last commit's header, and the skipped files by reason when `counts`."""
        writer = self.writer
        header = writer.header if writer is not None else self.last_header
        skipped = Counter(writer.skipped.values()) if writer is not None and counts else {}
        return header, dict(skipped)
