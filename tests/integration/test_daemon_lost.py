"""Never losing track of a daemon: its socket replaced by a file, a directory or a dangling
symlink, its index directory removed, its repository deleted, the daemon suspended or hung.

Before, each of these made `daemon status` say "not running", `daemon stop` say "no daemon
was running" and `daemon start` fail with code 4, while the daemon ran on until someone
found its pid; with the repository deleted, `daemon stop` refused ("repository does not
exist"). The registry knows the pid: `daemon status` says the daemon runs but cannot be
reached (exit 7), `daemon start` starts no second one, and `daemon stop` always stops it.
Real daemon processes throughout, each with its own registry.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from symfind.daemon.client import request, socket_path
from symfind.daemon.protocol import OkReply, StopRequest
from symfind.storage import index_dir_for
from tests.integration.daemon_process import (
    TIMEOUT_S,
    RunningDaemon,
    gone,
    started_daemon,
    suspend,
    wait_for_status,
    wait_gone,
)
from tests.integration.test_cli import ROOT, symfind
from tests.integration.test_daemon_registry import make_git_repo


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[RunningDaemon]:
    with started_daemon(tmp_path) as running:
        yield running


def without_version(output: str) -> dict[str, object]:
    fields = json.loads(output)
    del fields["symfind_version"]
    return fields


def listed(daemon: RunningDaemon) -> list[tuple[int, str]]:
    result = symfind("daemon", "list", "--json", env=daemon.env)
    assert result.returncode == 0, result.stderr
    return [(d["pid"], d["state"]) for d in json.loads(result.stdout)["daemons"]]


def remove_tree(path: Path) -> None:
    """`rm -rf`, again until nothing is left: the daemon may be writing a file in it."""
    deadline = time.monotonic() + TIMEOUT_S
    while path.exists():
        assert time.monotonic() < deadline, f"{path} could not be removed"
        shutil.rmtree(path, ignore_errors=True)


def replace(path: Path, what: str) -> str:
    """Put `what` where the socket was; how `daemon status` names it."""
    path.unlink()
    if what == "file":
        path.write_text("not a socket\n", encoding="utf-8")
        return "is a regular file"
    if what == "directory":
        path.mkdir()
        (path / "kept").write_text("someone's\n", encoding="utf-8")
        return "is a directory"
    path.symlink_to(path.parent / "nowhere")
    return "is a symbolic link to nothing"


@pytest.mark.parametrize("what", ["file", "directory", "dangling symlink"])
def test_a_daemon_whose_socket_was_replaced_is_reported_and_stopped(
    daemon: RunningDaemon, what: str
) -> None:
    repo, pid, env = str(daemon.repo), daemon.pid, daemon.env
    sock = socket_path(daemon.index_dir)
    named = replace(sock, what)
    trouble = f"its socket {sock} {named}"
    why = (f"the daemon of {repo} (pid {pid}) runs but cannot be reached: {trouble} — "
           f"`symfind daemon stop {repo}` stops it")

    status = symfind("daemon", "status", repo, env=env)
    assert (status.returncode, status.stdout, status.stderr) == (7, f"not answering: {why}\n", "")
    as_json = symfind("daemon", "status", repo, "--json", env=env)
    assert (as_json.returncode, without_version(as_json.stdout)) == (7, {
        "repo": repo, "running": True, "answering": False, "pid": pid,
        "state": "not_answering", "message": why})
    second = symfind("daemon", "start", repo, env=env)
    assert (second.returncode, second.stdout, second.stderr) == (7, "", f"symfind: {why}\n")
    assert listed(daemon) == [(pid, "not_answering")]

    stopped = symfind("daemon", "stop", repo, "--json", env=env)
    assert (stopped.returncode, without_version(stopped.stdout)) == (0, {
        "repo": repo, "stopped": True, "pid": pid, "how": "signalled", "why": trouble})
    assert gone(pid)
    assert "daemon stopped" in (daemon.index_dir / "daemon.log").read_text(encoding="utf-8")
    assert listed(daemon) == []
    # What took the socket's place is left as it was.
    assert (sock.is_symlink(), sock.is_dir(), sock.is_file()) == (
        what == "dangling symlink", what == "directory", what == "file")

    # A new daemon takes the place back -- but not a directory that holds something.
    again = symfind("daemon", "start", repo, env=env)
    if what == "directory":
        log = daemon.index_dir / "daemon.log"
        assert (again.returncode, again.stderr) == (2, (
            f"symfind: daemon exited with code 2: cannot listen at {sock}: Directory not "
            f"empty — remove what is there; see {log}\n"))
        assert (sock / "kept").read_text(encoding="utf-8") == "someone's\n"
        return
    assert again.returncode == 0, again.stderr
    assert symfind("daemon", "status", repo, env=env).returncode == 0
    assert symfind("daemon", "stop", repo, env=env).returncode == 0


def test_a_daemon_whose_index_directory_was_removed_stops_by_itself(
    daemon: RunningDaemon,
) -> None:
    remove_tree(daemon.index_dir)
    wait_gone(daemon.pid)
    status = symfind("daemon", "status", str(daemon.repo), env=daemon.env)
    assert (status.returncode, status.stdout, status.stderr) == (5, "not running\n", "")
    as_json = symfind("daemon", "status", str(daemon.repo), "--json", env=daemon.env)
    assert (as_json.returncode, without_version(as_json.stdout)) == (5, {
        "repo": str(daemon.repo), "running": False, "answering": False})
    assert listed(daemon) == []
    assert not daemon.index_dir.exists()  # not brought back by the daemon on its way out


def test_a_suspended_daemon_whose_index_directory_was_removed_is_reported_and_stopped(
    daemon: RunningDaemon,
) -> None:
    repo, pid, env = str(daemon.repo), daemon.pid, daemon.env
    suspend(pid)  # it cannot notice and stop by itself
    shutil.rmtree(daemon.index_dir)
    trouble = f"its index directory {daemon.index_dir} is gone"
    status = symfind("daemon", "status", repo, env=env)
    assert (status.returncode, status.stdout) == (7, (
        f"not answering: the daemon of {repo} (pid {pid}) runs but cannot be reached: "
        f"{trouble} — `symfind daemon stop {repo}` stops it\n")), status.stderr
    stopped = symfind("daemon", "stop", repo, env=env)
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (
        0, f"daemon (pid {pid}) stopped by SIGTERM: {trouble}\n", "")
    assert gone(pid)
    assert listed(daemon) == []


def test_a_suspended_daemon_is_stopped(daemon: RunningDaemon) -> None:
    repo, pid = str(daemon.repo), daemon.pid
    suspend(pid)
    stopped = symfind("daemon", "stop", repo, env={**daemon.env, "SYMFIND_DAEMON_TIMEOUT": "1"})
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (0, (
        f"daemon (pid {pid}) stopped by SIGTERM: the daemon (pid {pid}) is suspended (stopped "
        "by a signal) and did not answer within 1s\n"), "")
    assert gone(pid)
    # SIGCONT after SIGTERM: it resumed, finished and left as when asked.
    assert (daemon.index_dir / "daemon.log").read_text(encoding="utf-8").endswith(
        "INFO symfind.daemon.service: daemon stopped\n")
    assert listed(daemon) == []


def test_the_daemon_of_a_deleted_repository_is_found_and_stopped_from_inside_it(
    daemon: RunningDaemon,
) -> None:
    """`rm -rf` of the repository from a shell inside it, then `daemon status` by its
    path and a bare `daemon stop` there, as the daemon's own message says to."""
    repo, pid = daemon.repo, daemon.pid
    shutil.rmtree(repo)
    status = wait_for_status(daemon.index_dir, None, lambda s: s.state == "error")
    gone_line = (f"the repository {repo} was deleted or moved away; the daemon waits for it "
                 "to come back (or stop it: `symfind daemon stop`)")
    assert gone_line in status.last_error
    by_path = symfind("daemon", "status", str(repo), env=daemon.env)
    assert by_path.returncode == 0 and by_path.stdout.startswith(
        f"running, pid {pid}, error, "), by_path

    make_git_repo(repo)  # a shell inside it: cd there, then the repository is deleted
    command = [sys.executable, "-P", "-m", "symfind.cli", "daemon", "stop"]
    stopped = subprocess.run(
        ["sh", "-c", 'cd "$1/httpkit" && rm -rf "$1" && shift && exec "$@"', "sh", str(repo),
         *command],
        capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
        env={**os.environ, **daemon.env, "PYTHONPATH": str(ROOT)},
    )
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (
        0, f"daemon (pid {pid}) stopped\n", "")
    assert gone(pid)
    assert listed(daemon) == []


