"""A daemon's first search and first save: what a user meets right after `daemon start`.

Usage:
    python -m bench.first_use CORPUS_DIR [CORPUS_DIR ...] [--runs 3] [--python PATH]

For each run and corpus: a fresh copy, indexed by `symfind index` (so the daemon's
catch-up extracts nothing), then `daemon run` on it; once it is idle and 5 s more, one
search through its socket (timed), then a definition appended to a file and searched for
until found (timed), then a second search. Also the daemon's RSS before the first search.
`--python` runs the index and the daemon with another checkout's interpreter, to compare
two versions in one run (runs alternate between them when given as `--python A,B`).

Prints Markdown with the command line and the load before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.daemon_bench import _PROBES, idle, load, note, probe_files, wait
from symfind.daemon.client import socket_path
from symfind.daemon.protocol import SearchReply, SearchRequest, receive_reply, send_request
from symfind.storage import SearchQuery, index_dir_for

TIMEOUT_S = 120.0
SETTLE_S = 5.0  # a user arrives a moment after `daemon start` returns


def _rss_mib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def measure(python: str, corpus: Path, work: Path, rng: random.Random) -> dict[str, float]:
    """One fresh copy of `corpus`, its daemon, and the three timings."""
    repo = work / "repo"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(corpus, repo, symlinks=True)
    repo = repo.resolve()
    env = {**os.environ, "SYMFIND_INDEX_DIR": str(work / "indexes")}
    os.environ["SYMFIND_INDEX_DIR"] = env["SYMFIND_INDEX_DIR"]
    subprocess.run([python, "-P", "-m", "symfind.cli", "index", str(repo)], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    index_dir = index_dir_for(repo)
    daemon = subprocess.Popen([python, "-P", "-m", "symfind.cli", "daemon", "run", str(repo)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait(index_dir, idle)
        time.sleep(SETTLE_S)
        rss = _rss_mib(daemon.pid)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.connect(str(socket_path(index_dir)))

            def search(text: str) -> tuple[float, object]:
                started = time.monotonic()
                send_request(connection, SearchRequest(SearchQuery(text=text, limit=1)))
                reply = receive_reply(connection)
                return (time.monotonic() - started) * 1000, reply

            first, _ = search("main")
            path = rng.choice(probe_files(repo))
            name = f"SymfindFirstUse{rng.randrange(10**9)}"
            started = time.monotonic()
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(_PROBES[path.suffix].format(name=name))
            while True:
                _, reply = search(name)
                if (isinstance(reply, SearchReply) and reply.response.results
                        and reply.response.results[0].name == name):
                    break
                if time.monotonic() - started > TIMEOUT_S:
                    raise TimeoutError(f"{name} appended to {path} never became searchable")
                time.sleep(0.002)
            save = (time.monotonic() - started) * 1000
            second, _ = search("main")
    finally:
        daemon.terminate()
        daemon.wait(timeout=300)
    return {"first": first, "save": save, "second": second, "rss": rss,
            "file": str(path.relative_to(repo))}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter(s) running symfind, comma-separated to compare")
    args = parser.parse_args(argv)
    pythons = args.python.split(",")
    load_before = load()
    work = Path(tempfile.mkdtemp(prefix="symfind-first-use-"))
    figures: dict[tuple[str, str], list[dict[str, float]]] = {}
    try:
        for run in range(args.runs):
            for corpus in args.corpora:
                for python in pythons:
                    rng = random.Random(f"{corpus.name}-{run}")  # the same file for each python
                    result = measure(python, corpus, work / "copy", rng)
                    note(f"{corpus.name} {python}: {result}")
                    figures.setdefault((corpus.name, python), []).append(result)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = [f"`python -m bench.first_use {' '.join(argv)}`, {time.strftime('%Y-%m-%d %H:%M')}"
             f" UTC, load {load_before} before, {load()} after; medians of {args.runs} runs", "",
             "| repository | python | first search (ms) | first save → searchable (ms) "
             "| second search (ms) | RSS when ready (MiB) |", "|---|---|---:|---:|---:|---:|"]
    for (corpus, python), results in figures.items():
        median = {key: statistics.median(r[key] for r in results)
                  for key in ("first", "save", "second", "rss")}
        lines.append(f"| {corpus} | {python} | {median['first']:.0f} | {median['save']:.0f} "
                     f"| {median['second']:.0f} | {median['rss']:.0f} |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
