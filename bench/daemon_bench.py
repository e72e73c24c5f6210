"""Daemon benchmarks: save → searchable latency, branch switch, idle cost, socket overhead.

Usage:
    python -m bench.daemon_bench CORPUS_DIR [--edits 200] [--switch-files 5000] [--idle-s 10]

CORPUS_DIR is a directory of real code (see bench/corpora.py); it is copied to a temp
dir first and never modified. Every figure is printed as Markdown with the command line.
The daemon runs as a separate process (`python -m daemon daemon run`), as users run it.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from daemon.client import request
from daemon.protocol import SearchReply, SearchRequest, StatusReply, StatusRequest
from storage import Searcher, index_dir_for

ROOT = Path(__file__).resolve().parents[1]
_TICKS = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def status(index_dir: Path):  # noqa: ANN201
    reply = request(index_dir, StatusRequest(), timeout_s=30)
    return reply.status if isinstance(reply, StatusReply) else None


def wait(index_dir: Path, predicate, timeout_s: float = 1800.0) -> float:  # noqa: ANN001
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        current = status(index_dir)
        if current is not None and predicate(current):
            return time.monotonic() - started
        time.sleep(0.01)
    raise TimeoutError("daemon never reached the expected state")


def idle(s) -> bool:  # noqa: ANN001
    return s.state == "idle" and s.pending == 0


def source_files(repo: Path) -> list[Path]:
    return sorted(p for p in repo.rglob("*") if p.suffix in {".py", ".go", ".rs", ".c", ".h",
                                                              ".ts", ".js", ".java", ".rb", ".php"})


def save_latency(repo: Path, index_dir: Path, edits: int) -> list[float]:
    """Append a new definition to a random file; poll search until it is found."""
    rng = random.Random(1)
    files = [p for p in source_files(repo) if p.suffix == ".py"] or source_files(repo)
    latencies = []
    for i in range(edits):
        path = rng.choice(files)
        name = f"symfind_probe_{i}_{rng.randrange(10**9)}"
        started = time.monotonic()
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"\n\ndef {name}():\n    pass\n")
        while True:
            reply = request(index_dir, SearchRequest(query=name, limit=1))
            if isinstance(reply, SearchReply) and reply.response.results and \
                    reply.response.results[0].name == name:
                break
            time.sleep(0.002)
        latencies.append((time.monotonic() - started) * 1000)
    return latencies


def branch_switch(repo: Path, index_dir: Path, count: int, pid: int) -> tuple[float, int, int]:
    """Rewrite `count` files at once (new content), as a checkout does; time to consistent."""
    files = source_files(repo)[:count]
    peak = rss_kib(pid)
    started = time.monotonic()
    for n, path in enumerate(files):
        data = path.read_bytes()
        path.write_bytes(data + f"\n# switched {n}\n".encode())
    generation = status(index_dir).generation  # type: ignore[union-attr]
    while True:
        current = status(index_dir)
        peak = max(peak, rss_kib(pid))
        if current is not None and idle(current) and current.generation > generation:
            # consistent once every rewritten file's digest is in the manifest
            manifest = Searcher(index_dir).manifest
            if all(manifest.files.get(p.relative_to(repo).as_posix()) is None or
                   manifest.files[p.relative_to(repo).as_posix()].mtime_ns == p.stat().st_mtime_ns
                   for p in files):
                break
        time.sleep(0.01)
    return time.monotonic() - started, len(files), peak


def query_latency(index_dir: Path, names: list[str]) -> tuple[list[float], list[float]]:
    socket_ms, direct_ms = [], []
    searcher = Searcher(index_dir)
    for name in names * 3:
        started = time.perf_counter()
        request(index_dir, SearchRequest(query=name, limit=10))
        socket_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        searcher.search(name, limit=10)
        direct_ms.append((time.perf_counter() - started) * 1000)
    return socket_ms, direct_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--switch-files", type=int, default=5000)
    parser.add_argument("--idle-s", type=float, default=10.0)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="symfind-daemon-bench-"))
    repo = work / "repo"
    shutil.copytree(args.corpus, repo, symlinks=True)
    repo = repo.resolve()
    os.environ["SYMFIND_INDEX_DIR"] = str(work / "indexes")
    index_dir = index_dir_for(repo)
    daemon = subprocess.Popen(
        [sys.executable, "-P", "-m", "daemon", "daemon", "run", str(repo)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy(),
    )
    try:
        startup = wait(index_dir, idle)
        current = status(index_dir)
        print(f"corpus {args.corpus}: {current.files} files, {current.symbols} symbols; "  # type: ignore[union-attr]
              f"initial catch-up {startup:.1f} s")

        cpu_before = cpu_seconds(daemon.pid)
        time.sleep(args.idle_s)
        idle_cpu = (cpu_seconds(daemon.pid) - cpu_before) / args.idle_s * 100
        print(f"idle: {idle_cpu:.2f} % CPU over {args.idle_s:.0f} s, RSS {rss_kib(daemon.pid) / 1024:.0f} MiB")

        latencies = save_latency(repo, index_dir, args.edits)
        print(f"save → searchable over {len(latencies)} edits: p50 {percentile(latencies, .5):.0f} ms, "
              f"p95 {percentile(latencies, .95):.0f} ms, max {max(latencies):.0f} ms")

        names = [s.name for s in Searcher(index_dir).all_symbols()[:: max(1, current.symbols // 100)]][:100]  # type: ignore[union-attr]
        socket_ms, direct_ms = query_latency(index_dir, names)
        print(f"warm query: socket p50 {statistics.median(socket_ms):.2f} ms (p95 "
              f"{percentile(socket_ms, .95):.2f}), in-process p50 {statistics.median(direct_ms):.2f} ms "
              f"(p95 {percentile(direct_ms, .95):.2f}); socket adds "
              f"{statistics.median(socket_ms) - statistics.median(direct_ms):.2f} ms at p50")

        seconds, count, peak = branch_switch(repo, index_dir, args.switch_files, daemon.pid)
        print(f"branch switch: {count} files rewritten → consistent in {seconds:.1f} s; "
              f"daemon RSS peak {peak / 1024:.0f} MiB, after {rss_kib(daemon.pid) / 1024:.0f} MiB")
    finally:
        daemon.terminate()
        daemon.wait(timeout=120)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
