"""Questions in plain words: does a description of a definition find it?

Three variants, every tool on the same queries in the same run:

- `blanked` (CodeSearchNet's setting): the query is the first sentence of a documented
  definition's doc; the corpus searched is a copy with EVERY definition's doc blanked
  (`bench.blank_docs`, line numbers kept), so name, signature, body and neighbours must
  carry the question;
- `docs`: the same queries against the original corpus (the query is a sentence of the
  target's own doc);
- `hand`: questions written by hand, `bench/questions/handwritten/<corpus>.jsonl`, one JSON
  object per line: `{"query", "corpus", "path", "line", "name", "shares_name_word"}` and
  an optional `"kind"` (path relative to the corpus root, line the 1-based line of the
  name; the format and how they were written: `bench/questions/handwritten/README.md`).

Queries from docs: every definition symfind indexed (read back from its index) whose doc's
first sentence, cleaned of markup and comment decoration, has 4 to 40 words (of two
letters or more) once a leading copy of the name is dropped (Go's `Execute runs ...` ->
`runs ...`: the name must not be handed over); not kind `module`, not in a test file, not
boilerplate (`Deprecated.`, `TODO`, a licence line, `{@inheritDoc}` ...), and a sentence
no other definition of the corpus holds (copied docs have no single answer). Up to
`PER_CORPUS` are sampled with `random.Random("<corpus>:questions")`. The target is (path,
line of the name); a HIT is a result at that path and line.

Tools: `symfind` (`symfind index ROOT`, one `symfind search --queries-from FILE --json`
per corpus and variant; indexes under `bench/out/questions/indexes/`, kept between runs),
`bm25` and `wordllama` (`bench.question_baselines`, over the same index's definitions).

Metrics: R@1, R@5, R@10, NDCG@10 (one relevant answer: 1/log2(1+rank), 0 past 10), per
corpus, pooled over queries and as the mean of corpora; split by whether the query shares
a word with the target's name.

Usage:
    python -m bench.question_bench                                  # every variant and tool
    python -m bench.question_bench --variant blanked --tools symfind,bm25 --corpora requests,tokio
    python -m bench.question_bench --report-only                    # tables from the last results

Writes to `bench/out/questions/`: `queries/<corpus>.jsonl` (the queries from docs),
`<corpus>-blanked/` (the copies) and `<corpus>-blanked.json` (what blanking did and the
check of the copy), `results.jsonl` (one row per variant x tool x query; a run replaces
the rows of the variants, tools and corpora it ran), `questions.md` / `questions.json`
(the tables), `run-meta.json` (the last run's command, commit, times and load averages),
`misses-symfind-<variant>.md` (every query symfind did not rank first, with
what it ranked 1st-3rd and the channels that found them).
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import math
import os
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench import blank_docs, corpora
from bench.groundtruth import OUT_DIR
from bench.question_baselines import Bm25, WordLlama, words
from bench.tools import Symfind, Tool, symfind_command

log = logging.getLogger("bench.question_bench")

OUT = OUT_DIR / "questions"
INDEXES = OUT / "indexes"
HANDWRITTEN = corpora.BENCH / "questions" / "handwritten"
PER_CORPUS = 130
MIN_WORDS = 4
MAX_WORDS = 40
VARIANTS = ("blanked", "docs", "hand")
TOOLS = ("symfind", "bm25", "wordllama")
#: The corpora queries from docs are made from: two per language, Python, Go, Rust,
#: Java, TypeScript and C (the relevance corpora of those languages).
DOC_CORPORA = ("requests", "rich", "cobra", "prometheus-client-golang", "tokio",
               "regex-syntax", "jsoup", "commons-lang3", "rxjs", "reduxjs-toolkit", "tmux",
               "lua")
KS = (1, 5, 10)

_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing|__tests__|spec)/|_test\.go$|(?:^|/)test_[^/]*\.py$"
                        r"|_tests?\.py$|\.(?:test|spec)\.[jt]sx?$|/Test[^/]*\.java$|[^/]Tests?\.java$")
_BOILERPLATE = re.compile(
    r"^(?:deprecated|@|todo|fixme|xxx|hack|copyright|licen[cs]ed?|spdx|generated|code generated"
    r"|do not edit|auto-?generated|nolint|eslint|noinspection|\{@inheritdoc|inheritdoc|see |"
    r"implements |overrides? |internal\b|safety\b|panics\b|note:|nb:|\$|-\*-)", re.I)
# Markup kept as its text: {@link X} / {@code x} -> X, [X](...) / [`X`] -> X, <tags> dropped.
_JAVADOC_INLINE = re.compile(r"\{@\w+\s+([^}]*)\}")
# A Markdown link's text, a Rust intra-doc link's name; other brackets are code (`t[i]`).
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|\[`([^`\]]*)`\]")
_HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_SPHINX_ROLE = re.compile(r"(?<!\w)(?::\w+)+:(?=`)")  # :class:`Request` -> `Request`
# Comment decoration the extractor leaves in a doc: a C block's inner `*` / `**` line
# starts (lua), rules of dashes or equals signs (commons-lang3).
_DECORATION = re.compile(r"(?:(?<=\s)|^)\*+(?=\s|$)")
_RULE = re.compile(r"\s*[-=*#~]{3,}\s*")  # a heading's underline: the heading is a sentence
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'`.])|(?<=[.!?])$")
# Where the prose ends and the reference part of a doc starts.
_SECTION = re.compile(r"\s(?:@[A-Za-z]+\b|:(?:param|return|returns|rtype|raises|type)\b"
                      r"|(?:Args|Arguments|Returns|Raises|Example|Examples|Usage|Parameters"
                      r"|Note|Notes|Errors|Panics|Safety|Deprecated):|#+\s)|:\s+[-*]\s")
# A word of a query: two letters or more (`A B C RA := UpValueBK[C]`, an opcode's operand
# list in lua, is not a sentence).
_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]+")
_BOLD = re.compile(r"\*\*|__")


@dataclass(frozen=True)
class Question:
    """One query and the definition it asks for."""

    query: str
    corpus: str
    path: str
    line: int
    name: str
    shares_name_word: bool
    kind: str = ""
    language: str = ""


# ---------------------------------------------------------------------- queries from docs


def first_sentence(doc: str) -> str:
    """The first sentence of a doc, markup reduced to its text, whitespace collapsed."""
    text = _JAVADOC_INLINE.sub(r"\1", doc)
    text = _MD_LINK.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = _RULE.sub(". ", _DECORATION.sub(" ", _BOLD.sub("", text))).lstrip(". ")
    text = _SPHINX_ROLE.sub("", text)
    text = _HTML_TAG.sub(" ", text).replace("`", "")
    text = re.sub(r"\s+", " ", text).strip()
    section = _SECTION.search(" " + text)
    if section:
        text = text[: max(section.start() - 1, 0)]
    end = _SENTENCE_END.search(text)
    if end:
        text = text[: end.start()]
    return text.strip().rstrip(".:;,").strip()


def shares_name_word(query: str, name: str) -> bool:
    """Whether the query holds one of the words of the name (`retry_upload`: retry, upload)."""
    return bool(set(words(query, whole=False)) & set(words(name, whole=False)))


def doc_question(symbol, corpus: str) -> Question | None:  # noqa: ANN001 -- a Symbol
    """The question a documented definition gives, or None when it gives none."""
    if not symbol.doc or symbol.kind == "module" or _TEST_PATH.search(symbol.path):
        return None
    sentence = first_sentence(symbol.doc)
    if _BOILERPLATE.match(sentence):
        return None
    head, _, rest = sentence.partition(" ")
    if head.strip("`*_") == symbol.name:  # `Execute uses the args` -> `uses the args`
        sentence = rest
    count = len(_WORDS.findall(sentence))
    if not MIN_WORDS <= count <= MAX_WORDS or "\n" in sentence:
        return None
    return Question(sentence, corpus, symbol.path, symbol.line, symbol.name,
                    shares_name_word(sentence, symbol.name), str(symbol.kind), symbol.language)


def doc_questions(corpus: str, symbols: list, per_corpus: int = PER_CORPUS) -> list[Question]:
    """Up to `per_corpus` questions from a corpus's docs, sampled with a fixed seed."""
    candidates = [q for q in (doc_question(s, corpus) for s in symbols) if q is not None]
    held = collections.Counter(q.query.casefold() for q in candidates)
    unique = sorted((q for q in candidates if held[q.query.casefold()] == 1),
                    key=lambda q: (q.path, q.line, q.name))
    rng = random.Random(f"{corpus}:questions")
    chosen = rng.sample(unique, min(per_corpus, len(unique)))
    return sorted(chosen, key=lambda q: (q.path, q.line, q.name))


