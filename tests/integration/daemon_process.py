"""Waiting on a daemon that runs in another process (its socket is the only way in), and
one started the way users start it (`symfind daemon start`), suspended at will."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil

from symfind.daemon.client import request
from symfind.daemon.protocol import (
    DaemonStatus,
    SearchReply,
    SearchRequest,
    StatusReply,
    StatusRequest,
)
from symfind.storage import SearchQuery, index_dir_for, live_daemon_status
from tests.integration.test_cli import symfind
from tests.integration.test_daemon_registry import make_git_repo

TIMEOUT_S = 60.0
_POLL_S = 0.02


def wait_for_status(
    index_dir: Path,
    process: subprocess.Popen[bytes] | None,
    predicate: Callable[[DaemonStatus], bool],
    timeout_s: float = TIMEOUT_S,
) -> DaemonStatus:
    """Poll the daemon's status until `predicate` holds; fail if it dies (when it is our
    child `process`) or times out."""
    deadline = time.monotonic() + timeout_s
    last: DaemonStatus | None = None
    while time.monotonic() < deadline:
        assert process is None or process.poll() is None, f"daemon exited with {process.returncode}"
        reply = request(index_dir, StatusRequest(), timeout_s=5)
        if isinstance(reply, StatusReply):
            last = reply.status
            if predicate(last):
                return last
        time.sleep(_POLL_S)  # another process: nothing to wait on but its socket
    raise AssertionError(f"daemon status never matched; last: {last}")


def idle(status: DaemonStatus) -> bool:
    return status.state == "idle" and status.pending == 0


@dataclass
class RunningDaemon:
    repo: Path
    index_dir: Path
    pid: int
    #: The environment of every command about it: its own registry.
    env: dict[str, str]


@contextmanager
def started_daemon(tmp_path: Path) -> Iterator[RunningDaemon]:
    """A daemon process started by `symfind daemon start` on a copy of the fixture
    repository, with a registry of its own, idle once entered; stopped (killed if need
    be) on the way out."""
    repo = make_git_repo(tmp_path / "repo")
    env = {"SYMFIND_RUNTIME_DIR": str(tmp_path / "runtime")}
    started = symfind("daemon", "start", str(repo), "--json", env=env)
    assert started.returncode == 0, started.stderr
    pid = json.loads(started.stdout)["pid"]
    try:
        wait_idle(index_dir_for(repo))
        # Its index open for searching: the daemon opens it in the background once idle
        # (daemon/warm_up.py), and Tantivy holds `.tantivy-meta.lock` while it does; a
        # test that suspended the daemon then would leave every other reader waiting on
        # the lock. A search answered is one made on the open index.
        searched = request(index_dir_for(repo), SearchRequest(SearchQuery(text="Client")),
                           timeout_s=TIMEOUT_S)
        assert isinstance(searched, SearchReply), searched
        yield RunningDaemon(repo, index_dir_for(repo), pid, env)
    finally:
        if psutil.pid_exists(pid):
            os.kill(pid, signal.SIGCONT)  # a test that failed while it was suspended
            symfind("daemon", "stop", str(repo), env=env)
        if psutil.pid_exists(pid):
            psutil.Process(pid).kill()


def wait_idle(index_dir: Path) -> None:
    """Until the daemon has indexed the repository (another process: we can only ask),
    and its status file, which readers consult when it does not answer and which a
    thread of its own rewrites, says so too."""
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        reply = request(index_dir, StatusRequest(), timeout_s=TIMEOUT_S)
        written = live_daemon_status(index_dir)
        if (isinstance(reply, StatusReply) and reply.status.state == "idle" and reply.status.files
                and written is not None and written.state == "idle" and not written.pending):
            return
        assert time.monotonic() < deadline, f"the daemon never got idle: {reply}"
        time.sleep(_POLL_S)


def suspend(pid: int) -> None:
    """SIGSTOP, and wait until the process is stopped (a moment: there is nothing else to
    wait on than its state)."""
    os.kill(pid, signal.SIGSTOP)
    process = psutil.Process(pid)
    deadline = time.monotonic() + TIMEOUT_S
    while process.status() != psutil.STATUS_STOPPED:
        assert time.monotonic() < deadline, "SIGSTOP never took effect"


def gone(pid: int) -> bool:
    """Whether the process has ended (a zombie not yet reaped has)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def wait_gone(pid: int) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not gone(pid):
        assert time.monotonic() < deadline, f"process {pid} never ended"
        time.sleep(_POLL_S)
