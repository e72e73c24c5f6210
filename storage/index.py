"""What an index directory holds, whether it is usable, and opening it safely.

Imports: tantivy, `storage` modules.

An index directory holds `tantivy/` (the Tantivy index), `manifest.json` and the log of
file states it names (`storage.manifest`). Telling whether an index is usable reads the
header only: it costs the same for ten files or a hundred thousand. Opening Tantivy checks
every segment file's checksum (`storage.integrity`): a damaged index is an `IndexDamaged`
error naming the fix, never an empty or wrong answer.
"""

from __future__ import annotations

import atexit
import enum
import errno
import fcntl
import os
import re
import secrets
import shutil
import tempfile
from pathlib import Path

import tantivy

from symfind.storage.errors import (
    IndexDamaged,
    IndexHeld,
    IndexLocked,
    IndexMissing,
    SchemaMismatch,
)
from symfind.storage.integrity import IntegrityError, Stamp, verify_files
from symfind.storage.locks import LOCK_WAIT_S, flock_within
from symfind.storage.manifest import ManifestHeader, log_intact, manifest_path, read_header
from symfind.storage.schema import SCHEMA_VERSION, build_schema, register_analyzers

TANTIVY_DIR = "tantivy"
#: Tantivy's writer lock (an flock held while an IndexWriter lives).
WRITER_LOCK_NAME = ".tantivy-writer.lock"
# How Tantivy reports a lock file it could not create or lock: a system error.
_LOCK_FAILED = re.compile(r"Failed to acquire Lockfile: IoError\(Os \{ code: (\d+)")
#: An I/O error Tantivy met while opening (it writes a temporary file even then), and the
#: system errors among them that say nothing of the index's state.
_SYSTEM_ERROR = re.compile(r"\(os error (\d+)\)")
_NOT_DAMAGE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM})
#: Tantivy's lock that a reader takes while it loads a commit, and a writer while it
#: deletes the files of old commits: an flock Tantivy waits on with no deadline.
META_LOCK_NAME = ".tantivy-meta.lock"
#: Tantivy's lock files: the writer's, and the meta lock.
_LOCK_FILES = frozenset({WRITER_LOCK_NAME, META_LOCK_NAME})
# A reader may read meta.json just before a commit deletes the files of segments merged
# away: a file missing once is looked for again with the newer meta.json.
_VERIFY_ATTEMPTS = 3


class IndexState(enum.StrEnum):
    """What is on disk, compared with what this symfind needs."""

    MISSING = "missing"
    CORRUPT = "corrupt"
    VERSION_MISMATCH = "version-mismatch"
    OPTIONS_MISMATCH = "options-mismatch"
    OK = "ok"


def index_state(index_dir: Path, options_hash: str | None = None) -> IndexState:
    """Classify the index at `index_dir` (does not open Tantivy)."""
    if not manifest_path(index_dir).exists():
        return IndexState.MISSING
    header = read_header(index_dir)
    if header is None or not (index_dir / TANTIVY_DIR / "meta.json").exists():
        return IndexState.CORRUPT
    if header.schema_version != SCHEMA_VERSION:
        return IndexState.VERSION_MISMATCH
    if not log_intact(index_dir, header):
        return IndexState.CORRUPT
    if options_hash is not None and header.options_hash != options_hash:
        return IndexState.OPTIONS_MISMATCH
    return IndexState.OK


def check_index(index_dir: Path, options_hash: str | None = None) -> ManifestHeader:
    """Return the manifest header of a usable index, or raise why it is not usable.

    Raises:
        IndexMissing: Nothing indexed at `index_dir`.
        SchemaMismatch: Built by another schema version or other options.
        IndexDamaged: The manifest or its log is damaged, or Tantivy's meta.json missing.
    """
    state = index_state(index_dir, options_hash)
    if state is IndexState.MISSING:
        raise IndexMissing(f"no index at {index_dir} — run `symfind index` first")
    header = read_header(index_dir)
    if state is IndexState.VERSION_MISMATCH and header is not None:
        raise SchemaMismatch(
            f"index schema v{header.schema_version}, symfind needs v{SCHEMA_VERSION}"
            " — run `symfind reindex`"
        )
    if state is IndexState.OPTIONS_MISMATCH:
        raise SchemaMismatch("index was built with other indexing options — run `symfind reindex`")
    if state is IndexState.CORRUPT or header is None:
        raise damaged(index_dir, _why_corrupt(index_dir, header))
    return header


def _why_corrupt(index_dir: Path, header: ManifestHeader | None) -> str:
    if header is None:
        return "manifest.json does not decode"
    if not (index_dir / TANTIVY_DIR / "meta.json").exists():
        return "tantivy/meta.json is missing"
    return "the manifest's log of file states is missing or cut short"


def damaged(index_dir: Path, why: str) -> IndexDamaged:
    """The error for a damaged index: what is wrong and the fix."""
    return IndexDamaged(f"index at {index_dir} is damaged ({why}) — run `symfind reindex`")


def verify_index(index_dir: Path, verified: dict[str, Stamp]) -> None:
    """Check the checksums of the current commit's files not checked yet (`verified`
    holds those found intact, and is updated).

    Raises:
        IndexDamaged: A file is missing, truncated or fails its checksum.
    """
    directory = index_dir / TANTIVY_DIR
    for attempt in range(1, _VERIFY_ATTEMPTS + 1):
        meta_before = _meta_stamp(directory)
        try:
            verify_files(directory, verified)
            return
        except IntegrityError as exc:
            if attempt == _VERIFY_ATTEMPTS or _meta_stamp(directory) == meta_before:
                raise damaged(index_dir, str(exc)) from None
            # A commit replaced meta.json meanwhile: check what it names now.


