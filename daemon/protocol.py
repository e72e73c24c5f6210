"""Messages between `symfind` clients and a repository's daemon over its Unix socket.

Each message is a 4-byte big-endian length followed by a msgpack-encoded tagged Struct.
New fields always get defaults (old clients keep working). A search request carries the
`storage.SearchQuery` every other search path takes; the status reply carries the
`storage.DaemonStatus` the daemon also writes to its status file.
"""

from __future__ import annotations

import socket
import struct

import msgspec

from symfind.storage import (
    DaemonStatus,
    ReferencesAnswer,
    ReferencesQuery,
    SearchQuery,
    SearchResponse,
)

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
_LENGTH = struct.Struct(">I")


class SearchRequest(msgspec.Struct, frozen=True, tag="search"):
    """Search the daemon's index; it reports its pending changes in the answer."""

    query: SearchQuery


class ReferencesRequest(msgspec.Struct, frozen=True, tag="references"):
    """Where a definition is used (`storage.ReferencesQuery`), from the daemon's index."""

    query: ReferencesQuery


class StatusRequest(msgspec.Struct, frozen=True, tag="status"):
    pass


class StopRequest(msgspec.Struct, frozen=True, tag="stop"):
    pass


class IndexRequest(msgspec.Struct, frozen=True, kw_only=True, tag="index"):
    """Re-check every file now (`symfind index`), or drop the index and rebuild it from
    scratch (`fresh`: `symfind reindex`). The daemon answers with `ProgressReply`s while it
    works, then one `IndexReply` (or an `ErrorReply`)."""

    fresh: bool = False


Request = SearchRequest | StatusRequest | StopRequest | IndexRequest | ReferencesRequest


class IndexReport(msgspec.Struct, frozen=True, kw_only=True):
    """Counts of one indexing run."""

    files: int
    indexed: int
    unchanged: int
    deleted: int
    symbols: int
    skipped: dict[str, int]
    seconds: float
    generation: int


class SearchReply(msgspec.Struct, frozen=True, tag="search"):
    response: SearchResponse


class ReferencesReply(msgspec.Struct, frozen=True, tag="references"):
    answer: ReferencesAnswer


class StatusReply(msgspec.Struct, frozen=True, tag="status"):
    status: DaemonStatus


class ProgressReply(msgspec.Struct, frozen=True, kw_only=True, tag="progress"):
    """Files done out of those to process, while an `IndexRequest` runs."""

    done: int
    total: int


class IndexReply(msgspec.Struct, frozen=True, tag="indexed"):
    report: IndexReport


class OkReply(msgspec.Struct, frozen=True, tag="ok"):
    message: str = ""


class ErrorReply(msgspec.Struct, frozen=True, kw_only=True, tag="error"):
    """A failed request. `kind` is `query` (bad input), `index` (no usable index yet),
    `damaged` (the search found the index's files damaged: the daemon rebuilds it) or
    `internal`."""

    kind: str
    message: str


Reply = (SearchReply | StatusReply | OkReply | ErrorReply | ProgressReply | IndexReply
         | ReferencesReply)

_ENCODER = msgspec.msgpack.Encoder()
_REQUEST_DECODER = msgspec.msgpack.Decoder(Request)
_REPLY_DECODER = msgspec.msgpack.Decoder(Reply)


class ProtocolError(Exception):
    """The peer closed the connection or sent something that is not a message."""


def _send(sock: socket.socket, message: msgspec.Struct) -> None:
    data = _ENCODER.encode(message)
    sock.sendall(_LENGTH.pack(len(data)) + data)


def _receive_bytes(sock: socket.socket) -> bytes:
    header = _read_exactly(sock, _LENGTH.size)
    (length,) = _LENGTH.unpack(header)
    if length > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {length} bytes exceeds the limit")
    return _read_exactly(sock, length)


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            raise ProtocolError("connection closed")
        chunks += chunk
    return bytes(chunks)


def send_request(sock: socket.socket, request: Request) -> None:
    _send(sock, request)


def send_reply(sock: socket.socket, reply: Reply) -> None:
    _send(sock, reply)


def receive_request(sock: socket.socket) -> Request:
    try:
        return _REQUEST_DECODER.decode(_receive_bytes(sock))
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ProtocolError(f"bad request: {exc}") from exc


def receive_reply(sock: socket.socket) -> Reply:
    try:
        return _REPLY_DECODER.decode(_receive_bytes(sock))
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ProtocolError(f"bad reply: {exc}") from exc
