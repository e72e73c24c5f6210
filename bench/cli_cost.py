"""What one `symfind search` costs from the command line with no daemon: a name beside a question.

Usage:
    python -m bench.cli_cost [CORPUS_DIR] [--runs 7] [--python A,B]
                             [--name QUERY ...] [--question QUERY ...]

Each search is a new process, `symfind search QUERY --repo CORPUS --limit 10`, as a user
types it, with no daemon running: the process opens the index and searches it itself, so
it pays for everything it loads (a question: the model for questions; a name: none of it).
The corpus is indexed once per interpreter beforehand (`symfind index`) into a temporary
index directory, with a temporary cache directory (`SYMFIND_CACHE_DIR`) in which one
question, reported as "first question", leaves what later questions reuse. Python's
compiled modules are kept in a temporary directory (`PYTHONPYCACHEPREFIX`, written even
where `PYTHONDONTWRITEBYTECODE` is set), as an installation keeps them, after one untimed
name search and question have compiled them.
Then the runs: in each, every interpreter runs every query once, in turn, so that the load
of the moment falls on all of them alike. Reported per interpreter and query: the median
wall time and the median CPU time (user + system, which a busy machine sways less),
each question's median over the median of the names, and "paired": the median over runs
of each run's question CPU over that run's names' median CPU.

`--python` runs another checkout's interpreter (its `symfind` beside it), to compare two
versions in one run: `--python /path/main/.venv/bin/python,.venv/bin/python`.

Prints Markdown with the command line and the load before and after.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_CORPUS = Path("bench/corpora/requests-2.32.3")
DEFAULT_NAMES = ("Session", "get_netrc_auth")
#: Questions whose words the shipped neighbour table holds, then two with a word it does not
#: (`netrc`, `multipart`: their neighbours are computed, storage/nearest_words.py).
DEFAULT_QUESTIONS = ("where are redirects followed?", "how is the proxy chosen for a url",
                     "where are hooks dispatched", "where is the netrc file read",
                     "how are multipart bodies encoded")


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3])


def note(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one process run to its end (its output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000


def symfind_of(python: str) -> str:
    """The `symfind` script installed beside an interpreter (as users run it)."""
    return str(Path(python).parent / "symfind")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, nargs="?", default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter(s) running symfind, comma-separated to compare")
    parser.add_argument("--name", action="append", help="a name query (repeatable)")
    parser.add_argument("--question", action="append", help="a question (repeatable)")
    args = parser.parse_args(argv)
    names = tuple(args.name or DEFAULT_NAMES)
    questions = tuple(args.question or DEFAULT_QUESTIONS)
    pythons = args.python.split(",")
    corpus = args.corpus.resolve()
    load_before = load()
    work = Path(tempfile.mkdtemp(prefix="symfind-cli-cost-"))
    envs: dict[str, dict[str, str]] = {}
    first: dict[str, tuple[float, float]] = {}
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    try:
        for number, python in enumerate(pythons):
            env = {**os.environ, "SYMFIND_INDEX_DIR": str(work / f"indexes-{number}"),
                   "SYMFIND_CACHE_DIR": str(work / f"cache-{number}"),
                   "SYMFIND_RUNTIME_DIR": str(work / f"runtime-{number}"),
                   # compiled modules kept, as an installation keeps them, but out of the
                   # checkout: a run that compiles every module measures the compiler
                   "PYTHONPYCACHEPREFIX": str(work / f"pycache-{number}")}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            envs[python] = env
            subprocess.run([symfind_of(python), "index", str(corpus)], env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # Untimed: the modules a name and a question import compiled once (the
            # question with a cache of its own, so that the next one finds none).
            timed(search_command(python, corpus, names[0]), env)
            timed(search_command(python, corpus, questions[0]),
                  {**env, "SYMFIND_CACHE_DIR": str(work / f"cache-{number}-compile")})
            first[python] = timed(search_command(python, corpus, questions[0]), env)
            note(f"{python}: first question {first[python][0]:.0f} ms")
        for run in range(args.runs):
            for python in pythons:
                for query in (*names, *questions):
                    figure = timed(search_command(python, corpus, query), envs[python])
                    figures.setdefault((python, query), []).append(figure)
            note(f"run {run + 1}/{args.runs} done, load {load()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(report(argv, corpus, pythons, names, questions, first, figures, load_before))
    return 0


def search_command(python: str, corpus: Path, query: str) -> list[str]:
    return [symfind_of(python), "search", query, "--repo", str(corpus), "--limit", "10"]


def report(argv: list[str], corpus: Path, pythons: list[str], names: tuple[str, ...],
           questions: tuple[str, ...], first: dict[str, tuple[float, float]],
           figures: dict[tuple[str, str], list[tuple[float, float]]], load_before: str) -> str:
    runs = len(next(iter(figures.values())))
    lines = [f"`python -m bench.cli_cost {' '.join(argv)}`, {time.strftime('%Y-%m-%d %H:%M')} UTC,"
             f" corpus {corpus.name}, load {load_before} before, {load()} after;"
             f" medians of {runs} runs", "",
             "| python | query | kind | wall (ms) | CPU (ms) | wall / names' | CPU / names' "
             "| CPU / names', paired |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for python in pythons:
        def median(query: str, which: int) -> float:
            return statistics.median(figure[which] for figure in figures[(python, query)])

        def paired(query: str) -> float:
            # Each run's CPU over the names' in the same run, then the median of those:
            # a load that drifts between runs sways both sides of a ratio alike.
            return statistics.median(
                figure[1] / statistics.median(figures[(python, q)][run][1] for q in names)
                for run, figure in enumerate(figures[(python, query)]))

        name_wall = statistics.median(median(q, 0) for q in names)
        name_cpu = statistics.median(median(q, 1) for q in names)
        for query in (*names, *questions):
            kind = "name" if query in names else "question"
            wall, cpu = median(query, 0), median(query, 1)
            lines.append(f"| {python} | `{query}` | {kind} | {wall:.0f} | {cpu:.0f} "
                         f"| {wall / name_wall:.2f} | {cpu / name_cpu:.2f} "
                         f"| {paired(query):.2f} |")
        wall, cpu = first[python]
        lines.append(f"| {python} | `{questions[0]}` | first question | {wall:.0f} | {cpu:.0f} "
                     f"| {wall / name_wall:.2f} | {cpu / name_cpu:.2f} | – |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
