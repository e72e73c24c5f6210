"""Rebuilding an index beside the one readers search, then swapping it in: a `symfind
reindex` cut short at any moment (Ctrl-C, kill -9, a worker that dies) leaves the old index
searchable.

Imports: msgspec, `storage` modules.

The new index is built in a directory of its own inside the index directory,
`.rebuild-<token>/` (its own Tantivy directory, header and log), while this process holds
the old index's writer lock, so that no daemon writes the old one meanwhile. Once the build
is complete it is swapped in (`Rebuild.swap_in`):

1. its log is moved beside the old one (log names are unique);
2. a note, `swap.json` in the build directory, records the new Tantivy directory's inode;
3. the two Tantivy directories trade places in one rename (`renameat2` with
   `RENAME_EXCHANGE` on Linux, `renamex_np` with `RENAME_SWAP` on macOS; elsewhere two
   renames, between which there is no Tantivy directory);
4. its header is renamed over the index's: the new index is the index;
5. the build directory (now holding the old Tantivy directory) and the old log are removed.

Between 3 and 4, readers search the new documents under the old header (its counts lag).
Whatever a build cut short leaves behind is settled by the next writer of the index
(`settle_rebuilds`, called before a writer opens it, and by the next rebuild): a build
cut short after step 3 is finished (so is one cut short after step 2 when the index
directory holds no Tantivy index), anything else is removed with its log.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import logging
import os
import secrets
import shutil
import sys
from pathlib import Path
from types import TracebackType

import msgspec

from symfind.storage.errors import IndexLocked
from symfind.storage.index import TANTIVY_DIR, WRITER_LOCK_NAME
from symfind.storage.manifest import (
    MANIFEST_NAME,
    ChangeLog,
    ManifestHeader,
    read_header,
    write_atomically,
    write_header,
)
from symfind.storage.writer import WRITER_HEAP_BYTES, IndexWriter

logger = logging.getLogger(__name__)

#: Build directories are `<index_dir>/.rebuild-<token>`.
REBUILD_PREFIX = ".rebuild-"
#: The note of a swap under way (step 2), in the build directory.
SWAP_NOTE = "swap.json"
# renameat2's and renamex_np's flag for trading two paths.
_RENAME_EXCHANGE = 2
_RENAME_SWAP = 2
_AT_FDCWD = -100


class _SwapNote(msgspec.Struct, frozen=True, kw_only=True):
    """What step 3 moves: the inode of the new Tantivy directory."""

    tantivy_inode: int


class Rebuild:
    """A new index built beside the index at `index_dir`; use as a context manager.

    Stage the new index's content through `writer` (an `IndexWriter` on the build
    directory), then call `swap_in`. Leaving the context without it, normally or not,
    drops the build and leaves the old index as it was.
    """

    def __init__(
        self, index_dir: Path, *, repo_root: Path, options_hash: str,
        heap_bytes: int = WRITER_HEAP_BYTES,
    ) -> None:
        """Take the index's writer lock and open a writer on an empty build directory.

        Raises:
            IndexLocked: Another process (a daemon) writes the index.
            StorageError: Tantivy cannot create the new index.
            OSError: The index directory cannot be created or written.
        """
        self.index_dir = index_dir
        index_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._locks = [_lock_live(index_dir)]
        try:
            _settle(index_dir)
            self.build_dir = index_dir / f"{REBUILD_PREFIX}{secrets.token_hex(4)}"
            self.build_dir.mkdir(mode=0o700)
            self.writer: IndexWriter | None = IndexWriter(
                self.build_dir, repo_root=repo_root, options_hash=options_hash,
                fresh=True, heap_bytes=heap_bytes,
            )
        except BaseException:
            self._release()
            if hasattr(self, "build_dir"):
                shutil.rmtree(self.build_dir, ignore_errors=True)
            raise
        self._swapped = False

    def __enter__(self) -> Rebuild:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Drop the build unless it was swapped in, and release the index's lock."""
        try:
            if self.writer is not None:
                self.writer.close()
                self.writer = None
            shutil.rmtree(self.build_dir, ignore_errors=True)
        finally:
            self._release()

    def _release(self) -> None:
        for lock in self._locks:
            os.close(lock)
        self._locks = []

    def swap_in(self) -> ManifestHeader:
        """Make the build the index (steps 1–5 above); returns its header. Generations
        go on from the old index's, so that readers take the new one as a new commit.

        Raises:
            OSError: The files cannot be moved (the old index is kept then).
            ValueError: Tantivy failed to commit.
        """
        writer = self.writer
        assert writer is not None and not self._swapped
        if writer.staged or writer.header.generation == 0:
            writer.commit(to_index=0)
        writer.close()
        self.writer = None
        built = read_header(self.build_dir)
        assert built is not None
        old = read_header(self.index_dir)
        header = msgspec.structs.replace(
            built, generation=built.generation + (old.generation if old is not None else 0))
        write_header(self.build_dir, header)
        new_tantivy = self.build_dir / TANTIVY_DIR
        self._locks.append(_lock_file(new_tantivy / WRITER_LOCK_NAME))
        os.replace(self.build_dir / header.log_name, self.index_dir / header.log_name)  # 1
        note = _SwapNote(tantivy_inode=new_tantivy.stat().st_ino)
        write_atomically(self.build_dir / SWAP_NOTE, msgspec.json.encode(note))  # 2
        _trade(new_tantivy, self.index_dir / TANTIVY_DIR)  # 3
        live_header = self.index_dir / MANIFEST_NAME
        if live_header.is_dir() and not live_header.is_symlink():
            shutil.rmtree(live_header)  # nothing a reader can read: no header to keep
        os.replace(self.build_dir / MANIFEST_NAME, live_header)  # 4
        self._swapped = True
        _finish(self.index_dir, header)  # 5 (the build directory goes in `close`)
        return header


