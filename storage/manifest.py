"""The index's table of contents: a small header, and the file states in a log of changes.

A commit costs in proportion to the files it changed, whatever the repository's size:

- `manifest.json`, the header (`ManifestHeader`): schema version, options hash, generation,
  counts, the paths of a commit under way, and which log holds the file states and how
  many of its bytes are valid. Replaced atomically (write, fsync, rename) at every commit;
  it stays a few hundred bytes.
- `files-<id>.log`, the file states: frames of a 4-byte length and a msgpack `FileChanges`,
  each a commit's changes; the header holds the CRC-32 of the bytes it counts, checked by
  every reader as Tantivy's files are (`read_table`, `ManifestReader`, `LogCheck`). A commit appends its frame (fsynced) before Tantivy's commit,
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
import zlib
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
        log_crc: CRC-32 of the log's first `log_bytes` bytes; None in indexes written
            before it was recorded (their log is not checked).
        to_index: Files the sync that made this commit (a build, `symfind index`) had
            still to index: 0 once a sync completed, `UNCOUNTED` before it has listed
            them. A sync cut short leaves its count: the index is incomplete until the
            next one completes.
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
    log_crc: int | None = None
    to_index: int = 0


#: `ManifestHeader.to_index` of a commit made before the files to index were counted.
UNCOUNTED = -1
_HEADER_DECODER = msgspec.json.Decoder(ManifestHeader)
_CHANGES_ENCODER = msgspec.msgpack.Encoder()
_CHANGES_DECODER = msgspec.msgpack.Decoder(FileChanges)


def manifest_path(index_dir: Path) -> Path:
    return index_dir / MANIFEST_NAME


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` so readers see either the old or the new content.

    Raises:
        OSError: It cannot be written (naming `path`): permissions, a full disk.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.filename is None:  # a failed write (a full disk) names no file: name it
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_header(index_dir: Path) -> ManifestHeader | None:
    """The header, or None when there is none or it does not decode."""
    try:
        return _HEADER_DECODER.decode(manifest_path(index_dir).read_bytes())
    except (FileNotFoundError, IsADirectoryError, msgspec.DecodeError, msgspec.ValidationError):
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


def read_log(path: Path, start: int, end: int) -> bytes:
    """The bytes of the log at `path` between offsets `start` and `end`.

    Raises:
        FileNotFoundError: The log is gone (a newer commit replaced it).
        DamagedLog: It is shorter than that.
    """
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(end - start)
    if len(data) != end - start:
        raise DamagedLog(f"{path.name} is shorter than its manifest says")
    return data


def _check_crc(name: str, crc: int, header: ManifestHeader) -> None:
    """Raises DamagedLog when `crc` (of the log's first `log_bytes`) is not the header's."""
    if header.log_crc is not None and crc != header.log_crc:
        raise DamagedLog(f"{name} fails its checksum (flipped or overwritten bytes)")


def read_changes(path: Path, start: int, end: int) -> Iterator[FileChanges]:
    """The frames of the log at `path` between byte offsets `start` and `end`.

    Raises:
        FileNotFoundError: The log is gone (a newer commit replaced it).
        DamagedLog: The bytes are missing or do not decode.
    """
    return decode_frames(path.name, read_log(path, start, end))


def decode_frames(name: str, data: bytes) -> Iterator[FileChanges]:
    """The frames in `data` (whole frames of the log `name`).

    Raises:
        DamagedLog: They do not decode.
    """
    offset = 0
    try:
        while offset < len(data):
            (length,) = _LENGTH.unpack_from(data, offset)
            offset += _LENGTH.size
            if offset + length > len(data):
                raise DamagedLog(f"{name} ends inside a frame")
            yield _CHANGES_DECODER.decode(data[offset : offset + length])
            offset += length
    except (struct.error, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise DamagedLog(f"{name} does not decode: {exc}") from exc


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
        DamagedLog: The log is shorter than counted, fails its checksum or does not decode.
    """
    data = read_log(index_dir / header.log_name, 0, header.log_bytes)
    _check_crc(header.log_name, zlib.crc32(data), header)
    table = FileTable()
    for changes in decode_frames(header.log_name, data):
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
        self._log_crc = 0  # of the bytes read so far
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
            data = read_log(self.index_dir / header.log_name, start, header.log_bytes)
            crc = zlib.crc32(data, self._log_crc if follows else 0)
            _check_crc(header.log_name, crc, header)
            for changes in decode_frames(header.log_name, data):
                table.apply(changes)
        except (FileNotFoundError, DamagedLog):
            return None
        self._log_name, self._log_bytes, self._table = header.log_name, header.log_bytes, table
        self._log_crc = crc
        self._header, self._manifest = header, as_manifest(header, table)
        return self._manifest


class LogCheck:
    """Checks the log a header names against the header's CRC, for a long-lived reader:
    all of it the first time, then only what commits append; all of it again when the
    file changed while no commit did (rewritten in place)."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self._header: ManifestHeader | None = None
        self._crc = 0
        self._stamp: tuple[int, int, int] | None = None

    def check(self, header: ManifestHeader) -> None:
        """Check the log `header` names.

        Raises:
            FileNotFoundError: The log is gone (a newer commit replaced it).
            DamagedLog: It is shorter than counted or fails its checksum.
        """
        if header.log_crc is None:
            return
        path = self.index_dir / header.log_name
        info = path.stat()
        stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
        last = self._header
        if last == header and stamp == self._stamp:
            return
        follows = (last is not None and last != header and last.log_name == header.log_name
                   and last.log_bytes <= header.log_bytes)
        start, crc = (last.log_bytes, self._crc) if follows and last else (0, 0)
        crc = zlib.crc32(read_log(path, start, header.log_bytes), crc)
        _check_crc(header.log_name, crc, header)
        self._header, self._crc, self._stamp = header, crc, stamp


class ChangeLog:
    """The writer's end of the log: appends frames, starts new logs, removes old ones."""

    def __init__(
        self, index_dir: Path, name: str, valid_bytes: int, crc: int | None = None
    ) -> None:
        """Continue the log `name` after its first `valid_bytes` (what a header counts,
        whose CRC-32 is `crc`; computed here when the header has none); anything past them
        is the frame of a commit that did not finish (`unfinished`)."""
        self.index_dir = index_dir
        self.name = name
        self.size = valid_bytes
        self._snapshot_bytes = valid_bytes
        self._appended = 0
        if crc is None:
            crc = zlib.crc32(read_log(index_dir / name, 0, valid_bytes))
        #: CRC-32 of the valid bytes, for the header.
        self.crc = crc
        self._appended_crc = crc

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
        _write_durably(index_dir / name, "xb", frame)
        return cls(index_dir, name, len(frame), zlib.crc32(frame))

    def append(self, changes: FileChanges) -> None:
        """Write one commit's changes after the valid bytes, durably (replacing whatever
        followed them). They count once a header says so (`advance`)."""
        frame = _frame(changes)
        try:
            with open(self.index_dir / self.name, "r+b") as handle:
                handle.seek(self.size)
                handle.write(frame)
                handle.truncate()
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise _named(exc, self.index_dir / self.name) from exc
        self._appended = len(frame)
        self._appended_crc = zlib.crc32(frame, self.crc)

    def advance(self) -> None:
        """Count the frame last appended as valid (its commit is done)."""
        self.size += self._appended
        self.crc = self._appended_crc
        self._appended = 0

    def outgrown(self) -> bool:
        """Whether rewriting the table as one snapshot is due."""
        return self.size > _COMPACT_RATIO * self._snapshot_bytes + _COMPACT_SLACK_BYTES

    def remove_others(self) -> None:
        """Delete every log of this index directory but this one (replaced or abandoned)."""
        for path in self.index_dir.glob(f"{_LOG_PREFIX}*{_LOG_SUFFIX}"):
            if path.name != self.name:
                path.unlink(missing_ok=True)


def _write_durably(path: Path, mode: str, data: bytes) -> None:
    """Write (create or append) and fsync.

    Raises:
        OSError: It cannot be written, naming `path`.
    """
    try:
        with open(path, mode) as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise _named(exc, path) from exc


def _named(exc: OSError, path: Path) -> OSError:
    """`exc` naming `path` (a failed write on a full disk names no file)."""
    return exc if exc.filename is not None else OSError(exc.errno, exc.strerror, str(path))


def _frame(changes: FileChanges) -> bytes:
    data = _CHANGES_ENCODER.encode(changes)
    return _LENGTH.pack(len(data)) + data
