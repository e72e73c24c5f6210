"""Start and stop a repository's daemon as a detached background process.

`start` spawns `python -m symfind.daemon daemon run REPO` (`storage.spawn_daemon`: its own
session, output to `<index dir>/daemon.log`), then waits until it answers.
"""

from __future__ import annotations

import time

from symfind.daemon.client import LOG_NAME, read_pid, request
from symfind.daemon.config import Config
from symfind.daemon.errors import DaemonError, DaemonNotAnswering
from symfind.daemon.protocol import StatusReply, StatusRequest, StopRequest
from symfind.storage import DaemonStatus, pid_alive, spawn_daemon

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 60.0
_POLL_S = 0.05


def running_status(config: Config) -> DaemonStatus | None:
    """The status of the daemon serving `config.repo`, or None when none listens.

    Raises:
        DaemonNotAnswering: A daemon listens but did not answer in time.
        ProtocolError: It broke off the exchange.
    """
    reply = request(config.index_dir, StatusRequest())
    return reply.status if isinstance(reply, StatusReply) else None


def start_daemon(config: Config) -> DaemonStatus:
    """Start a detached daemon (or return the running one's status).

    Raises:
        DaemonError: It exited or did not answer within START_TIMEOUT_S.
    """
    status = running_status(config)
    if status is not None:
        return status
    config.index_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    log_path = config.index_dir / LOG_NAME
    # --force: `start` has checked it is a repository.
    lease = ["--lease", repr(config.lease_s)] if config.lease_s else []
    child = spawn_daemon("run", config.repo, log_path, verbose=True, options=["--force", *lease])
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            status = running_status(config)
        except DaemonNotAnswering:  # starting on a busy machine: give it its START_TIMEOUT_S
            status = None
        if status is not None:
            return status
        if child.poll() is not None:
            raise DaemonError(f"daemon exited with code {child.returncode}; see {log_path}")
        time.sleep(_POLL_S)
    raise DaemonError(f"daemon did not answer within {START_TIMEOUT_S:.0f}s; see {log_path}")


def stop_daemon(config: Config) -> int | None:
    """Ask the daemon to stop and wait until its process is gone; its pid, or None.

    Raises:
        DaemonError: It did not exit within STOP_TIMEOUT_S.
    """
    pid = read_pid(config.index_dir)
    if request(config.index_dir, StopRequest()) is None:
        return None
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while pid is not None and pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(_POLL_S)
    if pid is not None and pid_alive(pid):
        raise DaemonError(f"daemon (pid {pid}) did not stop within {STOP_TIMEOUT_S:.0f}s")
    return pid
