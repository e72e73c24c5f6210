"""The server as MCP hosts run it: a subprocess speaking JSON-RPC on stdin/stdout."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from symfind.mcp_server.server import TOOL_THREADS, build_server
from tests.integration.mcp_support import index_env, index_repo, kept_private, make_repo

pytestmark = pytest.mark.anyio

TOOL_NAMES = ["codebase_search", "help", "read_symbol", "find_references", "index_status"]
TIMEOUT_S = 30


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    repo = make_repo(tmp_path_factory.mktemp("mcp-stdio") / "proj")
    base = tmp_path_factory.mktemp("mcp-stdio-index")
    index_repo(repo, base)
    return repo, base


def server_params(repo: Path, base: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-P", "-m", "symfind.cli", "mcp", "--repo", str(repo)],
        env={"SYMFIND_INDEX_DIR": str(base), **kept_private()},
        cwd=str(repo),
    )


async def test_stdio_session_lists_tools_finds_a_typo_and_reads_by_handle(indexed: tuple[Path, Path]) -> None:
    repo, base = indexed
    async with (
        stdio_client(server_params(repo, base)) as (read, write),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        assert init.server_info.name == "symfind"
        assert [t.name for t in (await session.list_tools()).tools] == TOOL_NAMES
        found = await session.call_tool("codebase_search", {"query": "AsyncClinet", "limit": 3})
        assert not found.is_error
        first = found.structured_content["results"][0]
        assert (first["qualname"], first["path"], first["line"]) == ("AsyncClient", "httpkit/client.py", 24)
        assert first["why"]["channels"]["fuzzy"]["distance"] == 1
        read_back = await session.call_tool("read_symbol", {"handle": first["handle"]})
        lines = (repo / "httpkit" / "client.py").read_text(encoding="utf-8").splitlines()
        assert read_back.structured_content["source"] == "\n".join(lines[23:32])



async def test_arguments_a_tool_does_not_take_are_refused_and_the_server_goes_on(
    indexed: tuple[Path, Path],
) -> None:
    """A misspelt argument was ignored: `limt` answered with the default limit, as if read."""
    repo, base = indexed
    async with (
        stdio_client(server_params(repo, base)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        refused = [await session.call_tool(tool, arguments) for tool, arguments in (
            ("find_references", {"target": "AsyncClient", "limt": 1}),
            ("codebase_search", {"query": "AsyncClient", "limit": 1, "repo": "x", "kind ": "y"}),
        )]
        assert [(r.is_error, [c.text for c in r.content]) for r in refused] == [
            (True, ["Error executing tool find_references: bad arguments: find_references takes "
                    "no `limt` (it takes target, handle, limit, cursor) (tools/list has each "
                    "argument's schema; call help for how to search)"]),
            (True, ["Error executing tool codebase_search: bad arguments: codebase_search takes "
                    "no `repo`, `kind ` (it takes query, limit, kind, language, path) (tools/list "
                    "has each argument's schema; call help for how to search)"]),
        ]
        answered = await session.call_tool("find_references", {"target": "AsyncClient",
                                                               "limit": 1})
        assert not answered.is_error
        assert answered.structured_content["target"]["qualname"] == "AsyncClient"

async def test_stdio_modern_era(indexed: tuple[Path, Path]) -> None:
    repo, base = indexed
    async with Client(server_params(repo, base)) as client:
        assert [t.name for t in (await client.list_tools()).tools] == TOOL_NAMES
        found = await client.call_tool("codebase_search", {"query": "parse_header_lnks"})
        assert found.structured_content["results"][0]["qualname"] == "parse_header_links"


@contextmanager
def raw_server(repo: Path, base: Path, *options: str) -> Iterator[subprocess.Popen[str]]:
    """`symfind mcp` (python -m symfind.cli mcp, serving in that process), spoken to
    line by line on its pipes, in an environment as small as a host's; killed if the
    test fails before it exits."""
    with subprocess.Popen(
        [sys.executable, "-P", "-m", "symfind.cli", "mcp", "--repo", str(repo), *options],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={"SYMFIND_INDEX_DIR": str(base), "PATH": "/usr/bin:/bin", **kept_private()},
        text=True,
    ) as process:
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()


def rpc(message_id: int | None, method: str, params: dict[str, Any]) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if message_id is not None:
        message["id"] = message_id
    return json.dumps(message) + "\n"


def test_stdout_carries_only_json_rpc_and_eof_exits_zero(indexed: tuple[Path, Path]) -> None:
    """Through `symfind mcp` (python -m symfind.cli mcp)."""
    repo, base = indexed
    replies = []
    with raw_server(repo, base) as process:
        assert process.stdin and process.stdout and process.stderr

        def send(line: str, expect_reply: bool = True) -> None:
            assert process.stdin and process.stdout
            process.stdin.write(line)
            process.stdin.flush()
            if expect_reply:
                replies.append(json.loads(process.stdout.readline()))

        send(rpc(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "raw", "version": "0"}}))
        send(rpc(None, "notifications/initialized", {}), expect_reply=False)
        send(rpc(2, "tools/list", {}))
        send(rpc(3, "tools/call", {"name": "codebase_search", "arguments": {"query": "HtppClient"}}))
        send(rpc(4, "tools/call", {"name": "codebase_search", "arguments": {"query": "x", "limit": 0}}))
        send(rpc(5, "tools/call", {"name": "no_such_tool", "arguments": {}}))
        send(rpc(6, "no/such/method", {}))
        process.stdin.close()
        rest = process.stdout.read()
        code = process.wait(timeout=TIMEOUT_S)
        stderr = process.stderr.read()
    assert code == 0, stderr
    assert rest == ""
    assert [r["id"] for r in replies] == [1, 2, 3, 4, 5, 6]
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    assert replies[0]["result"]["serverInfo"]["name"] == "symfind"
    assert [t["name"] for t in replies[1]["result"]["tools"]] == TOOL_NAMES
    assert replies[2]["result"]["structuredContent"]["results"][0]["qualname"] == "HttpClient"
    assert replies[3]["result"]["isError"] is True
    assert replies[4]["error"]["code"] == -32602
    assert replies[5]["error"]["code"] == -32601
    assert "Traceback" not in stderr


def _same_but_times(reply: dict[str, Any]) -> str:
    text = json.dumps(reply, sort_keys=True)
    return re.sub(r'"took_ms": [\d.]+|; [\d.]+ ms', "…", text)


def test_every_request_read_before_stdin_ends_is_answered(tmp_path: Path) -> None:
    """`printf '<initialize>\\n<initialized>\\n<tools/call>\\n' | symfind mcp`, as a pipe
    or a one-shot host does it: stdin ends right after the calls, and each is answered
    before the server exits 0 — the same answers as when stdin stays open. (`--no-index`
    in both runs, on a repository of this test's own: no other test's server can have a
    daemon starting for it, which would make the answers' freshness a race.)"""
    repo = make_repo(tmp_path / "proj")
    base = tmp_path / "index"
    base.mkdir()
    index_repo(repo, base)
    requests = [
        rpc(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "raw", "version": "0"}}),
        rpc(None, "notifications/initialized", {}),
        rpc(2, "tools/call", {"name": "codebase_search", "arguments": {"query": "HtppClient"}}),
        rpc(3, "tools/call", {"name": "index_status", "arguments": {}}),
    ]
    interactive = []
    with raw_server(repo, base, "--no-index") as process:
        assert process.stdin and process.stdout
        for line in requests:
            process.stdin.write(line)
            process.stdin.flush()
            if '"id"' in line:
                interactive.append(json.loads(process.stdout.readline()))
        process.stdin.close()
        assert process.wait(timeout=TIMEOUT_S) == 0
    piped = subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", "mcp", "--repo", str(repo), "--no-index"],
        input="".join(requests), capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
        env={"SYMFIND_INDEX_DIR": str(base), "PATH": "/usr/bin:/bin", **kept_private()})
    assert (piped.returncode, "Traceback" in piped.stderr) == (0, False), piped.stderr
    replies = sorted((json.loads(line) for line in piped.stdout.splitlines()),
                     key=lambda reply: reply["id"])
    assert [reply["id"] for reply in replies] == [1, 2, 3]
    assert replies[1]["result"]["structuredContent"]["results"][0]["qualname"] == "HttpClient"
    assert [_same_but_times(r) for r in replies] == [_same_but_times(r) for r in interactive]


