"""What tools/list costs a host, and tool names with a prefix (`--tool-prefix`).

Hosts put each tool's name, description and inputSchema in the model's context; the
outputSchema is for validating answers. Both are kept free of pydantic's `title`s, which
only repeat property names (bench/tools_list.py measures the sizes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from symfind.mcp_server.server import build_roots_server, build_server
from tests.integration.mcp_support import assert_valid, index_repo, make_repo

pytestmark = pytest.mark.anyio

NAMES = ["codebase_search", "help", "read_symbol", "find_references", "index_status"]
#: Bytes of tools/list (compact JSON) for one repository: 13,337 before titles were dropped;
#: 11,500 until questions in words gave results a doc summary and the words they matched;
#: 12,000 until answers said how current the index is (`freshness`: state, message, failing);
#: 12,800 until find_references (8.3 KB, 6.3 KB of it its outputSchema, which hosts do not put
#: in the model's context).
MAX_TOOLS_LIST_BYTES = 21_500
MCP = [sys.executable, "-m", "symfind.cli", "mcp", "--repo"]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    repo = make_repo(tmp_path_factory.mktemp("tool-list") / "proj")
    return repo, index_repo(repo, tmp_path_factory.mktemp("tool-list-index"))


@pytest.fixture
async def plain(indexed: tuple[Path, Path]) -> AsyncIterator[Client]:
    repo, index_dir = indexed
    async with Client(build_server(repo, index_dir=index_dir, auto_index=False)) as client:
        yield client


@pytest.fixture
async def prefixed(indexed: tuple[Path, Path]) -> AsyncIterator[Client]:
    repo, index_dir = indexed
    server = build_server(repo, index_dir=index_dir, auto_index=False, tool_prefix="sf_")
    async with Client(server) as client:
        yield client


def titles(schema: Any, where: str = "") -> list[str]:
    """Where a schema (not a property named `title`) carries a `title` keyword."""
    if isinstance(schema, list):
        return [t for n, item in enumerate(schema) for t in titles(item, f"{where}/{n}")]
    if not isinstance(schema, dict):
        return []
    found = [where] if isinstance(schema.get("title"), str) else []
    return found + [t for key, value in schema.items() for t in titles(value, f"{where}/{key}")]


def wire(tools: list[Any]) -> list[dict[str, Any]]:
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


async def test_schemas_carry_no_titles_and_the_list_stays_small(plain: Client) -> None:
    tools = wire((await plain.list_tools()).tools)
    assert [t["name"] for t in tools] == NAMES
    assert [t["title"] for t in tools] == [  # the tools' own titles stay: hosts show them
        "Find definitions", "How to search this repository", "Read a definition's source",
        "Find where a definition is used", "Index status",
    ]
    assert [titles(t["inputSchema"]) + titles(t["outputSchema"]) for t in tools] == [[]] * 5
    assert len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False)) < MAX_TOOLS_LIST_BYTES
    # What the agent needs is still there: each parameter's description and bounds.
    query = tools[0]["inputSchema"]["properties"]["query"]
    assert (query["minLength"], query["maxLength"], query["type"]) == (1, 512, "string")
    assert query["description"].startswith("A name (`HttpClient`")


async def test_a_prefix_renames_every_tool_and_every_mention(
    prefixed: Client, plain: Client
) -> None:
    tools = (await prefixed.list_tools()).tools
    unprefixed = (await plain.list_tools()).tools
    assert [t.name for t in tools] == [f"sf_{name}" for name in NAMES]
    for tool, original in zip(tools, unprefixed, strict=True):
        expected = original.description or ""
        for name in ("codebase_search", "read_symbol", "find_references", "index_status"):
            expected = expected.replace(name, f"sf_{name}")
        assert tool.description == expected
        assert (tool.input_schema, tool.output_schema) == (original.input_schema,
                                                           original.output_schema)
    assert "sf_read_symbol" in (tools[0].description or "")
    assert prefixed.instructions is not None and plain.instructions is not None
    assert prefixed.instructions.replace("sf_", "") == plain.instructions
    assert "- sf_help: query shapes" in prefixed.instructions


async def test_prefixed_tools_answer_and_bare_names_are_unknown(prefixed: Client) -> None:
    schema = next(t.output_schema for t in (await prefixed.list_tools()).tools
                  if t.name == "sf_codebase_search")
    found = assert_valid(
        await prefixed.call_tool("sf_codebase_search", {"query": "HtppClient", "limit": 1}), schema
    )
    assert [(r["qualname"], r["path"], r["line"]) for r in found["results"]] == [
        ("HttpClient", "httpkit/client.py", 10),
    ]
    with pytest.raises(MCPError) as caught:
        await prefixed.call_tool("codebase_search", {"query": "HttpClient"})
    assert caught.value.error.code == -32602


async def test_several_repositories_take_the_prefix_too(indexed: tuple[Path, Path]) -> None:
    repo, _ = indexed
    server = build_roots_server([repo, repo.parent], auto_index=False, tool_prefix="sym-")
    async with Client(server) as client:
        assert [t.name for t in (await client.list_tools()).tools] == [f"sym-{n}" for n in NAMES]


async def test_several_repositories_take_exactly_the_one_repository_parameters(
    indexed: tuple[Path, Path], plain: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The `…_repos` forms borrow their parameters (`calls.same_parameters`): the input
    schemas are the one-repository ones, and the borrowed parameters arrive in the call."""
    repo, index_dir = indexed
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(index_dir.parent))
    async with Client(build_roots_server([repo, repo.parent], auto_index=False)) as several:
        tools = (await several.list_tools()).tools
        assert [t.input_schema for t in tools] == [
            t.input_schema for t in (await plain.list_tools()).tools
        ]
        found = (await several.call_tool(
            "codebase_search",
            {"query": "settings", "limit": 5, "kind": "method", "path": "app/*.py"},
        )).structured_content
    assert found is not None
    assert [(r["kind"], r["qualname"], r["path"]) for r in found["results"]] == [
        ("method", "Settings.load_settings", "app/settings.py")
    ]


def test_symfind_mcp_passes_the_prefix_and_refuses_a_bad_one(indexed: tuple[Path, Path]) -> None:
    repo, index_dir = indexed
    env = {**os.environ, "SYMFIND_INDEX_DIR": str(index_dir.parent)}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    # stdin stays open until the answer arrives: at EOF the server stops without answering.
    with subprocess.Popen([*MCP, str(repo), "--tool-prefix", "sf_"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          env=env) as served:
        assert served.stdin is not None and served.stdout is not None
        served.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        served.stdin.flush()
        answers = [json.loads(served.stdout.readline()) for _ in range(2)]
        served.stdin.close()
        served.wait(timeout=120)
    assert [a["id"] for a in answers] == [1, 2]
    assert [t["name"] for t in answers[1]["result"]["tools"]] == [f"sf_{n}" for n in NAMES]
    refused = subprocess.run(
        [*MCP, str(repo), "--tool-prefix", "a b"],
        capture_output=True, text=True, env=env, check=False, stdin=subprocess.DEVNULL,
    )
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        2, "", "symfind: argument --tool-prefix: must be a letter then up to 31 letters, "
        "digits, _ or -; got 'a b' — see `symfind mcp --help`\n")
