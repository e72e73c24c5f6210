"""`symfind serve` under load: many clients searching at once while files change, beside
the same searches over stdio; bounded, and it stops by itself.

Usage: python -m bench.serve_bench REPO [--clients 50] [--seconds 60] [--queries 200]
       [--edit-every 0.5] [--edits add|replace] [--only http|stdio]

REPO is copied into a scratch directory (its files are edited), indexed there
(`symfind index`), and a token is made (`symfind token create`, in a scratch config dir).
Then two phases of `--seconds` each, one after the other, with the same queries (names
spread over the index), each client going through them from its own offset:

- `http`: `symfind serve --repo COPY --port 0` (one process, uvicorn, the daemon it starts
  keeping the index fresh); `--clients` clients, each with its own connections and MCP
  session, each calling `codebase_search` as fast as answers come;
- `stdio`: `symfind mcp --repo COPY`, the same number of callers sharing its one session
  (a stdio server has one client; its requests run concurrently there as over HTTP).

The clients speak JSON-RPC themselves (httpx2 for HTTP, the pipes for stdio; the
2025-11-25 handshake, then `tools/call`), as light as a client gets: the SDK's own Python
client checks every answer against the tool's output schema, which costs more CPU than
the server's search, and on 2 cores would measure itself.

Meanwhile a writer edits one of a few files of the copy every `--edit-every` seconds, so
the daemon commits and every search reloads: `--edits add` appends a new function each
time (the index grows with every edit), `--edits replace` rewrites the file as it was
plus one function of a new name (the index keeps its size, as while someone works). Every call is
timed (client send → parsed answer) and checked: an exception, an HTTP error, a JSON-RPC
error, an `isError` answer or an answer without results is a failed request (so is an
ERROR line in serve's log). The server's resident memory (serve's own process, then the
stdio server's) is sampled every second, also split into anonymous memory (heap, stacks)
and mapped files (index segments, libraries), and each one's growth per minute after the
first minute (a least-squares slope) reported. The clients all run in this process, on the
same 2 cores as the server: throughput is that of the whole machine. Prints one line per
phase and a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
import psutil

from symfind.storage import Searcher, index_dir_for

START_TIMEOUT_S = 120.0
SERVING = re.compile(r"symfind: serving .* at (https?://\S+) \(Ctrl-C stops\)")
EDITED_FILES = 4
#: RSS samples of the first minute (sessions opening, the index and caches filling) are
#: left out of the growth rate.
WARM_UP_S = 60.0


@dataclass
class Phase:
    """What one phase measured."""

    name: str
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    #: The same samples split: the process's own heap and stacks (anonymous), and the
    #: pages of mapped files (the index's segments, the libraries) that the kernel can
    #: drop and read again whenever it needs the memory.
    anon_mb: list[float] = field(default_factory=list)
    file_mb: list[float] = field(default_factory=list)
    edits: int = 0

    def rss_slope(self, samples: list[float] | None = None) -> float | None:
        """The server's growth in MB per minute after WARM_UP_S (least squares over the
        samples, one a second): the first seconds open sessions, the index and caches."""
        later = (self.rss_mb if samples is None else samples)[int(WARM_UP_S):]
        if len(later) < 2:
            return None
        fit = statistics.linear_regression(range(len(later)), later)
        return round(fit.slope * 60, 3)

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.latencies_ms)

        def pct(p: float) -> float | None:  # None: no call answered
            if not ordered:
                return None
            return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 1)

        tenth = max(1, len(self.rss_mb) // 10)
        return {
            "phase": self.name, "seconds": round(self.seconds, 1), "calls": len(ordered),
            "failed": len(self.failures), "first_failures": self.failures[:5],
            "calls_per_s": round(len(ordered) / self.seconds, 1) if self.seconds else 0.0,
            "p50_ms": pct(0.50), "p95_ms": pct(0.95), "p99_ms": pct(0.99),
            "max_ms": pct(1.0),
            "rss_mb_first_tenth": round(statistics.median(self.rss_mb[:tenth]), 1),
            "rss_mb_last_tenth": round(statistics.median(self.rss_mb[-tenth:]), 1),
            "rss_mb_max": round(max(self.rss_mb), 1), "edits": self.edits,
            "rss_mb_per_min_after_warm_up": self.rss_slope(),
            "anon_mb_per_min_after_warm_up": self.rss_slope(self.anon_mb),
            "file_mb_per_min_after_warm_up": self.rss_slope(self.file_mb),
            "anon_mb_every_60_s": [round(mb, 1) for mb in self.anon_mb[::60]],
            "file_mb_every_60_s": [round(mb, 1) for mb in self.file_mb[::60]],
            "rss_mb_every_60_s": [round(mb, 1) for mb in self.rss_mb[::60]],
            "rss_mb_every_10_s": [round(mb, 1) for mb in self.rss_mb[::10]],
        }


def symfind(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "symfind.cli", *args], env=env,
                          capture_output=True, text=True, check=True)


def pick_queries(repo: Path, count: int) -> list[str]:
    """Names spread evenly over the index (by path, line, name)."""
    symbols = Searcher(index_dir_for(repo)).all_symbols()
    return [s.name for s in symbols[:: max(1, len(symbols) // count)]][:count]


async def caller(search: Callable[[str], Awaitable[dict[str, Any]]], queries: list[str],
                 offset: int, deadline: float, phase: Phase) -> None:
    """Search `queries` round from `offset` until `deadline`, timing and checking each call."""
    i = offset
    while time.monotonic() < deadline:
        query = queries[i % len(queries)]
        i += 1
        started = time.perf_counter()
        try:
            answer = await search(query)
        except Exception as exc:  # noqa: BLE001  # a failed request, counted and named
            phase.failures.append(f"{query!r}: {type(exc).__name__}: {exc}")
            continue
        elapsed = (time.perf_counter() - started) * 1000
        result = answer.get("result") or {}
        if "error" in answer or result.get("isError") or not (
                result.get("structuredContent") or {}).get("results"):
            phase.failures.append(f"{query!r}: {json.dumps(answer)[:300]}")
            continue
        phase.latencies_ms.append(elapsed)


async def writer(copy: Path, deadline: float, every_s: float, phase: Phase,
                 replace: bool) -> None:
    """Edit one of a few files of the copy every `every_s`: a new function appended, or
    (`replace`) the file as it was with one function of a new name."""
    files = sorted(copy.rglob("*.py"))[:EDITED_FILES]
    originals = {target: target.read_text(encoding="utf-8") for target in files}
    while time.monotonic() < deadline:
        target = files[phase.edits % len(files)]
        function = f"\n\ndef bench_edit_{phase.name}_{phase.edits}():\n    return {phase.edits}\n"
        if replace:
            target.write_text(originals[target] + function, encoding="utf-8")
        else:
            with open(target, "a", encoding="utf-8") as out:
                out.write(function)
        phase.edits += 1
        await anyio.sleep(min(every_s, max(0.0, deadline - time.monotonic())))


async def sampler(pid: int, deadline: float, phase: Phase) -> None:
    process = psutil.Process(pid)
    while time.monotonic() < deadline:
        phase.rss_mb.append(process.memory_info().rss / 2**20)
        anon, file = resident_split(pid)
        phase.anon_mb.append(anon)
        phase.file_mb.append(file)
        await anyio.sleep(1.0)


def resident_split(pid: int) -> tuple[float, float]:
    """A process's resident MB: anonymous (`RssAnon`) and file-backed (`RssFile`), from
    /proc (Linux)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("RssAnon", "RssFile"):
            fields[name] = int(value.split()[0]) / 1024
    return fields.get("RssAnon", 0.0), fields.get("RssFile", 0.0)


