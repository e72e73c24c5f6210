"""Names as people half-remember them: abbreviated queries, symfind beside an IDE finder.

Five shapes, made from names of three or more words (`groundtruth`'s definitions, the
same unambiguous targets as the relevance bench), sampled with `random.Random(
"<corpus>:<shape>")`, `--per-shape` per corpus (default 100):

| shape | query for `AdminBigIntegerFieldWidget` |
|---|---|
| `humps` | each word's initial, capitalised: `ABIFW` |
| `skeleton` | each word's first letter, then its consonants, the name's case and separators kept: `AdmnBgIntgrFldWdgt` |
| `prefixes` | each word's first three letters, lower case, run together: `admbigintfiewid` |
| `forgotten` | one word left out (any, by the seed), the name's style kept: `AdminBigFieldWidget` |
| `swapped` | two neighbouring words swapped: `AdminIntegerBigFieldWidget` |

A query that no longer differs from the name (`skeleton` of a name without vowels) or
that spells another definition's name (case, `_`, `-`, `$` ignored) is not made. Numbers
stay with the word before them (`v6`), as in `groundtruth.split_words`.

Tools, on the same queries, in the same run:

- `symfind`: `symfind index`, then in-process `Searcher.search(limit=10)` (its `took_ms`);
- `ide-finder`: what an IDE's "go to symbol" does, over every ground-truth name: the
  query must be a subsequence of the name (case ignored), scored as fzf and VS Code
  score: a point per matched character, a bonus for a match at a word start (after `_`
  or a case change, or the name's first character) and for consecutive matches, a
  penalty for gaps; best score first, then the shorter name, then path and line.

A hit: same path and line as the definition. R@1 and R@10 per shape, per corpus, and
the mean over corpora (each corpus counts once). For `forgotten`, also what chance
allows: a query is often another name with one word left out too (`test_get_count` and
`test_put_count` for `test_count`), so the report gives the R@1 of a tool that finds every
name the query fits and picks one of them at random (each query's `fits`).

Usage:
    python -m bench.abbreviations --all                   # relevance corpora (6 languages)
    python -m bench.abbreviations rich tokio --per-shape 50
    python -m bench.abbreviations --report-only           # tables from the last run
    python -m bench.abbreviations --all --table held-out.toml   # another table's corpora
    python -m bench.abbreviations rich lua --latency --label after  # CPU time per query

Writes `bench/out/abbreviations/results.jsonl` (one row per tool x query),
`abbreviations.md` (the tables, also printed) and `misses.md` (symfind's misses).

`--latency` answers nothing: it searches each corpus's queries twice, in-process, and
prints one JSON line per corpus with the second pass's CPU time per query (this
thread's, `time.thread_time`, which a busy machine sways less than wall time), p50 and
mean per shape and over all. Run it under another checkout's modules (`PYTHONPATH`, as
`bench/name_latency.py` says) alternately with this one to compare them.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bench import corpora, groundtruth, tools

if TYPE_CHECKING:
    from symfind.storage import Searcher

log = logging.getLogger("bench.abbreviations")

OUT = groundtruth.OUT_DIR / "abbreviations"
SHAPES = ("humps", "skeleton", "prefixes", "forgotten", "swapped")
#: The relevance corpora of the languages the issue measured (Python, Go, Rust, Java,
#: TypeScript, C), two each.
LANGUAGES = ("python", "go", "rust", "java", "typescript", "c")
MIN_WORDS = 3
LIMIT = 10
_VOWELS = frozenset("aeiouAEIOU")


# --------------------------------------------------------------------------- queries


def _spans(name: str) -> list[tuple[int, int]]:
    return [m.span() for m in groundtruth._WORD.finditer(name)]


def _rebuild(name: str, words: list[str]) -> str:
    """`words` put back in the places of the name's words, the separators between them
    kept; camelCase rules kept too: the first word's first letter as the name's was,
    the others capitalised when the name's second word was."""
    spans = _spans(name)
    first_lower = name[spans[0][0]].islower()
    camel = len(spans) > 1 and name[spans[1][0]].isupper()
    out = [name[:spans[0][0]]]
    for position, word in enumerate(words):
        if position == 0 and first_lower and not word.isupper():
            word = word[0].lower() + word[1:]
        elif position > 0 and camel and word[0].islower():
            word = word[0].upper() + word[1:]
        out.append(word)
        if position + 1 < len(words):
            gap_from = spans[position][1]
            gap_to = spans[position + 1][0] if position + 1 < len(spans) else gap_from
            out.append(name[gap_from:gap_to])
    out.append(name[spans[-1][1]:])
    return "".join(out)


