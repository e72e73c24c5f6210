"""Read definition source from the repository, confined to files the index holds.

Imports: msgspec, `storage` (records, `read_at_most`) and the standard library.

Every read goes through `open_indexed()`:

1. the path is a plain repo-relative path (no NUL, backslash, drive or absolute path,
   no empty, `.` or `..` segments);
2. the index lists it (`Manifest.files`): secret files, ignored files and anything the
   indexer skipped are never indexed, so they are never readable here either;
3. it is opened one segment at a time from the repository root with `O_NOFOLLOW`, so no
   symlink — file or directory, planted before or during the read — is followed, and
   with `O_NONBLOCK`, so a FIFO put in its place never blocks; then the opened file must
   be a regular file whose real path lies inside the root;
4. its size and content digest must still be those the index recorded, else the file
   changed
   since it was indexed and line numbers from the index may no longer match.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

import msgspec

from symfind.storage import FileState, file_digest, read_at_most

#: Indexed files are at most ~1 MB (the indexer's cap); never read more than this.
MAX_FILE_BYTES = 8 * 1024 * 1024
_DRIVE = re.compile(r"^[A-Za-z]:")
_PROC_FD = os.path.isdir("/proc/self/fd")


class SourceError(Exception):
    """The file cannot be read safely; the message says why and what to do."""


class FileChanged(SourceError):
    """The file on disk is no longer the one the index holds."""


class Lines(msgspec.Struct, frozen=True, kw_only=True):
    """Some lines of one file."""

    text: str
    first_line: int
    last_line: int
    total_bytes: int
    is_truncated: bool


def check_relative(path: str) -> list[str]:
    """Split a repo-relative path into segments, refusing anything but a plain path.

    Raises:
        SourceError: NUL, backslash, absolute or drive path, empty/`.`/`..` segments.
    """
    if not path:
        raise SourceError("refused: empty path")
    if "\x00" in path:
        raise SourceError("refused: the path contains a NUL character")
    if "\\" in path:
        raise SourceError("refused: backslashes are not part of repository paths")
    if path.startswith("/") or _DRIVE.match(path):
        raise SourceError("refused: absolute paths are never read; paths are repo-relative")
    segments = path.split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        raise SourceError("refused: `..`, `.` and empty path segments are never followed")
    return segments


def open_indexed(
    root: Path, path: str, files: Mapping[str, FileState]
) -> tuple[int, FileState, os.stat_result]:
    """Open an indexed file read-only without following symlinks.

    Returns the open descriptor, the file's state in the index, and `fstat` of the
    descriptor (what `VerifiedFiles` recognises an unchanged file by).

    Args:
        root: The repository root, already resolved.
        path: Repo-relative path as the index stores it.
        files: The manifest's indexed files.

    Raises:
        SourceError: Refused path, not indexed, a symlink, outside the root, gone.
        FileChanged: The file's size differs from what the index recorded.
    """
    segments = check_relative(path)
    state = files.get(path)
    if state is None:
        raise SourceError(
            f"refused: {path!r} is not an indexed file (only files the index holds are "
            "readable; secrets, ignored and skipped files never are)"
        )
    fd = _open_nofollow(root, segments, path)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(f"refused: {path!r} is not a regular file")
        real = _real_path(fd, root, segments)
        if not real.is_relative_to(root):
            raise SourceError(f"refused: {path!r} resolves outside the repository")
        if info.st_size != state.size:
            raise FileChanged(
                f"{path} changed since it was indexed — re-run codebase_search once the "
                "index has caught up (index_status shows pending changes)"
            )
    except BaseException:
        os.close(fd)
        raise
    return fd, state, info


def _real_path(fd: int, root: Path, segments: list[str]) -> Path:
    """Where the open file really is: the kernel's own path of `fd` where there is one
    (one `readlink`; `os.path.realpath` would `lstat` every component again)."""
    if _PROC_FD:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    return Path(os.path.realpath(root.joinpath(*segments)))  # pragma: no cover (not Linux)


def _open_nofollow(root: Path, segments: list[str], path: str) -> int:
    """Walk from `root` with O_NOFOLLOW on every segment (no symlink is ever followed)."""
    # O_NONBLOCK: a FIFO swapped in for the file opens at once (then fails the S_ISREG
    # check on the descriptor) instead of blocking this thread until a writer comes.
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    directory = getattr(os, "O_DIRECTORY", 0)
    if os.open not in os.supports_dir_fd or not nofollow:  # pragma: no cover (not Linux/macOS)
        return _open_checked(root, segments, path, flags)
    fd = os.open(root, flags | directory)
    try:
        for segment in segments[:-1]:
            next_fd = os.open(segment, flags | directory | nofollow, dir_fd=fd)
            os.close(fd)
            fd = next_fd
        file_fd = os.open(segments[-1], flags | nofollow, dir_fd=fd)
    except OSError as exc:
        raise _open_error(exc, path) from None
    finally:
        os.close(fd)
    return file_fd


def _open_checked(root: Path, segments: list[str], path: str, flags: int) -> int:  # pragma: no cover
    current = root
    for segment in segments:
        current = current / segment
        if current.is_symlink():
            raise SourceError(f"refused: {path!r} goes through a symlink; symlinks are never followed")
    try:
        return os.open(current, flags)
    except OSError as exc:
        raise _open_error(exc, path) from None


def _open_error(exc: OSError, path: str) -> SourceError:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return SourceError(f"refused: {path!r} goes through a symlink; symlinks are never followed")
    if exc.errno == errno.ENOENT:
        return FileChanged(f"{path} no longer exists — re-run codebase_search")
    return SourceError(f"cannot read {path}: {exc.strerror}")


def read_bytes(fd: int, state: FileState) -> bytes:
    """Read the whole file behind `fd` (closing it), capped just above its indexed size.

    Raises:
        FileChanged: It grew while being read.
    """
    limit = min(state.size, MAX_FILE_BYTES) + 1
    try:
        data = read_at_most(fd, limit)
    finally:
        os.close(fd)
    if len(data) != state.size or file_digest(data) != state.digest:
        raise FileChanged(
            "the file changed since it was indexed — re-run codebase_search once the index "
            "has caught up (index_status shows pending changes)"
        )
    return data


def split_lines(data: bytes) -> list[bytes]:
    """A file's lines, line ends kept (what `slice_lines` takes)."""
    return data.splitlines(keepends=True)


