"""What starting symfind costs: the CLI and the search code import no embedding model,
no numpy and no word list; questions in words and indexing load them when they need them.
Nor does parsing any command load the MCP server's stack: `symfind mcp` and `serve` load it
when they run."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "wordllama", "threadpoolctl", "wordninja")


def test_the_cli_and_the_search_code_start_without_the_heavy_modules() -> None:
    code = (
        "import sys\n"
        "import symfind.cli.program, symfind.storage, symfind.mcp_server.server\n"
        f"print(sorted(name for name in {HEAVY!r} if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")


#: The MCP server's stack: only the commands that serve (`mcp`, `serve`) load it, when they run.
SERVER_STACK = ("mcp", "pydantic", "uvicorn", "starlette", "anyio", "h11", "httpx2")


def test_the_command_line_loads_the_mcp_server_only_to_serve() -> None:
    code = (
        "import sys\n"
        "from symfind.cli.program import parse_args\n"
        "parse_args(['mcp', '--repo', '.', '--no-index'])\n"
        "parse_args(['serve', '--port', '0'])\n"
        "parse_args(['token', 'list'])\n"
        f"print(sorted(name for name in {SERVER_STACK!r} if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")
