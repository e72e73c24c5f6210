"""`daemon run`'s catch-up against `symfind index` of the same files (issue 14, goal 3).

Usage:
    python -m bench.catch_up CORPUS_DIR [--runs 3] [--poll-s 0.01]

Each run times both, in alternating order (the index first on odd runs, the catch-up
first on even runs, so that a drift in the machine's load falls on both):

- `symfind index --force` into a fresh index base, with its process tree's peak RSS;
- `symfind daemon run --force` on a fresh index base, from its start until its status
  says idle with nothing pending (asked through the socket every `--poll-s` seconds),
  with the daemon tree's peak RSS. Memory is sampled as for the index, every
  `bench.kernel.POLL_S` seconds whatever `--poll-s` says: reading /proc/PID/smaps_rollup
  walks the process's page tables, and every 10 ms it made the kernel's catch-up 15 %
  slower (bench/history/speed.md, "Speed to the limit, session 20"); status requests every
  10 ms cost nothing measurable.

The corpus is read in place and never modified. Prints Markdown: each run, the medians,
and the median of the per-run ratios (catch-up / index).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import tools
from bench.daemon_bench import idle, load, note, status
from bench.kernel import POLL_S as MEMORY_POLL_S
from bench.kernel import run_measured, tree_memory_kib
from symfind.storage import index_dir_for

STATUS_POLL_S = 0.01
TIMEOUT_S = 3600.0


def index_run(repo: Path, index_base: Path) -> tuple[float, int]:
    """`symfind index` into `index_base`: wall seconds and the tree's peak RSS (KiB)."""
    measured = run_measured([*tools.symfind_command(), "index", "--force", str(repo)],
                            env=tools.symfind_env(index_base))
    return measured.seconds, measured.peak_tree_rss_kib


def catch_up_run(repo: Path, index_base: Path, log: Path,
                 poll_s: float) -> tuple[float, int, int]:
    """A daemon on an empty index until it is idle: wall seconds, the tree's peak RSS
    (KiB) and the files it reports."""
    env = tools.symfind_env(index_base)
    index_dir = index_base / index_dir_for(repo).name
    started = time.monotonic()
    with open(log, "wb") as stderr:
        daemon = subprocess.Popen(
            [*tools.symfind_command(), "-v", "daemon", "run", "--force", str(repo)],
            stdout=subprocess.DEVNULL, stderr=stderr, env=env)
    peak = 0
    next_memory = next_status = started
    try:
        while True:
            now = time.monotonic()
            if now >= next_memory:
                if daemon.poll() is not None:
                    raise RuntimeError(f"the daemon exited with {daemon.returncode}; see {log}")
                peak = max(peak, tree_memory_kib(daemon.pid)[0])
                next_memory = now + MEMORY_POLL_S
            if now >= next_status:
                current = status(index_dir)
                if current is not None and idle(current):
                    return time.monotonic() - started, peak, current.files
                next_status = now + poll_s
            if now - started > TIMEOUT_S:
                raise TimeoutError(f"no idle daemon after {TIMEOUT_S:.0f} s; see {log}")
            time.sleep(max(min(next_memory, next_status) - time.monotonic(), 0))
    finally:
        daemon.terminate()
        daemon.wait(timeout=300)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--poll-s", type=float, default=STATUS_POLL_S,
                        help="seconds between status requests during the catch-up")
    args = parser.parse_args(argv)
    repo = args.corpus.resolve()
    load_before = load()
    work = Path(tempfile.mkdtemp(prefix="symfind-catch-up-"))
    rows = []
    try:
        for run in range(1, args.runs + 1):
            order = ("index", "catch-up") if run % 2 else ("catch-up", "index")
            row: dict = {"run": run, "order": " then ".join(order)}
            for what in order:
                base = work / f"{what}-{run}"
                if what == "index":
                    row["index_s"], row["index_rss"] = index_run(repo, base)
                else:
                    row["catch_up_s"], row["catch_up_rss"], row["files"] = catch_up_run(
                        repo, base, work / f"daemon-{run}.log", args.poll_s)
                shutil.rmtree(base, ignore_errors=True)
            row["ratio"] = row["catch_up_s"] / row["index_s"]
            note(f"run {run}: {row}")
            rows.append(row)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = [f"`python -m bench.catch_up {' '.join(argv)}`, {time.strftime('%Y-%m-%d %H:%M')}"
             f" UTC, load {load_before} before, {load()} after", "",
             "| run | order | files | symfind index (s) | peak RSS (MiB) | daemon catch-up (s) "
             "| peak RSS (MiB) | catch-up / index |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['run']} | {r['order']} | {r['files']} | {r['index_s']:.1f} "
                     f"| {r['index_rss'] / 1024:.0f} | {r['catch_up_s']:.1f} "
                     f"| {r['catch_up_rss'] / 1024:.0f} | {r['ratio']:.3f} |")

    def median(key: str) -> float:
        return statistics.median(r[key] for r in rows)

    lines.append(f"| median | | | {median('index_s'):.1f} | {median('index_rss') / 1024:.0f} "
                 f"| {median('catch_up_s'):.1f} | {median('catch_up_rss') / 1024:.0f} "
                 f"| {median('ratio'):.3f} |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