def slice_lines(lines: Sequence[bytes], first: int, last: int, max_bytes: int) -> Lines:
    """Lines `first..last` (1-based, inclusive) of a file's `split_lines`, at most
    `max_bytes` of UTF-8.

    Cuts at the last whole line that fits (or inside the first line when even that one
    is too long, at a character boundary).
    """
    first = max(1, first)
    last = max(first, min(last, len(lines)))
    chosen = lines[first - 1 : last]
    total = sum(len(line) for line in chosen)
    kept: list[bytes] = []
    size = 0
    for line in chosen:
        if size + len(line) > max_bytes:
            if not kept:
                kept.append(line[: _char_boundary(line, max_bytes)])
            break
        kept.append(line)
        size += len(line)
    text = b"".join(kept).decode("utf-8", errors="replace")
    truncated = len(kept) < len(chosen) or sum(len(k) for k in kept) < total
    shown_last = first + max(len(kept), 1) - 1
    return Lines(
        text=text.rstrip("\r\n"),
        first_line=first,
        last_line=min(shown_last, last),
        total_bytes=total,
        is_truncated=truncated,
    )


def _char_boundary(data: bytes, cut: int) -> int:
    """The largest position <= cut that does not split a UTF-8 character."""
    while 0 < cut < len(data) and data[cut] & 0xC0 == 0x80:
        cut -= 1
    return cut
