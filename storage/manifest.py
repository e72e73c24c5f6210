"""The index's table of contents: a small header, and the file states in a log of changes.

A commit costs in proportion to the files it changed, whatever the repository's size:

- `manifest.json`, the header (`ManifestHeader`): schema version, options hash, generation,
  counts, the paths of a commit under way, and which log holds the file states and how
  many of its bytes are valid. Replaced atomically (write, fsync, rename) at every commit;
  it stays a few hundred bytes.
- `files-<id>.log`, the file states: frames of a 4-byte length and a msgpack `FileChanges`,
  each a commit's changes. A commit appends its frame (fsynced) before Tantivy's commit,
  and the header that counts it after: a reader that reads the header, then the log up
  to `log_bytes`, sees exactly one commit's table, and a frame past `log_bytes` names the
  paths of a commit cut short, which the next writer re-checks. Once the log outgrows
  twice a snapshot of the table, a commit starts a new log with one snapshot frame,
  points the header at it and removes the old.

Readers that only need counts and the generation (every search) read the header; the
table (`read_manifest`, `ManifestReader`) is read only by those that need file states.
"""

from __future__ import annotations

import os
import secrets
import struct
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import msgspec

from symfind.storage.records import FileState, Manifest

MANIFEST_NAME = "manifest.json"
_LOG_PREFIX = "files-"
_LOG_SUFFIX = ".log"
_LENGTH = struct.Struct("<I")
#: A log is rewritten as one snapshot once it holds this many times a snapshot's bytes
#: (plus some slack for small tables): rewriting costs a snapshot, at most once per that
#: many bytes of changes, so a commit's share stays in proportion to what it changed.
_COMPACT_RATIO = 2
_COMPACT_SLACK_BYTES = 64 * 1024


