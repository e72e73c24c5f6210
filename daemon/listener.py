"""The daemon's socket: requests in, replies out, one thread per connection.

`SocketListener` serves the Unix socket next to the index (or in the per-user runtime
directory when that path is too long), made 0600 as it is created, and hands each
request to the daemon: an `IndexRequest` to `index_for` with the connection (the client
hears progress on it), every other one to `answer`. A client that goes away ends its
thread, never the daemon.

Agents send their requests in parallel: the listen backlog is the system's largest
(`SOMAXCONN`), so that a burst waits to be taken rather than being turned away, and a
connection that sends nothing for `IDLE_TIMEOUT_S` is closed, so that idle connections
hold no thread for ever.

Imports: `daemon` modules.
"""

from __future__ import annotations

import os
import socket
import socketserver
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path

from symfind.daemon.client import private_socket_dir, socket_path
from symfind.daemon.errors import DaemonError
from symfind.daemon.protocol import (
    IndexRequest,
    ProgressReply,
    ProtocolError,
    Reply,
    Request,
    receive_request,
    send_reply,
)

#: How often a client of `symfind index` hears how far the daemon got.
PROGRESS_EVERY_S = 0.1
#: A connection that sends no request for this long is closed (a client sends its
#: request as soon as it connects).
IDLE_TIMEOUT_S = 30.0


class _Server(socketserver.ThreadingUnixStreamServer):
    """A thread per connection, and a backlog as long as the system allows (the kernel
    caps it at `net.core.somaxconn`): socketserver's default of 5 turns away the sixth
    of a burst of requests."""

    request_queue_size = socket.SOMAXCONN
    daemon_threads = True


class ProgressSender:
    """Sends a client's indexing progress, at most every PROGRESS_EVERY_S and at the
    end; a client gone away stops the messages, not the indexing."""

    def __init__(self, conn: socket.socket) -> None:
        self._conn = conn
        self._last = 0.0
        self._gone = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self._gone or (done < total and now - self._last < PROGRESS_EVERY_S):
            return
        self._last = now
        try:
            send_reply(self._conn, ProgressReply(done=done, total=total))
        except OSError:
            self._gone = True


class SocketListener:
    """The socket of the daemon of `index_dir`, served from a thread once `start`ed."""

    def __init__(
        self,
        index_dir: Path,
        answer: Callable[[Request], Reply],
        index_for: Callable[[socket.socket, IndexRequest], Reply],
        *,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
    ) -> None:
        self._path = socket_path(index_dir)
        self._idle_timeout_s = idle_timeout_s
        self._index_dir = index_dir
        self._answer = answer
        self._index_for = index_for
        self._server: _Server | None = None
        self._bound: tuple[int, int] | None = None  # (device, inode) of our socket file

    def start(self) -> None:
        """Listen (the caller holds the index's writer lock: any old socket is stale).

        Raises:
            DaemonError: A directory that is not empty is where the socket goes.
        """
        if self._path.parent != self._index_dir:
            private_socket_dir(self._path, create=True)
        self._clear_path()
        listener = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                conn: socket.socket = self.request
                conn.settimeout(listener._idle_timeout_s)
                while True:
                    try:
                        message = receive_request(conn)
                        if isinstance(message, IndexRequest):
                            send_reply(conn, listener._index_for(conn, message))
                        else:
                            send_reply(conn, listener._answer(message))
                    except (ProtocolError, OSError):  # the client went away, or idled
                        return

        old_umask = os.umask(0o177)  # the socket is the user's only (0600)
        try:
            self._server = _Server(str(self._path), Handler)
        finally:
            os.umask(old_umask)
        self._bound = _identity(self._path)
        threading.Thread(
            target=self._server.serve_forever, name="symfind-socket", daemon=True
        ).start()

    def _clear_path(self) -> None:
        """Remove what is where the socket goes: a stale socket, or what replaced one (a
        file, a symlink, an empty directory). The index directory (or the private socket
        directory) is ours, and the writer lock says no other daemon listens there."""
        try:
            is_directory = stat.S_ISDIR(self._path.lstat().st_mode)
        except FileNotFoundError:
            return
        try:
            if is_directory:
                self._path.rmdir()
            else:
                self._path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise DaemonError(
                f"cannot listen at {self._path}: {exc.strerror} — remove what is there"
            ) from exc

    def close(self) -> None:
        """Stop serving and remove the socket file, unless something else has replaced it
        meanwhile (no-op when never started)."""
        if self._server is None:
            return
        try:
            self._server.shutdown()
            self._server.server_close()
        finally:
            if self._bound is not None and _identity(self._path) == self._bound:
                self._path.unlink(missing_ok=True)


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of what is at `path` itself (a symlink is not followed)."""
    try:
        info = path.lstat()
    except OSError:
        return None
    return (info.st_dev, info.st_ino)
