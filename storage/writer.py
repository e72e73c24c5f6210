"""The single writer of an index: replace a file's symbols, delete files, commit batches.

Imports: tantivy, msgspec, `extract.records`, `storage` modules.

Crash safety: before Tantivy's commit the batch's changes are appended to the log of
file states, past what the manifest header counts; after it, a new header counts them
(`storage.manifest`). Killed at any point, the next writer finds either the old state,
or the old state and a frame past it naming the paths to re-check (kept in the header's
`pending` until its own next commit), and `replace_file` always deletes a path before
adding, so a re-run never duplicates symbols. A commit writes the changed paths' states
and a header of a few hundred bytes: its cost follows the batch, not the repository.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import secrets
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

import msgspec
import tantivy

from symfind.extract.records import Import, Occurrence, Symbol
from symfind.storage.errors import IndexDamaged, IndexLocked, StorageError
from symfind.storage.index import (
    TANTIVY_DIR,
    IndexState,
    drop_index_files,
    index_state,
    open_tantivy,
)
from symfind.storage.manifest import (
    ChangeLog,
    DamagedLog,
    FileChanges,
    ManifestHeader,
    read_header,
    read_table,
    write_header,
)
from symfind.storage.records import FileState
from symfind.storage.schema import SCHEMA_VERSION, file_documents
from symfind.storage.uses import USES_FIELD, USES_RECORD_FIELD, EncodedUses, encode_uses

logger = logging.getLogger(__name__)

WRITER_HEAP_BYTES = 128_000_000
# How Tantivy's errors quote the system error under them ("... (os error 28)").
_OS_ERROR = re.compile(r"\(os error (\d+)\)")


# Tantivy's indexing thread writes documents to disk as they are added; when it fails it
# dies, and every later call says only this (no errno).
_WRITER_KILLED = "index writer was killed"
#: A file system with less free space than this is full for an index being written.
_FULL_BYTES = 1 << 20


def _os_error(exc: BaseException, where: Path) -> OSError | None:
    """The OSError (a full disk, permissions) a Tantivy error reports, if any. When its
    indexing thread died, which Tantivy reports without a cause, a file system left with
    (almost) no free space is taken for the cause: the usual one."""
    found = _OS_ERROR.search(str(exc))
    if found is not None:
        code = int(found.group(1))
        return OSError(code, os.strerror(code) if code in errno.errorcode else str(exc),
                       str(where))
    if _WRITER_KILLED in str(exc) and _free_bytes(where) < _FULL_BYTES:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(where))
    return None


def _free_bytes(where: Path) -> int:
    try:
        info = os.statvfs(where)
    except OSError:
        return _FULL_BYTES  # cannot tell: not taken for a full disk
    return info.f_bavail * info.f_frsize


def _add_uses(document: tantivy.Document, uses: EncodedUses) -> None:
    """Put a file's uses on `document`: the names it uses (searched) and their record."""
    for name in uses.names:
        document.add_text(USES_FIELD, name)
    document.add_bytes(USES_RECORD_FIELD, uses.record)


