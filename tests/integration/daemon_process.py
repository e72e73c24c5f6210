"""Waiting on a daemon that runs in another process (its socket is the only way in)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from symfind.daemon.client import request
from symfind.daemon.protocol import DaemonStatus, StatusReply, StatusRequest

TIMEOUT_S = 60.0
_POLL_S = 0.02


def wait_for_status(
    index_dir: Path,
    process: subprocess.Popen[bytes],
    predicate: Callable[[DaemonStatus], bool],
    timeout_s: float = TIMEOUT_S,
) -> DaemonStatus:
    """Poll the daemon's status until `predicate` holds; fail if it dies or times out."""
    deadline = time.monotonic() + timeout_s
    last: DaemonStatus | None = None
    while time.monotonic() < deadline:
        assert process.poll() is None, f"daemon exited with {process.returncode}"
        reply = request(index_dir, StatusRequest(), timeout_s=5)
        if isinstance(reply, StatusReply):
            last = reply.status
            if predicate(last):
                return last
        time.sleep(_POLL_S)  # another process: nothing to wait on but its socket
    raise AssertionError(f"daemon status never matched; last: {last}")


def idle(status: DaemonStatus) -> bool:
    return status.state == "idle" and status.pending == 0