def _skeleton(word: str) -> str:
    return word[0] + "".join(c for c in word[1:] if c not in _VOWELS)


def query_text(shape: str, name: str, rng: random.Random) -> str | None:
    """One query of `shape` for `name` (None when the shape cannot be made of it)."""
    spans = _spans(name)
    words = [name[a:b] for a, b in spans]
    if shape == "humps":
        return "".join(word[0].upper() for word in words)
    if shape == "skeleton":
        out, last = [], 0
        for a, b in spans:
            out += [name[last:a], _skeleton(name[a:b])]
            last = b
        return "".join(out) + name[last:]
    if shape == "prefixes":
        return "".join(word[:3].lower() for word in words)
    if shape == "forgotten":
        left_out = rng.randrange(len(words))
        return _rebuild(name, words[:left_out] + words[left_out + 1:])
    if shape == "swapped":
        pair = rng.randrange(len(words) - 1)
        turned = [*words[:pair], words[pair + 1], words[pair], *words[pair + 2:]]
        return _rebuild(name, turned)
    raise ValueError(shape)


def make_queries(defs: list[groundtruth.Definition], corpus_name: str,
                 per_shape: int) -> list[dict]:
    """Up to `per_shape` queries per shape, from unambiguous names of 3+ words."""
    by_name = collections.Counter(groundtruth.name_key(d.name) for d in defs)
    candidates = [d for d in defs if groundtruth._IDENTIFIER.match(d.name)
                  and len(groundtruth.split_words(d.name)) >= MIN_WORDS
                  and by_name[groundtruth.name_key(d.name)] == 1]
    fits = _one_word_back(defs)
    queries = []
    for shape in SHAPES:
        rng = random.Random(f"{corpus_name}:{shape}")
        chosen = list(candidates)
        rng.shuffle(chosen)
        made = 0
        for d in chosen:
            if made >= per_shape:
                break
            text = query_text(shape, d.name, rng)
            if not text or text == d.name or groundtruth.name_key(text) in by_name:
                continue
            query = {"shape": shape, "query": text, "path": d.path, "line": d.line,
                     "name": d.name, "kind": d.kind, "language": d.language,
                     "corpus": corpus_name}
            if shape == "forgotten":  # the target, and the other names the query fits
                words = _words(text)
                query["fits"] = 1 + fits[words] - (words in _left_out(_words(d.name)))
            queries.append(query)
            made += 1
    return queries


def _words(name: str) -> tuple[str, ...]:
    return tuple(groundtruth.split_words(name))  # lowercase already


def _one_word_back(defs: list[groundtruth.Definition]) -> collections.Counter:
    """For each run of words, how many definitions' names it is with one word left out:
    the names a `forgotten` query fits, its target among them. However a tool breaks the
    ties between them, nothing in the query tells them apart."""
    fits: collections.Counter = collections.Counter()
    for d in defs:
        fits.update(_left_out(_words(d.name)))
    return fits


def _left_out(words: tuple[str, ...]) -> set[tuple[str, ...]]:
    """The runs of words a name's words make with one of them left out."""
    return {words[:i] + words[i + 1:] for i in range(len(words))}


# --------------------------------------------------------------------------- the IDE finder


