"""Files symfind derives once and keeps in its cache directory (storage/location.py
`cache_dir`), to be read by every later process in milliseconds.

Imports: msgspec, `storage` modules.

A file is its contents' SHA-256 followed by the contents, written whole under a temporary
name and renamed (atomic: a reader sees the old file or the new one, never a part); it is
read only when the digest matches, so a damaged or partial file reads as no file, and the
caller derives it again. Each file's name holds a key of what it was derived from, and its
contents say so again, for the caller to check.

A file of which a process reads only a little (wordninja's word list, of which a question
looks up a few words) has a tail after the contents, mapped in place, not read: the digest
covers the contents, which say how each part of the tail is checked when it is read.
"""

from __future__ import annotations

import hashlib
import logging
import mmap
import sys
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from symfind.storage.manifest import write_atomically

logger = logging.getLogger(__name__)

DIGEST_BYTES = 32
#: `write_intact_with_tail`'s payload length, after the digest.
LENGTH_BYTES = 4


def key_of(source: str) -> str:
    """A short key of what a file is derived from, for its name."""
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def read_intact(path: Path) -> memoryview | None:
    """The contents of the cached file at `path` (a view of the file's bytes as read, not
    a copy: a decoder's `memoryview` fields then point into it), or None when there is
    none or it is damaged (its digest does not match)."""
    try:
        data = memoryview(path.read_bytes())
    except OSError:
        return None
    digest, payload = data[:DIGEST_BYTES], data[DIGEST_BYTES:]
    if len(digest) < DIGEST_BYTES or hashlib.sha256(payload).digest() != digest:
        logger.warning("%s is damaged: deriving it again", path)
        return None
    return payload


def read_made_from(path: Path, decoder: msgspec.msgpack.Decoder[Any], source: str) -> Any:
    """The cached file at `path` decoded (a msgspec Struct with a `source` field) when it
    is intact, decodes, and was made from `source`; else None."""
    payload = read_intact(path)
    return None if payload is None else _made_from(path, payload, decoder, source)


def _made_from(path: Path, payload: memoryview | bytes, decoder: msgspec.msgpack.Decoder[Any],
               source: str) -> Any:
    """An intact payload decoded, when it decodes and was made from `source`; else None."""
    try:
        made = decoder.decode(payload)
    except (msgspec.DecodeError, msgspec.ValidationError):
        logger.warning("%s does not decode: deriving it again", path)
        return None
    return made if made.source == source else None


def read_made_from_with_tail(path: Path, decoder: msgspec.msgpack.Decoder[Any], source: str
                             ) -> tuple[Any, memoryview] | None:
    """`read_made_from` of a file written by `write_intact_with_tail`: what its payload
    decodes to, and its tail, mapped in place, not read (None: as `read_made_from`)."""
    try:
        with path.open("rb") as file:
            head = file.read(DIGEST_BYTES + LENGTH_BYTES)
            length = int.from_bytes(head[DIGEST_BYTES:], "little")
            payload = file.read(length)
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None
    if (len(head) < DIGEST_BYTES + LENGTH_BYTES or len(payload) < length
            or hashlib.sha256(payload).digest() != head[:DIGEST_BYTES]):
        logger.warning("%s is damaged: deriving it again", path)
        return None
    made = _made_from(path, payload, decoder, source)
    tail = memoryview(mapped)[DIGEST_BYTES + LENGTH_BYTES + length:]
    return None if made is None else (made, tail)


def little_endian(packed: bytes | memoryview, typecode: str) -> Sequence[Any]:
    """Numbers a cached file holds little-endian (an `array` typecode: `I`, `Q`, `d`), as a
    view of its bytes where they are the machine's own, else as a swapped copy."""
    if sys.byteorder == "little":
        return memoryview(packed).cast(typecode)
    numbers = array(typecode, bytes(packed))
    numbers.byteswap()
    return numbers


def packed_little_endian(numbers: Iterable[Any], typecode: str) -> memoryview:
    """Numbers packed as `little_endian` reads them back (an `array` typecode)."""
    packed = array(typecode, numbers)
    if sys.byteorder == "big":
        packed.byteswap()
    return memoryview(packed.tobytes())


def write_intact_with_tail(path: Path, payload: bytes, tail: bytes | memoryview) -> None:
    """`write_intact` with `tail` after the payload, for a file of which a process reads
    little: the digest covers the payload only, its length follows it, and whoever reads
    the tail checks each part it reads (the payload says how).

    Raises:
        OSError: It cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, hashlib.sha256(payload).digest()
                     + len(payload).to_bytes(LENGTH_BYTES, "little") + payload + tail)


def write_intact(path: Path, payload: bytes) -> None:
    """Write a cached file atomically, its digest first (its directory made if need be).

    Raises:
        OSError: It cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, hashlib.sha256(payload).digest() + payload)