@contextmanager
def _system_errors(where: Path) -> Iterator[None]:
    """Tantivy's writer failing for a system error (a full disk, permissions): raised as
    the OSError it is, naming `where`, for the one line that says so."""
    try:
        yield
    except ValueError as exc:
        if (os_error := _os_error(exc, where)) is None:
            raise
        raise os_error from exc


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
        `fresh=True` removes the index files whatever state they are in (what `reindex`
        does). `heap_bytes` is Tantivy's indexing budget: it writes a segment each time
        the budget fills.

        Raises:
            IndexLocked: Another process (or writer) holds the lock.
            StorageError: Tantivy cannot open the index.
            OSError: The index directory cannot be created, read or written.
        """
        self.index_dir = index_dir
        state = index_state(index_dir, options_hash)
        # Generations go on counting across rebuilds: readers pick up a commit by its
        # generation changing.
        generation = getattr(read_header(index_dir), "generation", 0)
        if fresh or state in {IndexState.VERSION_MISMATCH, IndexState.CORRUPT}:
            if not fresh:
                logger.warning("index at %s is %s; rebuilding it", index_dir, state)
            drop_index_files(index_dir)
        try:
            self._open(heap_bytes)
        except IndexDamaged as exc:
            logger.warning("rebuilding the index: %s", exc)
            drop_index_files(index_dir)
            state = IndexState.MISSING
            self._open(heap_bytes)
        header = read_header(index_dir)
        table = None
        if not fresh and header is not None and state is IndexState.OK:
            try:
                table = read_table(index_dir, header)
            except (FileNotFoundError, DamagedLog) as exc:
                logger.warning("index at %s: %s; rebuilding it", index_dir, exc)
        if header is None or table is None:
            # Without a trustworthy manifest nothing in Tantivy is accounted for: start empty,
            # in a new log that the first commit's header points at.
            with _system_errors(self._tantivy_dir):
                self._writer.delete_all_documents()
            self._files: dict[str, FileState] = {}
            self._skipped: dict[str, str] = {}
            self._excluded: dict[str, str] = {}
            self._log = ChangeLog.start(index_dir, self._files, self._skipped, self._excluded)
            self._fresh_log = True  # the old log is dropped once the header points here
            self.header = ManifestHeader(
                schema_version=SCHEMA_VERSION,
                options_hash=options_hash,
                repo_root=str(repo_root),
                generation=generation,
                index_id=secrets.token_hex(16),
                log_name=self._log.name,
                log_bytes=self._log.size,
                log_crc=self._log.crc,
            )
            pending: list[str] = []
        else:
            self._files, self._skipped, self._excluded = table.files, table.skipped, table.excluded
            self._log = ChangeLog(index_dir, header.log_name, header.log_bytes, header.log_crc)
            pending = sorted({*header.pending, *self._log.unfinished()})
            self.header = msgspec.structs.replace(header, pending=pending)
            if pending != header.pending:  # recorded before the log forgets them
                write_header(index_dir, self.header)
            self._log.cut()
            self._log.remove_others()  # abandoned by a writer killed while starting one
            self._fresh_log = False
        self._symbols = sum(state.symbols for state in self._files.values())
        self._excluded_staged = False
        # Paths of a batch interrupted mid-commit: the caller must re-check them.
        self.suspect: frozenset[str] = frozenset(pending)
        self._staged: set[str] = set(pending)
        self._unchecked_suspects: set[str] = set(pending)

    def _open(self, heap_bytes: int) -> None:
        """Open Tantivy and take its writer lock.

        Raises:
            IndexLocked: Another process (or writer) holds the lock.
            IndexDamaged: The index's files are damaged.
            StorageError: Tantivy cannot open the index.
            OSError: The index directory cannot be created.
        """
        self.index_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._index = open_tantivy(self.index_dir, create=True)
        try:
            self._writer = self._index.writer(heap_size=heap_bytes, num_threads=1)
            # A writer killed mid-commit leaves files that no published commit uses; their
            # names (`<segment>.<opstamp>.del`) come round again, and the next commit would
            # fail on them. Tantivy drops such files only when asked.
            self._writer.garbage_collect_files()
        except ValueError as exc:
            if "LockBusy" in str(exc):
                raise IndexLocked(
                    f"another symfind process is writing the index at {self.index_dir}"
                ) from exc
            if (os_error := _os_error(exc, self.index_dir / TANTIVY_DIR)) is not None:
                raise os_error from exc
            raise StorageError(f"cannot open index at {self.index_dir}: {exc}") from exc

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

    @property
    def unpublished(self) -> bool:
        """Whether readers cannot see this writer's index yet: it started empty (a new
        index, or one dropped to be rebuilt) and has not committed since."""
        return self._fresh_log

    @property
    def staged_since_open(self) -> int:
        """Paths staged by this writer's caller since the last commit: `staged` without the
        suspects of an interrupted commit that nothing has re-checked yet (a sync counts
        those among the files it has still to check)."""
        return len(self._staged) - len(self._unchecked_suspects)

    def _stage(self, path: str) -> None:
        self._staged.add(path)
        self._unchecked_suspects.discard(path)

    @property
    def _tantivy_dir(self) -> Path:
        return self.index_dir / TANTIVY_DIR

    def replace_file(
        self, path: str, state: FileState, symbols: Iterable[Symbol],
        occurrences: Sequence[Occurrence] = (), imports: Sequence[Import] = (),
        language: str = "", *, uses: EncodedUses | None = None,
    ) -> None:
        """Stage: drop every document of `path`, then add `symbols`, the first of them
        carrying the file's field lengths (`schema.file_documents`) and its uses (its
        `FileState.uses` when the file defines nothing: `storage/uses.py`): `uses` as
        `encode_uses` made them (an extraction worker does), else encoded here from
        `occurrences` and `imports`; `language`: the file's, when it defines nothing
        (else its symbols say it).

        Raises:
            OSError: The index cannot be written (a full disk).
        """
        if uses is None and (occurrences or imports):
            uses = encode_uses(path, language or state.language, occurrences, imports)
        documents = file_documents(symbols)
        count = len(documents)
        if uses is not None and documents:
            _add_uses(documents[0], uses)
        with _system_errors(self._tantivy_dir):
            self._writer.delete_documents_by_term("path", path)
            for document in documents:
                self._writer.add_document(document)
        self._forget(path)
        # A file that defines nothing: its uses go in its file state, logged in this commit.
        kept = uses.record if uses is not None and count == 0 else b""
        self._files[path] = msgspec.structs.replace(state, symbols=count, uses=kept)
        self._symbols += count
        self._stage(path)

    def touch_file(self, path: str, state: FileState) -> None:
        """Stage: the file's content is unchanged; only record its new stat (`FileState`)."""
        old = self._files.get(path)
        if old is not None:
            self._files[path] = msgspec.structs.replace(
                old, mtime_ns=state.mtime_ns, size=state.size, digest=state.digest,
                ctime_ns=state.ctime_ns, inode=state.inode,
            )
            self._stage(path)

    def delete_file(self, path: str) -> None:
        """Stage: drop every symbol of `path` and forget the file.

        Raises:
            OSError: The index cannot be written (a full disk).
        """
        with _system_errors(self._tantivy_dir):
            self._writer.delete_documents_by_term("path", path)
        self._forget(path)
        self._stage(path)

    def skip_file(self, path: str, reason: str) -> None:
        """Stage: record that `path` is not indexed, dropping symbols it had."""
        if path in self._files:
            with _system_errors(self._tantivy_dir):
                self._writer.delete_documents_by_term("path", path)
        self._forget(path)
        self._skipped[path] = reason
        self._stage(path)

    def _forget(self, path: str) -> None:
        old = self._files.pop(path, None)
        if old is not None:
            self._symbols -= old.symbols
        self._skipped.pop(path, None)

    @property
    def excluded(self) -> dict[str, str]:
        """What the walk passed over by rule, including a staged new record."""
        return self._excluded

    @property
    def excluded_staged(self) -> bool:
        """Whether a new `excluded` record waits for the next commit."""
        return self._excluded_staged

    def set_excluded(self, excluded: dict[str, str]) -> None:
        """Stage: what the walk passed over by rule, replacing the previous record."""
        if excluded != self._excluded:
            self._excluded = dict(excluded)
            self._excluded_staged = True

    def commit(self, *, to_index: int | None = None) -> ManifestHeader:
        """Make staged changes visible and durable; returns the new manifest header.

        Args:
            to_index: Files the sync under way has still to index (see
                `ManifestHeader.to_index`); None leaves the count as it is (a batch).

        Raises:
            OSError: The index cannot be written (a full disk, permissions).
            ValueError: Tantivy failed otherwise.
        """
        if self._fresh_log:  # from now on a next writer continues the new log
            write_header(self.index_dir, self.header)
        self._log.append(self._changes(sorted(self._staged)))
        with _system_errors(self._tantivy_dir):  # a full disk: the CLI says so in one line
            self._writer.commit()
        self._log.advance()
        log = self._log
        if log.outgrown():
            log = ChangeLog.start(self.index_dir, self._files, self._skipped, self._excluded)
        self.header = msgspec.structs.replace(
            self.header,
            generation=self.header.generation + 1,
            pending=[],
            updated_at=time.time(),
            log_name=log.name,
            log_bytes=log.size,
            log_crc=log.crc,
            to_index=self.header.to_index if to_index is None else to_index,
            file_count=len(self._files),
            symbol_count=self._symbols,
        )
        write_header(self.index_dir, self.header)
        if log is not self._log or self._fresh_log:
            self._log, self._fresh_log = log, False
            log.remove_others()  # readers of the old one read the header again
        self._staged.clear()
        self._unchecked_suspects.clear()
        self._excluded_staged = False
        logger.debug("committed generation %d", self.header.generation)
        return self.header

    def _changes(self, paths: list[str]) -> FileChanges:
        """The staged changes of `paths`, as the log records them."""
        files, skipped, removed = {}, {}, []
        for path in paths:
            state = self._files.get(path)
            if state is not None:
                files[path] = state
            elif path in self._skipped:
                skipped[path] = self._skipped[path]
            else:
                removed.append(path)
        excluded = self._excluded if self._excluded_staged else None
        return FileChanges(files=files, skipped=skipped, removed=removed, excluded=excluded)

    def close(self) -> None:
        """Release the writer lock (uncommitted changes are dropped), once Tantivy's merges
        of committed segments have finished: a merge left running outlives the writer and
        writes into (and collects files of) its directory after the lock is released, which
        a rebuild's swap or a removal of the index may have moved by then."""
        if self._writer is not None:
            try:
                self._writer.rollback()
                self._writer.wait_merging_threads()
            except ValueError as exc:  # its indexing thread died (a full disk): nothing to keep
                logger.debug("rolling back a failed writer: %s", exc)
            self._writer = None  # type: ignore[assignment]
