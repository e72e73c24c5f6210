"""Daemons that clean up after themselves and can be found: the lease of a daemon started
for an MCP server, the per-user registry behind `symfind daemon list`, the process title.

Real processes throughout: an MCP session over stdio with the SDK's client, daemons
started by `symfind daemon start`, each test with its own runtime (registry) directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import psutil
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from symfind.storage import index_dir_for
from tests.integration.test_cli import FIXTURE_REPO, symfind

DEADLINE_S = 90.0


def make_git_repo(path: Path) -> Path:
    shutil.copytree(FIXTURE_REPO, path)
    (path / ".git").mkdir()
    return path.resolve()


def wait_until(predicate: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)  # other processes: nothing to wait on but what they leave behind


def listed(env: dict[str, str]) -> list[dict[str, object]]:
    result = symfind("daemon", "list", "--json", env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["daemons"]


@pytest.fixture
def runtime(tmp_path: Path) -> dict[str, str]:
    """A registry of this test's own (the real one is shared by every daemon of the user)."""
    return {"SYMFIND_RUNTIME_DIR": str(tmp_path / "runtime")}


def test_daemon_list_finds_daemons_whatever_their_index_dir(
    tmp_path: Path, runtime: dict[str, str]
) -> None:
    one, two = make_git_repo(tmp_path / "one"), make_git_repo(tmp_path / "two")
    env_one = {**runtime, "SYMFIND_INDEX_DIR": str(tmp_path / "indexes-one")}
    env_two = {**runtime, "SYMFIND_INDEX_DIR": str(tmp_path / "indexes-two")}
    elsewhere = {**runtime, "SYMFIND_INDEX_DIR": str(tmp_path / "indexes-elsewhere")}
    started = []
    try:
        for repo, env in ((one, env_one), (two, env_two)):
            result = symfind("daemon", "start", str(repo), "--json", env=env)
            assert result.returncode == 0, result.stderr
            started.append(json.loads(result.stdout)["pid"])
        daemons = listed(elsewhere)
        assert [(d["repo"], d["pid"], d["started_by"], d["lease_s"]) for d in daemons] == [
            (str(one), started[0], "hand", None), (str(two), started[1], "hand", None),
        ]
        assert [d["index_dir"] for d in daemons] == [
            str(tmp_path / "indexes-one" / index_dir_for(one).name),
            str(tmp_path / "indexes-two" / index_dir_for(two).name),
        ]
        assert all(d["state"] in ("idle", "catching_up", "indexing") for d in daemons)
        assert all(isinstance(d["rss_bytes"], int) and d["rss_bytes"] > 0 for d in daemons)
        # The process title says what it is, for ps and top.
        for pid, repo in zip(started, (one, two), strict=True):
            ps = subprocess.run(["ps", "-ww", "-o", "args=", "-p", str(pid)], capture_output=True,
                                text=True, check=True)
            assert ps.stdout.strip() == f"symfind daemon {repo}"
        table = symfind("daemon", "list", env=elsewhere).stdout.splitlines()
        assert table[0].split() == ["PID", "BY", "LEASE", "STATE", "RSS", "REPOSITORY"]
        assert [(row.split()[:2], row.split()[-1]) for row in table[1:]] == [
            ([str(started[0]), "hand"], str(one)), ([str(started[1]), "hand"], str(two)),
        ]
        # `daemon stop` with yet another SYMFIND_INDEX_DIR finds each through the registry.
        for pid, repo in zip(started, (one, two), strict=True):
            stopped = symfind("daemon", "stop", str(repo), "--json", env=elsewhere)
            assert json.loads(stopped.stdout)["pid"] == pid, stopped.stderr
        assert listed(elsewhere) == []
    finally:
        for pid in started:
            if psutil.pid_exists(pid):
                psutil.Process(pid).kill()


def test_a_daemon_killed_outright_leaves_no_entry(tmp_path: Path, runtime: dict[str, str]) -> None:
    repo = make_git_repo(tmp_path / "repo")
    env = {**runtime, "SYMFIND_INDEX_DIR": str(tmp_path / "indexes")}
    result = symfind("daemon", "start", str(repo), "--json", env=env)
    pid = json.loads(result.stdout)["pid"]
    process = psutil.Process(pid)
    process.kill()
    process.wait(timeout=DEADLINE_S)
    assert listed(env) == []
    assert list((tmp_path / "runtime" / "daemons").iterdir()) == []


@pytest.mark.anyio
async def test_the_daemon_an_mcp_session_started_exits_after_its_lease(
    tmp_path: Path, runtime: dict[str, str]
) -> None:
    repo = make_git_repo(tmp_path / "repo")
    env = {**runtime, "SYMFIND_INDEX_DIR": str(tmp_path / "indexes"), "SYMFIND_DAEMON_LEASE": "1"}
    params = StdioServerParameters(
        command=sys.executable, args=["-P", "-m", "symfind.cli", "mcp", "--repo", str(repo)],
        env={**os.environ, **env}, cwd=str(repo),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        deadline = time.monotonic() + DEADLINE_S
        found = await session.call_tool("codebase_search", {"query": "AsyncClinet", "limit": 1})
        # The daemon it started is building the index: an error, then partial answers.
        while found.is_error or not found.structured_content["results"]:
            assert time.monotonic() < deadline, found.content
            await anyio.sleep(0.1)
            found = await session.call_tool("codebase_search", {"query": "AsyncClinet", "limit": 1})
        assert found.structured_content["results"][0]["qualname"] == "AsyncClient"
        (daemon,) = listed(env)
        assert (daemon["repo"], daemon["started_by"], daemon["lease_s"]) == (str(repo), "mcp", 1.0)
        # The server holds the lease while the session lasts.
        clients = Path(daemon["index_dir"]) / "clients"
        assert [int(p.name) for p in clients.iterdir()] == [
            child.pid for child in psutil.Process().children() if "symfind.cli mcp" in
            " ".join(child.cmdline())
        ]
        assert psutil.pid_exists(daemon["pid"])
    # The session is over: the daemon commits and exits by itself.
    wait_until(lambda: not psutil.pid_exists(daemon["pid"]), "the daemon to exit")
    assert listed(env) == []
    log = (Path(daemon["index_dir"]) / "daemon.log").read_text(encoding="utf-8")
    assert "no MCP server has used this daemon for 1s (its lease): stopping" in log
    assert "daemon stopped" in log
    after = symfind("search", "AsyncClinet", str(repo), "--limit", "1", env=env)
    assert after.stdout.split()[:4] == ["1", "class", "AsyncClient", "httpkit/client.py:24"]


def test_a_daemon_started_by_hand_has_no_lease(tmp_path: Path, runtime: dict[str, str]) -> None:
    repo = make_git_repo(tmp_path / "repo")
    env = {**runtime, "SYMFIND_INDEX_DIR": str(tmp_path / "indexes"), "SYMFIND_DAEMON_LEASE": "1"}
    started = symfind("daemon", "start", str(repo), "--json", env=env)
    pid = json.loads(started.stdout)["pid"]
    try:
        (daemon,) = listed(env)
        assert (daemon["pid"], daemon["started_by"], daemon["lease_s"]) == (pid, "hand", None)
    finally:
        symfind("daemon", "stop", str(repo), env=env)