async def run_phase(phase: Phase, calls: list[Callable[[str], Awaitable[dict[str, Any]]]], pid: int,
                    queries: list[str], copy: Path, args: argparse.Namespace) -> None:
    print(f"{phase.name}: {len(calls)} callers for {args.seconds:g} s", file=sys.stderr,
          flush=True)
    started = time.monotonic()
    deadline = started + args.seconds
    step = max(1, len(queries) // len(calls))
    async with anyio.create_task_group() as group:
        group.start_soon(writer, copy, deadline, args.edit_every, phase, args.edits == "replace")
        group.start_soon(sampler, pid, deadline, phase)
        for n, call in enumerate(calls):
            group.start_soon(caller, call, queries, n * step, deadline, phase)
    phase.seconds = time.monotonic() - started


class HttpSession:
    """One MCP session over Streamable HTTP, spoken with plain httpx2: initialize, then
    `tools/call` POSTs, each answered on its own SSE stream."""

    def __init__(self, url: str, http: httpx2.AsyncClient) -> None:
        self.url, self.http, self.headers, self.ids = url, http, dict(ACCEPT), 0

    async def open(self) -> None:
        answer = await self.http.post(self.url, json=INITIALIZE, headers=self.headers)
        answer.raise_for_status()
        self.headers["mcp-session-id"] = answer.headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = PROTOCOL_VERSION
        done = await self.http.post(self.url, json=INITIALIZED, headers=self.headers)
        done.raise_for_status()

    async def search(self, query: str) -> dict[str, Any]:
        self.ids += 1
        answer = await self.http.post(self.url, json=call(self.ids, query), headers=self.headers)
        answer.raise_for_status()
        if answer.headers.get("content-type", "").startswith("application/json"):
            return answer.json()
        return _from_sse(answer.text)


def _from_sse(text: str) -> dict[str, Any]:
    """The JSON-RPC response an SSE stream carries (its `data:` line)."""
    for line in text.splitlines():
        if line.startswith("data: "):
            return json.loads(line[6:])
    raise ValueError(f"no data in the answer: {text[:200]!r}")


class StdioSession:
    """One MCP session over a stdio server's pipes, spoken as newline-delimited JSON-RPC;
    any number of callers share it (answers are matched to calls by id)."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        self.ids = 0
        self.waiting: dict[int, tuple[anyio.Event, list[dict[str, Any]]]] = {}

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send((json.dumps(message) + "\n").encode())

    async def read_answers(self) -> None:
        assert self.process.stdout is not None
        buffered = b""
        async for chunk in self.process.stdout:
            buffered += chunk
            *lines, buffered = buffered.split(b"\n")
            for line in lines:
                message = json.loads(line)
                event, box = self.waiting.pop(message.get("id"), (None, None))
                if event is not None and box is not None:
                    box.append(message)
                    event.set()

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        event, box = anyio.Event(), []
        self.waiting[message["id"]] = (event, box)
        await self.send(message)
        await event.wait()
        return box[0]

    async def search(self, query: str) -> dict[str, Any]:
        self.ids += 1
        return await self.request(call(self.ids, query))


PROTOCOL_VERSION = "2025-11-25"
ACCEPT = {"accept": "application/json, text/event-stream"}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
    "clientInfo": {"name": "serve_bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(request_id: int, query: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
        "name": "codebase_search", "arguments": {"query": query, "limit": 10}}}


async def http_phase(copy: Path, token: str, queries: list[str], env: dict[str, str],
                     scratch: Path, args: argparse.Namespace) -> Phase:
    phase = Phase("http")
    log = scratch / "serve.log"
    with open(log, "wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "-P", "-m", "symfind.cli", "serve", "--repo", str(copy),
             "--port", "0"], env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while (found := SERVING.search(log.read_text(encoding="utf-8", errors="replace"))) is None:
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"symfind serve did not start:\n{log.read_text()}")
            await anyio.sleep(0.1)
        async with AsyncExitStack() as stack:
            sessions = []
            for _ in range(args.clients):  # each its own connections and session
                http = await stack.enter_async_context(httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {token}"}, timeout=120.0))
                sessions.append(HttpSession(found.group(1), http))
                await sessions[-1].open()
            await run_phase(phase, [s.search for s in sessions], server.pid, queries, copy, args)
    finally:
        server.send_signal(2)
        server.wait(timeout=60)
        errors = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
                  if line.startswith(("ERROR", "Traceback"))]
        phase.failures += [f"server log: {line}" for line in errors]
    return phase


async def stdio_phase(copy: Path, queries: list[str], env: dict[str, str],
                      args: argparse.Namespace) -> Phase:
    phase = Phase("stdio")
    command = [sys.executable, "-P", "-m", "symfind.cli", "mcp", "--repo", str(copy)]
    async with await anyio.open_process(command, env=env, stderr=subprocess.DEVNULL) as process:
        session = StdioSession(process)
        async with anyio.create_task_group() as group:
            group.start_soon(session.read_answers)
            await session.request(INITIALIZE)
            await session.send(INITIALIZED)
            await run_phase(phase, [session.search] * args.clients, process.pid, queries, copy,
                            args)
            assert process.stdin is not None
            await process.stdin.aclose()  # the server exits at EOF
    return phase


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--edit-every", type=float, default=0.5, metavar="SECONDS")
    parser.add_argument("--edits", choices=["add", "replace"], default="add",
                        help="append a new function each edit, or rewrite the file with one")
    parser.add_argument("--only", choices=["http", "stdio"], help="run one phase only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="serve-bench-") as scratch_dir:
        scratch = Path(scratch_dir)
        copy = scratch / "repo"
        shutil.copytree(args.repo, copy, symlinks=True)
        (copy / ".git").mkdir(exist_ok=True)  # a repository root of its own
        env = {**os.environ, "SYMFIND_INDEX_DIR": str(scratch / "indexes"),
               "SYMFIND_CONFIG_DIR": str(scratch / "config"), "SYMFIND_DAEMON_LEASE": "30"}
        os.environ.update(env)
        copy = copy.resolve()
        try:
            symfind("index", str(copy), env=env)
            token = symfind("token", "create", "bench", env=env).stdout.strip()
            queries = pick_queries(copy, args.queries)
            phases = []
            if args.only in (None, "http"):
                phases.append(anyio.run(http_phase, copy, token, queries, env, scratch, args))
            if args.only in (None, "stdio"):
                phases.append(anyio.run(stdio_phase, copy, queries, env, args))
        finally:
            subprocess.run([sys.executable, "-P", "-m", "symfind.cli", "daemon", "stop",
                            str(copy)], env=env, capture_output=True, check=False)
    load = os.getloadavg()
    summaries = [p.summary() for p in phases]
    for s in summaries:
        print(f"{s['phase']:5}: {s['calls']} calls in {s['seconds']} s = {s['calls_per_s']}/s, "
              f"p50 {s['p50_ms']} ms, p95 {s['p95_ms']} ms, p99 {s['p99_ms']} ms, max "
              f"{s['max_ms']} ms; {s['failed']} failed; server RSS {s['rss_mb_first_tenth']} → "
              f"{s['rss_mb_last_tenth']} MB (max {s['rss_mb_max']}, "
              f"{s['rss_mb_per_min_after_warm_up']} MB/min after the first minute: "
              f"{s['anon_mb_per_min_after_warm_up']} anonymous, "
              f"{s['file_mb_per_min_after_warm_up']} mapped files); "
              f"{s['edits']} edits")
    print(json.dumps({"command": " ".join(["python -m bench.serve_bench", *sys.argv[1:]]),
                      "load_average_after": [round(x, 2) for x in load], "phases": summaries},
                     indent=2))


if __name__ == "__main__":
    main()
