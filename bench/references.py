"""The references benchmark: symfind's "where is it used" against each language's own tool,
beside `grep -w`, in the same run.

For every corpus of `bench/references.toml` whose ground truth `bench.reference_truth`
wrote (`bench/references/truth-<corpus>.json`), the corpus is indexed fresh, then for each
seeded definition:

- symfind's uses in each tier (`storage.references.classified_uses`, the classification
  `find_references` answers from, with no limit and no time budget) and the time of a
  `find_references` call as an agent makes it (warm, median of three);
- `grep -w NAME` over the repository's files of the language, the definition's own line
  left out.

A use is a (path, line) pair; the truth is the oracle's uses, less those set aside by
rule and counted in the table (a use inside a macro's expansion, where the name is not
written; a mention in a comment: symfind reads source text and leaves comments out; and,
where the oracle says so (TypeScript), another member's declaration and a use of another
class's member: `set_aside`), and corrected by the hand audit in
`bench/references_audit.toml` (uses the oracle missed, and what it listed that is no use
of the definition). Per corpus and kind group (class/type, function, method),
micro-averaged over the seeds: precision and recall of *resolved*, recall of *resolved +
possible*, and grep's precision and recall; the answer's size in tokens (its JSON's
characters / 4, the usual estimate for code and English); p50/p95 latency.

Usage:
    python -m bench.references                   # every corpus with a truth file
    python -m bench.references requests cobra    # some
    python -m bench.references --disagreements   # also list, per seed, what symfind and
                                                 # the oracle disagree on (for the audit)
    python -m bench.references --held-out DIR    # a repository outside the table

Writes `bench/out/references/references.md` (the tables, also printed), `.json` (the
numbers) and, with --disagreements, `disagreements-<corpus>.md`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import statistics
import sys
import tempfile
import time
import tomllib
from collections import defaultdict
from pathlib import Path

import msgspec

from bench import corpora
from bench.reference_truth import (BENCH, Entry, HeldOut, held_out, load_table,
                                   source_files)

log = logging.getLogger("bench.references")

AUDIT = BENCH / "references_audit.toml"
OUT = BENCH / "out" / "references"
GROUPS = ("type", "function", "method")
Use = tuple[str, int]


def load_audit() -> dict[tuple[str, str], dict[str, set[Use]]]:
    """(corpus, qualname) → {"use": uses the oracle missed, "not_use": what it listed wrongly}."""
    if not AUDIT.exists():
        return {}
    with AUDIT.open("rb") as f:
        rows = tomllib.load(f).get("verdict", [])
    audit: dict[tuple[str, str], dict[str, set[Use]]] = defaultdict(
        lambda: {"use": set(), "not_use": set()})
    for row in rows:
        path, _, line = row["site"].rpartition(":")
        audit[(row["corpus"], row["definition"])][row["verdict"]].add((path, int(line)))
    return audit


#: A line that is a comment or inside one, as far as its start tells: a `*` followed by
#: a space, a `/` or nothing (a block comment's ` * text`), not C's `*state = ...`; a
#: `/*` unless code follows its `*/` (`/* see #1208 */ this.x === State.UP`).
_COMMENT_LINE = re.compile(
    r"^\s*(\*(?![^\s/])|/\*(?!.*\*/\s*\S)|//|#(?!include|define|if|endif|else))")


#: What is set aside by rule, in the table's order.
ASIDE = ("macro", "comment", "declaration", "other_class")


def set_aside(root: Path, seed: dict, uses: set[Use]) -> dict[str, set[Use]]:
    """The oracle's uses that symfind leaves out by design, by rule (applied to every seed,
    listed in the report): `macro`, the name is not written on that line (a use inside a
    macro's expansion: clangd reports it at the macro's call); `comment`, the line is a
    comment (`{@link X}` in TypeScript's doc comments); and what the oracle itself shows
    to be no use (`seed["aside"]`, TypeScript's: `bench/ts_references.js`), on a line
    where all its uses are so: `declaration`, the name of another member's declaration
    (an override, an interface's member, an object literal's key: definitions, not
    uses); `other_class`, a use the type checker resolves to a member of a class that
    is neither the seed's class, nor a base or interface of it, nor a subclass."""
    word = re.compile(rf"(?<![\w$]){re.escape(seed['name'])}(?![\w$])")
    lines: dict[str, list[str]] = {}
    aside: dict[str, set[Use]] = {reason: set() for reason in ASIDE}
    marked = {tuple(site): reason for reason in ASIDE
              for site in seed.get("aside", {}).get(reason, ())}
    by_line: dict[Use, list[str]] = defaultdict(list)
    for path, line, column in seed["uses"]:
        by_line[(path, line)].append(marked.get((path, line, column), ""))
    for (path, line), reasons in by_line.items():
        if all(reasons):
            aside[reasons[0]].add((path, line))
    for path, line in uses - set().union(*aside.values()):
        if path not in lines:
            lines[path] = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
        text = lines[path][line - 1] if 0 < line <= len(lines[path]) else ""
        if not word.search(text):
            aside["macro"].add((path, line))
        elif _COMMENT_LINE.match(text):
            aside["comment"].add((path, line))
    return aside


def truth_of(root: Path, seed: dict, corpus: str, audit: dict) -> tuple[set[Use], dict]:
    """The oracle's uses, less those set aside by rule, corrected by the hand audit."""
    uses = {(path, line) for path, line, _ in seed["uses"]}
    aside = set_aside(root, seed, uses)
    verdicts = audit.get((corpus, seed["qualname"]), {"use": set(), "not_use": set()})
    kept = uses - set().union(*aside.values())
    return (kept | verdicts["use"]) - verdicts["not_use"], aside


def grep_uses(root: Path, files: list[str], seed: dict) -> set[Use]:
    """What `grep -w NAME` finds in the language's files, the definition's line left out."""
    word = re.compile(rf"(?<![\w$]){re.escape(seed['name'])}(?![\w$])")
    found = set()
    for rel in files:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        if seed["name"] not in text:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if word.search(line) and (rel, number) != (seed["path"], seed["line"]):
                found.add((rel, number))
    return found


def index_corpus(root: Path, index_dir: Path) -> None:
    from symfind.daemon.config import Config, IndexOptions
    from symfind.daemon.indexer import update_index

    started = time.perf_counter()
    update_index(Config(repo=root, index_dir=index_dir, options=IndexOptions(), workers=2))
    log.info("%s indexed in %.1f s", root.name, time.perf_counter() - started)


def run_corpus(entry: Entry | HeldOut, audit: dict, disagreements: bool) -> dict:
    from symfind.storage import Searcher
    from symfind.storage.references import MAX_BUDGET_MS, ReferencesQuery

    truth = json.loads(entry.truth.read_text(encoding="utf-8"))
    root = entry.root
    files = source_files(root, entry.language)
    rows = []
    with tempfile.TemporaryDirectory(prefix="refs-bench-") as tmp:
        index_corpus(root, Path(tmp))
        searcher = Searcher(Path(tmp))
        for seed in truth["seeds"]:
            if seed.get("error"):
                continue
            query = ReferencesQuery(path=seed["path"], line=seed["line"])
            tiers = searcher.reference_sites(ReferencesQuery(
                path=seed["path"], line=seed["line"], budget_ms=MAX_BUDGET_MS))
            times, size = [], 0
            for _ in range(3):
                started = time.perf_counter()
                answer = searcher.find_references(query)
                times.append((time.perf_counter() - started) * 1000)
                size = len(msgspec.json.encode(answer))
            truth_uses, aside = truth_of(root, seed, entry.name, audit)
            rows.append({
                "seed": seed, "truth": truth_uses, "aside": aside,
                "resolved": {(p, line) for p, line, _ in tiers["resolved"]},
                "possible": {(p, line) for p, line, _ in tiers["possible"]},
                "grep": grep_uses(root, files, seed),
                "ms": statistics.median(times), "tokens": size / 4})
    if disagreements:
        write_disagreements(entry.name, truth, rows)
    return {"corpus": entry.name, "language": entry.language,
            "oracle": truth["oracle_version"], "groups": summarize(rows)}


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 3) if denominator else None


def summarize(rows: list[dict]) -> dict[str, dict]:
    out = {}
    for group in (*GROUPS, "all"):
        chosen = [r for r in rows if group == "all" or r["seed"]["group"] == group]
        if not chosen:
            continue
        hit_r = sum(len(r["resolved"] & r["truth"]) for r in chosen)
        hit_rp = sum(len((r["resolved"] | r["possible"]) & r["truth"]) for r in chosen)
        hit_g = sum(len(r["grep"] & r["truth"]) for r in chosen)
        truth = sum(len(r["truth"]) for r in chosen)
        times = sorted(r["ms"] for r in chosen)
        out[group] = {
            "seeds": len(chosen), "uses": truth,
            **{f"aside_{reason}": sum(len(r["aside"][reason]) for r in chosen)
               for reason in ASIDE},
            "resolved_precision": _ratio(hit_r, sum(len(r["resolved"]) for r in chosen)),
            "resolved_recall": _ratio(hit_r, truth),
            "resolved_possible_recall": _ratio(hit_rp, truth),
            "resolved_possible_precision": _ratio(
                hit_rp, sum(len(r["resolved"] | r["possible"]) for r in chosen)),
            "grep_precision": _ratio(hit_g, sum(len(r["grep"]) for r in chosen)),
            "grep_recall": _ratio(hit_g, truth),
            "tokens_median": round(statistics.median(r["tokens"] for r in chosen)),
            "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(times[min(len(times) - 1, int(0.95 * len(times)))], 1),
        }
    return out


def write_disagreements(corpus: str, truth: dict, rows: list[dict]) -> None:
    lines = [f"# {corpus}: symfind and {truth['oracle_version']} disagree", "",
             "Per seed: resolved by symfind but not a use for the oracle (a wrong resolution, "
             "or a use the oracle missed), and the oracle's uses symfind did not resolve "
             "(in *possible* or missed). Verdicts go in `bench/references_audit.toml`.", ""]
    for row in rows:
        seed = row["seed"]
        extra = sorted(row["resolved"] - row["truth"])
        missed = sorted(row["truth"] - row["resolved"])
        if not extra and not missed:
            continue
        lines.append(f"## {seed['qualname']} ({seed['kind']}, {seed['path']}:{seed['line']})")
        for path, line in extra:
            lines.append(f"- resolved, not in truth: {path}:{line}")
        for path, line in missed:
            where = "possible" if (path, line) in row["possible"] else "missed"
            lines.append(f"- truth, {where}: {path}:{line}")
        lines.append("")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"disagreements-{corpus}.md").write_text("\n".join(lines), encoding="utf-8")


