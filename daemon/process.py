"""Start, find and stop a repository's daemon as a detached background process.

`start` spawns `python -m symfind.cli daemon run REPO` (`storage.spawn_daemon`: its own
session, output to `<index dir>/daemon.log`), then waits until it answers.

A daemon is found by its socket, and by the user's registry (`registry.py`) when the
socket does not answer: a daemon whose socket was removed or replaced (by a file, a
directory, a dangling symlink), or whose index directory was removed, still runs and is
registered — it is reported as not answering, never as absent, and `stop` ends it by its
registered pid (checked against its start time): SIGTERM, which finishes the current
batch, and SIGCONT in case it is suspended. A daemon that has not exited
`SYMFIND_STOP_TIMEOUT` seconds after being asked is killed (SIGKILL): the next daemon
re-checks whatever it had not committed.
"""

from __future__ import annotations

import logging
import os
import signal
import stat
import time
from pathlib import Path

import msgspec

from symfind.daemon.client import (
    LOG_NAME,
    looked_at,
    read_pid,
    request,
    seconds_setting,
    socket_path,
)
from symfind.daemon.config import Config
from symfind.daemon.errors import DaemonError, DaemonNotAnswering, UnsafeSocketDirectory
from symfind.daemon.protocol import ProtocolError, StatusReply, StatusRequest, StopRequest
from symfind.daemon.registry import DaemonEntry, find_daemon
from symfind.storage import STATUS_NAME, DaemonState, DaemonStatus, spawn_daemon
from symfind.storage.contract.leases import is_running

logger = logging.getLogger(__name__)

START_TIMEOUT_S = 30.0
#: How long `stop` waits for a daemon it asked to stop before killing it
#: (`$SYMFIND_STOP_TIMEOUT` seconds overrides it).
STOP_TIMEOUT_S = 60.0
STOP_TIMEOUT_VARIABLE = "SYMFIND_STOP_TIMEOUT"
#: How long a SIGKILLed process may take to disappear.
_KILL_WAIT_S = 10.0
_POLL_S = 0.05


class Stopped(msgspec.Struct, frozen=True, kw_only=True):
    """How `stop_daemon` stopped a daemon.

    Attributes:
        pid: The daemon's process id (None: it took the stop request and left no pid).
        how: `asked` (it took the stop request), `signalled` (SIGTERM: it did not answer,
            or could not be reached) or `killed` (SIGKILL: it had not exited in time).
        why: Why it was signalled or killed (empty when asked).
    """

    pid: int | None
    how: str
    why: str = ""


def running_status(config: Config) -> DaemonStatus | None:
    """The status of the daemon serving `config.repo`, or None when none runs.

    Raises:
        DaemonNotAnswering: A daemon runs but did not answer in time, or cannot be
            reached (its socket is gone or replaced, its index directory removed).
        ProtocolError: It broke off the exchange.
    """
    reply = request(config.index_dir, StatusRequest())
    if isinstance(reply, StatusReply):
        return reply.status
    entry = _registered(config)
    if entry is not None:
        raise unreachable(config, entry)
    return None


def _registered(config: Config) -> DaemonEntry | None:
    """The running daemon registered for `config`'s repository or index; None also when
    the registry is not the user's own (its pids are not to be trusted, let alone killed)."""
    try:
        return find_daemon(config.repo, config.index_dir)
    except UnsafeSocketDirectory as exc:
        logger.warning("%s", exc)
        return None


def unreachable(config: Config, entry: DaemonEntry) -> DaemonNotAnswering:
    """A registered daemon whose socket nobody listens on, saying what is at its socket."""
    return DaemonNotAnswering(
        f"the daemon of {config.repo} (pid {entry.pid}) runs but cannot be reached: "
        f"{_socket_trouble(entry)}", f"`symfind daemon stop {config.repo}` stops it", entry.pid)


def _socket_trouble(entry: DaemonEntry) -> str:
    """What keeps a registered daemon's socket from being reached."""
    index_dir = Path(entry.index_dir)
    if not index_dir.is_dir():
        return f"its index directory {index_dir} is gone"
    if _stopping(entry):
        return "it is stopping (its socket closed, its last commit under way)"
    path = socket_path(index_dir)
    return f"its socket {path} {_what_is_at(path)}"


def _what_is_at(path: Path) -> str:
    info = looked_at(path)
    if isinstance(info, str):
        return info
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link" + ("" if path.exists() else " to nothing")
    if stat.S_ISDIR(info.st_mode):
        return "is a directory"
    if stat.S_ISREG(info.st_mode):
        return "is a regular file"
    if stat.S_ISSOCK(info.st_mode):
        return "is a socket nobody listens on"
    return "is not a socket"


def _stopping(entry: DaemonEntry) -> bool:
    """Whether the registered daemon has said it is stopping (in its status file)."""
    try:
        status = msgspec.json.decode(
            (Path(entry.index_dir) / STATUS_NAME).read_bytes(), type=DaemonStatus)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return False
    return status.pid == entry.pid and status.state is DaemonState.STOPPING


