"""Many repositories on one machine: 50 real repositories indexed, searched all at once.

The repositories are 20 corpora of `corpora.toml` (named in `multi_corpora.toml`'s
`from_corpora`) and the 30 small packages of `multi_corpora.toml`, fetched by
`bench.corpora` (present ones are skipped).

1. Index: `symfind index ROOT` for each, into `bench/out/multi-indexes/` (kept between
   runs, so re-runs re-index only what changed; `--fresh` starts from nothing). Total
   time, definitions, size on disk.
2. Queries from the indexed names, fixed seed: a repository drawn uniformly (so small
   repositories count as much as large ones), then one of its definitions whose name no
   other definition in the 50 shares (for `qualified`, whose qualified name). Shapes:
   exact, lower, typo1 (one edit), words (`http client`), qualified (`Class.method`);
   `--per-shape` of each.
3. Warm, in-process (what an MCP server with 50 roots would do): every index opened once
   (`storage.IndexSource`), one untimed pass, then `--runs` timed passes. Each query is
   timed against the one repository it came from (`search_repos` with that one
   repository: the same code path), then against all 50 (`storage.search_repos`) with one
   thread, then with a pool of one thread per core (as `symfind search` does), back to
   back so all three see the same machine load. p50 / p95 per run and the ratios; the
   report quotes the median over runs.
4. Relevance: the target definition at rank 1 / in the top 10, one repository vs all 50.
5. Cold CLI: `symfind search Q --repo R1 … --repo R50 --json` vs `symfind search Q --repo R`,
   process start included, for `--cold-queries` queries.

Usage:
    python -m bench.multi_repo                       # fetch, index, 300 queries, 5 runs
    python -m bench.multi_repo --runs 3 --per-shape 40 --cold-queries 10
    python -m bench.multi_repo --fresh               # rebuild all 50 indexes first

Prints Markdown and writes `bench/out/multi-repo.md` and `.json`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench import corpora, groundtruth, tools
from bench.speed import percentile, timed

log = logging.getLogger("bench.multi_repo")

MULTI_TABLE = corpora.BENCH / "multi_corpora.toml"
INDEX_BASE = corpora.BENCH / "out" / "multi-indexes"
SHAPES = ("exact", "lower", "typo1", "words", "qualified")
LIMIT = 10
#: A stuck indexer fails the benchmark instead of hanging it.
INDEX_TIMEOUT_S = 1800


def repositories() -> list[corpora.Corpus]:
    """The 50: the corpora.toml corpora named in multi_corpora.toml (`from_corpora`), then
    multi_corpora.toml's own."""
    with MULTI_TABLE.open("rb") as handle:
        names = tomllib.load(handle)["from_corpora"]
    return corpora.select(corpora.load_table(), names) + corpora.load_table(MULTI_TABLE)


def index_all(symfind: list[str], chosen: list[corpora.Corpus], fresh: bool) -> dict:
    """`symfind index` every repository into INDEX_BASE; times and sizes."""
    if fresh and INDEX_BASE.exists():
        shutil.rmtree(INDEX_BASE)
    fresh = fresh or not INDEX_BASE.exists()
    INDEX_BASE.mkdir(parents=True, exist_ok=True)
    env = tools.symfind_env(INDEX_BASE)
    seconds, definitions = {}, {}
    for corpus in chosen:
        started = time.perf_counter()
        out = subprocess.run([*symfind, "index", str(corpus.path), "--json"], env=env,
                             check=True, capture_output=True, text=True,
                             timeout=INDEX_TIMEOUT_S).stdout
        seconds[corpus.dirname] = time.perf_counter() - started
        definitions[corpus.dirname] = json.loads(out)["symbols"]
        log.info("indexed %s: %d definitions in %.1f s", corpus.dirname,
                 definitions[corpus.dirname], seconds[corpus.dirname])
    size = sum(p.stat().st_size for p in INDEX_BASE.rglob("*") if p.is_file())
    counts = sorted(definitions.values())
    return {"index_s_total": sum(seconds.values()), "definitions_total": sum(counts),
            "definitions_min": counts[0], "definitions_median": statistics.median(counts),
            "definitions_max": counts[-1], "index_bytes": size, "fresh": fresh,
            "per_repo": {name: {"index_s": seconds[name], "definitions": definitions[name]}
                         for name in seconds}}


