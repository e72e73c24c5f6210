"""How long "where is it used" takes on a large repository: warm `find_references` over a
seeded sample of its definitions, and over its hottest names.

No ground truth here (`bench.references` measures what the answers hold): this is issue
33's latency measure, references p50 ≤ 20 ms and p95 ≤ 200 ms warm on a Django-size
repository, and hot names in a kernel-sized one within the time budget (1 s), partial and
saying so when they are.

For one corpus (a `bench/corpora.toml` name, fetched if absent, or a directory), the
repository is indexed (or `--index DIR` reused, which `symfind index` or an earlier run
made), then:

- *sample*: `--seeds` definitions drawn with a fixed seed among the classes, types,
  functions and methods, each asked once by its path and line as an agent's handle does,
  in a warm process (`WARM_UP` other definitions asked first, not counted);
- *hot*: the `--hot` names written most often in the repository's files (identifiers
  counted by a regular expression, keywords and names that define nothing left out),
  each asked by name as an agent types it.

Prints, and writes to `bench/out/references-latency-<corpus>.json`: p50 / p95 / max of
each set (wall, and the calling thread's CPU), how many answers were partial, the slowest
ten of the sample, and each hot name's time, counts and `partial`.

Usage:
    python -m bench.references_latency django
    python -m bench.references_latency linux --index /path/to/kernel-index --seeds 100
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import multiprocessing
import random
import re
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench import corpora
from bench.references import index_corpus

log = logging.getLogger("bench.references_latency")

OUT = corpora.BENCH / "out"
#: Definitions asked before the sample (the index opened, the code's first run done).
WARM_UP = 20
SAMPLED_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "type", "function",
                           "method"})
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{2,}")
#: Source suffixes read to find the hot names (the languages symfind indexes).
_SUFFIXES = frozenset({".py", ".go", ".rs", ".java", ".ts", ".tsx", ".js", ".jsx", ".mjs",
                       ".c", ".h", ".cc", ".cpp", ".hpp", ".rb", ".php", ".kt", ".cs", ".lua"})


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def timed(searcher, query) -> tuple[float, float, object]:
    """The wall and CPU time of one call (ms), and its answer: the first time this
    definition is asked, as an agent asks it (nothing of its answer cached). The CPU
    time is the calling thread's, which a shared machine's load sways less."""
    started, cpu = time.perf_counter(), time.thread_time()
    answer = searcher.find_references(query)
    return ((time.perf_counter() - started) * 1000, (time.thread_time() - cpu) * 1000, answer)


def hot_names(root: Path, defined: set[str], count: int) -> list[tuple[str, int]]:
    """The `count` defined names written most often in `root`'s source files."""
    written: collections.Counter = collections.Counter()
    for path in root.rglob("*"):
        if path.suffix.lower() in _SUFFIXES and path.is_file():
            written.update(_IDENTIFIER.findall(path.read_bytes()))
    ranked = ((name.decode(), n) for name, n in written.most_common())
    return [(name, n) for name, n in ranked if name in defined][:count]


def summary(times: list[float], cpu_times: list[float], answers: list) -> dict:
    return {"n": len(times), "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(percentile(times, 0.95), 1), "max_ms": round(max(times), 1),
            "cpu_p50_ms": round(statistics.median(cpu_times), 1),
            "cpu_p95_ms": round(percentile(cpu_times, 0.95), 1),
            "partial": sum(1 for a in answers if a.partial)}


def draw(root_name: str, index: Path, seeds: int
         ) -> tuple[list[tuple[str, int, str]], set[str], int]:
    """The definitions to ask (`WARM_UP` first), as (path, line, qualified name), the names
    of every eligible definition, and how many definitions the index holds. Run in a
    process of its own: every definition decoded at once (a kernel's 3.3 M) leaves a
    process slower for a while after, which no server is."""
    from symfind.storage import Searcher

    symbols = Searcher(index).all_symbols()
    eligible = [s for s in symbols if str(s.kind) in SAMPLED_KINDS]
    drawn = random.Random(f"{root_name}:references").sample(
        eligible, min(seeds + WARM_UP, len(eligible)))
    log.info("%d definitions, %d eligible, %d drawn", len(symbols), len(eligible), len(drawn))
    return ([(s.path, s.line, s.qualname) for s in drawn], {s.name for s in eligible},
            len(symbols))


