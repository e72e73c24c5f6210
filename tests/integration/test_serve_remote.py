"""`symfind mcp --remote URL`: a stdio server for stdio-only hosts, forwarding to a real
`symfind serve` process, the token in SYMFIND_TOKEN. It answers as a local stdio server
does (handles aside: the remote server signs its own), and a token the server refuses
ends it at start with one line and exit 3, before the host sends anything."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.integration.mcp_support import index_repo, make_repo
from tests.integration.serve_support import COMMAND_TIMEOUT_S, Served, serving
from tests.integration.test_serve import answers

pytestmark = pytest.mark.anyio

EXIT_USAGE, EXIT_REFUSED, EXIT_UNREACHABLE = 2, 3, 6


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    repo = make_repo(tmp_path_factory.mktemp("remote") / "proj")
    other = make_repo(tmp_path_factory.mktemp("remote-other") / "other")
    indexes = tmp_path_factory.mktemp("remote-index")
    index_repo(repo, indexes)
    env = {"SYMFIND_INDEX_DIR": str(indexes),
           "SYMFIND_CONFIG_DIR": str(tmp_path_factory.mktemp("remote-config") / "symfind")}
    return {"repo": repo, "other": other, "env": env,
            "logs": tmp_path_factory.mktemp("remote-logs")}


@pytest.fixture(scope="module")
def served(setup: dict[str, Any]) -> Iterator[Served]:
    with serving("--repo", str(setup["repo"]), "--no-index", env=setup["env"],
                 log=setup["logs"] / "served.log") as running:
        yield running


def forwarder(url: str, token: str | None, *options: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k != "SYMFIND_TOKEN"}
    if token is not None:
        env["SYMFIND_TOKEN"] = token
    return StdioServerParameters(command=sys.executable,
                                 args=["-P", "-m", "symfind.cli", "mcp", "--remote", url,
                                       *options], env=env)


def start(params: StdioServerParameters) -> subprocess.CompletedProcess[str]:
    """The forwarder as a host starts it, stdin open and never written to."""
    with subprocess.Popen([params.command, *params.args], env=params.env, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        try:
            out, err = process.communicate(timeout=COMMAND_TIMEOUT_S)
        finally:
            if process.poll() is None:
                process.kill()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def one_line(done: subprocess.CompletedProcess[str], code: int, pattern: str) -> None:
    assert (done.returncode, done.stdout) == (code, ""), done.stderr
    assert "Traceback" not in done.stderr
    assert re.fullmatch(f"symfind: {pattern}\n", done.stderr), done.stderr


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_forwarder_answers_as_a_local_stdio_server(
    setup: dict[str, Any], served: Served, mode: str
) -> None:
    token = served.new_token(f"forward-{mode}")
    local = StdioServerParameters(
        command=sys.executable, env={**os.environ, **setup["env"]},
        args=["-P", "-m", "symfind.cli", "mcp", "--repo", str(setup["repo"]), "--no-index"])
    async with Client(local, mode=mode) as client:
        expected = await answers(client, "AsyncClinet")
        expected_info = (client.server_info, client.instructions)
    async with Client(forwarder(served.url, token), mode=mode) as client:
        got = await answers(client, "AsyncClinet")
        assert (client.server_info, client.instructions) == expected_info
    assert got["search"][2]["results"][0]["qualname"] == "AsyncClient"
    assert got == expected


def test_a_refused_token_ends_it_at_start(setup: dict[str, Any], served: Served) -> None:
    one_line(start(forwarder(served.url, "sfp_" + "A" * 43)), EXIT_REFUSED, re.escape(
        f"the server at {served.url} refused the token in $SYMFIND_TOKEN (401: Authentication "
        "required): it is wrong, expired or revoked — ask for a new one (`symfind token "
        "create` on the server)"))
    elsewhere = served.new_token("elsewhere", "--repo", str(setup["other"]))
    one_line(start(forwarder(served.url, elsewhere)), EXIT_REFUSED, re.escape(
        f"the server at {served.url} refused the token (403: token 'elsewhere' is for none of "
        "the repositories this server serves)"))


def test_no_token_or_a_bad_url_is_exit_2(served: Served) -> None:
    one_line(start(forwarder(served.url, None)), EXIT_USAGE, re.escape(
        f"set SYMFIND_TOKEN to your token for {served.url} (`symfind token create NAME` on the "
        "server makes one)"))
    one_line(start(forwarder("build-box:8765/mcp", "sfp_x")), EXIT_USAGE, re.escape(
        "--remote wants the server's URL, like https://build-box:8765/mcp; got "
        "'build-box:8765/mcp'"))
    one_line(start(forwarder("http://build-box.example:8765/mcp", "sfp_x")), EXIT_USAGE,
             re.escape("refusing to send the token in clear to build-box.example: use https, or "
                       "--insecure-http if the network between is yours alone"))
    one_line(start(forwarder(served.url, "sfp_x", "--repo", "/tmp")), EXIT_USAGE, re.escape(
        "--remote serves the remote server's repositories: give no --repo"))


def test_a_server_that_cannot_be_reached_is_exit_6() -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/mcp"
    done = start(forwarder(url, "sfp_x"))
    assert (done.returncode, done.stdout) == (EXIT_UNREACHABLE, "")
    assert done.stderr.startswith(f"symfind: cannot reach the server at {url}: ")
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


async def test_a_token_revoked_while_forwarding_fails_the_next_call_saying_why(
    served: Served
) -> None:
    token = served.new_token("revoked-while-forwarding")
    async with Client(forwarder(served.url, token)) as client:
        assert not (await client.call_tool("index_status", {})).is_error
        assert served.token("revoke", "revoked-while-forwarding").returncode == 0
        with pytest.raises(MCPError) as refused:
            await client.call_tool("index_status", {})
    assert str(refused.value) == (
        f"the server at {served.url} refused the token in $SYMFIND_TOKEN (401: Authentication "
        "required): it is wrong, expired or revoked — ask for a new one (`symfind token "
        "create` on the server)")



def _rpc(message_id: int | None, method: str, params: dict[str, Any]) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if message_id is not None:
        message["id"] = message_id
    return json.dumps(message) + "\n"


def test_a_server_that_dies_fails_the_next_calls_at_once_and_stdin_closed_exits_0(
    setup: dict[str, Any], tmp_path: Path
) -> None:
    """The server killed mid-session: the next call gets a JSON-RPC error at once (within
    the test's deadline: it used to wait minutes), so does one sent just before the host
    closes stdin, and the bridge then exits 0 without a word on stderr."""
    with serving("--repo", str(setup["repo"]), "--no-index", env=setup["env"],
                 log=tmp_path / "dying.log") as dying:
        token = dying.new_token("dies")
        params = forwarder(dying.url, token)
        with subprocess.Popen([params.command, *params.args], env=params.env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) as bridge:
            assert bridge.stdin and bridge.stdout and bridge.stderr
            try:
                bridge.stdin.write(_rpc(1, "initialize", {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}}))
                bridge.stdin.write(_rpc(None, "notifications/initialized", {}))
                bridge.stdin.write(_rpc(2, "tools/call", {"name": "index_status", "arguments": {}}))
                bridge.stdin.flush()
                answered = [json.loads(bridge.stdout.readline()) for _ in range(2)]
                assert [reply["id"] for reply in answered] == [1, 2]
                assert "result" in answered[1], answered[1]
                dying.process.kill()
                dying.process.wait()
                bridge.stdin.write(_rpc(3, "tools/call", {"name": "index_status", "arguments": {}}))
                bridge.stdin.flush()
                replies: list[str] = []
                reader = threading.Thread(target=lambda: replies.append(bridge.stdout.readline()))
                reader.start()
                reader.join(COMMAND_TIMEOUT_S)
                assert replies, "the call got no answer"
                # The last call, then stdin closed at once.
                out, err = bridge.communicate(
                    _rpc(4, "tools/call", {"name": "help", "arguments": {}}),
                    timeout=COMMAND_TIMEOUT_S)
            finally:
                if bridge.poll() is None:
                    bridge.kill()
    not_answering = {"code": -32603, "message": (
        f"symfind serve at {dying.url} is not answering: All connection attempts failed")}
    assert [json.loads(line) for line in [*replies, *out.splitlines()]] == [
        {"jsonrpc": "2.0", "id": 3, "error": not_answering},
        {"jsonrpc": "2.0", "id": 4, "error": not_answering}]
    assert (bridge.returncode, err) == (0, "")
