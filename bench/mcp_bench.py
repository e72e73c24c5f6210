"""Warm `codebase_search` latency through the MCP server over stdio, end to end, against
the SDK's own floor measured in the same run.

Usage: python -m bench.mcp_bench REPO [--queries 200] [--runs 3]

Indexes REPO first (`python -m symfind.cli index`), then, in each run, starts two stdio
servers under the SDK's stdio client in this one process:

- `symfind`: `python -m symfind.cli mcp --repo REPO --no-index` (`symfind mcp`);
- `floor`: `python -m bench.mcp_bench --serve-floor ANSWERS`, an `MCPServer` of the same
  SDK with two tools: `noop` returns a constant string, and `canned_search` returns, for
  the same arguments, the very answer symfind gave (text and structured content, declared
  with the same output schema) without computing anything.

After a warm-up, calls alternate between the three tools query by query (rotating which
goes first), so other load on the machine falls on all three alike. Times are client
send → parsed result. `canned_search` minus `noop` is what the SDK and its client spend on
our answer's size and schema; `codebase_search` minus `canned_search` is our own work.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Annotated, Any

import anyio
import msgspec
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

from symfind.mcp_server.models import SearchOutput
from symfind.storage import Searcher, index_dir_for

CHECKOUT = Path(__file__).resolve().parents[1]
WARMUP = 20
TOOLS = ("codebase_search", "canned_search", "noop")


class Answer(msgspec.Struct, frozen=True):
    """One recorded codebase_search answer."""

    text: str
    structured: dict[str, Any]


class Run(msgspec.Struct, frozen=True):
    """Latencies (ms) of one run, per tool; `took_ms` is storage's search time in the server."""

    times: dict[str, list[float]]
    took_ms: list[float]


def arguments(query: str) -> dict[str, Any]:
    return {"query": query, "limit": 10}


def serve_floor(answers_path: Path) -> None:
    """The floor server: the SDK's per-call cost with (almost) nothing of ours in it."""
    answers = msgspec.json.decode(answers_path.read_bytes(), type=dict[str, Answer])
    server: MCPServer[Any] = MCPServer(name="floor", log_level="WARNING")

    @server.tool(name="noop")
    def noop() -> str:
        return "ok"

    @server.tool(name="canned_search")
    def canned_search(query: str, limit: int = 10) -> Annotated[CallToolResult, SearchOutput]:
        answer = answers[query]
        return CallToolResult(
            content=[TextContent(type="text", text=answer.text)],
            structured_content=answer.structured,
        )

    server.run("stdio")


async def connect(stack: AsyncExitStack, args: list[str]) -> ClientSession:
    params = StdioServerParameters(
        command=sys.executable,
        args=args,
        env=dict(os.environ),  # the SDK passes only a safe subset by default
        cwd=CHECKOUT,  # `bench` is importable from the checkout only (no -P for the floor)
    )
    read, write = await stack.enter_async_context(stdio_client(params))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


async def timed(call: Callable[[], Awaitable[CallToolResult]]) -> tuple[float, CallToolResult]:
    started = time.perf_counter()
    result = await call()
    return (time.perf_counter() - started) * 1000, result


async def measure(repo: Path, queries: list[str], scratch: Path) -> Run:
    async with AsyncExitStack() as stack:
        symfind = await connect(stack, ["-P", "-m", "symfind.cli", "mcp", "--repo", str(repo), "--no-index"])
        answers: dict[str, Answer] = {}
        for query in queries:  # records the canned answers, and warms up
            result = await symfind.call_tool("codebase_search", arguments(query))
            if result.is_error:  # e.g. a name with nothing searchable in it: still timed
                print(f"error for {query!r}: {result.content[0]}", file=sys.stderr)
                continue
            text = result.content[0]
            assert isinstance(text, TextContent) and result.structured_content is not None
            answers[query] = Answer(text=text.text, structured=result.structured_content)
        answers_path = scratch / "answers.json"
        answers_path.write_bytes(msgspec.json.encode(answers))
        floor = await connect(stack, ["-m", "bench.mcp_bench", "--serve-floor", str(answers_path)])
        measured = [q for q in queries if q in answers]
        calls: dict[str, Callable[[str], Awaitable[CallToolResult]]] = {
            "codebase_search": lambda q: symfind.call_tool("codebase_search", arguments(q)),
            "canned_search": lambda q: floor.call_tool("canned_search", arguments(q)),
            "noop": lambda q: floor.call_tool("noop", {}),
        }
        for query in measured[:WARMUP]:
            for name in TOOLS:
                await calls[name](query)
        times: dict[str, list[float]] = {name: [] for name in TOOLS}
        took: list[float] = []
        for i, query in enumerate(measured):
            order = TOOLS[i % 3:] + TOOLS[: i % 3]
            for name in order:
                ms, result = await timed(lambda: calls[name](query))  # noqa: B023
                times[name].append(ms)
                if name == "codebase_search" and isinstance(result.structured_content, dict):
                    took.append(float(result.structured_content["took_ms"]))
        return Run(times=times, took_ms=took)


def pick_queries(repo: Path, count: int) -> list[str]:
    """Names spread evenly over the index (by path, line, name)."""
    symbols = Searcher(index_dir_for(repo)).all_symbols()
    return [s.name for s in symbols[:: max(1, len(symbols) // count)]][:count]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * len(ordered))]


def summary(values: list[float]) -> str:
    return f"p50 {statistics.median(values):5.1f} ms, p95 {p95(values):5.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("repo", type=Path, nargs="?")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--serve-floor", type=Path, metavar="ANSWERS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_floor:
        serve_floor(args.serve_floor)
        return
    if args.repo is None:
        parser.error("REPO is required")
    repo = args.repo.resolve()
    subprocess.run([sys.executable, "-P", "-m", "symfind.cli", "index", str(repo)], check=True,
                   capture_output=True)
    queries = pick_queries(repo, args.queries)
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="mcp-bench-") as scratch:
        for number in range(1, args.runs + 1):
            run = anyio.run(measure, repo, queries, Path(scratch))
            runs.append(run)
            ours, noop = run.times["codebase_search"], run.times["noop"]
            print(f"run {number}: " + "; ".join(
                f"{name} {summary(run.times[name])}" for name in TOOLS
            ) + f"; ratio {statistics.median(ours) / statistics.median(noop):.1f}x noop; "
                f"search in server p50 {statistics.median(run.took_ms):.2f} ms", flush=True)
    print(f"`python -m bench.mcp_bench {args.repo} --queries {args.queries} --runs {args.runs}`: "
          f"{len(runs[0].times['noop'])} warm calls per tool and run over stdio, medians of "
          f"{len(runs)} runs:")
    for name in TOOLS:
        p50s = [statistics.median(run.times[name]) for run in runs]
        p95s = [p95(run.times[name]) for run in runs]
        print(f"  {name:16} p50 {statistics.median(p50s):5.1f} ms, p95 {statistics.median(p95s):5.1f} ms")
    ratio = statistics.median(
        statistics.median(run.times["codebase_search"]) / statistics.median(run.times["noop"])
        for run in runs
    )
    print(f"  codebase_search p50 / noop p50: {ratio:.1f}x")


if __name__ == "__main__":
    main()
