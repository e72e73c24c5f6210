"""`symfind serve`: the same tools and answers over HTTP as over stdio, for the holders of
tokens, each token seeing only its own repositories.

Real parts only: the server is a `symfind serve` process (uvicorn) on a loopback port it
picks; clients are the SDK's Streamable HTTP client (both protocol eras), httpx2 and the
MCP Inspector CLI with `--header "Authorization: Bearer …"`; stdio answers come from a
`symfind mcp` process over the same index. Answers are compared whole, but for the
search time (`took_ms`) and the handles, which each server signs with its own key
(each side's handle then reads the same source).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

from tests.integration.mcp_support import index_repo, make_repo, run_symfind, text_of
from tests.integration.serve_support import Served, bearer, http_client, post, serving
from tests.integration.test_mcp_inspector import CONNECT_TIMEOUT
from tests.integration.test_multi_repo import FIXTURES

pytestmark = pytest.mark.anyio

TOOL_NAMES = ["codebase_search", "help", "read_symbol", "find_references", "index_status"]
INSPECTOR_TIMEOUT_S = 60
WATCH_TIMEOUT_S = 60.0


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Three indexed repositories — proj (Python), billing (Python), frontend (TypeScript) —
    and the environment every process of this module shares (index base, token file)."""
    base = tmp_path_factory.mktemp("serve")
    proj = make_repo(base / "proj")
    shutil.copytree(FIXTURES / "multi" / "billing", base / "billing")
    shutil.copytree(FIXTURES / "multi" / "frontend", base / "frontend")
    indexes = tmp_path_factory.mktemp("serve-index")
    roots = {"proj": proj, "billing": (base / "billing").resolve(),
             "frontend": (base / "frontend").resolve()}
    for root in roots.values():
        index_repo(root, indexes)
    env = {"SYMFIND_INDEX_DIR": str(indexes),
           "SYMFIND_CONFIG_DIR": str(tmp_path_factory.mktemp("serve-config") / "symfind")}
    return {"roots": roots, "env": env, "logs": tmp_path_factory.mktemp("serve-logs")}


@pytest.fixture(scope="module")
def one(setup: dict[str, Any]) -> Iterator[Served]:
    """`symfind serve --repo proj`."""
    with serving("--repo", str(setup["roots"]["proj"]), "--no-index", env=setup["env"],
                 log=setup["logs"] / "one.log") as served:
        yield served


@pytest.fixture(scope="module")
def two(setup: dict[str, Any]) -> Iterator[Served]:
    """`symfind serve --repo billing --repo frontend`."""
    roots = setup["roots"]
    with serving("--repo", str(roots["billing"]), "--repo", str(roots["frontend"]), "--no-index",
                 env=setup["env"], log=setup["logs"] / "two.log") as served:
        yield served


def stdio_params(setup: dict[str, Any], *names: str) -> StdioServerParameters:
    repos = [part for name in names for part in ("--repo", str(setup["roots"][name]))]
    return StdioServerParameters(command=sys.executable,
                                 args=["-P", "-m", "symfind.cli", "mcp", *repos, "--no-index"],
                                 env={**os.environ, **setup["env"]})