def running_unless_stopping(config: Config) -> DaemonStatus | None:
    """`running_status`, but a daemon that is stopping (for `daemon stop`, or at the end
    of its lease) is waited for, up to `stop_timeout_s()`: None once it has exited.

    Raises:
        DaemonNotAnswering: A daemon runs but does not answer (and is not stopping).
        DaemonError: A stopping daemon did not exit in time.
        ProtocolError: It broke off the exchange.
    """
    try:
        status = running_status(config)
    except DaemonNotAnswering:
        entry = _registered(config)
        if entry is None or not _stopping(entry):
            raise
        pid = entry.pid
    else:
        if status is None or status.state is not DaemonState.STOPPING:
            return status
        pid = status.pid
    timeout_s = stop_timeout_s()
    logger.info("the daemon (pid %d) is stopping: waiting for it to exit", pid)
    if not _gone_within(pid, timeout_s):
        raise DaemonError(f"the daemon (pid {pid}) has been stopping for {timeout_s:g}s; "
                          f"`symfind daemon stop {config.repo}` ends it")
    return None


def start_daemon(config: Config) -> DaemonStatus:
    """Start a detached daemon (or return the running one's status; once one that is
    stopping has exited, start another).

    Raises:
        DaemonNotAnswering: A daemon runs already but does not answer.
        DaemonError: It exited or did not answer within START_TIMEOUT_S, or one that was
            stopping did not exit in time.
    """
    status = running_unless_stopping(config)
    if status is not None:
        return status
    config.index_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    log_path = config.index_dir / LOG_NAME
    # --force: `start` has checked it is a repository.
    lease = ["--lease", repr(config.lease_s)] if config.lease_s else []
    child = spawn_daemon("run", config.repo, log_path, verbose=True, options=["--force", *lease])
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        reply = None
        try:
            reply = request(config.index_dir, StatusRequest())
        except DaemonNotAnswering:  # starting on a busy machine: give it its START_TIMEOUT_S
            pass
        if isinstance(reply, StatusReply):
            return reply.status
        if child.poll() is not None:
            raise DaemonError(f"daemon exited with code {child.returncode}"
                              f"{_last_words(log_path)}; see {log_path}")
        time.sleep(_POLL_S)
    raise DaemonError(f"daemon did not answer within {START_TIMEOUT_S:.0f}s; see {log_path}")


def _last_words(log_path: Path) -> str:
    """`: ` and the last line of the log of a daemon that exited at once (its error, which
    `daemon run` prints as one line), or nothing when it cannot be read."""
    try:
        with open(log_path, "rb") as log:
            log.seek(max(log.seek(0, os.SEEK_END) - 4096, 0))
            lines = log.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    last = next((line for line in reversed(lines) if line.strip()), "")
    return f": {last.removeprefix('symfind: ')}" if last else ""


def stop_timeout_s() -> float:
    """`$SYMFIND_STOP_TIMEOUT`, else STOP_TIMEOUT_S (see `seconds_setting`)."""
    return seconds_setting(STOP_TIMEOUT_VARIABLE, STOP_TIMEOUT_S)


def stop_daemon(config: Config) -> Stopped | None:
    """Stop the daemon of `config.repo` and wait until its process is gone; how, or None
    when none ran. Asked over its socket when it answers, else signalled by the pid it
    registered; killed when it has not exited within `stop_timeout_s()`.

    Raises:
        DaemonNotAnswering: It does not answer and is not registered (no pid to signal).
        DaemonError: It took the stop request but did not exit, and is not registered; or
            even SIGKILL did not end it.
    """
    timeout_s = stop_timeout_s()
    entry = _registered(config)
    why = ""
    try:
        reply = request(config.index_dir, StopRequest())
    except DaemonNotAnswering as exc:
        if entry is None:
            raise
        reply, why = None, exc.what
    except ProtocolError as exc:
        if entry is None:
            raise
        reply, why = None, f"it broke off the exchange: {exc}"
    if reply is not None:
        pid = entry.pid if entry is not None else read_pid(config.index_dir)
        if pid is None or _gone_within(pid, timeout_s):
            return Stopped(pid=pid, how="asked")
        if entry is None:
            raise DaemonError(f"daemon (pid {pid}) did not stop within {timeout_s:g}s")
        return _kill(entry, f"it did not stop within {timeout_s:g}s of being asked")
    if entry is None:
        return None
    why = why or _socket_trouble(entry)
    _signal(entry, signal.SIGTERM)
    _signal(entry, signal.SIGCONT)  # a suspended daemon handles SIGTERM once resumed
    if _gone_within(entry.pid, timeout_s):
        return Stopped(pid=entry.pid, how="signalled", why=why)
    return _kill(entry, f"it did not stop within {timeout_s:g}s of SIGTERM")


def _signal(entry: DaemonEntry, signum: int) -> None:
    """Send `signum` to the registered daemon, if that pid is still the daemon's."""
    if is_running(entry.pid, entry.started_at):
        try:
            os.kill(entry.pid, signum)
        except ProcessLookupError:
            pass


def _gone_within(pid: int, timeout_s: float) -> bool:
    """Whether process `pid` ends (or is a zombie, ended but not yet reaped) in time."""
    import psutil  # noqa: PLC0415  # here: psutil costs a cold `symfind search` ~10 ms

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        except psutil.AccessDenied:  # another user's: alive
            pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)


def _kill(entry: DaemonEntry, why: str) -> Stopped:
    _signal(entry, signal.SIGKILL)
    if not _gone_within(entry.pid, _KILL_WAIT_S):
        raise DaemonError(f"daemon (pid {entry.pid}) {why}, and SIGKILL did not end it")
    return Stopped(pid=entry.pid, how="killed", why=why)