class LoggingToAPipe:
    """`daemon run -v REPO` in the foreground, its log going to a pipe this test reads --
    or fills, to hang the daemon on its next log line (`daemon run -v | less`, paused)."""

    def __init__(self, repo: Path, env: dict[str, str]) -> None:
        self.read_end, self.write_end = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "symfind.cli", "-v", "daemon", "run", str(repo)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.write_end,
            env=env,
        )
        self.drain = threading.Thread(target=self._drain, daemon=True)

    def read_until(self, text: bytes) -> None:
        """Read its log until `text` (written last: the pipe is empty then)."""
        seen = b""
        while text not in seen:
            chunk = os.read(self.read_end, 2**16)
            assert chunk, f"the daemon's log ended before {text!r}: {seen[-2000:]!r}"
            seen += chunk

    def fill(self) -> None:
        """Fill the pipe to the brim: the daemon's next log line blocks. Written through
        a description of the pipe of our own, not blocking, so that the daemon's stays
        blocking."""
        mine = os.open(f"/proc/self/fd/{self.write_end}", os.O_WRONLY | os.O_NONBLOCK)
        try:
            while True:
                os.write(mine, b"x" * 4096)
        except BlockingIOError:
            pass
        finally:
            os.close(mine)

    def release(self) -> None:
        """Read the pipe from now on: the daemon goes on."""
        self.drain.start()

    def _drain(self) -> None:
        while os.read(self.read_end, 2**16):
            pass

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=TIMEOUT_S)
        os.close(self.write_end)  # the daemon's is closed: a drain reads to the end
        if self.drain.ident is not None:
            self.drain.join(TIMEOUT_S)
        os.close(self.read_end)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reopens a pipe via /proc")