def make_queries(symbols: dict[str, list], per_shape: int, seed: int) -> list[dict]:
    """Queries of every shape from the indexed definitions (see the module doc)."""
    by_name: dict[str, int] = {}
    by_qualname: dict[str, int] = {}
    for defs in symbols.values():
        for d in defs:
            key = groundtruth.name_key(d.name)
            by_name[key] = by_name.get(key, 0) + 1
            by_qualname[d.qualname.lower()] = by_qualname.get(d.qualname.lower(), 0) + 1
    taken = set(by_name)

    def eligible(shape: str, d: object) -> bool:
        name, qualname = d.name, d.qualname  # type: ignore[attr-defined]
        if len(name) < 3 or not name.replace("_", "a").replace("$", "a").isalnum():
            return False
        if shape == "qualified":
            return qualname != name and by_qualname[qualname.lower()] == 1
        unique = by_name[groundtruth.name_key(name)] == 1
        return unique and {
            "exact": True, "lower": name != name.lower(), "typo1": len(name) >= 4,
            "words": len(groundtruth.split_words(name)) >= 2,
        }[shape]

    repos = sorted(symbols)
    queries: list[dict] = []
    for shape in SHAPES:
        rng = random.Random(f"{seed}:{shape}")
        pools = {repo: [d for d in symbols[repo] if eligible(shape, d)] for repo in repos}
        pools = {repo: pool for repo, pool in pools.items() if pool}
        made = 0
        while made < per_shape and pools:
            repo = rng.choice(sorted(pools))
            d = rng.choice(pools[repo])
            text = _query_text(shape, d, rng, taken)
            if text is None:
                continue
            queries.append({"shape": shape, "query": text, "repo": repo, "path": d.path,
                            "line": d.line})
            made += 1
    return queries


def _query_text(shape: str, d: object, rng: random.Random, taken: set[str]) -> str | None:
    name: str = d.name  # type: ignore[attr-defined]
    if shape == "exact":
        return name
    if shape == "lower":
        return name.lower()
    if shape == "typo1":
        return groundtruth.typo(name, 1, rng, taken)
    if shape == "words":
        return " ".join(groundtruth.split_words(name))
    return d.qualname  # type: ignore[attr-defined]


