"""Talk to a repository's daemon: find its socket, send one request, read the reply.

The socket lives in the index directory; when that path is too long for a Unix socket
(108 bytes), in a private per-user directory: `$XDG_RUNTIME_DIR/symfind/` when that is
the user's own, else `$TMPDIR/symfind-<uid>/`. A shared temp dir lets anyone create that
name first, so the directory is created 0700 and refused — by the daemon and by every
client — unless it is a real directory owned by the user that nobody else can write to
(the checks ssh-agent and tmux make): another user who owned it could swap the socket
for their own and answer, or log, our searches.

A daemon that is busy is not absent: a connection its full backlog turns away (EAGAIN)
is tried again until the client's timeout (`SYMFIND_DAEMON_TIMEOUT`), and a daemon that
takes no request or gives no answer by then raises `DaemonNotAnswering`. Only a socket
that is not there or that nobody listens on means no daemon answers.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from symfind.daemon.errors import DaemonError, DaemonNotAnswering, UnsafeSocketDirectory
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
from symfind.storage.location import positive_setting

logger = logging.getLogger(__name__)

SOCKET_NAME = "daemon.sock"
PID_NAME = "daemon.pid"
LOG_NAME = "daemon.log"
_MAX_SOCKET_PATH = 100

#: How long a command waits for the daemon to take its request and answer it
#: (`$SYMFIND_DAEMON_TIMEOUT` seconds overrides it).
DEFAULT_ANSWER_TIMEOUT_S = 10.0
TIMEOUT_VARIABLE = "SYMFIND_DAEMON_TIMEOUT"
#: The pauses before knocking again on a socket whose backlog is full: doubling from the
#: first to the longest.
_FIRST_BUSY_PAUSE_S = 0.005
_MAX_BUSY_PAUSE_S = 0.1


def seconds_setting(variable: str, default_s: float) -> float:
    """The environment `variable`'s seconds (> 0), else `default_s`.

    Raises:
        DaemonError: The variable is set but not a positive number.
    """
    try:
        return positive_setting(variable, default_s)
    except ValueError as exc:
        raise DaemonError(str(exc)) from None


def answer_timeout_s() -> float:
    """`$SYMFIND_DAEMON_TIMEOUT`, else DEFAULT_ANSWER_TIMEOUT_S (see `seconds_setting`)."""
    return seconds_setting(TIMEOUT_VARIABLE, DEFAULT_ANSWER_TIMEOUT_S)


def socket_path(index_dir: Path) -> Path:
    """Where the daemon of the index at `index_dir` listens (its directory unchecked:
    `private_socket_dir` checks it)."""
    path = index_dir / SOCKET_NAME
    if len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(os.fsencode(index_dir)).hexdigest()[:16]
    return runtime_base() / f"{digest}.sock"


def runtime_base() -> Path:
    """The per-user runtime directory: sockets whose index path is too long, the daemon
    registry (checked by `private_dir`)."""
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    # Only the user's own: `su`/`sudo -E` keep the invoking user's, which they could swap.
    if os.path.isabs(xdg) and _unsafe_reason(Path(xdg)) is None:
        return Path(xdg) / "symfind"
    return Path(tempfile.gettempdir()) / f"symfind-{os.getuid()}"


#: What `looked_at` says of a path that does not exist.
ABSENT = "does not exist"


def looked_at(path: Path) -> os.stat_result | str:
    """`path`'s own status (a symbolic link's, not its target's), or why there is none:
    ABSENT, `cannot be looked at (...)`."""
    try:
        return path.lstat()
    except FileNotFoundError:
        return ABSENT
    except OSError as exc:
        return f"cannot be looked at ({exc.strerror})"


def _unsafe_reason(directory: Path) -> str | None:
    """Why `directory` may not hold our socket (None: it may): not a directory, a symlink,
    another user's, or writable by others."""
    info = looked_at(directory)
    if isinstance(info, str):
        return f"it {info}"
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
    return private_dir(path.parent, create=create)


def private_dir(directory: Path, *, create: bool, parents: bool = False) -> bool:
    """Check (and with `create`, make, mode 0700) a per-user runtime directory (sockets,
    the daemon registry); False when it does not exist and was not to be created.

    Raises:
        UnsafeSocketDirectory: It exists but is not the user's private directory.
    """
    if create:
        try:
            directory.mkdir(mode=0o700, parents=parents)
        except FileExistsError:
            pass  # checked below, whoever made it
        except OSError as exc:
            raise UnsafeSocketDirectory(
                f"cannot create the runtime directory {directory}: {exc.strerror}"
            ) from exc
    reason = _unsafe_reason(directory)
    if reason == f"it {ABSENT}" and not create:
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


