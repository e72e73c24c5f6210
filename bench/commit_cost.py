"""What one saved file costs the index, against the repository's size.

Usage:
    python -m bench.commit_cost CORPUS_DIR [CORPUS_DIR ...] [--commits 30]

For each corpus: a full index into a temp dir (`update_index`), then `--commits` times,
in this process with nothing else running in it: one file's symbols replaced (the same
symbols, as a save without a change of names would) and committed (`IndexWriter.commit`),
then a long-lived `Searcher` picking the commit up (`refresh`) and answering one query.
Medians and p95 in ms, with the index's file count: the daemon's cost per save, without
the watcher's debounce and the socket. Prints Markdown with the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.speed import percentile
from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index
from symfind.storage import IndexWriter, Searcher

try:
    from symfind.storage import SearchQuery
except ImportError:  # symfind before SearchQuery: measuring an older commit for comparison
    SearchQuery = None


def search_one(searcher: Searcher, name: str) -> None:
    if SearchQuery is None:
        searcher.search(name, limit=1)
    else:
        searcher.search(SearchQuery(text=name, limit=1))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(corpus: Path, commits: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="symfind-commit-cost-") as tmp:
        config = Config(repo=corpus.resolve(), index_dir=Path(tmp) / "index",
                        options=IndexOptions(), workers=os.cpu_count() or 1)
        report = update_index(config)
        searcher = Searcher(config.index_dir)
        symbols = sorted(searcher.all_symbols(), key=lambda s: (s.path, s.line))
        by_path: dict[str, list] = {}
        for symbol in symbols:
            by_path.setdefault(symbol.path, []).append(symbol)
        paths = sorted(by_path)[:: max(1, len(by_path) // commits)][:commits]
        commit_ms, pickup_ms = [], []
        with IndexWriter(config.index_dir, repo_root=config.repo,
                         options_hash=config.options.fingerprint()) as writer:
            for path in paths:
                started = time.perf_counter()
                writer.replace_file(path, writer.files[path], by_path[path])
                writer.commit()
                committed = time.perf_counter()
                searcher.refresh()
                search_one(searcher, by_path[path][0].name)
                commit_ms.append((committed - started) * 1000)
                pickup_ms.append((time.perf_counter() - committed) * 1000)
    return {"corpus": corpus.name, "files": report.files, "commits": len(paths),
            "commit_p50": statistics.median(commit_ms), "commit_p95": percentile(commit_ms, .95),
            "pickup_p50": statistics.median(pickup_ms), "pickup_p95": percentile(pickup_ms, .95)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", type=Path, nargs="+")
    parser.add_argument("--commits", type=int, default=30)
    args = parser.parse_args(argv)
    before = load()
    rows = [measure(corpus, args.commits) for corpus in args.corpora]
    lines = [f"`python -m bench.commit_cost {' '.join(argv)}`, {time.strftime('%Y-%m-%d %H:%M')}"
             f" UTC, load {before} before, {load()} after", "",
             "| repository | files | commit p50 / p95 (ms) | refresh + one search p50 / p95 (ms) |",
             "|---|---:|---:|---:|"]
    lines += [f"| {r['corpus']} | {r['files']} | {r['commit_p50']:.1f} / {r['commit_p95']:.1f} "
              f"| {r['pickup_p50']:.1f} / {r['pickup_p95']:.1f} |" for r in rows]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