def settle_rebuilds(index_dir: Path) -> None:
    """Finish or remove what builds cut short left in `index_dir` (see the module's
    docstring), unless a writer holds the index (a rebuild under way: it settles them
    when it starts).

    Raises:
        OSError: The leftovers cannot be moved or removed.
    """
    if not any(index_dir.glob(f"{REBUILD_PREFIX}*")):
        return
    try:
        lock = _lock_live(index_dir)
    except IndexLocked:
        return
    try:
        _settle(index_dir)
    finally:
        os.close(lock)


def _settle(index_dir: Path) -> None:
    """`settle_rebuilds`, the index's writer lock held."""
    for build in sorted(index_dir.glob(f"{REBUILD_PREFIX}*")):
        note = _read_note(build)
        header = read_header(build)
        if note is not None and header is not None:
            live, built = index_dir / TANTIVY_DIR, build / TANTIVY_DIR
            if _inode(built) == note.tantivy_inode and not (live / "meta.json").exists():
                # Cut short before the exchange (or between two renames, where there is no
                # exchange) while the live directory holds no index: the build is better.
                shutil.rmtree(live, ignore_errors=True)
                os.rename(built, live)
            if _inode(live) == note.tantivy_inode:
                os.replace(build / MANIFEST_NAME, index_dir / MANIFEST_NAME)
                logger.warning("%s: finished swapping in the index rebuilt by a run cut "
                               "short", index_dir)
                _finish(index_dir, header)
        logger.info("%s: removing %s, left by a rebuild cut short", index_dir, build.name)
        shutil.rmtree(build)
        live_header = read_header(index_dir)
        if live_header is not None and live_header.log_name:
            _finish(index_dir, live_header)  # a build's log moved in before it was cut short


def _finish(index_dir: Path, header: ManifestHeader) -> None:
    """Remove the logs other than the one `header` names (the old index's)."""
    ChangeLog(index_dir, header.log_name, header.log_bytes, header.log_crc).remove_others()


def _read_note(build: Path) -> _SwapNote | None:
    try:
        return msgspec.json.decode((build / SWAP_NOTE).read_bytes(), type=_SwapNote)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def _inode(path: Path) -> int | None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    return info.st_ino


def _lock_live(index_dir: Path) -> int:
    """Take the writer lock of the index at `index_dir` (Tantivy's: an flock on its lock
    file), making its Tantivy directory when there is none; the lock's descriptor.

    Raises:
        IndexLocked: Another process (a daemon) holds it.
        OSError: The directory or the lock file cannot be made.
    """
    directory = index_dir / TANTIVY_DIR
    if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
        directory.unlink()  # not a directory: nothing of ours, nothing anyone writes
    directory.mkdir(exist_ok=True, mode=0o700)
    return _lock_file(directory / WRITER_LOCK_NAME)


def _lock_file(path: Path) -> int:
    """Raises: IndexLocked, OSError (as `_lock_live`)."""
    lock = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(lock)
        raise IndexLocked(
            f"another symfind process is writing the index at {path.parent.parent}"
        ) from None
    return lock


def _trade(new: Path, live: Path) -> None:
    """Put directory `new` at `live` and what was at `live` (if anything) at `new`, in one
    step where the system has one.

    Raises:
        OSError: Neither can be renamed.
    """
    if not live.exists():
        os.rename(new, live)
    elif not _exchange(new, live):
        aside = new.with_name(f"{new.name}.old")
        os.rename(live, aside)
        os.rename(new, live)
        os.rename(aside, new)


def _exchange(first: Path, second: Path) -> bool:
    """Trade two paths atomically; False when this system or file system cannot.

    Raises:
        OSError: The exchange failed otherwise.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    a, b = os.fsencode(first), os.fsencode(second)
    if sys.platform == "darwin" and hasattr(libc, "renamex_np"):
        result = libc.renamex_np(a, b, ctypes.c_uint(_RENAME_SWAP))
    elif hasattr(libc, "renameat2"):
        result = libc.renameat2(_AT_FDCWD, a, _AT_FDCWD, b, ctypes.c_uint(_RENAME_EXCHANGE))
    else:
        return False
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(first), None, str(second))