def warm(chosen: list[corpora.Corpus], per_shape: int, seed: int, runs: int) -> dict:
    """Warm in-process timings and hit rates (the one function using symfind's Python API)."""
    os.environ["SYMFIND_INDEX_DIR"] = str(INDEX_BASE)
    from symfind.storage import (
        IndexSource, Repo, Searcher, SearchQuery, index_dir_for, repo_labels, search_repos,
    )

    roots = [c.path.resolve() for c in chosen]
    repos = [Repo(label, str(root), IndexSource(index_dir_for(root)).search)
             for label, root in zip(repo_labels(roots), roots, strict=True)]
    by_label = {repo.label: repo for repo in repos}
    symbols = {repo.label: Searcher(index_dir_for(Path(repo.root))).all_symbols()
               for repo in repos}
    queries = make_queries(symbols, per_shape, seed)
    log.info("%d queries over %d repositories", len(queries), len(repos))

    def query(q: dict) -> SearchQuery:
        return SearchQuery(text=q["query"], limit=LIMIT)

    def hit(results: list, q: dict, label: bool) -> int | None:
        for rank, r in enumerate(results, start=1):
            if (r.path, r.line) == (q["path"], q["line"]) and (not label or r.repo == q["repo"]):
                return rank
        return None

    pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1)  # as `symfind search` does
    ranks_one, ranks_all, empty = [], [], 0
    for q in queries:  # the untimed pass: warms caches, records where the target ranks
        ranks_one.append(hit(search_repos([by_label[q["repo"]]], query(q)).results, q, False))
        fused = search_repos(repos, query(q), executor=pool)
        ranks_all.append(hit(fused.results, q, True))
        empty += sum(status.results == 0 for status in fused.repos)
    per_run = []
    for run in range(runs):
        one_ms, seq_ms, all_ms = [], [], []
        for q in queries:
            started = time.perf_counter()
            search_repos([by_label[q["repo"]]], query(q))
            one_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            search_repos(repos, query(q))
            seq_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            search_repos(repos, query(q), executor=pool)
            all_ms.append((time.perf_counter() - started) * 1000)
        shapes = {shape: [t for t, q in zip(all_ms, queries, strict=True) if q["shape"] == shape]
                  for shape in SHAPES}
        per_run.append({
            "one_p50_ms": statistics.median(one_ms), "one_p95_ms": percentile(one_ms, 0.95),
            "seq_p50_ms": statistics.median(seq_ms), "seq_p95_ms": percentile(seq_ms, 0.95),
            "all_p50_ms": statistics.median(all_ms), "all_p95_ms": percentile(all_ms, 0.95),
            "all_max_ms": max(all_ms),
            "all_p50_by_shape_ms": {s: statistics.median(t) for s, t in shapes.items() if t},
            "all_p95_by_shape_ms": {s: percentile(t, 0.95) for s, t in shapes.items() if t},
        })
        log.info("run %d: one p50 %.2f p95 %.2f ms; all %d p50 %.1f p95 %.1f ms "
                 "(sequential p50 %.1f p95 %.1f ms)", run + 1, per_run[-1]["one_p50_ms"],
                 per_run[-1]["one_p95_ms"], len(repos), per_run[-1]["all_p50_ms"],
                 per_run[-1]["all_p95_ms"], per_run[-1]["seq_p50_ms"], per_run[-1]["seq_p95_ms"])
    pool.shutdown()

    def median_of(key: str) -> float:
        return statistics.median(r[key] for r in per_run)

    def rate(ranks: list[int | None], top: int, shape: str | None = None) -> float:
        chosen_ranks = [r for r, q in zip(ranks, queries, strict=True)
                        if shape is None or q["shape"] == shape]
        return sum(r is not None and r <= top for r in chosen_ranks) / len(chosen_ranks)

    summary: dict[str, object] = {key: median_of(key) for key in
               ("one_p50_ms", "one_p95_ms", "seq_p50_ms", "seq_p95_ms", "all_p50_ms",
                "all_p95_ms", "all_max_ms")}
    summary["ratio_p50"] = median_of("all_p50_ms") / median_of("one_p50_ms")
    summary["ratio_p95"] = median_of("all_p95_ms") / median_of("one_p95_ms")
    summary["all_by_shape_ms"] = {
        s: (statistics.median(r["all_p50_by_shape_ms"][s] for r in per_run),
            statistics.median(r["all_p95_by_shape_ms"][s] for r in per_run))
        for s in SHAPES if s in per_run[0]["all_p50_by_shape_ms"]
    }
    summary["hits"] = {
        shape or "all": {"one_r1": rate(ranks_one, 1, shape), "all_r1": rate(ranks_all, 1, shape),
                         "one_r10": rate(ranks_one, 10, shape),
                         "all_r10": rate(ranks_all, 10, shape)}
        for shape in (*SHAPES, None)
    }
    summary["empty_share"] = empty / (len(queries) * len(repos))
    return {"repositories": len(repos), "queries": len(queries), "runs": runs,
            "per_run": per_run, **summary, "query_list": queries}


