"""A busy daemon is busy, not absent: bursts of simultaneous requests, hundreds of idle
connections, a full backlog and a suspended daemon, on a real daemon process's socket;
and a hundred parallel tool calls to `symfind mcp` over stdio.

Agents send their tool calls in parallel. Before, a listen backlog of 5 turned away most
of a burst (10 simultaneous requests: 2 told "no daemon"; 50: 32) and a client read the
refusal (EAGAIN) as no daemon at all; a suspended daemon made `status` print a
traceback. Timeouts are shortened through `SYMFIND_DAEMON_TIMEOUT`, never asserted.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import msgspec
import psutil
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from symfind.daemon.client import request, socket_path
from symfind.daemon.listener import SocketListener
from symfind.daemon.protocol import (
    OkReply,
    Reply,
    SearchReply,
    SearchRequest,
    StatusReply,
    StatusRequest,
    receive_reply,
    send_request,
)
from symfind.storage import SearchQuery
from tests.integration.daemon_process import RunningDaemon, started_daemon, suspend
from tests.integration.test_cli import symfind
from tests.integration.test_daemon_registry import make_git_repo

DEADLINE_S = 120.0
PARALLEL = 100
IDLE_CONNECTIONS = 600
QUERY = SearchQuery(text="AsyncClinet", limit=3)


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[RunningDaemon]:
    with started_daemon(tmp_path) as running:
        yield running


def results_of(reply: Reply | None) -> list[dict[str, object]]:
    assert isinstance(reply, SearchReply), reply
    return msgspec.to_builtins(reply.response.results)


def ask_all_at_once(index_dir: Path, count: int) -> list[Reply | None]:
    """`count` requests from as many threads released together, searches and status
    requests alternating."""
    barrier = threading.Barrier(count)

    def ask(i: int) -> Reply | None:
        barrier.wait()
        message = SearchRequest(QUERY) if i % 2 else StatusRequest()
        return request(index_dir, message, timeout_s=DEADLINE_S)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(ask, range(count)))


def assert_all_answered(replies: list[Reply | None], daemon: RunningDaemon,
                        expected: list[dict[str, object]]) -> None:
    kinds = [type(reply).__name__ for reply in replies]
    assert kinds == ["StatusReply", "SearchReply"] * (len(replies) // 2)
    assert all(results_of(reply) == expected for reply in replies[1::2])
    assert {reply.status.pid for reply in replies[::2] if isinstance(reply, StatusReply)} == {
        daemon.pid}


def open_files_at_least(count: int) -> None:
    """Let this process hold `count` sockets (the daemon raises its own limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count:
        if hard != resource.RLIM_INFINITY and hard < count:
            pytest.skip(f"needs {count} open files, the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (count, hard))


def connect_idle(index_dir: Path) -> socket.socket:
    """A connection that sends nothing. Not blocking: a full backlog raises at once
    (BlockingIOError) instead of waiting, as the clients' connections do."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(DEADLINE_S)
    try:
        sock.connect(str(socket_path(index_dir)))
    except OSError:
        sock.close()
        raise
    return sock


def test_a_hundred_simultaneous_requests_are_all_answered(daemon: RunningDaemon) -> None:
    expected = results_of(request(daemon.index_dir, SearchRequest(QUERY)))
    assert [r["qualname"] for r in expected][:1] == ["AsyncClient"]
    assert_all_answered(ask_all_at_once(daemon.index_dir, PARALLEL), daemon, expected)


def test_hundreds_of_idle_connections_turn_no_request_away(daemon: RunningDaemon) -> None:
    open_files_at_least(IDLE_CONNECTIONS + PARALLEL + 64)
    expected = results_of(request(daemon.index_dir, SearchRequest(QUERY)))
    idle = []
    try:
        for _ in range(IDLE_CONNECTIONS):  # as fast as this thread can: none turned away
            idle.append(connect_idle(daemon.index_dir))
        reply = request(daemon.index_dir, StatusRequest(), timeout_s=DEADLINE_S)
        assert isinstance(reply, StatusReply) and reply.status.pid == daemon.pid, reply
        # And a burst while they are all still open.
        assert_all_answered(ask_all_at_once(daemon.index_dir, PARALLEL), daemon, expected)
    finally:
        for sock in idle:
            sock.close()


def test_an_idle_connection_is_closed_and_a_prompt_one_answered(tmp_path: Path) -> None:
    """The listener on its own, with a short idle timeout: a connection that never sends
    is closed by the daemon; one that sends at once is answered."""
    listener = SocketListener(tmp_path, lambda _message: OkReply("answered"),
                              lambda _conn, _message: OkReply(), idle_timeout_s=0.2)
    listener.start()
    try:
        with connect_idle(tmp_path) as idle, connect_idle(tmp_path) as prompt:
            send_request(prompt, StatusRequest())
            assert receive_reply(prompt) == OkReply("answered")
            assert idle.recv(1) == b""  # closed by the daemon (a timeout here would raise)
    finally:
        listener.close()


def test_a_suspended_daemon_is_reported_as_not_answering_never_absent(
    daemon: RunningDaemon,
) -> None:
    env = {**daemon.env, "SYMFIND_DAEMON_TIMEOUT": "1"}
    repo, pid = str(daemon.repo), daemon.pid
    suspend(pid)
    why = (f"the daemon (pid {pid}) is suspended (stopped by a signal) and did not answer "
           f"within 1s — `kill -CONT {pid}` resumes it, `symfind daemon stop` stops it")

    status = symfind("daemon", "status", repo, env=env)
    assert (status.returncode, status.stdout, status.stderr) == (7, f"not answering: {why}\n", "")
    as_json = symfind("daemon", "status", repo, "--json", env=env)
    assert as_json.returncode == 7, as_json.stderr
    assert {k: v for k, v in json.loads(as_json.stdout).items() if k != "symfind_version"} == {
        "repo": repo, "running": True, "answering": False, "pid": pid,
        "state": "not_answering", "message": why}

    overview = symfind("status", repo, env=env)
    assert (overview.returncode, overview.stderr) == (0, "")
    assert [line for line in overview.stdout.splitlines() if line.startswith("daemon ")] == [
        f"daemon        not answering: {why}"]
    overview_json = json.loads(symfind("status", repo, "--json", env=env).stdout)
    assert overview_json["daemon"] == {"pid": pid, "state": "not_answering", "message": why}

    # A search is answered from the index on disk, and says it was.
    found = symfind("search", "AsyncClinet", repo, "--limit", "1", env=env)
    assert found.returncode == 0, found.stderr
    assert found.stdout.split()[:3] == ["1", "class", "AsyncClient"]
    assert found.stderr == (f"WARNING symfind.cli.commands.search: {why}; searched the index "
                            "on disk instead (its last commit)\n")

    listed = json.loads(symfind("daemon", "list", "--json", env=env).stdout)["daemons"]
    assert [(d["pid"], d["state"]) for d in listed] == [(pid, "not_answering")]
    # `daemon start` does not start a second one beside it.
    again = symfind("daemon", "start", repo, env=env)
    assert (again.returncode, again.stdout, again.stderr) == (7, "", f"symfind: {why}\n")

    os.kill(pid, signal.SIGCONT)
    resumed = symfind("daemon", "status", repo, env=env)
    assert resumed.returncode == 0 and resumed.stdout.startswith(f"running, pid {pid}, "), resumed
    resumed_json = json.loads(symfind("daemon", "status", repo, "--json", env=env).stdout)
    assert (resumed_json["pid"], resumed_json["state"], resumed_json["running"],
            resumed_json["answering"]) == (pid, "idle", True, True)


def test_the_daemon_raises_its_open_files_limit(tmp_path: Path) -> None:
    """Started with a soft limit of 256 open files, the daemon runs with the hard limit:
    idle connections must not leave it without descriptors to index with."""
    repo = make_git_repo(tmp_path / "repo")
    env = {**os.environ, "SYMFIND_RUNTIME_DIR": str(tmp_path / "runtime")}
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.skip(f"the hard limit ({hard}) leaves nothing to raise")
    started = subprocess.run(
        [sys.executable, "-m", "symfind.cli", "daemon", "start", str(repo), "--json"],
        capture_output=True, text=True, env=env, timeout=DEADLINE_S, check=False,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)),
    )
    assert started.returncode == 0, started.stderr
    pid = json.loads(started.stdout)["pid"]
    try:
        assert psutil.Process(pid).rlimit(psutil.RLIMIT_NOFILE) == (hard, hard)
    finally:
        stopped = symfind("daemon", "stop", str(repo), env=env)
        assert stopped.returncode == 0, stopped.stderr


def somaxconn() -> int:
    try:
        return int(Path("/proc/sys/net/core/somaxconn").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pytest.skip("needs Linux's net.core.somaxconn")


def test_a_full_backlog_is_waited_on_until_the_daemon_takes_the_request(
    daemon: RunningDaemon,
) -> None:
    """A suspended daemon's backlog filled to the brim: a client is turned away (EAGAIN)
    and knocks again — told "not answering" when its timeout ends, answered once the
    daemon resumes within it."""
    backlog = min(socket.SOMAXCONN, somaxconn())
    open_files_at_least(backlog + 256)
    repo, pid = str(daemon.repo), daemon.pid
    suspend(pid)
    filler = []
    try:
        while True:
            assert len(filler) <= backlog + 1, "the backlog never filled"
            try:
                filler.append(connect_idle(daemon.index_dir))
            except BlockingIOError:
                break
        short = symfind("daemon", "status", repo, env={**daemon.env, "SYMFIND_DAEMON_TIMEOUT": "1"})
        assert (short.returncode, short.stdout) == (7, (
            f"not answering: the daemon (pid {pid}) is suspended (stopped by a signal) and took "
            f"no new connection within 1s — `kill -CONT {pid}` resumes it, `symfind daemon stop` "
            "stops it\n")), short.stderr

        waiting = subprocess.Popen(
            [sys.executable, "-m", "symfind.cli", "-vv", "daemon", "status", repo],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **daemon.env, "SYMFIND_DAEMON_TIMEOUT": str(DEADLINE_S)},
        )
        try:
            assert waiting.stderr is not None
            for line in waiting.stderr:  # until it has been turned away once
                if "is full: knocking again" in line:
                    break
            else:
                raise AssertionError("the client was never turned away")
            os.kill(pid, signal.SIGCONT)
            for sock in filler:
                sock.close()
            stdout, _ = waiting.communicate(timeout=DEADLINE_S)
        finally:
            if waiting.poll() is None:
                waiting.kill()
        assert waiting.returncode == 0
        assert stdout.startswith(f"running, pid {pid}, "), stdout
    finally:
        os.kill(pid, signal.SIGCONT)
        for sock in filler:
            sock.close()


@pytest.mark.anyio
async def test_a_hundred_parallel_mcp_tool_calls_are_all_answered(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "repo")
    env = {"SYMFIND_RUNTIME_DIR": str(tmp_path / "runtime"), "SYMFIND_DAEMON_LEASE": "1"}
    indexed = symfind("index", str(repo), env=env)
    assert indexed.returncode == 0, indexed.stderr
    params = StdioServerParameters(
        command=sys.executable, args=["-P", "-m", "symfind.cli", "mcp", "--repo", str(repo)],
        env={**os.environ, **env}, cwd=str(repo),
    )
    arguments = {"query": QUERY.text, "limit": QUERY.limit}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = await session.call_tool("codebase_search", arguments)
        assert not first.is_error, first.content
        expected = [result["handle"] for result in first.structured_content["results"]]
        assert expected, first.structured_content
        answers: list[list[str] | None] = [None] * PARALLEL

        async def call(i: int) -> None:
            found = await session.call_tool("codebase_search", arguments)
            assert not found.is_error, found.content
            answers[i] = [result["handle"] for result in found.structured_content["results"]]

        with anyio.fail_after(DEADLINE_S):
            async with anyio.create_task_group() as group:
                for i in range(PARALLEL):
                    group.start_soon(call, i)
    assert answers == [expected] * PARALLEL
