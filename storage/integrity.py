"""Check an index's Tantivy files against the checksums Tantivy wrote into them.

Imports: msgspec and the standard library.

Tantivy ends every segment file with a footer: a JSON object `{"version": …, "crc": N}`,
its length (u32, little-endian) and the magic number 1337 (u32); `crc` is the CRC-32 of
everything before the footer. Tantivy reads files without checking it (its
`validate_checksum` is not in tantivy-py), so a flipped byte is read as data: a store
block that no longer decompresses, a term dictionary that panics, or — worst — postings
that silently point at other documents. Checking the footers when an index is opened
(and when a commit brings new segments) turns all of these into one error that names the
fix. A file is checked once per (inode, size, mtime) seen: segment files are written
once, so a checked file only needs checking again when something rewrote it.
"""

from __future__ import annotations

import mmap
import os
import struct
import zlib
from pathlib import Path

import msgspec

META_NAME = "meta.json"
#: The files every segment has (Tantivy's SegmentComponent, less the temporary store).
SEGMENT_EXTENSIONS = ("idx", "pos", "term", "store", "fast", "fieldnorm")
_FOOTER_MAGIC = 1337
_FOOTER_TAIL = struct.Struct("<II")  # footer length, magic number
_MAX_FOOTER_BYTES = 50_000  # Tantivy's own bound (FOOTER_MAX_LEN)

#: What a checked file looked like: (inode, size, mtime_ns).
Stamp = tuple[int, int, int]


class IntegrityError(Exception):
    """A Tantivy file is missing, truncated or fails its checksum (the message names it)."""


class _Deletes(msgspec.Struct, frozen=True):
    opstamp: int


class _Segment(msgspec.Struct, frozen=True):
    segment_id: str
    deletes: _Deletes | None = None


class _Meta(msgspec.Struct, frozen=True):
    segments: list[_Segment]


class _Footer(msgspec.Struct, frozen=True):
    crc: int


_META_DECODER = msgspec.json.Decoder(_Meta)
_FOOTER_DECODER = msgspec.json.Decoder(_Footer)


def segment_files(directory: Path) -> list[str]:
    """Names of the files the index's current commit (`meta.json`) consists of.

    Raises:
        IntegrityError: `meta.json` cannot be read or decoded.
    """
    try:
        meta = _META_DECODER.decode((directory / META_NAME).read_bytes())
    except FileNotFoundError:
        raise IntegrityError(f"{META_NAME} is missing") from None
    except OSError as exc:
        raise IntegrityError(f"{META_NAME} cannot be read ({exc.strerror})") from None
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise IntegrityError(f"{META_NAME} does not decode ({exc})") from None
    names = []
    for segment in meta.segments:
        stem = segment.segment_id.replace("-", "")
        names.extend(f"{stem}.{extension}" for extension in SEGMENT_EXTENSIONS)
        if segment.deletes is not None:
            names.append(f"{stem}.{segment.deletes.opstamp}.del")
    return names


def verify_files(directory: Path, verified: dict[str, Stamp]) -> None:
    """Check the checksum of every file of the current commit not checked before.

    Args:
        directory: The Tantivy directory.
        verified: Files already found intact, by name; updated in place (a file
            rewritten since — another inode, size or mtime — is checked again).

    Raises:
        IntegrityError: A file is missing, truncated, or its content fails its checksum;
            or `meta.json` cannot be decoded.
    """
    names = segment_files(directory)
    for name in names:
        stamp = _check_file(directory / name, verified.get(name))
        verified[name] = stamp
    for name in set(verified) - set(names):  # merged away: forget
        del verified[name]


def _check_file(path: Path, known: Stamp | None) -> Stamp:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise IntegrityError(f"{path.name} is missing") from None
    except OSError as exc:
        raise IntegrityError(f"{path.name} cannot be read ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
        if stamp == known:
            return stamp
        if info.st_size < _FOOTER_TAIL.size:
            raise IntegrityError(f"{path.name} is truncated ({info.st_size} bytes)")
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as data:
            _check_footer(path.name, data)
    except OSError as exc:
        raise IntegrityError(f"{path.name} cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    return stamp


def _check_footer(name: str, data: mmap.mmap) -> None:
    size = len(data)
    length, magic = _FOOTER_TAIL.unpack_from(data, size - _FOOTER_TAIL.size)
    body_end = size - _FOOTER_TAIL.size - length
    if magic != _FOOTER_MAGIC or length > _MAX_FOOTER_BYTES or body_end < 0:
        raise IntegrityError(f"{name} has no valid footer (truncated or overwritten)")
    try:
        footer = _FOOTER_DECODER.decode(data[body_end : size - _FOOTER_TAIL.size])
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise IntegrityError(f"{name} has no valid footer (truncated or overwritten)") from None
    with memoryview(data) as view, view[:body_end] as body:
        crc = zlib.crc32(body)
    if crc != footer.crc:
        raise IntegrityError(f"{name} fails its checksum (flipped or overwritten bytes)")