def cold(symfind: list[str], chosen: list[corpora.Corpus], queries: list[dict],
         count: int) -> dict:
    """Process-per-query CLI times: all 50 repositories vs the query's own one."""
    env = tools.symfind_env(INDEX_BASE)
    every = [part for c in chosen for part in ("--repo", str(c.path))]
    paths = {label: str(c.path) for label, c in zip(_labels(chosen), chosen, strict=True)}
    picked = queries[:: max(1, len(queries) // count)][:count]
    one_ms = [1000 * timed([*symfind, "search", "--repo", paths[q["repo"]], "--json", "--",
                            q["query"]], env=env) for q in picked]
    all_ms = [1000 * timed([*symfind, "search", *every, "--json", "--", q["query"]], env=env)
              for q in picked]
    return {"cold_queries": len(picked),
            "cold_one_median_ms": statistics.median(one_ms),
            "cold_all_median_ms": statistics.median(all_ms),
            "cold_all_p95_ms": percentile(all_ms, 0.95)}


def _labels(chosen: list[corpora.Corpus]) -> list[str]:
    from symfind.storage import repo_labels

    return repo_labels([c.path.resolve() for c in chosen])


def _row(*cells: object) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def render(numbers: dict, argv: list[str]) -> str:
    ix, w = numbers["index"], numbers["warm"]
    cores = os.cpu_count()
    summary = (
        f"on {cores} cores, CPython {platform.python_version()}: {w['repositories']} "
        f"repositories, {ix['definitions_total']:,} definitions (per repository: min "
        f"{ix['definitions_min']:,}, median {ix['definitions_median']:,.0f}, max "
        f"{ix['definitions_max']:,}), indexes {ix['index_bytes'] / 1e6:.0f} MB on disk; "
        f"{w['queries']} queries ({', '.join(SHAPES)}); medians of {w['runs']} runs."
    )
    lines = [
        f"`python -m bench.multi_repo {' '.join(argv)}`".replace(" `", "`"), summary, "",
        _row("measure", "one repository", "all 50", "ratio"), "|---|---:|---:|---:|",
        _row(f"warm query p50 (ms; all 50 on {cores} threads)", f"{w['one_p50_ms']:.2f}",
             f"{w['all_p50_ms']:.1f}", f"{w['ratio_p50']:.0f}x"),
        _row(f"warm query p95 (ms; all 50 on {cores} threads)", f"{w['one_p95_ms']:.2f}",
             f"{w['all_p95_ms']:.1f}", f"{w['ratio_p95']:.0f}x"),
        _row("warm query p50 / p95 (ms; all 50 on one thread)", "",
             f"{w['seq_p50_ms']:.1f} / {w['seq_p95_ms']:.1f}",
             f"{w['seq_p50_ms'] / w['one_p50_ms']:.0f}x / "
             f"{w['seq_p95_ms'] / w['one_p95_ms']:.0f}x"),
    ]
    if "cold" in numbers:
        c = numbers["cold"]
        lines.append(_row(f"cold CLI query, median (ms; {c['cold_queries']} queries)",
                          f"{c['cold_one_median_ms']:.0f}", f"{c['cold_all_median_ms']:.0f}",
                          f"{c['cold_all_median_ms'] / c['cold_one_median_ms']:.1f}x"))
    hits = w["hits"]["all"]
    lines.append(_row("target at rank 1 (all shapes)", f"{hits['one_r1']:.2f}",
                      f"{hits['all_r1']:.2f}", ""))
    lines.append(_row("target in the top 10 (all shapes)", f"{hits['one_r10']:.2f}",
                      f"{hits['all_r10']:.2f}", ""))
    lines += ["", _row("shape", "all 50: p50 / p95 (ms)", "R@1 one / all", "R@10 one / all"),
              "|---|---:|---:|---:|"]
    for shape, (p50, p95) in w["all_by_shape_ms"].items():
        h = w["hits"][shape]
        lines.append(_row(shape, f"{p50:.1f} / {p95:.1f}",
                          f"{h['one_r1']:.2f} / {h['all_r1']:.2f}",
                          f"{h['one_r10']:.2f} / {h['all_r10']:.2f}"))
    how = "from scratch" if ix["fresh"] else "incremental: only what changed"
    lines += ["", (f"Index: {ix['index_s_total']:.0f} s for all 50 ({how}). "
                   f"{w['empty_share']:.0%} of the (query, repository) searches found nothing.")]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed passes (median reported)")
    parser.add_argument("--per-shape", type=int, default=60, help="queries per shape")
    parser.add_argument("--cold-queries", type=int, default=10, help="CLI processes (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fresh", action="store_true", help="rebuild every index first")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    symfind = tools.symfind_command()
    if symfind is None:
        raise SystemExit("symfind not found (pip install -e . or set SYMFIND_BIN)")
    chosen = repositories()
    for corpus in chosen:
        corpora.fetch(corpus)
    numbers: dict = {"index": index_all(symfind, chosen, args.fresh)}
    numbers["warm"] = warm(chosen, args.per_shape, args.seed, args.runs)
    if args.cold_queries:
        numbers["cold"] = cold(symfind, chosen, numbers["warm"]["query_list"], args.cold_queries)
    report = render(numbers, sys.argv[1:] if argv is None else argv)
    out = corpora.BENCH / "out"
    (out / "multi-repo.md").write_text(report, encoding="utf-8")
    (out / "multi-repo.json").write_text(json.dumps(numbers, indent=1), encoding="utf-8")
    sys.stdout.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