def _same_but_handles(value: Any) -> Any:
    """`value` with what differs between two servers by design blanked: search times,
    and handles (signed with each server's own key)."""
    if isinstance(value, dict):
        return {k: ("…" if k in ("took_ms", "handle") else _same_but_handles(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_same_but_handles(v) for v in value]
    return value


def comparable(result: CallToolResult) -> tuple[bool, str, Any]:
    text = re.sub(r"handle(: |=)\S+", r"handle\1…", text_of(result))
    text = re.sub(r"; [\d.]+ ms", "; … ms", text)
    return result.is_error, text, _same_but_handles(result.structured_content)


async def answers(client: Client, query: str) -> dict[str, Any]:
    """tools/list, help, a search, and a read of its first result by its handle."""
    tools = [t.model_dump(mode="json") for t in (await client.list_tools()).tools]
    found = await client.call_tool("codebase_search", {"query": query, "limit": 5})
    handle = found.structured_content["results"][0]["handle"]
    return {
        "tools": tools,
        "help": comparable(await client.call_tool("help", {})),
        "search": comparable(found),
        "read": comparable(await client.call_tool("read_symbol", {"handle": handle})),
        "references": comparable(await client.call_tool("find_references", {"handle": handle})),
        "status": comparable(await client.call_tool("index_status", {})),
    }


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_one_repository_answers_as_over_stdio(setup: dict[str, Any], one: Served, mode: str) -> None:
    token = one.new_token(f"eq-{mode}")
    async with Client(stdio_params(setup, "proj"), mode=mode) as stdio:
        expected = await answers(stdio, "AsyncClinet")
    async with http_client(one, token, mode=mode) as http:
        got = await answers(http, "AsyncClinet")
    assert [t["name"] for t in got["tools"]] == TOOL_NAMES
    assert got["search"][2]["results"][0]["qualname"] == "AsyncClient"  # the typo at rank 1
    assert got == expected


async def test_several_repositories_answer_as_over_stdio(setup: dict[str, Any], two: Served) -> None:
    token = two.new_token("eq-two")
    async with Client(stdio_params(setup, "billing", "frontend")) as stdio:
        expected = await answers(stdio, "HttpClient")
    async with http_client(two, token) as http:
        got = await answers(http, "HttpClient")
    assert {r["repo"] for r in got["search"][2]["results"]} == {"billing", "frontend"}
    assert got == expected


async def test_a_token_for_some_repositories_sees_only_those(setup: dict[str, Any], two: Served) -> None:
    billing = str(setup["roots"]["billing"])
    only_billing = two.new_token("only-billing", "--repo", billing)
    everything = two.new_token("everything")
    async with http_client(two, everything) as client:
        frontend_handle = next(
            r["handle"] for r in (await client.call_tool(
                "codebase_search", {"query": "HttpClient", "limit": 20})).structured_content["results"]
            if r["repo"] == "frontend")
    async with http_client(two, only_billing) as client:
        found = (await client.call_tool("codebase_search", {"query": "HttpClient", "limit": 20})
                 ).structured_content
        assert {r["repo"] for r in found["results"]} == {"billing"}
        assert [r["repo"] for r in found["repos"]] == ["billing"]
        status = (await client.call_tool("index_status", {})).structured_content
        assert [(r["label"], r["repo"]) for r in status["repos"]] == [("billing", billing)]
        guide = await client.call_tool("help", {})
        assert "frontend" not in json.dumps(guide.structured_content)
        assert "frontend" not in text_of(guide)
        with pytest.raises(MCPError) as refused:
            await client.call_tool("read_symbol", {"handle": frontend_handle})
        assert str(refused.value) == (
            "refused: token 'only-billing' may not read repository 'frontend', which this handle "
            "names — read only the handles of your own searches")
        with pytest.raises(MCPError) as refused_uses:
            await client.call_tool("find_references", {"handle": frontend_handle})
        assert str(refused_uses.value) == str(refused.value)
        # Its own handles still read, and their uses are found.
        own = found["results"][0]["handle"]
        assert not (await client.call_tool("read_symbol", {"handle": own})).is_error
        uses = await client.call_tool("find_references", {"handle": own})
        assert not uses.is_error
        # On a server of several repositories: one answer per repository the token sees.
        assert [(r["repo"], r["target"]["qualname"]) for r in uses.structured_content["repos"]] == [
            ("billing", found["results"][0]["qualname"])]

    raw = post(two, json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "read_symbol", "arguments": {"handle": frontend_handle}}}),
        headers=bearer(only_billing))
    assert raw.status_code == 403
    assert raw.json() == {"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": (
        "refused: token 'only-billing' may not read repository 'frontend', which this handle "
        "names — read only the handles of your own searches")}}
    assert raw.headers["www-authenticate"].startswith('Bearer error="insufficient_scope"')


