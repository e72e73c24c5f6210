"""The server under the official MCP Inspector CLI, pinned and installed from npm.

The Inspector is installed once into pytest's cache directory (the `inspector` fixture,
tests/integration/conftest.py); it needs `npm` and the npm registry. Its exit codes: 0 ok,
5 the tool answered isError (or is unknown), 6 `--strict` found tool-schema portability
errors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.mcp_support import index_repo, kept_private, make_repo

pytestmark = pytest.mark.slow

RUN_TIMEOUT_S = 60
#: The Inspector gives a server 15 s to answer by default; a server starting on a busy
#: machine may take longer.
CONNECT_TIMEOUT = ["--connect-timeout", "50000"]


@pytest.fixture(scope="module")
def server_command(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    repo = make_repo(tmp_path_factory.mktemp("mcp-inspector") / "proj")
    base = tmp_path_factory.mktemp("mcp-inspector-index")
    index_repo(repo, base)
    private = [part for name, value in kept_private().items() for part in ("-e", f"{name}={value}")]
    return ["-e", f"SYMFIND_INDEX_DIR={base}", *private, sys.executable, "-P", "-m",
            "symfind.cli", "mcp", "--repo", str(repo)]


def run(
    inspector: Path, server: list[str], home: Path, options: list[str], method: list[str]
) -> subprocess.CompletedProcess[str]:
    """`mcp-inspector --cli OPTIONS SERVER-COMMAND METHOD-ARGS` with HOME=home (the
    Inspector writes ~/.mcp-inspector/: keep it out of the real home)."""
    return subprocess.run(
        [str(inspector), "--cli", *CONNECT_TIMEOUT, *options, *server, *method],
        env={**os.environ, "HOME": str(home)},
        capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
    )


def test_inspector_lists_tools_strictly(inspector: Path, server_command: list[str], tmp_path: Path) -> None:
    done = run(inspector, server_command, tmp_path, ["--strict", "--format", "json", "-q"],
               ["--method", "tools/list"])
    assert (done.returncode, done.stderr) == (0, "")
    tools = json.loads(done.stdout)["result"]["tools"]
    assert [t["name"] for t in tools] == ["codebase_search", "help", "read_symbol", "find_references",
                                         "index_status"]


def test_inspector_calls_codebase_search(inspector: Path, server_command: list[str], tmp_path: Path) -> None:
    done = run(inspector, server_command, tmp_path, ["--format", "json", "-q"],
               ["--method", "tools/call", "--tool-name", "codebase_search",
                "--tool-arg", "query=AsyncClinet", "limit=2"])
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["result"]
    assert result["structuredContent"]["results"][0]["qualname"] == "AsyncClient"


def test_inspector_calls_find_references(inspector: Path, server_command: list[str], tmp_path: Path) -> None:
    done = run(inspector, server_command, tmp_path, ["--format", "json", "-q"],
               ["--method", "tools/call", "--tool-name", "find_references",
                "--tool-arg", "target=HttpClient.send"])
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["result"]["structuredContent"]
    assert answer["target"]["qualname"] == "HttpClient.send"
    assert [(g["path"], [s["line"] for s in g["sites"]]) for g in answer["groups"]] == [
        ("httpkit/client.py", [41])]


def test_inspector_bad_argument_exits_5(inspector: Path, server_command: list[str], tmp_path: Path) -> None:
    done = run(inspector, server_command, tmp_path, ["--format", "json", "-q"],
               ["--method", "tools/call", "--tool-name", "codebase_search",
                "--tool-args-json", '{"query": "HttpClient", "limit": 500}'])
    assert done.returncode == 5, done.stderr
    assert "bad arguments: `limit` must be at most 50 (got 500)" in done.stdout
    assert json.loads(done.stderr)["error"]["code"] == "tool_is_error"
