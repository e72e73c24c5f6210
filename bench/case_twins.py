"""Lower-case queries for names that share their squashed form with another name.

`pollfuture` for `PollFuture` beside `poll_future`; `file_access_information` for
`FILE_ACCESS_INFORMATION` beside `FileAccessInformation` (issue 21, item 16). The
relevance bench leaves such names out (its targets are the only name of their squashed
form), so this measures them apart: for every squashed form that two or more names
lowercase differently, each of those lower-case spellings (3+ characters) is a query,
and a hit is a first result whose name equals the query ignoring case.

Usage:
    python -m bench.case_twins --all --out bench/out/case-twins.json   # relevance corpora
    python -m bench.case_twins --table bench/coverage_corpora.toml serde ws --out f.json
    python -m bench.case_twins ... --against bench/out/case-twins-before.json

Indexes with `symfind index` into `bench/out/symfind-indexes/` (as `bench.relevance`
does), then searches in-process. Prints R@1 per corpus and overall, and with `--against`
the queries whose answer changed; writes every query's first three names to `--out`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from bench import corpora, tools
from symfind.storage import Searcher, SearchQuery, index_dir_for
from symfind.storage.words import squash

log = logging.getLogger("bench.case_twins")


def twin_queries(names: list[str]) -> list[str]:
    """The lower-case spellings of names whose squashed form is spelled more than one way."""
    spellings: dict[str, set[str]] = {}
    for name in names:
        spellings.setdefault(squash(name), set()).add(name.lower())
    return sorted(q for lows in spellings.values() if len(lows) > 1 for q in lows if len(q) >= 3)


def run_corpus(corpus: corpora.Corpus) -> dict[str, list[str]]:
    """Index the corpus, then each twin query's first three result names."""
    root = corpora.fetch(corpus).resolve()
    command = tools.symfind_command()
    if command is None:
        raise SystemExit("symfind not found (set SYMFIND_BIN or pip install -e .)")
    subprocess.run([*command, "index", str(root)], env=tools.symfind_env(tools.SYMFIND_INDEX_BASE),
                   check=True, stdout=subprocess.DEVNULL)
    searcher = Searcher(index_dir_for(root))
    answers = {}
    for query in twin_queries([symbol.name for symbol in searcher.all_symbols()]):
        results = searcher.search(SearchQuery(text=query, limit=3, explain=False)).results
        answers[query] = [r.name for r in results]
    return answers


def hit(query: str, names: list[str]) -> bool:
    return bool(names) and names[0].lower() == query


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpora")
    parser.add_argument("--all", action="store_true",
                        help="every relevance corpus (with another --table: every corpus of it)")
    parser.add_argument("--table", type=Path, default=corpora.TABLE)
    parser.add_argument("--out", type=Path, required=True, help="answers, as JSON")
    parser.add_argument("--against", type=Path, help="an earlier --out: list what changed")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if not args.names and not args.all:
        parser.error("name corpora or pass --all")
    os.environ["SYMFIND_INDEX_DIR"] = str(tools.SYMFIND_INDEX_BASE.resolve())
    every = "relevance" if args.table == corpora.TABLE else None
    chosen = corpora.select(corpora.load_table(args.table), args.names, None if args.names else every)
    answers = {corpus.dirname: run_corpus(corpus) for corpus in chosen}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(answers, indent=1, ensure_ascii=False, sort_keys=True) + "\n",
                        encoding="utf-8")
    print("| corpus | queries | R@1 |\n|---|---:|---:|")
    total = hits = 0
    for corpus, by_query in answers.items():
        found = sum(hit(q, names) for q, names in by_query.items())
        total, hits = total + len(by_query), hits + found
        if by_query:
            print(f"| {corpus} | {len(by_query)} | {found / len(by_query):.4f} |")
    print(f"| **all** | {total} | {hits / max(total, 1):.4f} |")
    if args.against:
        before = json.loads(args.against.read_text(encoding="utf-8"))
        for corpus, by_query in answers.items():
            for query, names in by_query.items():
                old = before.get(corpus, {}).get(query)
                if old is not None and hit(query, old) != hit(query, names):
                    change = "better" if hit(query, names) else "WORSE"
                    print(f"{change}: {corpus} {query!r}: {old[:1]} -> {names[:1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