_BOUNDARY = re.compile(r"(?<=[_\-$.])[A-Za-z0-9]|(?<=[a-z0-9])[A-Z]|(?<=[A-Z])[A-Z](?=[a-z])")
MATCH, AT_START, CONSECUTIVE, FIRST_CHAR, GAP_OPEN, GAP_EXTEND = 16, 8, 4, 8, -3, -1


def _starts(name: str) -> frozenset[int]:
    return frozenset({0} | {m.start() for m in _BOUNDARY.finditer(name)})


def ide_score(query: str, name: str, starts: frozenset[int]) -> int | None:
    """The query as a subsequence of the name (case ignored), scored as fzf's first
    algorithm does: the leftmost match, then shortened from its end backwards, then
    points per character, bonuses at word starts and for runs, penalties for gaps.
    None when the query is no subsequence of the name."""
    q, n = query.lower(), name.lower()
    # Forward: where the leftmost match ends.
    i = 0
    for end, char in enumerate(n):
        if char == q[i]:
            i += 1
            if i == len(q):
                break
    else:
        return None
    # Backward from there: the latest start, so the match is as short as it can be.
    i = len(q) - 1
    start = end
    while start >= 0:
        if n[start] == q[i]:
            i -= 1
            if i < 0:
                break
        start -= 1
    # Score the match from `start`: each character at the next place it fits, a word
    # start preferred when one comes before the plain choice's next word start and the
    # rest of the query still fits after it.
    score, previous = 0, -2
    position = start
    for i, char in enumerate(q):
        choices = [p for p in range(position, end + 1) if n[p] == char]
        p = choices[0]
        for later in choices:
            if later in starts and _fits(q[i + 1:], n[later + 1:end + 1]):
                p = later
                break
        if previous >= 0 and p > previous + 1:
            score += GAP_OPEN + GAP_EXTEND * (p - previous - 2)
        score += MATCH + (AT_START if p in starts else 0)
        if p == previous + 1:
            score += CONSECUTIVE
        if i == 0 and p == 0:
            score += FIRST_CHAR
        previous, position = p, p + 1
    return score


def _fits(query: str, text: str) -> bool:
    rest = iter(text)
    return all(char in rest for char in query)


def ide_finder(queries: list[str], defs: list[groundtruth.Definition]) -> list[tuple[list, float]]:
    """Each query's best `LIMIT` (path, line) by `ide_score`, and its time in ms."""
    names = [(d.name, _starts(d.name), (d.path, d.line)) for d in defs]
    answers = []
    for query in queries:
        started = time.perf_counter()
        scored = []
        for name, starts, where in names:
            score = ide_score(query, name, starts)
            if score is not None:
                scored.append((-score, len(name), where))
        scored.sort()
        ranked = list(dict.fromkeys(where for _, _, where in scored))[:LIMIT]
        answers.append((ranked, (time.perf_counter() - started) * 1000))
    return answers


# --------------------------------------------------------------------------- symfind


def indexed_searcher(root: Path) -> Searcher:
    """`symfind index` the corpus (up to date: nothing to do), then its index's searcher."""
    from symfind.storage import Searcher, index_dir_for

    command = tools.symfind_command()
    if command is None:
        raise SystemExit("symfind not found (set SYMFIND_BIN or pip install -e .)")
    started = time.perf_counter()
    subprocess.run([*command, "index", str(root)], env=tools.symfind_env(tools.SYMFIND_INDEX_BASE),
                   check=True, stdout=subprocess.DEVNULL)
    log.info("symfind index %s: %.1f s", root.name, time.perf_counter() - started)
    return Searcher(index_dir_for(root))


def symfind_answers(root: Path, queries: list[str]) -> list[tuple[list, float, str]]:
    """Index the corpus with `symfind index`, then search in-process: (path, line) best
    first, `took_ms`, and the abbreviation channel's alignment of the first result."""
    from symfind.storage import SearchQuery

    searcher = indexed_searcher(root)
    for query in queries[:20]:  # warm up: the first searches open files and load code
        searcher.search(SearchQuery(text=query, limit=LIMIT, explain=False))
    answers = []
    for query in queries:
        response = searcher.search(SearchQuery(text=query, limit=LIMIT, explain=False))
        first = ""
        if response.results:
            top = response.results[0]
            why = top.why.channels.get("abbrev")
            first = f"{top.name} {top.path}:{top.line}" + (
                f" ({why.matched[0]})" if why is not None and why.matched else "")
        answers.append(([(r.path, r.line) for r in response.results], response.took_ms, first))
    return answers


