"""How long `symfind mcp` takes to answer `initialize` from a cold process, against the
smallest stdio server the MCP SDK makes, measured in the same run.

Usage: python -m bench.mcp_start [REPO] [--runs 5] [--symfind CMD]

Indexes REPO (default: a copy of tests/fixtures/repo) and starts its daemon first (so that
no run starts one), then starts, alternately, `--runs` times each:

- `symfind`: `symfind mcp --repo REPO` (the console script next to this interpreter, or
  CMD, split by the shell's rules, with `--repo REPO` appended);
- `floor`: `python -m bench.mcp_start --serve-floor`, an `MCPServer` of the same SDK with
  one tool that returns a constant.

Each time is process start → the `initialize` answer read on its stdout (one JSON-RPC line
written to its stdin at once, as hosts do); then stdin is closed and the process waited
for. Prints each time, the medians and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CHECKOUT = Path(__file__).resolve().parents[1]
FIXTURE_REPO = CHECKOUT / "tests" / "fixtures" / "repo"
INITIALIZE = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "mcp_start", "version": "0"}},
}


def serve_floor() -> None:
    """The floor: the SDK's smallest stdio server, one tool."""
    from mcp.server.mcpserver import MCPServer

    server: MCPServer[Any] = MCPServer(name="floor", log_level="WARNING")

    @server.tool(name="noop")
    def noop() -> str:
        return "ok"

    server.run("stdio")


def time_initialize(command: list[str], env: dict[str, str]) -> float:
    """Milliseconds from starting `command` to reading its answer to `initialize`."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=env, cwd=CHECKOUT)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE).encode("utf-8") + b"\n")
    process.stdin.flush()
    line = process.stdout.readline()
    elapsed = (time.perf_counter() - started) * 1000
    process.stdin.close()
    process.wait(timeout=60)
    answer = json.loads(line)
    if answer.get("id") != 0 or "result" not in answer:
        raise SystemExit(f"{command}: no answer to initialize: {line!r}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("repo", type=Path, nargs="?")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--symfind", metavar="CMD",
                        help="the command that serves on stdio (default: `symfind mcp`)")
    parser.add_argument("--serve-floor", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_floor:
        serve_floor()
        return
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="mcp-start-") as scratch:
        env["SYMFIND_INDEX_DIR"] = str(Path(scratch) / "indexes")
        if args.repo is None:
            repo = Path(scratch) / "repo"
            shutil.copytree(FIXTURE_REPO, repo)
            (repo / ".git").mkdir()
        else:
            repo = args.repo.resolve()
        script = Path(sys.executable).parent / "symfind"
        subprocess.run([str(script), "index", str(repo)], check=True, capture_output=True,
                       env=env)
        # A daemon already keeps the index fresh, as when a host restarts its server: no
        # run starts one (nor waits for one another run started).
        subprocess.run([str(script), "daemon", "start", str(repo)], check=True,
                       capture_output=True, env=env)
        ours = [*(shlex.split(args.symfind) if args.symfind else [str(script), "mcp"]),
                "--repo", str(repo)]
        floor = [sys.executable, "-m", "bench.mcp_start", "--serve-floor"]
        times: dict[str, list[float]] = {"symfind": [], "floor": []}
        try:
            for number in range(args.runs):
                order = [("symfind", ours), ("floor", floor)]
                for name, command in order if number % 2 == 0 else order[::-1]:
                    times[name].append(time_initialize(command, env))
        finally:
            subprocess.run([str(script), "daemon", "stop", str(repo)], check=False,
                           capture_output=True, env=env)
        report(times, ours)


def report(times: dict[str, list[float]], ours: list[str]) -> None:
    for name, values in times.items():
        print(f"{name:8} initialize: median {statistics.median(values):6.1f} ms "
              f"(runs: {', '.join(f'{v:.0f}' for v in values)})")
    ratio = statistics.median(times["symfind"]) / statistics.median(times["floor"])
    print(f"symfind / floor: {ratio:.2f}x ({' '.join(shlex.quote(part) for part in ours)})",
          flush=True)


if __name__ == "__main__":
    main()
