"""Speed benchmark on one corpus (default: the large one, `go-stdlib`).

1. Full index time: `symfind index ROOT` into a fresh `SYMFIND_INDEX_DIR` each run, as a
   RATIO to the parse floor (`bench.parse_floor`: tree-sitter parsing the same files in
   as many processes, nothing else) and to `ctags -R` on the same tree, all three in each
   run (median of `--runs`, at least 3, of each); peak RSS of symfind's process tree.
2. Warm in-process query latency: `storage.Searcher` opened once, the corpus's benchmark
   queries (from `bench.groundtruth`) run once to warm up, then timed: p50 / p95.
3. Cold CLI query time: `symfind search QUERY --repo ROOT --json` per query, process start
   included (no daemon runs on the fresh index), vs one `rg` per query with the same
   definition regex as the relevance baseline: medians over `--cold-queries` queries.

Usage:
    python -m bench.speed                      # go-stdlib, 3 runs, 30 cold queries
    python -m bench.speed tokio --runs 5 --cold-queries 50
    python -m bench.speed go-stdlib --index-only  # part 1 only, JSON

Prints Markdown and writes it to `bench/out/speed-<corpus>.md` (numbers in `.json`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import corpora, groundtruth, tools

log = logging.getLogger("bench.speed")


def timed(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> float:
    """Wall seconds of one command (output discarded; it must succeed)."""
    started = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def index_times(symfind: list[str], root: Path, runs: int) -> dict:
    """Medians of full `symfind index` (fresh index dir), the parse floor of the files it
    indexed (`bench.parse_floor`, as many processes as symfind's workers) and `ctags -R`
    on `root`, run after one another in each run; peak memory of symfind's process tree."""
    from bench.kernel import run_measured

    symfind_s, floor_s, ctags_s, peaks = [], [], [], []
    processes = os.cpu_count() or 1
    for run in range(runs):
        with tempfile.TemporaryDirectory(prefix="symfind-speed-") as tmp:
            env = tools.symfind_env(Path(tmp))
            measured = run_measured([*symfind, "index", str(root)], env=env)
            symfind_s.append(measured.seconds)
            peaks.append(measured.peak_tree_rss_kib)
            paths_file = Path(tmp) / "paths"
            if run == 0:
                os.environ["SYMFIND_INDEX_DIR"] = tmp
                from bench.parse_floor import indexed_paths

                paths = indexed_paths(root)
            paths_file.write_text("\n".join(paths) + "\n", encoding="utf-8")
            floor_s.append(timed([sys.executable, "-m", "bench.parse_floor", str(root),
                                  "--processes", str(processes), "--paths-from",
                                  str(paths_file)], cwd=Path(__file__).parents[1]))
            ctags_s.append(timed([groundtruth.CTAGS, "-R", "-f", str(Path(tmp) / "tags"), "."],
                                 cwd=root))
        log.info("index run %d: symfind %.2f s (peak tree RSS %.0f MiB), parse floor %.2f s, "
                 "ctags -R %.2f s", run + 1, symfind_s[-1], peaks[-1] / 1024, floor_s[-1],
                 ctags_s[-1])
    symfind_median, ctags_median = statistics.median(symfind_s), statistics.median(ctags_s)
    floor_median = statistics.median(floor_s)
    return {"symfind_index_s": symfind_s, "parse_floor_s": floor_s, "ctags_R_s": ctags_s,
            "symfind_index_median_s": symfind_median, "parse_floor_median_s": floor_median,
            "ctags_R_median_s": ctags_median, "indexed_files": len(paths),
            "processes": processes, "peak_tree_rss_mib": max(peaks) / 1024,
            "floor_ratio": symfind_median / floor_median,
            "ratio": symfind_median / ctags_median,
            "load_before": os.getloadavg()}


def warm_search(index_base: Path, root: Path, queries: list[str]) -> dict:
    """Warm in-process latency through symfind's Python API (`storage.Searcher`).

    This is the one function that knows symfind's Python API: if `Searcher` changes,
    adapt it here. One pass warms the caches, the second is timed.
    """
    os.environ["SYMFIND_INDEX_DIR"] = str(index_base)
    from symfind.storage import Searcher, SearchQuery, index_dir_for

    searcher = Searcher(index_dir_for(root.resolve()))
    for query in queries:
        searcher.search(SearchQuery(text=query, limit=tools.LIMIT))
    times_ms = []
    for query in queries:
        started = time.perf_counter()
        searcher.search(SearchQuery(text=query, limit=tools.LIMIT))
        times_ms.append((time.perf_counter() - started) * 1000)
    return {"warm_queries": len(queries), "warm_p50_ms": statistics.median(times_ms),
            "warm_p95_ms": percentile(times_ms, 0.95), "warm_max_ms": max(times_ms)}


def cold_search(symfind: list[str], index_base: Path, root: Path,
                queries: list[str]) -> dict:
    """Median wall time of one `symfind search` process vs one `rg` process per query."""
    env = tools.symfind_env(index_base)
    symfind_ms = [1000 * timed([*symfind, "search", "--repo", str(root), "--limit",
                                str(tools.LIMIT), "--json", "--", query], env=env)
                  for query in queries]
    ripgrep = tools.Ripgrep()
    ripgrep.prepare(root, [])
    rg_ms = [answer.took_ms for answer in ripgrep.run(queries)]
    return {"cold_queries": len(queries),
            "cold_symfind_median_ms": statistics.median(symfind_ms),
            "cold_symfind_p95_ms": percentile(symfind_ms, 0.95),
            "ripgrep_median_ms": statistics.median(rg_ms),
            "ripgrep_p95_ms": percentile(rg_ms, 0.95)}


def render(corpus: corpora.Corpus, stats: dict, numbers: dict, argv: list[str]) -> str:
    n = numbers
    return "\n".join([
        f"## Speed: {corpus.name} {corpus.version}", "",
        f"`{' '.join(['python -m bench.speed', *argv])}` on {os.cpu_count()} cores, "
        f"{platform.python_implementation()} {platform.python_version()}; "
        f"{stats['files']} source files, {stats['definitions']} ctags definitions; load "
        f"(1/5/15 min) {' '.join(f'{x:.1f}' for x in n['load_before'])} before the index "
        f"runs, {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end.", "",
        "| measure | symfind | reference | ratio |", "|---|---:|---:|---:|",
        f"| full index, median of {len(n['symfind_index_s'])} (s; peak tree RSS "
        f"{n['peak_tree_rss_mib']:.0f} MiB) "
        f"| {n['symfind_index_median_s']:.2f} | parse floor {n['parse_floor_median_s']:.2f} "
        f"({n['indexed_files']} files, {n['processes']} processes) "
        f"| {n['floor_ratio']:.2f}x |",
        f"| full index vs ctags | {n['symfind_index_median_s']:.2f} "
        f"| ctags -R {n['ctags_R_median_s']:.2f} | {n['ratio']:.2f}x |",
        f"| warm query in-process, p50 / p95 (ms; {n['warm_queries']} queries) "
        f"| {n['warm_p50_ms']:.2f} / {n['warm_p95_ms']:.2f} | | |",
        f"| cold CLI query, median / p95 (ms; {n['cold_queries']} queries) "
        f"| {n['cold_symfind_median_ms']:.0f} / {n['cold_symfind_p95_ms']:.0f} "
        f"| rg {n['ripgrep_median_ms']:.0f} / {n['ripgrep_p95_ms']:.0f} "
        f"| {n['cold_symfind_median_ms'] / n['ripgrep_median_ms']:.2f}x |",
        "",
    ])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", default="go-stdlib")
    parser.add_argument("--runs", type=int, default=3, help="index runs (at least 3)")
    parser.add_argument("--cold-queries", type=int, default=30)
    parser.add_argument("--index-only", action="store_true",
                        help="only the index runs (no ground truth, no queries); JSON out")
    parser.add_argument("--subdir", metavar="PATH",
                        help="index runs on this sub-directory of the corpus only "
                             "(implies --index-only): `linux --subdir drivers/net/ethernet`")
    args = parser.parse_args(argv)
    args.index_only = args.index_only or args.subdir is not None
    if args.runs < 3:
        parser.error("--runs must be at least 3")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    symfind = tools.symfind_command()
    if symfind is None:
        raise SystemExit("symfind not found: pip install -e . or set SYMFIND_BIN")
    (corpus,) = corpora.select(corpora.load_table(), [args.corpus])
    root = corpora.fetch(corpus)
    if args.subdir is not None:
        root = root / args.subdir
        if not root.is_dir():
            raise SystemExit(f"no directory {args.subdir!r} in {corpus.name}")
    if not args.index_only:
        stats = groundtruth.build(corpus)
        queries = [q["query"] for q in groundtruth.load_queries(corpus)]
    numbers = index_times(symfind, root, args.runs)
    if args.index_only:
        print(json.dumps(numbers, indent=1))
        return 0
    with tempfile.TemporaryDirectory(prefix="symfind-speed-") as tmp:
        index_base = Path(tmp)
        subprocess.run([*symfind, "index", str(root)], env=tools.symfind_env(index_base),
                       check=True, stdout=subprocess.DEVNULL)
        numbers |= warm_search(index_base, root, queries)
        cold = random.Random(f"cold:{corpus.name}").sample(
            queries, min(args.cold_queries, len(queries)))
        numbers |= cold_search(symfind, index_base, root, cold)
    text = render(corpus, stats, numbers, argv)
    out = groundtruth.OUT_DIR
    (out / f"speed-{corpus.name}.md").write_text(text, encoding="utf-8")
    (out / f"speed-{corpus.name}.json").write_text(json.dumps(numbers, indent=1) + "\n",
                                                   encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
