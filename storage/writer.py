"""The single writer of an index: replace a file's symbols, delete files, commit batches.

Imports: tantivy, msgspec, `extract.records`, `storage` modules.

Crash safety: before a batch is committed the manifest lists the batch's paths as
`pending`; after Tantivy's commit it is rewritten with the new file states and no pending
paths. Killed at any point, the next writer finds either the old state or `pending`
paths to re-check, and `replace_file` always deletes a path before adding, so a re-run
never duplicates symbols.
"""

from __future__ import annotations

import logging
import secrets
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

import msgspec
import tantivy

from symfind.extract.records import Symbol
from symfind.storage.errors import IndexLocked, StorageError
from symfind.storage.index import (
    TANTIVY_DIR,
    IndexState,
    index_state,
    open_tantivy,
    read_manifest,
    write_manifest,
)
from symfind.storage.records import FileState, Manifest
from symfind.storage.schema import SCHEMA_VERSION, to_document

logger = logging.getLogger(__name__)

WRITER_HEAP_BYTES = 128_000_000


class IndexWriter:
    """Holds Tantivy's writer lock for one index directory; use as a context manager.

    Changes are staged with `replace_file`/`delete_file`/`skip_file` and become visible
    to readers at `commit`.
    """

    def __init__(
        self,
        index_dir: Path,
        *,
        repo_root: Path,
        options_hash: str,
        fresh: bool = False,
        heap_bytes: int = WRITER_HEAP_BYTES,
    ) -> None:
        """Open the index for writing, creating it when absent.

        An index of another schema version, or a damaged one, is dropped and rebuilt;
        `fresh=True` empties the index (what `reindex` does). `heap_bytes` is Tantivy's
        indexing budget: it writes a segment each time the budget fills.

        Raises:
            IndexLocked: Another process (or writer) holds the lock.
            StorageError: The index directory cannot be created or opened.
        """
        self.index_dir = index_dir
        state = index_state(index_dir, options_hash)
        if state in {IndexState.VERSION_MISMATCH, IndexState.CORRUPT}:
            logger.warning("index at %s is %s; rebuilding it", index_dir, state)
            shutil.rmtree(index_dir / TANTIVY_DIR, ignore_errors=True)
        try:
            index_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._index = open_tantivy(index_dir, create=True)
            self._writer = self._index.writer(heap_size=heap_bytes, num_threads=1)
            # A writer killed mid-commit leaves files that no published commit uses; their
            # names (`<segment>.<opstamp>.del`) come round again, and the next commit would
            # fail on them. Tantivy drops such files only when asked.
            self._writer.garbage_collect_files()
        except ValueError as exc:
            if "LockBusy" in str(exc):
                raise IndexLocked(
                    f"another symfind process is writing the index at {index_dir}"
                ) from exc
            raise StorageError(f"cannot open index at {index_dir}: {exc}") from exc
        except OSError as exc:
            raise StorageError(f"cannot open index at {index_dir}: {exc}") from exc
        manifest = read_manifest(index_dir)
        if fresh or manifest is None or state is not IndexState.OK:
            # Without a trustworthy manifest nothing in Tantivy is accounted for: start empty.
            self._writer.delete_all_documents()
            manifest = Manifest(
                schema_version=SCHEMA_VERSION,
                options_hash=options_hash,
                repo_root=str(repo_root),
                generation=manifest.generation if manifest else 0,
                index_id=secrets.token_hex(16),
            )
        self.manifest = manifest
        self._files = dict(manifest.files)
        self._skipped = dict(manifest.skipped)
        self._excluded = dict(manifest.excluded)
        # Paths of a batch interrupted mid-commit: the caller must re-check them.
        self.suspect: frozenset[str] = frozenset(manifest.pending)
        self._staged: set[str] = set(manifest.pending)

    def __enter__(self) -> IndexWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def files(self) -> dict[str, FileState]:
        """File states including staged, uncommitted changes."""
        return self._files

    @property
    def skipped(self) -> dict[str, str]:
        return self._skipped

    @property
    def staged(self) -> int:
        """Number of paths changed since the last commit."""
        return len(self._staged)

    def replace_file(self, path: str, state: FileState, symbols: Iterable[Symbol]) -> None:
        """Stage: drop every symbol of `path`, then add `symbols`."""
        self._writer.delete_documents_by_term("path", path)
        count = 0
        for symbol in symbols:
            self._writer.add_document(to_document(symbol))
            count += 1
        self._files[path] = msgspec.structs.replace(state, symbols=count)
        self._skipped.pop(path, None)
        self._staged.add(path)

    def touch_file(self, path: str, state: FileState) -> None:
        """Stage: the file's content is unchanged; only record its new mtime."""
        old = self._files.get(path)
        if old is not None:
            self._files[path] = msgspec.structs.replace(
                state, symbols=old.symbols, language=old.language
            )
            self._staged.add(path)

    def delete_file(self, path: str) -> None:
        """Stage: drop every symbol of `path` and forget the file."""
        self._writer.delete_documents_by_term("path", path)
        self._files.pop(path, None)
        self._skipped.pop(path, None)
        self._staged.add(path)

    def skip_file(self, path: str, reason: str) -> None:
        """Stage: record that `path` is not indexed, dropping symbols it had."""
        if path in self._files:
            self._writer.delete_documents_by_term("path", path)
            self._files.pop(path)
        self._skipped[path] = reason
        self._staged.add(path)

    @property
    def excluded(self) -> dict[str, str]:
        """What the walk passed over by rule, including a staged new record."""
        return self._excluded

    def set_excluded(self, excluded: dict[str, str]) -> None:
        """Stage: what the walk passed over by rule, replacing the previous record."""
        self._excluded = dict(excluded)

    def commit(self) -> Manifest:
        """Make staged changes visible and durable; returns the new manifest."""
        pending = sorted(self._staged)
        write_manifest(self.index_dir, msgspec.structs.replace(self.manifest, pending=pending))
        self._writer.commit()
        self.manifest = msgspec.structs.replace(
            self.manifest,
            generation=self.manifest.generation + 1,
            files=dict(self._files),
            skipped=dict(self._skipped),
            excluded=self._excluded,
            pending=[],
            updated_at=time.time(),
        )
        write_manifest(self.index_dir, self.manifest)
        self._staged.clear()
        logger.debug("committed generation %d", self.manifest.generation)
        return self.manifest

    def close(self) -> None:
        """Release the writer lock (uncommitted changes are dropped)."""
        if self._writer is not None:
            self._writer.rollback()
            self._writer = None  # type: ignore[assignment]
