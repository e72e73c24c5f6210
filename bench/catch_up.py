"""`daemon run`'s catch-up against `symfind index` of the same files (issue 14, goal 3).

Usage:
    python -m bench.catch_up CORPUS_DIR [--runs 3]

Each run times both, in alternating order (the index first on odd runs, the catch-up
first on even runs, so that a drift in the machine's load falls on both):

- `symfind index --force` into a fresh index base, with its process tree's peak RSS;
- `symfind daemon run --force` on a fresh index base, from its start until its status
  says idle with nothing pending, with the daemon tree's peak RSS. The status is asked
  through the socket every POLL_S seconds: a poll every 10 ms, as bench.freshness makes
  for its edits, is a hundred requests a second that the daemon's main process answers
  while it indexes.

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
from bench.kernel import run_measured, tree_memory_kib
from symfind.storage import index_dir_for

POLL_S = 0.5
TIMEOUT_S = 3600.0


def index_run(repo: Path, index_base: Path) -> tuple[float, int]:
    """`symfind index` into `index_base`: wall seconds and the tree's peak RSS (KiB)."""
    measured = run_measured([*tools.symfind_command(), "index", "--force", str(repo)],
                            env=tools.symfind_env(index_base))
    return measured.seconds, measured.peak_tree_rss_kib


def catch_up_run(repo: Path, index_base: Path, log: Path) -> tuple[float, int, int]:
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
    try:
        while True:
            if daemon.poll() is not None:
                raise RuntimeError(f"the daemon exited with {daemon.returncode}; see {log}")
            peak = max(peak, tree_memory_kib(daemon.pid)[0])
            current = status(index_dir)
            if current is not None and idle(current):
                return time.monotonic() - started, peak, current.files
            if time.monotonic() - started > TIMEOUT_S:
                raise TimeoutError(f"no idle daemon after {TIMEOUT_S:.0f} s; see {log}")
            time.sleep(POLL_S)
    finally:
        daemon.terminate()
        daemon.wait(timeout=300)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--runs", type=int, default=3)
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
                        repo, base, work / f"daemon-{run}.log")
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