def symfind_latency(corpus: corpora.Corpus, per_shape: int, label: str) -> dict:
    """CPU time per query of a warm searcher over the corpus's abbreviated queries:
    p50 and mean in ms, per shape and over all (see the module's docstring)."""
    from symfind.storage import SearchQuery

    root = corpora.fetch(corpus).resolve()
    groundtruth.build(corpus)
    queries = make_queries(groundtruth.load_definitions(corpus), corpus.name, per_shape)
    searcher = indexed_searcher(root)
    for query in queries:  # the first pass opens files, loads code and fills caches
        searcher.search(SearchQuery(text=query["query"], limit=LIMIT, explain=False))
    spent: dict[str, list[float]] = collections.defaultdict(list)
    for query in queries:
        started = time.thread_time()
        searcher.search(SearchQuery(text=query["query"], limit=LIMIT, explain=False))
        ms = (time.thread_time() - started) * 1000
        spent[query["shape"]].append(ms)
        spent["all"].append(ms)
    return {"corpus": corpus.name, "label": label, "queries": len(queries),
            **{shape: {"cpu_p50_ms": round(statistics.median(times), 3),
                       "cpu_mean_ms": round(statistics.fmean(times), 3)}
               for shape, times in spent.items()}}


# --------------------------------------------------------------------------- run, report


def run_corpus(corpus: corpora.Corpus, per_shape: int, with_symfind: bool) -> list[dict]:
    root = corpora.fetch(corpus).resolve()
    groundtruth.build(corpus)
    defs = groundtruth.load_definitions(corpus)
    queries = make_queries(defs, corpus.name, per_shape)
    texts = [q["query"] for q in queries]
    rows = []
    tool_answers = {"ide-finder": [(ranked, ms, "") for ranked, ms in ide_finder(texts, defs)]}
    if with_symfind:
        tool_answers["symfind"] = symfind_answers(root, texts)
    for tool, answers in tool_answers.items():
        for query, (ranked, ms, first) in zip(queries, answers, strict=True):
            expected = (query["path"], query["line"])
            rank = ranked.index(expected) + 1 if expected in ranked else 0
            rows.append({**query, "tool": tool, "rank": rank, "took_ms": round(ms, 3),
                         "first": first})
    log.info("%s: %d queries", corpus.dirname, len(queries))
    return rows


def _rate(rows: list[dict], k: int) -> float:
    return sum(1 for r in rows if 1 <= r["rank"] <= k) / len(rows) if rows else 0.0


