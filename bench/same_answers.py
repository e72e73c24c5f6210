"""Whether two checkouts answer alike: every bench query's whole top 10, scores included.

A change meant to leave ranking as it was (a schema that stores the same statistics
another way, a cheaper path to the same scores) is shown to by the answers themselves,
not by R@1 staying put: `dump` writes, per corpus, each query's ten results (path, line,
qualified name, score to six places) as the checkout `symfind` imports answers them;
`compare` lists the queries whose answers differ between two dumps.

The queries: the relevance bench's, of every name shape (`bench/out/<corpus>/queries.jsonl`,
written by `bench.groundtruth`), and where they exist the question bench's doc-derived
questions (`bench/out/questions/queries/<corpus>.jsonl`) and hand-written ones
(`bench/questions/handwritten/<corpus>.jsonl`). Each corpus is indexed by `symfind index`
into a fresh index directory, then searched in this process through `storage.Searcher`.

Usage (another checkout's modules first on `PYTHONPATH`, as in `bench.name_latency`):

    PYTHONPATH=/tmp/before python -m bench.same_answers dump rich cobra --out before.json
    python -m bench.same_answers dump rich cobra --out after.json
    python -m bench.same_answers compare before.json after.json

`compare` prints one line per corpus and exits 1 when any answer differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import corpora, groundtruth, question_bench, tools

SCORE_PLACES = 6


def queries_of(corpus: corpora.Corpus) -> list[str]:
    """The corpus's bench queries, each once, in file order."""
    files = [question_bench.OUT / "queries" / f"{corpus.name}.jsonl",
             question_bench.HANDWRITTEN / f"{corpus.name}.jsonl"]
    rows = groundtruth.load_queries(corpus)
    for path in files:
        if path.is_file():
            rows += groundtruth.read_jsonl(path)
    return list(dict.fromkeys(row["query"] for row in rows))


def answers(corpus: corpora.Corpus) -> dict[str, list[list[object]]]:
    """Each query's top 10 from a fresh index of `corpus`."""
    root = corpus.path.resolve()
    base = Path(tempfile.mkdtemp(prefix="symfind-same-answers-"))
    try:
        subprocess.run([sys.executable, "-m", tools.cli_module(), "index", str(root)],
                       env=tools.symfind_env(base), check=True, stdout=subprocess.DEVNULL)
        os.environ["SYMFIND_INDEX_DIR"] = str(base)
        from symfind.storage import Searcher, SearchQuery, index_dir_for

        searcher = Searcher(index_dir_for(root))
        found = {}
        for query in queries_of(corpus):
            results = searcher.search(SearchQuery(text=query, limit=tools.LIMIT)).results
            found[query] = [[r.path, r.line, r.qualname, round(r.score, SCORE_PLACES)]
                            for r in results]
        return found
    finally:
        shutil.rmtree(base, ignore_errors=True)


def differing(before: dict[str, dict], after: dict[str, dict]) -> dict[str, list[str]]:
    """Per corpus of either dump, the queries answered otherwise (or by one dump only)."""
    return {name: [query for query in {**before.get(name, {}), **after.get(name, {})}
                   if before.get(name, {}).get(query) != after.get(name, {}).get(query)]
            for name in {**before, **after}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dump = commands.add_parser("dump", help="write each query's top 10 for some corpora")
    dump.add_argument("names", nargs="+", help="corpora (their queries made already)")
    dump.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    compare = commands.add_parser("compare", help="the queries two dumps answer otherwise")
    compare.add_argument("before", type=Path)
    compare.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "dump":
        chosen = corpora.select(corpora.load_table(), args.names, None)
        args.out.write_text(json.dumps({c.name: answers(c) for c in chosen}), encoding="utf-8")
        return 0
    before, after = (json.loads(path.read_text(encoding="utf-8"))
                     for path in (args.before, args.after))
    changed = differing(before, after)
    for name, queries in sorted(changed.items()):
        total = len({**before.get(name, {}), **after.get(name, {})})
        print(f"{name}: {len(queries)} of {total} queries answered otherwise"
              + "".join(f"\n  {query}" for query in queries[:10]))
    return 1 if any(changed.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
