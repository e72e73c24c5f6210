"""Talk to a repository's daemon: find its socket, send one request, read the reply.

The socket lives in the index directory; when that path is
too long for a Unix socket (108 bytes), in a per-user directory under the temp dir.
"""

from __future__ import annotations

import hashlib
import os
import socket
import tempfile
from pathlib import Path

from symfind.daemon.protocol import ProtocolError, Reply, Request, receive_reply, send_request

SOCKET_NAME = "daemon.sock"
PID_NAME = "daemon.pid"
LOG_NAME = "daemon.log"
_MAX_SOCKET_PATH = 100


def socket_path(index_dir: Path) -> Path:
    """Where the daemon of the index at `index_dir` listens."""
    path = index_dir / SOCKET_NAME
    if len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(os.fsencode(index_dir)).hexdigest()[:16]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"symfind-{uid}" / f"{digest}.sock"


def read_pid(index_dir: Path) -> int | None:
    try:
        return int((index_dir / PID_NAME).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def request(index_dir: Path, message: Request, *, timeout_s: float = 30.0) -> Reply | None:
    """Send one request to the daemon; None when no daemon answers on the socket.

    Raises:
        ProtocolError: A daemon answered, then broke the exchange.
    """
    path = socket_path(index_dir)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout_s)
    try:
        try:
            sock.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError, OSError):
            return None
        try:
            send_request(sock, message)
        except (BrokenPipeError, ConnectionResetError):
            return None  # it was stopping: as good as no daemon
        try:
            return receive_reply(sock)
        except (TimeoutError, OSError) as exc:
            raise ProtocolError(f"daemon did not answer: {exc}") from exc
    finally:
        sock.close()
