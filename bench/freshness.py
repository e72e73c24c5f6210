"""Freshness against repository size: save → searchable on several repositories in one run.

Usage:
    python -m bench.freshness CORPUS_DIR [CORPUS_DIR ...] [--edits 50]

Each corpus is copied to a temp dir. For each copy, in this order: `symfind index` of it
into a scratch index (time), then a daemon started on an empty index (`daemon run`), and
its catch-up timed until it is idle (what `daemon start` costs against `symfind index` of
the same files). Then the edits alternate between the repositories, one at a time: a new
definition appended to a random file, the daemon's search polled through one socket
connection per repository until the definition is found. A cost that grows with the
repository's size shows as a gap between the repositories' percentiles.

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

from bench.daemon_bench import _PROBES, idle, load, note, percentile, probe_files, status, wait
from symfind.daemon.client import socket_path
from symfind.daemon.protocol import SearchReply, SearchRequest, receive_reply, send_request
from symfind.storage import SearchQuery, index_dir_for

TIMEOUT_S = 120.0


class Repository:
    """One copied corpus, its daemon, and a long-lived socket connection to it."""

    def __init__(self, corpus: Path, work: Path) -> None:
        self.name = corpus.name
        self.repo = (work / corpus.name / "repo")
        shutil.copytree(corpus, self.repo, symlinks=True)
        self.repo = self.repo.resolve()
        self.index_base = work / corpus.name / "indexes"
        self.env = {**os.environ, "SYMFIND_INDEX_DIR": str(self.index_base)}
        self.figures: dict = {"corpus": corpus.name}
        self.latencies: list[float] = []
        self.rng = random.Random(corpus.name)
        self.files = probe_files(self.repo)
        self.daemon: subprocess.Popen[bytes] | None = None
        self.connection: socket.socket | None = None

    def index_once(self) -> None:
        """`symfind index` into a scratch index base, timed, then dropped."""
        scratch = {**self.env, "SYMFIND_INDEX_DIR": str(self.index_base) + "-scratch"}
        started = time.monotonic()
        subprocess.run([sys.executable, "-P", "-m", "symfind.cli", "index", "--force",
                        str(self.repo)],
                       env=scratch, check=True, stdout=subprocess.DEVNULL)
        self.figures["index_s"] = round(time.monotonic() - started, 2)
        shutil.rmtree(scratch["SYMFIND_INDEX_DIR"])

    def start(self, log: Path) -> None:
        """A daemon on an empty index; returns once it has caught up."""
        os.environ["SYMFIND_INDEX_DIR"] = str(self.index_base)
        self.index_dir = index_dir_for(self.repo)
        started = time.monotonic()
        with open(log, "wb") as stderr:
            self.daemon = subprocess.Popen(
                [sys.executable, "-P", "-m", "symfind.cli", "-v", "daemon", "run",
                 "--force", str(self.repo)], stdout=subprocess.DEVNULL, stderr=stderr, env=self.env)
        wait(self.index_dir, idle)
        self.figures["catch_up_s"] = round(time.monotonic() - started, 2)
        current = status(self.index_dir)
        assert current is not None
        self.figures |= {"files": current.files, "symbols": current.symbols}
        self.connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.connection.connect(str(socket_path(self.index_dir)))

    def search_finds(self, name: str) -> bool:
        assert self.connection is not None
        send_request(self.connection, SearchRequest(SearchQuery(text=name, limit=1)))
        reply = receive_reply(self.connection)
        return (isinstance(reply, SearchReply) and bool(reply.response.results)
                and reply.response.results[0].name == name)

    def edit(self, number: int) -> None:
        """Append a definition to a random file; time until the daemon's search finds it."""
        path = self.rng.choice(self.files)
        name = f"SymfindProbe{number}x{self.rng.randrange(10**9)}"
        started = time.monotonic()
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(_PROBES[path.suffix].format(name=name))
        while not self.search_finds(name):
            if time.monotonic() - started > TIMEOUT_S:
                raise TimeoutError(f"{name} appended to {path} never became searchable")
            time.sleep(0.002)
        self.latencies.append((time.monotonic() - started) * 1000)

    def stop(self) -> None:
        if self.connection is not None:
            self.connection.close()
        if self.daemon is not None:
            self.daemon.terminate()
            self.figures["exit_code"] = self.daemon.wait(timeout=300)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", type=Path, nargs="+")
    parser.add_argument("--edits", type=int, default=50, help="edits per repository")
    args = parser.parse_args(argv)
    load_before = load()
    work = Path(tempfile.mkdtemp(prefix="symfind-freshness-"))
    repos = [Repository(corpus, work) for corpus in args.corpora]
    try:
        for repo in repos:
            repo.index_once()
            repo.start(work / f"{repo.name}.log")
            note(f"{repo.name}: {repo.figures}")
        for number in range(args.edits):
            for repo in repos:
                repo.edit(number)
    finally:
        for repo in repos:
            repo.stop()
        shutil.rmtree(work, ignore_errors=True)
    lines = [f"`python -m bench.freshness {' '.join(argv)}`, {time.strftime('%Y-%m-%d %H:%M')}"
             f" UTC, load {load_before} before, {load()} after", "",
             "| repository | files | symfind index (s) | daemon catch-up (s) "
             "| save → searchable p50 / p95 / max (ms) |", "|---|---:|---:|---:|---:|"]
    for repo in repos:
        f, ms = repo.figures, repo.latencies
        lines.append(f"| {f['corpus']} | {f['files']} | {f['index_s']:.1f} "
                     f"| {f['catch_up_s']:.1f} | {statistics.median(ms):.0f} / "
                     f"{percentile(ms, .95):.0f} / {max(ms):.0f} |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