def _connect(index_dir: Path, deadline: float | None) -> socket.socket | None:
    """A connection to the daemon's socket; None when no daemon listens on it. A full
    backlog is knocked on again until `deadline` (`time.monotonic()`; None: for ever).

    Raises:
        TimeoutError: The backlog stayed full until `deadline`.
        UnsafeSocketDirectory: See `request`.
        PermissionError: See `request`.
    """
    path = socket_path(index_dir)
    if path.parent != index_dir and not private_socket_dir(path, create=False):
        return None
    pause = _FIRST_BUSY_PAUSE_S
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # A blocking connect waits while the backlog is full; one with a timeout is
        # turned away at once (EAGAIN), and knocks again below.
        sock.settimeout(None if deadline is None else max(deadline - time.monotonic(), 0.001))
        try:
            sock.connect(str(path))
        except BlockingIOError:  # the backlog is full: a busy daemon, not an absent one
            sock.close()
            left = deadline - time.monotonic() if deadline is not None else pause
            if left <= 0:
                raise TimeoutError("the daemon's backlog stayed full") from None
            if pause == _FIRST_BUSY_PAUSE_S:
                logger.debug("the backlog of %s is full: knocking again for %.1fs", path, left)
            time.sleep(min(pause, left))
            pause = min(pause * 2, _MAX_BUSY_PAUSE_S)
            continue
        except PermissionError as exc:  # a daemon may run: we may not ask it (or read its index)
            sock.close()
            raise PermissionError(exc.errno, exc.strerror, str(path)) from None
        except OSError:  # FileNotFoundError, ConnectionRefusedError: nobody listens there
            sock.close()
            return None
        return sock


def not_answering(index_dir: Path, what: str, waited_s: float) -> DaemonNotAnswering:
    """The error for a daemon that `what` ("took no new connection", "did not answer")
    within `waited_s`, saying whether it is suspended or busy."""
    pid = read_pid(index_dir)
    waited = f" within {waited_s:g}s"
    who = f"the daemon (pid {pid})" if pid is not None else "the daemon"
    if pid is not None and _suspended(pid):
        return DaemonNotAnswering(
            f"{who} is suspended (stopped by a signal) and {what}{waited}",
            f"`kill -CONT {pid}` resumes it, `symfind daemon stop` stops it", pid)
    return DaemonNotAnswering(
        f"{who} is busy: it {what}{waited} ({TIMEOUT_VARIABLE})",
        "ask again later, or `symfind daemon stop` stops it", pid)


def _suspended(pid: int) -> bool:
    """Whether process `pid` is stopped by a signal (SIGSTOP, SIGTSTP)."""
    import psutil  # noqa: PLC0415  # here: psutil costs a cold `symfind search` ~10 ms

    try:
        return psutil.Process(pid).status() == psutil.STATUS_STOPPED
    except psutil.Error:
        return False


def index_via_daemon(
    index_dir: Path, message: IndexRequest, progress: Callable[[int, int], None]
) -> IndexReport | None:
    """Have the running daemon index (or rebuild) and wait for it, passing its progress on;
    its report, or None when no daemon runs. No time limit: Ctrl-C stops the wait.

    Raises:
        ProtocolError: The daemon broke the exchange (or is too old to index for us).
        DaemonError: The daemon could not index (its message says why).
    """
    sock = _connect(index_dir, deadline=None)
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


def request(index_dir: Path, message: Request, *, timeout_s: float | None = None) -> Reply | None:
    """Send one request to the daemon and wait for its answer at most `timeout_s`
    (default: `answer_timeout_s()`); None when no daemon listens on the socket.

    Raises:
        DaemonNotAnswering: A daemon listens but did not take the request or answer it in
            time (busy, or suspended).
        ProtocolError: A daemon answered, then broke the exchange.
        PermissionError: The socket (or the index directory) is not the user's to use.
        UnsafeSocketDirectory: The socket's directory (outside the index directory) is
            not the user's private directory.
        DaemonError: `SYMFIND_DAEMON_TIMEOUT` is malformed.
    """
    if timeout_s is None:
        timeout_s = answer_timeout_s()
    deadline = time.monotonic() + timeout_s
    try:
        sock = _connect(index_dir, deadline)
    except TimeoutError:
        raise not_answering(index_dir, "took no new connection", timeout_s) from None
    if sock is None:
        return None
    try:
        try:
            send_request(sock, message)
        except (BrokenPipeError, ConnectionResetError):
            return None  # it was stopping: as good as no daemon
        except TimeoutError:
            raise not_answering(index_dir, "did not take the request", timeout_s) from None
        sock.settimeout(max(deadline - time.monotonic(), 0.001))
        try:
            return receive_reply(sock)
        except TimeoutError:
            raise not_answering(index_dir, "did not answer", timeout_s) from None
        except OSError as exc:
            raise ProtocolError(f"daemon did not answer: {exc}") from exc
    finally:
        sock.close()