def _meta_stamp(directory: Path) -> tuple[int, int] | None:
    try:
        info = (directory / "meta.json").stat()
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns)


def open_tantivy(
    index_dir: Path, *, create: bool = False, verified: dict[str, Stamp] | None = None
) -> tantivy.Index:
    """Open (or create) the Tantivy index, check its files' checksums, and register the
    analyzers it needs.

    Args:
        index_dir: The index directory.
        create: Create an empty index when there is none.
        verified: Files already found intact (see `verify_index`); updated.

    Raises:
        IndexMissing: No index (and not `create`).
        IndexDamaged: meta.json or a segment file is damaged or missing.
        IndexHeld: Another process has held Tantivy's meta lock for `locks.LOCK_WAIT_S`.
        OSError: Tantivy cannot create its lock file (a read-only file system, when
            `create`).
    """
    directory = index_dir / TANTIVY_DIR
    if create:
        directory.mkdir(parents=True, exist_ok=True)
    elif not (directory / "meta.json").exists():
        raise IndexMissing(f"no index at {index_dir} — run `symfind index` first")
    if (directory / "meta.json").exists():  # checked first: Tantivy's own errors are obscure
        verify_index(index_dir, {} if verified is None else verified)
    if create or os.access(directory, os.W_OK):
        path = directory
        wait_for_meta_lock(index_dir)
    else:  # through a view, the meta lock is a file of our own
        path = _view_for_reading(directory)
    try:
        index = tantivy.Index(build_schema(), path=str(path), reuse=True)
    except ValueError as exc:
        if (lock := _LOCK_FAILED.search(str(exc))) is not None:  # a system error, no damage
            code = int(lock.group(1))
            raise OSError(code, os.strerror(code), str(path)) from exc
        if (system := _SYSTEM_ERROR.search(str(exc))) is not None and (
                int(system.group(1)) in _NOT_DAMAGE):  # a full disk while opening: no damage
            code = int(system.group(1))
            raise OSError(code, os.strerror(code), str(path)) from exc
        # Unreadable meta.json or segments.
        raise damaged(index_dir, f"Tantivy cannot open it: {str(exc)[:200]}") from exc
    register_analyzers(index)
    return index


def wait_for_meta_lock(index_dir: Path) -> None:
    """Return once Tantivy's meta lock is free, so that loading a commit (which takes it
    with no deadline) does not hang on a process stopped while holding it.

    The lock is taken without blocking and let go at once. A process could take it in
    the microseconds between that and Tantivy's own lock, and stop then; only that
    window is left.

    Raises:
        IndexHeld: Another process held the lock for `locks.LOCK_WAIT_S`.
    """
    lock_path = index_dir / TANTIVY_DIR / META_LOCK_NAME
    try:
        lock = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError:
        return  # Tantivy cannot open it either, and says so (`open_tantivy`'s OSError)
    try:
        if not flock_within(lock):
            raise IndexHeld(
                f"another process has held the index at {index_dir} for {LOCK_WAIT_S:.0f} s "
                "without letting go (a stopped or hung symfind process?) — resume or stop "
                "it, then try again")
    finally:
        os.close(lock)  # and the lock with it


def read_through_view(index_dir: Path) -> bool:
    """Whether this process cannot write the index's directory, so that `open_tantivy`
    reads it through a view (each new commit then needs a new one: its new files)."""
    return not os.access(index_dir / TANTIVY_DIR, os.W_OK)


def _view_for_reading(directory: Path) -> Path:
    """A private directory of links to the Tantivy files of `directory`, which this process
    cannot write (a read-only mount; another user's index it may read).

    Tantivy creates and locks a file beside an index's files even to read them; through
    the view, that lock file is in a directory of our own, and the index's files are read
    where they are. Views are removed when the process exits.

    Raises:
        OSError: The view cannot be made (the temporary directory is not writable).
    """
    view = Path(tempfile.mkdtemp(prefix="symfind-read-"))
    atexit.register(shutil.rmtree, view, ignore_errors=True)
    for entry in os.scandir(directory):
        if entry.is_file(follow_symlinks=False) and entry.name not in _LOCK_FILES:
            os.symlink(entry.path, view / entry.name)
    return view


def drop_index_files(index_dir: Path) -> None:
    """Remove the Tantivy index and the manifest, whatever state they are in (what
    `symfind reindex` starts from), unless a writer holds the index.

    The Tantivy directory is renamed away while its writer lock is held, then deleted:
    a writer cannot start in it meanwhile, and readers with files open keep reading
    them until they reopen.

    Raises:
        IndexLocked: Another process (a daemon) holds the writer lock.
        OSError: The files cannot be removed (permissions).
    """
    directory = index_dir / TANTIVY_DIR
    if directory.is_dir() and not directory.is_symlink():
        trash = index_dir / f".{TANTIVY_DIR}-dropped-{secrets.token_hex(4)}"
        lock = os.open(directory / WRITER_LOCK_NAME,
                       os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise IndexLocked(
                    f"another symfind process is writing the index at {index_dir}"
                ) from None
            os.rename(directory, trash)
        finally:
            os.close(lock)
        shutil.rmtree(trash)
    elif directory.exists() or directory.is_symlink():
        directory.unlink()  # not a directory: nothing of ours, nothing anyone writes
    _remove(manifest_path(index_dir))


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