def test_a_body_nested_too_deep_is_a_parse_error_whatever_the_tokens_scope(
    setup: dict[str, Any], two: Served
) -> None:
    """200 KB of `[[[…` or `{"a":{"a":…`, far under the body limit: the same 400 JSON-RPC
    parse error for a token that sees one repository of two (its handles are looked for
    in the body) as for one that sees both, and no traceback in the server's log."""
    scoped = two.new_token("deep-billing", "--repo", str(setup["roots"]["billing"]))
    everything = two.new_token("deep-everything")
    for body, column in ((b"[" * 200_000, 202), (b'{"a":' * 40_000, 1006)):
        for token in (scoped, everything):
            refused = post(two, body, headers=bearer(token))
            assert (refused.status_code, refused.json()) == (400, {
                "jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": (
                    f"Parse error: recursion limit exceeded at line 1 column {column}")}})
    assert "Traceback" not in two.stderr()


async def test_a_token_for_another_repository_is_refused_403(setup: dict[str, Any], one: Served) -> None:
    elsewhere = one.new_token("billing-only", "--repo", str(setup["roots"]["billing"]))
    line = "token 'billing-only' is for none of the repositories this server serves"
    refused = post(one, "{}", headers=bearer(elsewhere))
    assert (refused.status_code, refused.json()) == (
        403, {"error": "insufficient_scope", "error_description": line})
    assert refused.headers["www-authenticate"] == (
        f'Bearer error="insufficient_scope", error_description="{line}"')
    with pytest.raises(BaseExceptionGroup) as failed:  # the SDK client cannot connect
        async with http_client(one, elsewhere) as client:
            await client.list_tools()
    assert failed.group_contains(MCPError, match="Server returned an error response")


async def test_healthz_needs_no_token(one: Served) -> None:
    answer = httpx2.get(one.base + "/healthz", timeout=30.0)
    assert (answer.status_code, answer.json()) == (200, {"status": "ok"})


