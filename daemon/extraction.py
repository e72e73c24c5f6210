"""Read, vet and extract one file: what an extraction worker (or the daemon) does per path.

Never raises for a bad file: a file that cannot be indexed comes back with the reason
(`vanished`, `too_large`, `binary`, `minified`, `parse_timeout`...), counted in the
index's `skipped` table.
"""

from __future__ import annotations

import enum
import errno
import logging
import os
import stat
import threading
import time

import msgspec

from symfind.daemon.config import IndexOptions
from symfind.daemon.files import NotRegularFile, read_regular
from symfind.extract import (
    ExtractError,
    ParseTimeout,
    Symbol,
    UnsupportedLanguage,
    extract_file,
    language_for_path,
)
from symfind.storage import FileState, file_digest
from symfind.storage.uses import EncodedUses, encode_uses

logger = logging.getLogger(__name__)

_BINARY_SNIFF_BYTES = 8192
# File times come from a clock that ticks every few milliseconds (the kernel's coarse
# clock: 4 ms at HZ=250, 10 ms at HZ=100); generously more than a tick.
RACY_WINDOW_NS = 100_000_000
#: `extract_file` keeps one parser and one query cursor per language for the process: in
#: the daemon a batch and the file read ahead for it (`daemon.prefetch`) take turns.
_EXTRACTING = threading.Lock()


class SkipReason(enum.StrEnum):
    """Why a file the walk offered was not indexed (recorded in the manifest)."""

    VANISHED = "vanished"  # deleted before it could be read
    UNREADABLE = "unreadable"
    SYMLINK = "symlink"
    NOT_REGULAR = "not_regular"  # a FIFO, socket or device
    TOO_LARGE = "too_large"  # over `max_file_bytes`
    BINARY = "binary"
    MINIFIED = "minified"  # a line over `max_line_chars`, lines long on average
    PARSE_TIMEOUT = "parse_timeout"
    UNSUPPORTED = "unsupported"
    PARSE_ERROR = "parse_error"


class FileOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What processing one file produced: symbols (with the file's uses of names and
    its imports, for references, encoded as they are stored: a worker's outcome crosses
    to the writer's process as a few bytes, not as a structure per use), a skip reason,
    or 'unchanged'."""

    path: str
    state: FileState | None = None
    symbols: list[Symbol] = []
    skip_reason: SkipReason | None = None
    unchanged: bool = False
    uses: EncodedUses | None = None
    language: str = ""


def _is_minified(data: bytes, max_line_chars: int, mean_line_chars: int) -> bool:
    """A line over `max_line_chars` in a file whose lines average over `mean_line_chars`:
    code packed onto few lines, not a test's long literal."""
    if len(data) <= max_line_chars:
        return False
    # A line longer than max_line_chars covers a whole block of half that length, so only
    # a block without a newline calls for the exact check: one short memchr per block
    # instead of splitting every file into lines.
    step = max(1, max_line_chars // 2)
    if all(data.find(b"\n", start, start + step) >= 0
           for start in range(0, len(data) - step + 1, step)):
        return False
    if len(data) <= mean_line_chars * (data.count(b"\n") + 1):
        return False
    return any(len(line) > max_line_chars for line in data.split(b"\n"))


def process_file(
    root: str, path: str, options: IndexOptions, previous_digest: str | None
) -> FileOutcome:
    """Read, vet and extract one file. Never raises for a bad file: it returns a reason."""
    full = os.path.join(root, path)
    checked_ns = time.time_ns()
    try:
        info = os.lstat(full)
    except FileNotFoundError:
        return FileOutcome(path=path, skip_reason=SkipReason.VANISHED)
    except OSError:
        return FileOutcome(path=path, skip_reason=SkipReason.UNREADABLE)
    if stat.S_ISLNK(info.st_mode):
        return FileOutcome(path=path, skip_reason=SkipReason.SYMLINK)
    if not stat.S_ISREG(info.st_mode):
        return FileOutcome(path=path, skip_reason=SkipReason.NOT_REGULAR)
    if info.st_size > options.max_file_bytes:
        return FileOutcome(path=path, skip_reason=SkipReason.TOO_LARGE)
    try:  # it may have been replaced since the lstat: by a FIFO, a symlink
        data, _opened = read_regular(full, options.max_file_bytes + 1)
    except FileNotFoundError:
        return FileOutcome(path=path, skip_reason=SkipReason.VANISHED)
    except NotRegularFile:
        return FileOutcome(path=path, skip_reason=SkipReason.NOT_REGULAR)
    except OSError as exc:
        reason = SkipReason.SYMLINK if exc.errno == errno.ELOOP else SkipReason.UNREADABLE
        return FileOutcome(path=path, skip_reason=reason)
    if len(data) > options.max_file_bytes:  # grew between stat and read
        return FileOutcome(path=path, skip_reason=SkipReason.TOO_LARGE)
    digest = file_digest(data)
    # A file changed within a clock tick of this read may change again after it and keep
    # its ctime (git's "racily clean" entries): its ctime is recorded as unknown, so that
    # the next check reads it again.
    racy = info.st_ctime_ns > checked_ns - RACY_WINDOW_NS
    state = FileState(mtime_ns=info.st_mtime_ns, size=len(data), digest=digest,
                      ctime_ns=0 if racy else info.st_ctime_ns, inode=info.st_ino)
    if digest == previous_digest:
        return FileOutcome(path=path, state=state, unchanged=True)
    if b"\0" in data[:_BINARY_SNIFF_BYTES]:
        return FileOutcome(path=path, skip_reason=SkipReason.BINARY)
    if _is_minified(data, options.max_line_chars, options.minified_mean_line_chars):
        return FileOutcome(path=path, skip_reason=SkipReason.MINIFIED)
    try:
        with _EXTRACTING:
            extraction = extract_file(path, data, deadline_s=options.parse_deadline_s)
    except ParseTimeout:
        return FileOutcome(path=path, skip_reason=SkipReason.PARSE_TIMEOUT)
    except UnsupportedLanguage:
        return FileOutcome(path=path, skip_reason=SkipReason.UNSUPPORTED)
    except ExtractError:
        logger.exception("cannot extract %s", path)
        return FileOutcome(path=path, skip_reason=SkipReason.PARSE_ERROR)
    symbols = extraction.symbols
    state = msgspec.structs.replace(
        state, language=symbols[0].language if symbols else "",
        error_regions=extraction.error_regions, recovered=extraction.recovered,
        uses_read=extraction.occurrences_read,
    )
    language = state.language or language_for_path(path) or ""
    uses = (encode_uses(path, language, extraction.occurrences, extraction.imports)
            if extraction.occurrences or extraction.imports else None)
    return FileOutcome(path=path, state=state, symbols=symbols, uses=uses, language=language)
