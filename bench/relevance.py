"""Relevance benchmark: every tool on the same ctags-derived queries, R@1 / R@5 / MRR.

One run: fetch the corpora -> ground truth and queries (`bench.groundtruth`) -> run every
tool (`bench.tools`) on each corpus's queries -> tables. A HIT is a result with the same
path and the same line as the query's ground-truth definition (the line of its name).
R@k: share of queries with a hit in the first k results; MRR: mean of 1/rank of the
first hit (0 when none of the 10 results hits); N: queries. Averages are over queries.

Usage:
    python -m bench.relevance --all                 # all relevance corpora, all tools
    python -m bench.relevance requests tokio        # some corpora
    python -m bench.relevance --all --no-symfind    # baselines only
    python -m bench.relevance --report-only         # tables from the last run's results
    python -m bench.relevance --all --table bench/coverage_corpora.toml \
        --report-dir bench/out/relevance-new        # the coverage corpora (never tuned to)

Writes to `bench/out/`: `results.jsonl` (one row per tool x query), `relevance.md` (the
tables, also printed), `relevance.json` (the numbers), `misses-<tool>.md` (a sample of
misses per shape: query, expected, what ranked first) and, when symfind ran,
`symfind-coverage.md` (share of ground-truth definitions present in symfind's index).
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import os
import random
import statistics
import sys
from pathlib import Path

from bench import corpora, groundtruth, tools

log = logging.getLogger("bench.relevance")

OUT = groundtruth.OUT_DIR
BASELINES = ("fuzzy-scan", "ctags-lookup", "ripgrep")
MISSES_PER_SHAPE = 25


def run_corpus(corpus: corpora.Corpus, chosen: list[tools.Tool],
               per_shape: int) -> list[dict]:
    """Fetch, derive queries, run every tool; one row per (tool, query)."""
    corpora.fetch(corpus)
    groundtruth.build(corpus, per_shape)
    defs = groundtruth.load_definitions(corpus)
    queries = groundtruth.load_queries(corpus)
    texts = [q["query"] for q in queries]
    rows = []
    for tool in chosen:
        tool.prepare(corpus.path, defs)
        answers = tool.run(texts)
        for query, answer in zip(queries, answers, strict=True):
            expected = (query["path"], query["line"])
            rank = answer.ranked.index(expected) + 1 if expected in answer.ranked else 0
            rows.append({**query, "tool": tool.name, "rank": rank,
                         "took_ms": round(answer.took_ms, 3), "first": answer.first,
                         **answer.extra})
        hits = sum(1 for r in rows if r["tool"] == tool.name and r["rank"] == 1)
        log.info("%s / %s: R@1 %d/%d", corpus.dirname, tool.name, hits, len(queries))
    return rows


def metrics(rows: list[dict]) -> dict:
    """R@1, R@5, MRR, N, and median / p95 time per query of a group of rows."""
    n = len(rows)
    if n == 0:
        return {"n": 0}
    ranks = [r["rank"] for r in rows]
    times = sorted(r["took_ms"] for r in rows)
    return {
        "n": n,
        "r1": sum(1 for k in ranks if k == 1) / n,
        "r5": sum(1 for k in ranks if 1 <= k <= 5) / n,
        "mrr": sum(1 / k for k in ranks if k) / n,
        "ms_p50": statistics.median(times),
        "ms_p95": times[min(n - 1, int(0.95 * n))],
    }


def _group(rows: list[dict], *keys: str) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = collections.defaultdict(list)
    for row in rows:
        groups[tuple(row[k] for k in keys)].append(row)
    return groups


def _order(values: set[str], preferred: tuple[str, ...]) -> list[str]:
    return [v for v in preferred if v in values] + sorted(values - set(preferred))


def table(rows: list[dict], by: str, title: str) -> str:
    """Markdown: one row per value of `by` (plus "all"), one column per tool."""
    tool_names = _order({r["tool"] for r in rows}, (*BASELINES, "symfind"))
    values = _order({r[by] for r in rows}, groundtruth.SHAPES)
    by_key = _group(rows, by, "tool")
    by_tool = _group(rows, "tool")
    lines = [f"### {title}", "", "R@1 / R@5 / MRR per tool; N = queries.", "",
             f"| {by} | N | " + " | ".join(tool_names) + " |",
             "|---|---:|" + "---|" * len(tool_names)]
    for value in [*values, "all"]:
        cells = []
        for name in tool_names:
            group = by_tool[(name,)] if value == "all" else by_key.get((value, name), [])
            m = metrics(group)
            cells.append("-" if not m["n"] else f"{m['r1']:.2f} / {m['r5']:.2f} / {m['mrr']:.2f}")
        n = metrics([r for r in rows if r["tool"] == tool_names[0]
                     and (value == "all" or r[by] == value)])["n"]
        label = f"**{value}**" if value == "all" else value
        lines.append(f"| {label} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def language_shape_table(rows: list[dict], tool: str) -> str:
    """Markdown: R@1 of one tool per language x shape."""
    mine = [r for r in rows if r["tool"] == tool]
    if not mine:
        return ""
    shapes = _order({r["shape"] for r in mine}, groundtruth.SHAPES)
    languages = sorted({r["language"] for r in mine})
    groups = _group(mine, "language", "shape")
    lines = [f"### {tool}: R@1 by language x shape (N in parentheses)", "",
             "| language | " + " | ".join(shapes) + " |", "|---|" + "---:|" * len(shapes)]
    for language in languages:
        cells = []
        for shape in shapes:
            m = metrics(groups.get((language, shape), []))
            cells.append("-" if not m["n"] else f"{m['r1']:.2f} ({m['n']})")
        lines.append(f"| {language} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def timing_table(rows: list[dict]) -> str:
    tool_names = _order({r["tool"] for r in rows}, (*BASELINES, "symfind"))
    lines = ["### Time per query (ms)", "",
             "fuzzy-scan and ctags-lookup: in-process over a prebuilt list; ripgrep: wall "
             "time of one `rg` process; symfind: `took_ms` it reports (in-process search).",
             "", "| tool | p50 | p95 |", "|---|---:|---:|"]
    for name in tool_names:
        m = metrics([r for r in rows if r["tool"] == name])
        lines.append(f"| {name} | {m['ms_p50']:.2f} | {m['ms_p95']:.2f} |")
    return "\n".join(lines) + "\n"


def corpus_table(names: list[str], table_path: Path = corpora.TABLE) -> str:
    """Markdown: the corpora with files, definitions and queries (from stats.json)."""
    lines = ["### Corpora", "",
             "| corpus | version | language | source | files | ctags tags | definitions "
             "| queries | dropped as ambiguous (exact) |",
             "|---|---|---|---|---:|---:|---:|---:|---:|"]
    table_rows = {c.name: c for c in corpora.load_table(table_path)}
    for name in names:
        corpus = table_rows[name]
        stats = json.loads((groundtruth.out_dir(corpus) / "stats.json").read_text("utf-8"))
        queries = sum(s["queries"] for s in stats["shapes"].values())
        exact = stats["shapes"]["exact"]
        lines.append(f"| {name} | {corpus.version} | {corpus.language} | {corpus.source} "
                     f"| {stats['files']} | {stats['tags']} | {stats['definitions']} "
                     f"| {queries} | {exact['ambiguous']} of {exact['eligible']} |")
    return "\n".join(lines) + "\n"


def misses_report(rows: list[dict], tool: str, per_shape: int = MISSES_PER_SHAPE) -> str:
    """Markdown: a seeded sample of one tool's misses (rank != 1) per shape."""
    mine = [r for r in rows if r["tool"] == tool]
    lines = [f"# {tool}: misses (rank != 1), up to {per_shape} per shape", "",
             "rank: where the expected definition came (- = not in the top 10).", ""]
    for shape in _order({r["shape"] for r in mine}, groundtruth.SHAPES):
        misses = [r for r in mine if r["shape"] == shape and r["rank"] != 1]
        total = sum(1 for r in mine if r["shape"] == shape)
        random.Random(f"misses:{tool}:{shape}").shuffle(misses)
        lines += [f"## {shape}: {len(misses)} of {total} missed", "",
                  "| corpus | query | expected | rank | ranked first |", "|---|---|---|---:|---|"]
        for r in sorted(misses[:per_shape], key=lambda r: (r["corpus"], r["query"])):
            expected = f"{r['name']} [{r['kind']}] {r['path']}:{r['line']}"
            lines.append(f"| {r['corpus']} | `{r['query']}` | {_cell(expected)} "
                         f"| {r['rank'] or '-'} | {_cell(r['first'])} |")
        lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def symfind_coverage(names: list[str], table_path: Path = corpora.TABLE) -> str:
    """Markdown: share of ground-truth definitions whose (path, line) symfind indexed.

    Uses symfind's Python API (`storage.Searcher.all_symbols`) on the relevance indexes;
    this is the ceiling of symfind's recall, by language and ctags kind.
    """
    os.environ["SYMFIND_INDEX_DIR"] = str(tools.SYMFIND_INDEX_BASE)
    try:
        from symfind.storage import Searcher, index_dir_for
    except ImportError as error:
        return f"(coverage skipped: {error})\n"
    found: collections.Counter = collections.Counter()
    total: collections.Counter = collections.Counter()
    table_rows = {c.name: c for c in corpora.load_table(table_path)}
    for name in names:
        corpus = table_rows[name]
        searcher = Searcher(index_dir_for(corpus.path.resolve()))
        indexed = {(s.path, s.line) for s in searcher.all_symbols()}
        for d in groundtruth.load_definitions(corpus):
            key = (d.language, d.ctags_kind)
            total[key] += 1
            found[key] += (d.path, d.line) in indexed
    lines = ["### symfind index coverage of the ground truth", "",
             "Share of ctags definitions whose (path, line) is a symbol in symfind's index "
             "(the ceiling of its recall).", "",
             "| language | ctags kind | definitions | in symfind's index | share |",
             "|---|---|---:|---:|---:|"]
    for (language, kind), n in sorted(total.items(), key=lambda kv: (kv[0][0], -kv[1])):
        lines.append(f"| {language} | {kind} | {n} | {found[(language, kind)]} "
                     f"| {found[(language, kind)] / n:.2f} |")
    all_n, all_found = sum(total.values()), sum(found.values())
    lines.append(f"| **all** | | {all_n} | {all_found} | {all_found / max(all_n, 1):.2f} |")
    return "\n".join(lines) + "\n"