# ---------------------------------------------------------------------- hand-written


class BadQuestions(ValueError):
    """A hand-written question file that cannot be read as the format says."""


_HAND_FIELDS = {"query": str, "corpus": str, "path": str, "line": int, "name": str,
                "shares_name_word": bool}


def load_hand(path: Path) -> list[Question]:
    """The questions of one hand-written JSONL file.

    Raises:
        BadQuestions: A line is not a JSON object with the six fields and their types.
    """
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadQuestions(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise BadQuestions(f"{path}:{number}: not a JSON object")
        for name, kind in _HAND_FIELDS.items():
            value = row.get(name)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise BadQuestions(f"{path}:{number}: field {name!r} must be a {kind.__name__}")
        if not row["query"].strip() or "\n" in row["query"] or row["line"] < 1:
            raise BadQuestions(f"{path}:{number}: empty or multi-line query, or line < 1")
        kind = row.get("kind", "")
        if not isinstance(kind, str):
            raise BadQuestions(f"{path}:{number}: field 'kind' must be a str")
        questions.append(Question(row["query"], row["corpus"], row["path"], row["line"],
                                  row["name"], row["shares_name_word"], kind))
    return questions


def hand_questions(directory: Path = HANDWRITTEN) -> dict[str, list[Question]]:
    """Every hand-written question, by corpus (`{}` when there are none yet).

    Raises:
        BadQuestions: A file is malformed, or a question names another corpus than its file.
    """
    by_corpus: dict[str, list[Question]] = collections.defaultdict(list)
    for path in sorted(directory.glob("*.jsonl")) if directory.is_dir() else []:
        for question in load_hand(path):
            if question.corpus != path.stem:
                raise BadQuestions(f"{path}: a question of corpus {question.corpus!r}")
            by_corpus[question.corpus].append(question)
    return dict(by_corpus)


# ---------------------------------------------------------------------- index and copies


def indexed_symbols(root: Path) -> list:
    """Every definition of the root's index under `INDEXES` (symfind's Python API)."""
    os.environ["SYMFIND_INDEX_DIR"] = str(INDEXES)
    from symfind.storage import Searcher, index_dir_for

    return Searcher(index_dir_for(root.resolve())).all_symbols()


def blanked_copy(corpus: corpora.Corpus, symbols: list) -> tuple[Path, dict]:
    """The corpus's doc-blanked copy, made again only when the corpus, this benchmark's
    blanking or symfind's extractor changed; with the report of its check."""
    dest = OUT / f"{corpus.name}-blanked"
    stamp_path = OUT / f"{corpus.name}-blanked.json"
    stamp = {"corpus": corpus.dirname, "blanker": blank_docs.blanker_version()}
    if dest.is_dir() and stamp_path.is_file():
        saved = json.loads(stamp_path.read_text(encoding="utf-8"))
        if {k: saved.get(k) for k in stamp} == stamp:
            return dest, saved["report"]
    log.info("%s: blanking the docs of a copy", corpus.name)
    report = blank_docs.blank_corpus(corpus.path, dest, {s.path for s in symbols})
    stamp_path.write_text(json.dumps({**stamp, "report": report.as_dict()}, indent=1),
                          encoding="utf-8")
    return dest, report.as_dict()


def compare_indexes(original: list, blanked: list) -> dict:
    """What symfind's index of the blanked copy holds that the original's does not, and
    the reverse, by (path, name, line); and how many of its definitions kept a doc."""
    before = {(s.path, s.name, s.line) for s in original}
    after = {(s.path, s.name, s.line) for s in blanked}
    return {"only_original": sorted(before - after)[:50], "only_blanked": sorted(after - before)[:50],
            "only_original_count": len(before - after), "only_blanked_count": len(after - before),
            "kept_doc_count": sum(1 for s in blanked if s.doc),
            "differing": len(before ^ after) + sum(1 for s in blanked if s.doc)}


# ---------------------------------------------------------------------- runs


def make_tool(name: str) -> Tool:
    if name == "symfind":
        command = symfind_command()
        if command is None:
            raise SystemExit("symfind not found: pip install -e . (or set SYMFIND_BIN)")
        return Symfind(command, INDEXES)
    return {"bm25": Bm25, "wordllama": WordLlama}[name]()


def run_tools(tools: list[Tool], variant: str, root: Path, symbols: list,
              questions: list[Question], commit: str) -> list[dict]:
    """Every tool on the same questions over one tree; one row per tool x question."""
    rows = []
    texts = [q.query for q in questions]
    for tool in tools:
        tool.prepare(root, symbols)
        answers = tool.run(texts)
        for question, answer in zip(questions, answers, strict=True):
            target = (question.path, question.line)
            rank = answer.ranked.index(target) + 1 if target in answer.ranked else 0
            rows.append({"variant": variant, "tool": tool.name, **question.__dict__,
                         "rank": rank, "top": answer.extra.get("top", [answer.first]),
                         "route": answer.extra.get("route", ""), "commit": commit})
        hits = sum(1 for r in rows if r["tool"] == tool.name and r["rank"] == 1)
        log.info("%s %s %s: R@1 %d/%d", variant, questions[0].corpus if questions else "-",
                 tool.name, hits, len(questions))
    return rows


def symfind_commit() -> str:
    """The commit of the checkout being measured (`-dirty` with uncommitted changes)."""
    proc = subprocess.run(["git", "-C", str(corpora.BENCH), "describe", "--always", "--dirty",
                           "--abbrev=7"], capture_output=True, text=True, encoding="utf-8")
    return proc.stdout.strip() or "?"


def run(names: list[str], variants: list[str], tool_names: list[str]) -> tuple[list[dict], dict]:
    """Run the chosen variants and tools on the chosen corpora: rows, and the checks of
    the blanked copies (per corpus)."""
    table = corpora.load_table()
    hand = hand_questions() if "hand" in variants else {}
    wanted = names or sorted(set(DOC_CORPORA) | set(hand))
    chosen = corpora.select(table, wanted)
    tools = [make_tool(name) for name in tool_names]
    symfind = next((t for t in tools if isinstance(t, Symfind)), None) or make_tool("symfind")
    commit = symfind_commit()
    rows: list[dict] = []
    checks: dict[str, dict] = {}
    for corpus in chosen:
        corpora.fetch(corpus)
        symfind.prepare(corpus.path, [])  # the index the questions and baselines read
        symbols = indexed_symbols(corpus.path)
        from_docs = doc_questions(corpus.name, symbols) if corpus.name in DOC_CORPORA else []
        if from_docs:
            _write_queries(corpus.name, from_docs)
        if "docs" in variants and from_docs:
            rows += run_tools(tools, "docs", corpus.path, symbols, from_docs, commit)
        if "blanked" in variants and from_docs:
            root, report = blanked_copy(corpus, symbols)
            symfind.prepare(root, [])
            blanked = indexed_symbols(root)
            checks.setdefault(corpus.name, {}).update(
                {"extraction": report, "index": compare_indexes(symbols, blanked)})
            rows += run_tools(tools, "blanked", root, blanked, from_docs, commit)
        if corpus.name in hand:
            known = {(s.path, s.line) for s in symbols}
            missing = [q for q in hand[corpus.name] if (q.path, q.line) not in known]
            for q in missing:
                log.warning("hand question's target not in the index: %s %s:%d %r",
                            corpus.name, q.path, q.line, q.query)
            # Counted as misses for every tool (the baselines rank the same index).
            checks.setdefault(corpus.name, {})["hand_not_indexed"] = [
                f"{q.name} {q.path}:{q.line}" for q in missing]
            rows += run_tools(tools, "hand", corpus.path, symbols, hand[corpus.name], commit)
    return rows, checks


def _write_queries(corpus: str, questions: list[Question]) -> None:
    folder = OUT / "queries"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{corpus}.jsonl").open("w", encoding="utf-8") as handle:
        for question in questions:
            handle.write(json.dumps(question.__dict__) + "\n")


# ---------------------------------------------------------------------- metrics and tables


def metrics(rows: list[dict]) -> dict:
    """R@1, R@5, R@10, NDCG@10 and N of a group of rows (one relevant answer each)."""
    n = len(rows)
    if n == 0:
        return {"n": 0}
    ranks = [r["rank"] for r in rows]
    out: dict = {"n": n}
    for k in KS:
        out[f"r{k}"] = sum(1 for rank in ranks if 1 <= rank <= k) / n
    out["ndcg10"] = sum(1 / math.log2(1 + rank) for rank in ranks if 1 <= rank <= 10) / n
    return out


def mean_of(groups: list[dict]) -> dict:
    """The mean of several groups' metrics (each corpus weighs the same)."""
    groups = [g for g in groups if g.get("n")]
    if not groups:
        return {"n": 0}
    out = {key: sum(g[key] for g in groups) / len(groups) for key in groups[0] if key != "n"}
    return {"n": sum(g["n"] for g in groups), "corpora": len(groups), **out}


def summarize(rows: list[dict]) -> dict:
    """variant -> tool -> {"pooled", "mean_of_corpora", "corpora": {..}, "shares_name_word": {..}}."""
    summary: dict = {}
    grouped = collections.defaultdict(list)
    for row in rows:
        grouped[(row["variant"], row["tool"])].append(row)
    for (variant, tool), group in sorted(grouped.items()):
        by_corpus = collections.defaultdict(list)
        for row in group:
            by_corpus[row["corpus"]].append(row)
        per_corpus = {c: metrics(g) for c, g in sorted(by_corpus.items())}
        summary.setdefault(variant, {})[tool] = {
            "pooled": metrics(group),
            "mean_of_corpora": mean_of(list(per_corpus.values())),
            "corpora": per_corpus,
            "shares_name_word": {str(flag): metrics([r for r in group
                                                     if r["shares_name_word"] is flag])
                                 for flag in (True, False)},
        }
    return summary


def _cells(m: dict) -> str:
    if not m.get("n"):
        return "| – | – | – | – | 0 |"
    return (f"| {m['r1']:.2f} | {m['r5']:.2f} | {m['r10']:.2f} | {m['ndcg10']:.2f} "
            f"| {m['n']} |")


def _tools_in(per_tool: dict) -> list[str]:
    return [t for t in TOOLS if t in per_tool] + sorted(set(per_tool) - set(TOOLS))


def report(summary: dict, checks: dict) -> str:
    """The Markdown tables."""
    out = []
    for variant in [v for v in VARIANTS if v in summary]:
        per_tool = summary[variant]
        out += [f"### {variant}", "",
                "| tool | over | R@1 | R@5 | R@10 | NDCG@10 | N |", "|---|---|---:|---:|---:|---:|---:|"]
        for tool in _tools_in(per_tool):
            stats = per_tool[tool]
            out.append(f"| {tool} | pooled " + _cells(stats["pooled"]))
            out.append(f"| {tool} | mean of {stats['mean_of_corpora'].get('corpora', 0)} "
                       "corpora " + _cells(stats["mean_of_corpora"]))
            for flag, label in (("True", "shares a name word"), ("False", "no name word")):
                out.append(f"| {tool} | {label} " + _cells(stats["shares_name_word"][flag]))
        out += ["", "Per corpus, R@1 / R@10 / NDCG@10:", ""]
        tools = _tools_in(per_tool)
        out.append("| corpus | N | " + " | ".join(tools) + " |")
        out.append("|---|---:|" + "---|" * len(tools))
        corpora_names = sorted({c for t in tools for c in per_tool[t]["corpora"]})
        for corpus in corpora_names:
            cells = []
            n = 0
            for tool in tools:
                m = per_tool[tool]["corpora"].get(corpus, {"n": 0})
                n = max(n, m["n"])
                cells.append(f"{m['r1']:.2f} / {m['r10']:.2f} / {m['ndcg10']:.2f}" if m["n"] else "–")
            out.append(f"| {corpus} | {n} | " + " | ".join(cells) + " |")
        out.append("")
    not_indexed = {c: check["hand_not_indexed"] for c, check in sorted(checks.items())
                   if check.get("hand_not_indexed")}
    if "hand" in summary and not_indexed:
        out += ["Hand-written targets not in symfind's index (misses for every tool): "
                + "; ".join(f"{c}: {', '.join(names)}" for c, names in not_indexed.items()), ""]
    blanked = {c: check for c, check in sorted(checks.items()) if "extraction" in check}
    if blanked:
        out += ["### the blanked copies", "",
                "| corpus | files blanked | docs | differing (extraction) | differing (index) |",
                "|---|---:|---:|---:|---:|"]
        for corpus, check in blanked.items():
            ex, ix = check["extraction"], check["index"]
            out.append(f"| {corpus} | {ex['files_blanked']} | {ex['docs']} | {ex['differing']} "
                       f"| {ix['differing']} |")
        out.append("")
    return "\n".join(out)


def misses(rows: list[dict], variant: str) -> str:
    """Every question symfind did not rank first, with what it ranked 1st to 3rd."""
    out = [f"# symfind misses, variant {variant}", "",
           "rank 0: not in the first 10. Each result: qualname [kind] path:line channels#rank.", ""]
    for row in rows:
        if row["tool"] != "symfind" or row["variant"] != variant or row["rank"] == 1:
            continue
        out.append(f"- **{row['query']}** ({row['corpus']}; route {row['route']})")
        out.append(f"  - expected `{row['name']}` {row['path']}:{row['line']} — rank {row['rank']}")
        out += [f"  - {i}. {top}" for i, top in enumerate(row["top"], 1)]
    return "\n".join(out) + "\n"


def merge(old: list[dict], new: list[dict]) -> list[dict]:
    """`old` with the (variant, tool, corpus) groups `new` has replaced by `new`'s."""
    ran = {(r["variant"], r["tool"], r["corpus"]) for r in new}
    return [r for r in old if (r["variant"], r["tool"], r["corpus"]) not in ran] + new


def write_outputs(rows: list[dict], checks: dict) -> str:
    summary = summarize(rows)
    text = report(summary, checks)
    (OUT / "questions.md").write_text(text + "\n", encoding="utf-8")
    (OUT / "questions.json").write_text(json.dumps({"summary": summary, "checks": checks},
                                                   indent=1), encoding="utf-8")
    for variant in {r["variant"] for r in rows if r["tool"] == "symfind"}:
        (OUT / f"misses-symfind-{variant}.md").write_text(misses(rows, variant), encoding="utf-8")
    return text


def _read_rows(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.question_bench",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="",
                        help="comma-separated corpus names (default: the doc corpora and "
                             "every corpus with hand-written questions)")
    parser.add_argument("--variant", choices=[*VARIANTS, "all"], default="all")
    parser.add_argument("--tools", default=",".join(TOOLS),
                        help=f"comma-separated, of {', '.join(TOOLS)}")
    parser.add_argument("--report-only", action="store_true",
                        help="the tables again from bench/out/questions/results.jsonl")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(name)s: %(message)s")
    tool_names = [t for t in args.tools.split(",") if t]
    unknown = sorted(set(tool_names) - set(TOOLS))
    if unknown:
        parser.error(f"unknown tools: {', '.join(unknown)} (known: {', '.join(TOOLS)})")
    variants = list(VARIANTS) if args.variant == "all" else [args.variant]
    OUT.mkdir(parents=True, exist_ok=True)
    results = OUT / "results.jsonl"
    checks_path = OUT / "checks.json"
    checks = json.loads(checks_path.read_text(encoding="utf-8")) if checks_path.is_file() else {}
    if args.report_only:
        rows = _read_rows(results)
        if not rows:
            print(f"no results in {results}: run without --report-only first", file=sys.stderr)
            return 2
    else:
        started = time.strftime("%Y-%m-%d %H:%M:%S %z")
        load_before = [round(x, 2) for x in os.getloadavg()]
        try:
            new, new_checks = run([c for c in args.corpora.split(",") if c], variants, tool_names)
        except BadQuestions as exc:
            print(f"bench.question_bench: {exc}", file=sys.stderr)
            return 2
        rows = merge(_read_rows(results), new)
        for corpus, check in new_checks.items():
            checks.setdefault(corpus, {}).update(check)
        meta = {"command": "python -m bench.question_bench " + " ".join(argv or sys.argv[1:]),
                "commit": symfind_commit(), "started": started,
                "finished": time.strftime("%Y-%m-%d %H:%M:%S %z"),
                "load_before": load_before, "load_after": [round(x, 2) for x in os.getloadavg()]}
        (OUT / "run-meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        log.info("run: %s", meta)
        results.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        checks_path.write_text(json.dumps(checks, indent=1), encoding="utf-8")
    print(write_outputs(rows, checks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