def inspector_run(inspector: Path, home: Path, target: list[str], method: list[str]) -> Any:
    done = subprocess.run(
        [str(inspector), "--cli", *CONNECT_TIMEOUT, "--format", "json", "-q", *target, *method],
        env={**os.environ, "HOME": str(home)}, capture_output=True, text=True,
        timeout=INSPECTOR_TIMEOUT_S, check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    return json.loads(done.stdout)["result"]


@pytest.mark.slow
def test_the_inspector_over_http_gets_the_stdio_answers(
    setup: dict[str, Any], one: Served, inspector: Path, tmp_path: Path
) -> None:
    token = one.new_token("inspector")
    http = ["--transport", "http", one.url, "--header", f"Authorization: Bearer {token}"]
    stdio = ["-e", f"SYMFIND_INDEX_DIR={setup['env']['SYMFIND_INDEX_DIR']}", sys.executable,
             "-P", "-m", "symfind.cli", "mcp", "--repo", str(setup["roots"]["proj"]), "--no-index"]

    def both(*method: str) -> tuple[Any, Any]:
        return (inspector_run(inspector, tmp_path, http, list(method)),
                inspector_run(inspector, tmp_path, stdio, list(method)))

    over_http, over_stdio = both("--method", "tools/list")
    assert [t["name"] for t in over_http["tools"]] == TOOL_NAMES
    assert over_http == over_stdio
    over_http, over_stdio = both("--method", "tools/call", "--tool-name", "codebase_search",
                                 "--tool-arg", "query=AsyncClinet", "limit=3")
    assert over_http["structuredContent"]["results"][0]["qualname"] == "AsyncClient"
    assert _same_but_handles(over_http["structuredContent"]) == _same_but_handles(
        over_stdio["structuredContent"])
    handles = (over_http["structuredContent"]["results"][0]["handle"],
               over_stdio["structuredContent"]["results"][0]["handle"])
    read_http = inspector_run(inspector, tmp_path, http, [
        "--method", "tools/call", "--tool-name", "read_symbol", "--tool-arg", f"handle={handles[0]}"])
    read_stdio = inspector_run(inspector, tmp_path, stdio, [
        "--method", "tools/call", "--tool-name", "read_symbol", "--tool-arg", f"handle={handles[1]}"])
    assert read_http == read_stdio
    assert read_http["structuredContent"]["name"] == "AsyncClient"
    over_http, over_stdio = both("--method", "tools/call", "--tool-name", "help")
    assert over_http == over_stdio


def _process_state(pid: int) -> str | None:
    """The state letter of process `pid` (Z: a zombie, waiting to be reaped), or None
    when there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return stat.rpartition(")")[2].split()[0]


async def test_each_served_repository_gets_a_daemon_that_keeps_it_fresh(
    setup: dict[str, Any], tmp_path: Path
) -> None:
    """… and the `symfind daemon start` the server ran for it is reaped once it exits,
    though no call asks about it (it was a zombie for as long as the server ran)."""
    repo = make_repo(tmp_path / "live")
    index_repo(repo, Path(setup["env"]["SYMFIND_INDEX_DIR"]))
    try:
        with serving("--repo", str(repo), "-v", env=setup["env"],
                     log=tmp_path / "live.log") as served:
            started = re.search(r"indexing .* in the background \(pid (\d+)\)", served.stderr())
            assert started, served.stderr()
            deadline = time.monotonic() + WATCH_TIMEOUT_S
            while (state := _process_state(int(started.group(1)))) is not None:
                assert time.monotonic() < deadline, f"daemon start not reaped (state {state})"
                await anyio.sleep(0.05)
            token = served.new_token("live")
            async with http_client(served, token) as client:
                deadline = time.monotonic() + WATCH_TIMEOUT_S
                while not (await client.call_tool("index_status", {})).structured_content[
                        "watching"]:
                    assert time.monotonic() < deadline, "no daemon watches the repository"
                    await anyio.sleep(0.05)
                (repo / "app" / "later.py").write_text("def added_while_served():\n    pass\n",
                                                       encoding="utf-8")
                while True:
                    found = await client.call_tool("codebase_search",
                                                   {"query": "added_while_served", "limit": 1})
                    results = found.structured_content["results"]
                    if results and results[0]["path"] == "app/later.py":
                        break
                    assert time.monotonic() < deadline, "the change was never indexed"
                    await anyio.sleep(0.05)
            served.token("revoke", "live")
    finally:
        run_symfind("daemon stop", repo, Path(setup["env"]["SYMFIND_INDEX_DIR"]))


async def test_a_tokens_last_use_is_recorded(setup: dict[str, Any], tmp_path: Path) -> None:
    """Written at most once a minute while serving, and when the server stops (Ctrl-C);
    only a use the server answered with success counts."""
    env = {**setup["env"], "SYMFIND_CONFIG_DIR": str(tmp_path / "config")}
    before = time.time()
    with serving("--repo", str(setup["roots"]["proj"]), "--no-index", env=env,
                 log=tmp_path / "uses.log") as served:
        used = served.new_token("used")
        served.new_token("unused")
        refused = served.new_token("refused", "--repo", str(setup["roots"]["billing"]))
        async with http_client(served, used) as client:
            assert not (await client.call_tool("index_status", {})).is_error
        # Refused (403: not one of its repositories): no use.
        assert post(served, "{}", headers=bearer(refused)).status_code == 403
    assert served.process.returncode == 130  # Ctrl-C: stopped gracefully, then 128 + SIGINT
    listed = {t["name"]: t for t in json.loads(served.token("list", "--json").stdout)}
    assert listed["unused"]["last_used_at"] is None
    assert listed["refused"]["last_used_at"] is None
    assert before <= listed["used"]["last_used_at"] <= time.time()