def test_bad_repository_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", "mcp", "--repo", str(tmp_path / "missing")],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"symfind: repository '{tmp_path / 'missing'}' does not exist\n")



async def test_tool_calls_run_on_a_few_worker_threads(indexed: tuple[Path, Path]) -> None:
    """The server caps the event loop's worker threads, which run the tool calls, at
    TOOL_THREADS (the SDK's default, 40, added no calls per second and made the memory
    creep): checked in the loop serving the calls, once the server has started."""
    repo, base = indexed
    assert TOOL_THREADS < 40
    with index_env(base):
        async with Client(build_server(repo, auto_index=False)) as client:
            found = await client.call_tool("codebase_search", {"query": "AsyncClinet"})
            assert found.structured_content["results"][0]["qualname"] == "AsyncClient"
            assert anyio.to_thread.current_default_thread_limiter().total_tokens == TOOL_THREADS


def test_many_calls_at_once_over_stdio_are_all_answered(indexed: tuple[Path, Path]) -> None:
    """Sixty calls written at once are all answered, in full: the few worker threads are
    shared with the stdio transport, which reads stdin on one of them."""
    repo, base = indexed
    calls = 60
    with raw_server(repo, base) as process:
        assert process.stdin and process.stdout and process.stderr
        process.stdin.write(rpc(0, "initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}))
        process.stdin.write(rpc(None, "notifications/initialized", {}))
        process.stdin.write("".join(
            rpc(n, "tools/call", {"name": "codebase_search",
                                  "arguments": {"query": "AsyncClinet"}})
            for n in range(1, 1 + calls)))
        process.stdin.flush()
        replies: list[dict[str, Any]] = []
        # Read on a thread of our own: a server whose calls never run would hang here.
        reader = threading.Thread(target=lambda: replies.extend(
            json.loads(process.stdout.readline()) for _ in range(1 + calls)))
        reader.start()
        reader.join(TIMEOUT_S)
        assert len(replies) == 1 + calls, f"{len(replies) - 1} of {calls} calls answered"
        process.stdin.close()
        code = process.wait(timeout=TIMEOUT_S)
        stderr = process.stderr.read()
    assert code == 0, stderr
    by_id = {reply["id"]: reply for reply in replies}
    assert sorted(by_id) == list(range(1 + calls))
    assert [by_id[n]["result"]["structuredContent"]["results"][0]["qualname"]
            for n in range(1, 1 + calls)] == ["AsyncClient"] * calls
