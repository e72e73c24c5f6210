"""Warm `codebase_search` latency through the MCP server over stdio, end to end.

Usage: python -m bench.mcp_bench REPO [--queries 200]

Indexes REPO first (`symfind index`), starts `symfind mcp --repo REPO` under the SDK's
stdio client, warms up, then times `codebase_search` calls (client send → parsed result).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from storage import Searcher, index_dir_for


async def measure(repo: Path, queries: list[str]) -> list[float]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-P", "-m", "mcp_server", "--repo", str(repo), "--no-index"],
        env=dict(os.environ),  # the SDK passes only a safe subset by default
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for query in queries[:20]:
            await session.call_tool("codebase_search", {"query": query, "limit": 10})
        times = []
        for query in queries:
            started = time.perf_counter()
            result = await session.call_tool("codebase_search", {"query": query, "limit": 10})
            times.append((time.perf_counter() - started) * 1000)
            if result.is_error:  # e.g. a name with nothing searchable in it: still timed
                print(f"error for {query!r}: {result.content[0].text}", file=sys.stderr)
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    repo = args.repo.resolve()
    subprocess.run([sys.executable, "-P", "-m", "daemon", "index", str(repo)], check=True,
                   capture_output=True)
    symbols = Searcher(index_dir_for(repo)).all_symbols()
    names = [s.name for s in symbols[:: max(1, len(symbols) // args.queries)]][: args.queries]
    times = anyio.run(measure, repo, names)
    ordered = sorted(times)
    print(f"`python -m bench.mcp_bench {args.repo}`: {len(times)} warm codebase_search calls over "
          f"stdio: p50 {statistics.median(times):.1f} ms, p95 {ordered[int(.95 * len(ordered))]:.1f} ms")


if __name__ == "__main__":
    main()