def kinds_table(names: list[str], table_path: Path = corpora.TABLE) -> str:
    """Markdown: ground-truth definitions by language x ctags kind over the corpora."""
    counts: collections.Counter = collections.Counter()
    table_rows = {c.name: c for c in corpora.load_table(table_path)}
    for name in names:
        stats = json.loads(
            (groundtruth.out_dir(table_rows[name]) / "stats.json").read_text("utf-8"))
        for language, kinds in stats["definitions_by_language_kind"].items():
            for kind, n in kinds.items():
                counts[(language, kind)] += n
    lines = ["### Ground truth: definitions by language x ctags kind", "",
             "| language | kinds (count) |", "|---|---|"]
    for language in sorted({lang for lang, _ in counts}):
        kinds = sorted(((k, n) for (lang, k), n in counts.items() if lang == language),
                       key=lambda kv: -kv[1])
        lines.append(f"| {language} | " + ", ".join(f"{k} {n}" for k, n in kinds) + " |")
    return "\n".join(lines) + "\n"


def report(rows: list[dict], names: list[str], coverage: bool, out: Path = OUT,
           table_path: Path = corpora.TABLE) -> str:
    """All tables as one Markdown document; also writes the misses and the JSON numbers."""
    parts = ["## Relevance", "",
             "A hit: same path and same line as the ctags definition (the line of the name).",
             "", corpus_table(names, table_path), table(rows, "shape", "By query shape"),
             table(rows, "language", "By language (all shapes)"), timing_table(rows)]
    tool_names = {r["tool"] for r in rows}
    for name in ("symfind", "fuzzy-scan"):
        if name in tool_names:
            parts.append(language_shape_table(rows, name))
    parts.append(kinds_table(names, table_path))
    if coverage and "symfind" in tool_names:
        parts.append(symfind_coverage(names, table_path))
    for name in tool_names:
        (out / f"misses-{name}.md").write_text(misses_report(rows, name), encoding="utf-8")
    numbers = {
        f"{tool}/{group_by}/{value}": metrics(group)
        for group_by in ("shape", "language", "corpus")
        for (value, tool), group in _group(rows, group_by, "tool").items()
    }
    (out / "relevance.json").write_text(json.dumps(numbers, indent=1, sort_keys=True) + "\n",
                                        encoding="utf-8")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpora (default with --all: relevance)")
    parser.add_argument("--all", action="store_true", help="every relevance corpus")
    parser.add_argument("--tools", default="",
                        help="comma-separated subset of fuzzy-scan,ctags-lookup,ripgrep,symfind")
    parser.add_argument("--no-symfind", action="store_true", help="baselines only")
    parser.add_argument("--per-shape", type=int, default=groundtruth.PER_SHAPE)
    parser.add_argument("--table", type=Path, default=corpora.TABLE,
                        help="corpus table (default: %(default)s); with another table, "
                             "--all takes every corpus of it (e.g. coverage_corpora.toml)")
    parser.add_argument("--report-only", action="store_true",
                        help="rebuild the tables from results.jsonl in the report directory")
    parser.add_argument("--report-dir", type=Path, default=OUT,
                        help="where results.jsonl, relevance.md/json and misses go (default: %(default)s)")
    args = parser.parse_args(argv)
    out = args.report_dir
    results = out / "results.jsonl"
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if not args.names and not args.all and not args.report_only:
        parser.error("name corpora or pass --all")
    out.mkdir(parents=True, exist_ok=True)
    if args.report_only:
        rows = groundtruth.read_jsonl(results)
        names = list(dict.fromkeys(r["corpus"] for r in rows))
    else:
        every = "relevance" if args.table == corpora.TABLE else None
        chosen_corpora = corpora.select(corpora.load_table(args.table), args.names,
                                        None if args.names else every)
        chosen = tools.available_tools(include_symfind=not args.no_symfind)
        if args.tools:
            wanted = set(args.tools.split(","))
            chosen = [t for t in chosen if t.name in wanted]
        rows = []
        for corpus in chosen_corpora:
            rows += run_corpus(corpus, chosen, args.per_shape)
        groundtruth.write_jsonl(results, rows)
        names = [c.name for c in chosen_corpora]
    text = report(rows, names, coverage=True, out=out, table_path=args.table)
    (out / "relevance.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
