"""What an MCP host pays for symfind's tools/list, next to a reference server's.

`python -m bench.tools_list [--reference CMD ...]` starts `python -m symfind.cli mcp
--no-index` on stdio (on this checkout), and each reference server command given, asks
each for tools/list with the SDK's client and prints, per server: the bytes of tools/list
(compact JSON, as on the wire), the bytes hosts put in the model's context (each tool's
name, description and inputSchema: Claude Code, Claude Desktop, Cursor and VS Code send
these to the model; outputSchema and annotations are for the client), the bytes of the
output schemas, and the model-context bytes per tool. Sizes only: no timing.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


def _compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


async def measure(command: list[str]) -> dict[str, Any]:
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
    wire = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    context = [{"name": t["name"], "description": t.get("description", ""),
                "input_schema": t["inputSchema"]} for t in wire]
    return {
        "tools": len(wire),
        "tools_list_bytes": _compact(wire),
        "model_context_bytes": _compact(context),
        "output_schema_bytes": sum(_compact(t.get("outputSchema")) for t in wire
                                   if t.get("outputSchema")),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", action="append", default=[], metavar="CMD",
                        help="another stdio MCP server's command line, measured the same way")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as repo:
        Path(repo, ".git").mkdir()  # a repository (with no index: --no-index starts nothing)
        servers = {"symfind": [sys.executable, "-P", "-m", "symfind.cli", "mcp", "--repo", repo,
                               "--no-index"]}
        servers.update({ref: shlex.split(ref) for ref in args.reference})
        results = {name: anyio.run(measure, command) for name, command in servers.items()}
    print("| server | tools | tools/list B | model context B | per tool | output schemas B |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        print(f"| {name} | {r['tools']} | {r['tools_list_bytes']:,} | "
              f"{r['model_context_bytes']:,} | {r['model_context_bytes'] // r['tools']:,} | "
              f"{r['output_schema_bytes']:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