def report(rows: list[dict]) -> str:
    tool_names = [t for t in ("ide-finder", "symfind") if any(r["tool"] == t for r in rows)]
    corpus_names = list(dict.fromkeys(r["corpus"] for r in rows))
    groups: dict[tuple, list[dict]] = collections.defaultdict(list)
    for r in rows:
        groups[(r["tool"], r["shape"], r["corpus"])].append(r)
    lines = ["### Abbreviated names: R@1 / R@10, mean over corpora", "",
             f"Corpora: {', '.join(corpus_names)}. N = queries over all corpora.", "",
             "| shape | N | " + " | ".join(tool_names) + " |",
             "|---|---:|" + "---:|" * len(tool_names)]
    for shape in SHAPES:
        cells = []
        for tool in tool_names:
            per = [groups[(tool, shape, c)] for c in corpus_names if groups[(tool, shape, c)]]
            r1 = statistics.mean(_rate(g, 1) for g in per) if per else 0.0
            r10 = statistics.mean(_rate(g, 10) for g in per) if per else 0.0
            cells.append(f"{r1:.2f} / {r10:.2f}")
        n = sum(len(groups[(tool_names[0], shape, c)]) for c in corpus_names)
        lines.append(f"| {shape} | {n} | " + " | ".join(cells) + " |")
    lines += ["", "### R@1 per corpus and shape (symfind; ide-finder in parentheses)", "",
              "| corpus | " + " | ".join(SHAPES) + " |", "|---|" + "---:|" * len(SHAPES)]
    for corpus in corpus_names:
        cells = []
        for shape in SHAPES:
            mine, ide = groups[("symfind", shape, corpus)], groups[("ide-finder", shape, corpus)]
            cells.append(f"{_rate(mine, 1):.2f} ({_rate(ide, 1):.2f}) n={len(ide)}")
        lines.append(f"| {corpus} | " + " | ".join(cells) + " |")
    chances = [statistics.mean(1 / r["fits"] for r in group) for group in (
        groups[(tool_names[0], "forgotten", c)] for c in corpus_names)
        if group and all(r.get("fits") for r in group)]
    if chances:
        lines += ["", "forgotten: the R@1 of a tool that finds every name the query is with one "
                  "word left out and picks one of them by chance, mean of corpora: "
                  f"{statistics.mean(chances):.3f} (per corpus: "
                  + ", ".join(f"{c:.2f}" for c in chances) + ")."]
    if "symfind" in tool_names:
        times = sorted(r["took_ms"] for r in rows if r["tool"] == "symfind")
        lines += ["", f"symfind `took_ms`: p50 {statistics.median(times):.2f}, "
                  f"p95 {times[int(0.95 * (len(times) - 1))]:.2f} (in-process, warm)."]
    return "\n".join(lines) + "\n"


def misses(rows: list[dict]) -> str:
    lines = ["# symfind: abbreviated-name misses (rank != 1)", ""]
    for shape in SHAPES:
        missed = [r for r in rows if r["tool"] == "symfind" and r["shape"] == shape
                  and r["rank"] != 1]
        lines += [f"## {shape}: {len(missed)}", "", "| corpus | query | expected | rank | first |",
                  "|---|---|---|---:|---|"]
        for r in missed:
            lines.append(f"| {r['corpus']} | `{r['query']}` | {r['name']} {r['path']}:{r['line']} "
                         f"| {r['rank'] or '-'} | {r['first']} |".replace("\n", " "))
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpora")
    parser.add_argument("--all", action="store_true",
                        help=f"every relevance corpus of {', '.join(LANGUAGES)}")
    parser.add_argument("--per-shape", type=int, default=groundtruth.PER_SHAPE)
    parser.add_argument("--no-symfind", action="store_true", help="the IDE finder only")
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--table", type=Path, default=corpora.TABLE,
                        help="the corpora table (default bench/corpora.toml)")
    parser.add_argument("--latency", action="store_true",
                        help="print symfind's CPU time per query, answer nothing")
    parser.add_argument("--label", default="", help="a name for this checkout (--latency)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    results = args.out / "results.jsonl"
    if args.report_only:
        rows = groundtruth.read_jsonl(results)
    else:
        if not args.names and not args.all:
            parser.error("name corpora or pass --all")
        os.environ["SYMFIND_INDEX_DIR"] = str(tools.SYMFIND_INDEX_BASE.resolve())
        table = corpora.load_table(args.table)
        chosen = corpora.select(table, args.names, None if args.names else "relevance")
        if not args.names:
            chosen = [c for c in chosen if c.language in LANGUAGES]
        if args.latency:
            for corpus in chosen:
                print(json.dumps(symfind_latency(corpus, args.per_shape, args.label)), flush=True)
            return 0
        rows = []
        for corpus in chosen:
            rows += run_corpus(corpus, args.per_shape, not args.no_symfind)
        args.out.mkdir(parents=True, exist_ok=True)
        groundtruth.write_jsonl(results, rows)
    text = report(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "abbreviations.md").write_text(text, encoding="utf-8")
    (args.out / "misses.md").write_text(misses(rows), encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