class FileChanges(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One commit's changes to the file table (one frame of the log).

    Attributes:
        files: Paths indexed now, with their new state.
        skipped: Paths seen but not indexed now, with the reason.
        removed: Paths now neither indexed nor skipped.
        excluded: What the walk passes over by rule, replacing the previous record
            (`Manifest.excluded`); None when unchanged.
    """

    files: dict[str, FileState] = {}
    skipped: dict[str, str] = {}
    removed: list[str] = []
    excluded: dict[str, str] | None = None


class ManifestHeader(msgspec.Struct, frozen=True, kw_only=True):
    """What `manifest.json` holds: everything of `Manifest` but the file table, which is
    in the log it names. Fields as in `Manifest` (`pending`: paths of a commit cut short,
    recorded by the writer that found its frame, until its next commit), and:

    Attributes:
        log_name: The log holding the file table (a file name in the index directory).
        log_bytes: How many of its bytes belong to this generation.
        file_count: Number of indexed files.
        symbol_count: Number of symbols over every indexed file.
    """

    schema_version: int
    options_hash: str
    repo_root: str
    generation: int = 0
    pending: list[str] = []
    updated_at: float = 0.0
    index_id: str = ""
    log_name: str = ""
    log_bytes: int = 0
    file_count: int = 0
    symbol_count: int = 0


_HEADER_DECODER = msgspec.json.Decoder(ManifestHeader)
_CHANGES_ENCODER = msgspec.msgpack.Encoder()
_CHANGES_DECODER = msgspec.msgpack.Decoder(FileChanges)


def manifest_path(index_dir: Path) -> Path:
    return index_dir / MANIFEST_NAME


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` so readers see either the old or the new content."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_header(index_dir: Path) -> ManifestHeader | None:
    """The header, or None when there is none or it does not decode."""
    try:
        return _HEADER_DECODER.decode(manifest_path(index_dir).read_bytes())
    except (FileNotFoundError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def write_header(index_dir: Path, header: ManifestHeader) -> None:
    """Atomically replace the header."""
    write_atomically(manifest_path(index_dir), msgspec.json.encode(header))


def log_intact(index_dir: Path, header: ManifestHeader) -> bool:
    """Whether the log the header names holds at least the bytes it counts (a `stat`)."""
    if not header.log_name:
        return False
    try:
        return (index_dir / header.log_name).stat().st_size >= header.log_bytes
    except OSError:
        return False


class DamagedLog(Exception):
    """The log a header names is missing, shorter than counted, or does not decode."""


def read_changes(path: Path, start: int, end: int) -> Iterator[FileChanges]:
    """The frames of the log at `path` between byte offsets `start` and `end`.

    Raises:
        FileNotFoundError: The log is gone (a newer commit replaced it).
        DamagedLog: The bytes are missing or do not decode.
    """
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(end - start)
    if len(data) != end - start:
        raise DamagedLog(f"{path.name} is shorter than its manifest says")
    offset = 0
    try:
        while offset < len(data):
            (length,) = _LENGTH.unpack_from(data, offset)
            offset += _LENGTH.size
            if offset + length > len(data):
                raise DamagedLog(f"{path.name} ends inside a frame")
            yield _CHANGES_DECODER.decode(data[offset : offset + length])
            offset += length
    except (struct.error, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise DamagedLog(f"{path.name} does not decode: {exc}") from exc


class FileTable(msgspec.Struct, kw_only=True):
    """The file states a log's frames add up to (the mutable half of a `Manifest`)."""

    files: dict[str, FileState] = {}
    skipped: dict[str, str] = {}
    excluded: dict[str, str] = {}

    def copy(self) -> FileTable:
        return FileTable(files=dict(self.files), skipped=dict(self.skipped),
                         excluded=self.excluded)

    def apply(self, changes: FileChanges) -> None:
        """Apply one frame, in place."""
        files, skipped = self.files, self.skipped
        for path, state in changes.files.items():
            files[path] = state
            skipped.pop(path, None)
        for path, reason in changes.skipped.items():
            skipped[path] = reason
            files.pop(path, None)
        for path in changes.removed:
            files.pop(path, None)
            skipped.pop(path, None)
        if changes.excluded is not None:
            self.excluded = changes.excluded


def as_manifest(header: ManifestHeader, table: FileTable) -> Manifest:
    return Manifest(
        schema_version=header.schema_version, options_hash=header.options_hash,
        repo_root=header.repo_root, generation=header.generation, files=table.files,
        skipped=table.skipped, excluded=table.excluded, pending=header.pending,
        updated_at=header.updated_at, index_id=header.index_id,
    )


def read_table(index_dir: Path, header: ManifestHeader) -> FileTable:
    """The file table `header` describes.

    Raises:
        FileNotFoundError: The log is gone (a newer commit replaced it).
        DamagedLog: The log is shorter than counted or does not decode.
    """
    table = FileTable()
    for changes in read_changes(index_dir / header.log_name, 0, header.log_bytes):
        table.apply(changes)
    return table


def read_manifest(index_dir: Path) -> Manifest | None:
    """The whole manifest (header and file table), or None when it is missing or damaged.

    Reads the whole log: for callers that need every file state once (`symfind status`,
    checks); long-lived readers use `ManifestReader`.
    """
    for _attempt in range(3):
        header = read_header(index_dir)
        if header is None:
            return None
        try:
            table = read_table(index_dir, header)
        except FileNotFoundError:
            continue  # a commit replaced the log after we read the header: read again
        except DamagedLog:
            return None
        return as_manifest(header, table)
    return None


class ManifestReader:
    """Follows one index's file table for a long-lived reader: after the first read, only
    the frames that commits appended since are read.

    Each `Manifest` returned owns its dictionaries (copied when changes are applied), so
    one handed out earlier never changes under its holder.
    """

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self._log_name = ""
        self._log_bytes = 0
        self._table = FileTable()
        self._header: ManifestHeader | None = None
        self._manifest: Manifest | None = None
        self._lock = threading.Lock()

    def manifest(self, header: ManifestHeader) -> Manifest | None:
        """The manifest `header` describes; None when its log is gone (a newer commit
        replaced it: read the header again) or damaged."""
        with self._lock:
            return self._follow(header)

    def _follow(self, header: ManifestHeader) -> Manifest | None:
        if self._manifest is not None and header == self._header:
            return self._manifest
        follows = header.log_name == self._log_name and header.log_bytes >= self._log_bytes
        start = self._log_bytes if follows else 0
        table = self._table.copy() if follows else FileTable()
        try:
            for changes in read_changes(self.index_dir / header.log_name, start,
                                        header.log_bytes):
                table.apply(changes)
        except (FileNotFoundError, DamagedLog):
            return None
        self._log_name, self._log_bytes, self._table = header.log_name, header.log_bytes, table
        self._header, self._manifest = header, as_manifest(header, table)
        return self._manifest


class ChangeLog:
    """The writer's end of the log: appends frames, starts new logs, removes old ones."""

    def __init__(self, index_dir: Path, name: str, valid_bytes: int) -> None:
        """Continue the log `name` after its first `valid_bytes` (what a header counts);
        anything past them is the frame of a commit that did not finish (`unfinished`)."""
        self.index_dir = index_dir
        self.name = name
        self.size = valid_bytes
        self._snapshot_bytes = valid_bytes
        self._appended = 0

    def unfinished(self) -> list[str]:
        """The paths of a commit cut short: those of the whole frames past `size` (a frame
        cut short itself was never followed by Tantivy's commit)."""
        paths: list[str] = []
        with open(self.index_dir / self.name, "rb") as handle:
            handle.seek(self.size)
            data = handle.read()
        offset = 0
        while offset + _LENGTH.size <= len(data):
            (length,) = _LENGTH.unpack_from(data, offset)
            start, offset = offset + _LENGTH.size, offset + _LENGTH.size + length
            if offset > len(data):
                break
            try:
                changes = _CHANGES_DECODER.decode(data[start:offset])
            except (msgspec.DecodeError, msgspec.ValidationError):
                break
            paths += [*changes.files, *changes.skipped, *changes.removed]
        return paths

    def cut(self) -> None:
        """Drop whatever follows the valid bytes."""
        with open(self.index_dir / self.name, "r+b") as handle:
            handle.truncate(self.size)

    @classmethod
    def start(
        cls, index_dir: Path, files: dict[str, FileState], skipped: dict[str, str],
        excluded: dict[str, str],
    ) -> ChangeLog:
        """A new log whose one frame is a snapshot of the table (nothing points at it
        yet: a header written after this does)."""
        name = f"{_LOG_PREFIX}{secrets.token_hex(8)}{_LOG_SUFFIX}"
        frame = _frame(FileChanges(files=files, skipped=skipped, excluded=excluded))
        with open(index_dir / name, "xb") as handle:
            handle.write(frame)
            handle.flush()
            os.fsync(handle.fileno())
        return cls(index_dir, name, len(frame))

    def append(self, changes: FileChanges) -> None:
        """Write one commit's changes after the valid bytes, durably (replacing whatever
        followed them). They count once a header says so (`advance`)."""
        frame = _frame(changes)
        with open(self.index_dir / self.name, "r+b") as handle:
            handle.seek(self.size)
            handle.write(frame)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        self._appended = len(frame)

    def advance(self) -> None:
        """Count the frame last appended as valid (its commit is done)."""
        self.size += self._appended
        self._appended = 0

    def outgrown(self) -> bool:
        """Whether rewriting the table as one snapshot is due."""
        return self.size > _COMPACT_RATIO * self._snapshot_bytes + _COMPACT_SLACK_BYTES

    def remove_others(self) -> None:
        """Delete every log of this index directory but this one (replaced or abandoned)."""
        for path in self.index_dir.glob(f"{_LOG_PREFIX}*{_LOG_SUFFIX}"):
            if path.name != self.name:
                path.unlink(missing_ok=True)


def _frame(changes: FileChanges) -> bytes:
    data = _CHANGES_ENCODER.encode(changes)
    return _LENGTH.pack(len(data)) + data
