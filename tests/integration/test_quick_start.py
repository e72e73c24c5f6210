"""The README's quick start, run as written in a fresh shell: clone this repository, enter
it, install, index and search a repository of the reader's, and hand the agent the path the
install made.

Only what the reader must substitute is: the clone's address (`SYMFIND_GIT_URL`, here this
checkout's committed state) and the reader's home (a temporary one, holding the repository
`~/src/myproject` the commands name). `claude` is a stand-in on PATH that records the
command it is given; the test then starts that command and speaks MCP to it with the SDK's
client, as Claude Code would.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from symfind.daemon.registry import daemon_of
from symfind.storage.contract.leases import DEFAULT_LEASE_S, LEASE_VARIABLE
from tests.integration.mcp_support import kept_private
from tests.integration.test_cli import FIXTURE_REPO, ROOT
from tests.integration.test_daemon_registry import wait_until

pytestmark = pytest.mark.slow

#: The quick start's commands: the first bash block under its heading.
QUICK_START = re.compile(r"^## Quick start\n.*?^```bash\n(?P<commands>.*?)^```", re.M | re.S)
FAKE_CLAUDE = """#!/bin/sh
# Records `claude mcp add NAME -- COMMAND...` as Claude Code would keep it.
printf '%s\\n' "$@" > "$CLAUDE_RECORD"
"""


def quick_start() -> str:
    match = QUICK_START.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert match, "README.md has no bash block under '## Quick start'"
    return match["commands"]


def test_the_quick_start_works_as_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(FIXTURE_REPO, home / "src" / "myproject")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "claude").write_text(FAKE_CLAUDE, encoding="utf-8")
    (tools / "claude").chmod(0o755)
    record = tmp_path / "claude-args"
    pip_cache = Path(os.environ.get("PIP_CACHE_DIR") or Path.home() / ".cache" / "pip")
    commands = quick_start()
    assert "SYMFIND_GIT_URL" in commands
    script = "set -eu\n" + commands.replace("SYMFIND_GIT_URL", str(ROOT))
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False,
        env={**os.environ, "HOME": str(home), "PATH": f"{tools}:{os.environ['PATH']}",
             "CLAUDE_RECORD": str(record), "PIP_CACHE_DIR": str(pip_cache),
             "VIRTUAL_ENV": "", "PYTHONPATH": ""},
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    # The search found the typo's definition, first.
    first = next(line for line in result.stdout.splitlines() if line.startswith("1 "))
    assert first.split()[1:4] == ["class", "HttpClient", "httpkit/client.py:10"]
    # The agent was given the install's own command, by absolute path, and it serves MCP.
    args = record.read_text(encoding="utf-8").splitlines()
    checkout = tmp_path / "symfind"
    assert args == ["mcp", "add", "symfind", "--", str(checkout / ".venv" / "bin" / "symfind"),
                    "mcp", "--repo", str(home / "src" / "myproject")]
    assert _tools_of(args[4:], env={**os.environ, "HOME": str(home)}) == [
        "codebase_search", "find_references", "help", "index_status", "read_symbol"]
    # The daemon the server started is in the session's registry, not the user's: found
    # there (its lease is the default: it is still running), then stopped.
    repo = (home / "src" / "myproject").resolve()
    wait_until(lambda: daemon_of(repo) is not None, "the server's daemon in the registry")
    daemon = daemon_of(repo)
    assert daemon is not None and daemon.lease_s == DEFAULT_LEASE_S
    os.kill(daemon.pid, signal.SIGTERM)


def _tools_of(command: list[str], env: dict[str, str]) -> list[str]:
    """The tools an MCP host sees from `command`, through the SDK's stdio client.

    The server gets the client's minimal environment, as a host gives it, and the
    session's private daemon registry (`kept_private`) with the default lease: the
    daemon it starts stays out of the user's registry."""
    probe = """
import json, sys, anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

async def main():
    env = {**get_default_environment(), **json.loads(sys.argv[1])}
    params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            print("\\n".join(sorted(tool.name for tool in tools.tools)))

anyio.run(main)
"""
    private = {**kept_private(), LEASE_VARIABLE: str(DEFAULT_LEASE_S)}
    result = subprocess.run([sys.executable, "-c", probe, json.dumps(private), *command],
                            capture_output=True,
                            text=True, env=env, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.split()