def table(results: list[dict]) -> str:
    head = ("| corpus | kind | seeds | uses | set aside (macro, comment, declaration, "
            "other class) | resolved P | "
            "resolved R | res+poss R | grep -w P | grep -w R | tokens | p50 ms | p95 ms |")
    lines = [head, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def cell(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    for result in results:
        for group, g in result["groups"].items():
            lines.append(
                f"| {result['corpus']} | {group} | {g['seeds']} | {g['uses']} | "
                f"{', '.join(str(g[f'aside_{reason}']) for reason in ASIDE)} | "
                f"{cell(g['resolved_precision'])} | {cell(g['resolved_recall'])} | "
                f"{cell(g['resolved_possible_recall'])} | {cell(g['grep_precision'])} | "
                f"{cell(g['grep_recall'])} | {g['tokens_median']} | {g['p50_ms']} | "
                f"{g['p95_ms']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpora (default: every one with a truth file)")
    parser.add_argument("--disagreements", action="store_true",
                        help="list what symfind and the oracle disagree on, per seed")
    parser.add_argument("--held-out", type=Path, metavar="DIR",
                        help="instead, a repository outside the table, whose truth "
                             "`python -m bench.reference_truth --held-out DIR` wrote")
    parser.add_argument("--language", default="go", help="the held-out repository's language")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    audit = load_audit()
    results = []
    if args.held_out:
        results.append(run_corpus(held_out(args.held_out, args.language), audit,
                                  args.disagreements))
    for entry in [] if args.held_out else load_table():
        name = entry.corpus.name
        if (args.names and name not in args.names) or not entry.truth.exists():
            continue
        corpora.fetch(entry.corpus)
        results.append(run_corpus(entry, audit, args.disagreements))
    text = table(results)
    print(text)
    print(f"\nload average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "references.md").write_text(text + "\n", encoding="utf-8")
    (OUT / "references.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
