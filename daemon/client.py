"""Talk to a repository's daemon: find its socket, send one request, read the reply.

The socket lives in the index directory; when that path is too long for a Unix socket
(108 bytes), in a private per-user directory: `$XDG_RUNTIME_DIR/symfind/` when that is
the user's own, else `$TMPDIR/symfind-<uid>/`. A shared temp dir lets anyone create that
name first, so the directory is created 0700 and refused — by the daemon and by every
client — unless it is a real directory owned by the user that nobody else can write to
(the checks ssh-agent and tmux make): another user who owned it could swap the socket
for their own and answer, or log, our searches.
"""

from __future__ import annotations

import hashlib
import os
import socket
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from symfind.daemon.errors import DaemonError, UnsafeSocketDirectory
from symfind.daemon.protocol import (
    ErrorReply,
    IndexReply,
    IndexReport,
    IndexRequest,
    ProgressReply,
    ProtocolError,
    Reply,
    Request,
    receive_reply,
    send_request,
)

SOCKET_NAME = "daemon.sock"
PID_NAME = "daemon.pid"
LOG_NAME = "daemon.log"
_MAX_SOCKET_PATH = 100


def socket_path(index_dir: Path) -> Path:
    """Where the daemon of the index at `index_dir` listens (its directory unchecked:
    `private_socket_dir` checks it)."""
    path = index_dir / SOCKET_NAME
    if len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(os.fsencode(index_dir)).hexdigest()[:16]
    return _runtime_dir() / f"{digest}.sock"


def _runtime_dir() -> Path:
    """The per-user directory of sockets whose index path is too long."""
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    # Only the user's own: `su`/`sudo -E` keep the invoking user's, which they could swap.
    if os.path.isabs(xdg) and _unsafe_reason(Path(xdg)) is None:
        return Path(xdg) / "symfind"
    return Path(tempfile.gettempdir()) / f"symfind-{os.getuid()}"


def _unsafe_reason(directory: Path) -> str | None:
    """Why `directory` may not hold our socket (None: it may): not a directory, a symlink,
    another user's, or writable by others."""
    try:
        info = directory.lstat()
    except FileNotFoundError:
        return "it does not exist"
    except OSError as exc:
        return f"it cannot be checked ({exc.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if info.st_uid != os.getuid():
        return f"it is owned by uid {info.st_uid}, not by you (uid {os.getuid()})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"others can write to it (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def private_socket_dir(path: Path, *, create: bool) -> bool:
    """Check (and with `create`, make, mode 0700) the directory of a socket path; False
    when it does not exist and was not to be created.

    Raises:
        UnsafeSocketDirectory: It exists but is not the user's private directory.
    """
    directory = path.parent
    if create:
        try:
            directory.mkdir(mode=0o700)
        except FileExistsError:
            pass  # checked below, whoever made it
        except OSError as exc:
            raise UnsafeSocketDirectory(
                f"cannot create the socket directory {directory}: {exc.strerror}"
            ) from exc
    reason = _unsafe_reason(directory)
    if reason == "it does not exist" and not create:
        return False
    if reason is not None:
        raise UnsafeSocketDirectory(
            f"refusing the socket directory {directory}: {reason}; another user could "
            "intercept symfind's searches through it — remove it, or set XDG_RUNTIME_DIR"
        )
    return True


def read_pid(index_dir: Path) -> int | None:
    try:
        return int((index_dir / PID_NAME).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def _connect(index_dir: Path, timeout_s: float | None) -> socket.socket | None:
    """A connection to the daemon's socket; None when no daemon listens.

    Raises:
        UnsafeSocketDirectory: See `request`.
    """
    path = socket_path(index_dir)
    if path.parent != index_dir and not private_socket_dir(path, create=False):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout_s)
    try:
        sock.connect(str(path))
    except OSError:  # FileNotFoundError, ConnectionRefusedError: no daemon
        sock.close()
        return None
    return sock


def index_via_daemon(
    index_dir: Path, message: IndexRequest, progress: Callable[[int, int], None]
) -> IndexReport | None:
    """Have the running daemon index (or rebuild) and wait for it, passing its progress on;
    its report, or None when no daemon runs. No time limit: Ctrl-C stops the wait.

    Raises:
        ProtocolError: The daemon broke the exchange (or is too old to index for us).
        DaemonError: The daemon could not index (its message says why).
    """
    sock = _connect(index_dir, timeout_s=None)
    if sock is None:
        return None
    with sock:
        try:
            send_request(sock, message)
        except (BrokenPipeError, ConnectionResetError):
            return None  # it was stopping: as good as no daemon
        while True:
            try:
                reply = receive_reply(sock)
            except OSError as exc:
                raise ProtocolError(f"daemon did not answer: {exc}") from exc
            if isinstance(reply, ProgressReply):
                progress(reply.done, reply.total)
            elif isinstance(reply, IndexReply):
                return reply.report
            elif isinstance(reply, ErrorReply):
                raise DaemonError(f"the daemon could not index: {reply.message}")
            else:
                raise ProtocolError(f"unexpected reply {type(reply).__name__} to an index request")


def request(index_dir: Path, message: Request, *, timeout_s: float = 30.0) -> Reply | None:
    """Send one request to the daemon; None when no daemon answers on the socket.

    Raises:
        ProtocolError: A daemon answered, then broke the exchange.
        UnsafeSocketDirectory: The socket's directory (outside the index directory) is
            not the user's private directory.
    """
    sock = _connect(index_dir, timeout_s)
    if sock is None:
        return None
    try:
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
