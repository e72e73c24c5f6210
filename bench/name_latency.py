"""One checkout's index time and size and warm name-search latency, for before/after
comparisons run alternately in one session.

Per corpus: `symfind index` into a fresh index directory (wall time, the directory's
bytes), then, in this process, the relevance bench's queries of the seven shapes
(`bench/out/<corpus>/queries.jsonl`, written by `bench.groundtruth`) searched twice
through `storage.Searcher`, the second pass timed: p50 and mean per query, wall time
and this thread's CPU time (which a busy machine sways less). Index time is given as
wall time and as the CPU time of `symfind index` and its workers. Prints one JSON
object per corpus.

The checkout measured is the one `symfind` imports from: run it under another
checkout's modules to compare (`PYTHONPATH` to a directory whose `symfind/` holds that
checkout's four packages), alternating, e.g.:

    for run in 1 2 3; do
      PYTHONPATH=/tmp/before python -m bench.name_latency rich tokio --label before
      python -m bench.name_latency rich tokio --label after
    done
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


def measure(corpus: corpora.Corpus, label: str) -> dict:
    root = corpus.path.resolve()
    queries = [q["query"] for q in groundtruth.load_queries(corpus)]
    base = Path(tempfile.mkdtemp(prefix="symfind-latency-"))
    try:
        command = [sys.executable, "-m", tools.cli_module(), "index", str(root)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, env=tools.symfind_env(base), check=True,
                       stdout=subprocess.DEVNULL)
        index_s = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        index_cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        size = _bytes(base)
        os.environ["SYMFIND_INDEX_DIR"] = str(base)
        from symfind.storage import Searcher, SearchQuery, index_dir_for

        searcher = Searcher(index_dir_for(root))
        for query in queries:
            searcher.search(SearchQuery(text=query, limit=tools.LIMIT))
        times, cpu = [], []
        for query in queries:
            started, started_cpu = time.perf_counter(), time.thread_time()
            searcher.search(SearchQuery(text=query, limit=tools.LIMIT))
            cpu.append((time.thread_time() - started_cpu) * 1000)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return {"label": label, "corpus": corpus.name, "queries": len(queries),
            "index_s": round(index_s, 2), "index_cpu_s": round(index_cpu_s, 2),
            "index_bytes": size,
            "p50_ms": round(statistics.median(times), 3),
            "mean_ms": round(statistics.mean(times), 3),
            "cpu_p50_ms": round(statistics.median(cpu), 3),
            "cpu_mean_ms": round(statistics.mean(cpu), 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="+", help="corpora (their queries made already)")
    parser.add_argument("--label", default="", help="a name for this checkout in the output")
    args = parser.parse_args(argv)
    for corpus in corpora.select(corpora.load_table(), args.names, None):
        print(json.dumps(measure(corpus, args.label)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