def test_a_hung_daemon_is_killed_after_the_stop_timeout(tmp_path: Path) -> None:
    """A daemon whose log pipe is full hangs on its next log line: asked to stop, it never
    exits. `daemon stop` kills it once SYMFIND_STOP_TIMEOUT has passed, and says so."""
    repo = make_git_repo(tmp_path / "repo")
    runtime = {"SYMFIND_RUNTIME_DIR": str(tmp_path / "runtime")}
    daemon = LoggingToAPipe(repo, {**os.environ, **runtime, "PYTHONPATH": str(ROOT)})
    try:
        daemon.read_until(b"INFO symfind.daemon.service: daemon ready for ")
        daemon.fill()
        stopped = symfind("daemon", "stop", str(repo), env={**runtime, "SYMFIND_STOP_TIMEOUT": "2"})
        assert (stopped.returncode, stopped.stdout, stopped.stderr) == (0, (
            f"daemon (pid {daemon.process.pid}) killed (SIGKILL): it did not stop within 2s of "
            "being asked; the next daemon re-checks the changes it had not committed\n"), "")
        assert daemon.process.wait(timeout=TIMEOUT_S) == -9
        assert symfind("daemon", "list", "--json", env=runtime).stdout.startswith('{"daemons":[]')
    finally:
        daemon.close()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reopens a pipe via /proc")
def test_daemon_start_waits_for_a_daemon_that_is_stopping(tmp_path: Path) -> None:
    """`daemon start` while the daemon is stopping (its socket closed, its last commit
    under way: also a lease ending as an MCP server starts) waits for it to exit, then
    starts a new one. The old one is held there by a full log pipe: its line saying the
    socket is closed blocks."""
    repo = make_git_repo(tmp_path / "repo")
    env = {**os.environ, "SYMFIND_RUNTIME_DIR": str(tmp_path / "runtime"),
           "PYTHONPATH": str(ROOT)}
    old = LoggingToAPipe(repo, env)
    starting = None
    try:
        old.read_until(b"INFO symfind.daemon.service: daemon ready for ")
        old.fill()
        assert isinstance(request(index_dir_for(repo), StopRequest()), OkReply)
        wait_removed(socket_path(index_dir_for(repo)))  # then it blocks, before its commit
        status = symfind("daemon", "status", str(repo), env=env)
        assert (status.returncode, status.stdout) == (7, (
            f"not answering: the daemon of {repo} (pid {old.process.pid}) runs but cannot be "
            "reached: it is stopping (its socket closed, its last commit under way) — "
            f"`symfind daemon stop {repo}` stops it\n"))
        starting = subprocess.Popen(
            [sys.executable, "-m", "symfind.cli", "-v", "daemon", "start", str(repo)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        assert starting.stderr is not None
        assert starting.stderr.readline() == (
            f"INFO symfind.daemon.process: the daemon (pid {old.process.pid}) is stopping: "
            "waiting for it to exit\n")
        old.release()  # it logs its last lines and exits
        stdout, stderr = starting.communicate(timeout=TIMEOUT_S)
        assert old.process.wait(timeout=TIMEOUT_S) == 0
        assert starting.returncode == 0, stderr
        new = json.loads(symfind("daemon", "status", str(repo), "--json", env=env).stdout)
        assert new["pid"] != old.process.pid
        assert stdout.startswith(f"daemon running for {repo} (pid {new['pid']}, "), stdout
        assert symfind("daemon", "stop", str(repo), env=env).returncode == 0
    finally:
        if starting is not None and starting.poll() is None:
            starting.kill()
            starting.communicate(timeout=TIMEOUT_S)
        old.close()


def wait_removed(path: Path) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while path.exists():
        assert time.monotonic() < deadline, f"{path} is still there"
        time.sleep(0.02)
