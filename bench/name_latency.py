"""One checkout's index time and size and warm name-search latency, for before/after
comparisons run alternately in one session.

Per corpus: `symfind index` into a fresh index directory (wall time, the directory's
bytes), then, in this process, the relevance bench's queries of the seven shapes
(`bench/out/<corpus>/queries.jsonl`, written by `bench.groundtruth`) searched twice
through `storage.Searcher`, the second pass timed: p50, p95 and mean per query, wall
time and this thread's CPU time (which a busy machine sways less); the first pass's CPU
too (`first_cpu_*`: each query the first time, what the searcher keeps of its commit
filled by the queries before it only). The second pass's CPU is also given apart for
the queries the checkout routes as names (`name_cpu_*`: identifiers, qualified names,
two to four words) and as questions (`question_cpu_*`: the words shape's longer names,
five words or more, read as questions). Index time is given as
wall time and as the CPU time of `symfind index` and its workers. Prints one JSON
object per corpus.

The checkout measured is the one `symfind` imports from: run it under another
checkout's modules to compare (`PYTHONPATH` to a directory whose `symfind/` holds that
checkout's four packages), alternating, e.g.:

    for run in 1 2 3; do
      PYTHONPATH=/tmp/before python -m bench.name_latency rich tokio --label before
      python -m bench.name_latency rich tokio --label after
    done

`--keep-index DIR` indexes each corpus once into `DIR/<corpus>` and reuses it on later
runs (index figures then null): latency alone, alternated without re-indexing go-stdlib
each time. Give each checkout its own DIR when their schemas differ.

`--without CHANNEL` (e.g. `abbrev`, repeatable) searches with that channel answering
nothing: alternated with runs without the option, what one channel costs a name search
in the same checkout and index.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import corpora, groundtruth, tools


def _bytes(directory: Path) -> int:
    return sum(f.stat().st_size for f in directory.rglob("*") if f.is_file())


def switch_off(channels: list[str]) -> None:
    """Make each of `channels` (`storage.router.Channel` values) answer nothing, in this
    process."""
    from symfind.storage import search
    from symfind.storage.router import Channel

    for name in channels:
        search.CHANNELS[Channel(name)] = lambda ctx: []


def measure(corpus: corpora.Corpus, label: str, kept: Path | None = None) -> dict:
    """With `kept`, the index is kept in `kept/<corpus>` and reused when there already
    (index time and size then not measured): query latency alone, alternated cheaply."""
    root = corpus.path.resolve()
    queries = [q["query"] for q in groundtruth.load_queries(corpus)]
    base = kept / corpus.name if kept else Path(tempfile.mkdtemp(prefix="symfind-latency-"))
    index_s = index_cpu_s = size = None
    try:
        if not (kept and base.is_dir()):
            command = [sys.executable, "-m", tools.cli_module(), "index", str(root)]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(command, env=tools.symfind_env(base), check=True,
                           stdout=subprocess.DEVNULL)
            index_s = round(time.perf_counter() - started, 2)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            index_cpu_s = round((after.ru_utime - before.ru_utime)
                                + (after.ru_stime - before.ru_stime), 2)
            size = _bytes(base)
        os.environ["SYMFIND_INDEX_DIR"] = str(base)
        from symfind.storage import Searcher, SearchQuery, index_dir_for
        from symfind.storage.router import Route, route

        # Long queries of the words shape (`test redirect to non ascii location`) read as
        # questions: full text and meaning, not the name channels. Timed apart too.
        asked = [route(query).route is Route.PROSE for query in queries]

        searcher = Searcher(index_dir_for(root))
        first_cpu = []  # each query's first time: nothing of it kept yet but the index's
        for query in queries:
            started_cpu = time.thread_time()
            searcher.search(SearchQuery(text=query, limit=tools.LIMIT))
            first_cpu.append((time.thread_time() - started_cpu) * 1000)
        times, cpu = [], []
        for query in queries:
            started, started_cpu = time.perf_counter(), time.thread_time()
            searcher.search(SearchQuery(text=query, limit=tools.LIMIT))
            cpu.append((time.thread_time() - started_cpu) * 1000)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        if not kept:
            shutil.rmtree(base, ignore_errors=True)
    names = [ms for ms, question in zip(cpu, asked) if not question]
    questions = [ms for ms, question in zip(cpu, asked) if question]
    return {"label": label, "corpus": corpus.name, "queries": len(queries),
            "index_s": index_s, "index_cpu_s": index_cpu_s, "index_bytes": size,
            "p50_ms": round(statistics.median(times), 3),
            "mean_ms": round(statistics.mean(times), 3),
            "p95_ms": round(_percentile(times, 95), 3),
            "cpu_p50_ms": round(statistics.median(cpu), 3),
            "cpu_mean_ms": round(statistics.mean(cpu), 3),
            "cpu_p95_ms": round(_percentile(cpu, 95), 3),
            "first_cpu_p50_ms": round(statistics.median(first_cpu), 3),
            "first_cpu_p95_ms": round(_percentile(first_cpu, 95), 3),
            **_split("name", names), **_split("question", questions)}


def _split(label: str, cpu: list[float]) -> dict:
    """CPU p50 and p95 of some of the queries, and how many."""
    if len(cpu) < 2:
        return {f"{label}_queries": len(cpu)}
    return {f"{label}_queries": len(cpu),
            f"{label}_cpu_p50_ms": round(statistics.median(cpu), 3),
            f"{label}_cpu_p95_ms": round(_percentile(cpu, 95), 3)}


def _percentile(values: list[float], percent: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(percent) - 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="+", help="corpora (their queries made already)")
    parser.add_argument("--label", default="", help="a name for this checkout in the output")
    parser.add_argument("--keep-index", type=Path, metavar="DIR",
                        help="index into DIR/<corpus> once and reuse it (latency only)")
    parser.add_argument("--without", action="append", default=[], metavar="CHANNEL",
                        help="search with this channel switched off (e.g. abbrev)")
    args = parser.parse_args(argv)
    switch_off(args.without)
    for corpus in corpora.select(corpora.load_table(), args.names, None):
        print(json.dumps(measure(corpus, args.label, args.keep_index)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