def measure(root: Path, index: Path, seeds: int, hot: int) -> dict:
    from symfind.storage import Searcher
    from symfind.storage.references import ReferencesQuery

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        drawn, defined, counted = pool.submit(draw, root.name, index, seeds).result()
    searcher = Searcher(index)
    warm_up, chosen = drawn[:WARM_UP], drawn[WARM_UP:]
    for path, line, _ in warm_up:
        searcher.find_references(ReferencesQuery(path=path, line=line))
    times, cpu_times, answers, slowest = [], [], [], []
    for path, line, qualname in chosen:
        ms, cpu, answer = timed(searcher, ReferencesQuery(path=path, line=line))
        times.append(ms)
        cpu_times.append(cpu)
        answers.append(answer)
        slowest.append({"definition": f"{qualname} {path}:{line}",
                        "ms": round(ms, 1), "files_read": answer.files_read,
                        "partial": answer.partial})
    slowest.sort(key=lambda row: -row["ms"])
    hot_rows, hot_times, hot_cpu_times, hot_answers = [], [], [], []
    for name, written in hot_names(root, defined, hot):
        ms, cpu, answer = timed(searcher, ReferencesQuery(target=name))
        hot_times.append(ms)
        hot_cpu_times.append(cpu)
        hot_answers.append(answer)
        hot_rows.append({"name": name, "written": written, "ms": round(ms, 1),
                         "resolved": answer.resolved, "possible": answer.possible,
                         "elsewhere": answer.elsewhere, "files_read": answer.files_read,
                         "files_using": answer.files_using, "partial": answer.partial})
    return {"corpus": root.name, "definitions": counted,
            "sample": summary(times, cpu_times, answers),
            "hot": summary(hot_times, hot_cpu_times, hot_answers) if hot_times else None,
            "hot_names": hot_rows, "slowest": slowest[:10]}


def report(result: dict) -> str:
    lines = [f"{result['corpus']}: {result['definitions']} definitions",
             "| set | n | p50 ms | p95 ms | max ms | CPU p50 ms | CPU p95 ms | partial |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for key in ("sample", "hot"):
        if s := result[key]:
            lines.append(f"| {key} | {s['n']} | {s['p50_ms']} | {s['p95_ms']} | {s['max_ms']} "
                         f"| {s['cpu_p50_ms']} | {s['cpu_p95_ms']} | {s['partial']} |")
    lines += ["", "| slowest of the sample | ms | files read | partial |", "|---|---:|---:|---|"]
    for row in result["slowest"]:
        lines.append(f"| `{row['definition']}` | {row['ms']} | {row['files_read']} | "
                     f"{row['partial'] or '–'} |")
    lines += ["", "| hot name | written | ms | resolved | possible | elsewhere | files read / using "
              "| partial |", "|---|---:|---:|---:|---:|---:|---|---|"]
    for row in result["hot_names"]:
        lines.append(f"| `{row['name']}` | {row['written']} | {row['ms']} | {row['resolved']} | "
                     f"{row['possible']} | {row['elsewhere']} | {row['files_read']} / "
                     f"{row['files_using']} | {row['partial'] or '–'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="a corpus of bench/corpora.toml, or a directory")
    parser.add_argument("--index", type=Path, help="an index of it to reuse")
    parser.add_argument("--seeds", type=int, default=200, help="definitions sampled (200)")
    parser.add_argument("--hot", type=int, default=10, help="hottest names asked (10)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    root = Path(args.corpus)
    if not root.is_dir():
        corpus = corpora.select(corpora.load_table(), [args.corpus])[0]
        corpora.fetch(corpus)
        root = corpus.path
    with tempfile.TemporaryDirectory(prefix="refs-latency-") as tmp:
        index = args.index or Path(tmp)
        if args.index is None:
            index_corpus(root, index)
        result = measure(root, index, args.seeds, args.hot)
    print(report(result))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"references-latency-{root.name}.json").write_text(
        json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
