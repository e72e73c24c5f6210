"""Coverage benchmark: is every definition of real, never-tuned-to code in symfind's index?

For each corpus of `coverage_corpora.toml` (real packages fetched from PyPI, npm and
Debian, pinned by version; none of them used anywhere else in the project):

1. the ground truth is `bench.groundtruth`'s: every universal-ctags definition of the kinds
   the relevance bench keeps, over the files it keeps;
2. `symfind index` builds the corpus's index (its own `SYMFIND_INDEX_DIR` under
   `bench/out/coverage/indexes/`), and every symbol is read back (`Searcher.all_symbols`);
3. a definition is COVERED when the index holds a symbol of the same file and the same
   name (`comparable_name`: as both tools spell it) whose lines (`start_line`..`end_line`)
   hold the definition's line;
4. every miss gets one cause (`Cause`), the first that applies: the file was skipped;
   ctags' own error (`ctags_error`: a macro call read as a definition, a made-up name,
   code in a string, a local ctags lost the function scope of, ...); the line lies in a
   region tree-sitter could not parse; symfind holds the name in that file at other lines;
   symfind holds another name there; nothing of the file was extracted; else the tag
   queries do not extract that kind.

Coverage is reported per corpus and per language (a corpus counts every supported
language in it), misses grouped by cause and (language, ctags kind), with examples.

Usage:
    python -m bench.coverage                      # every corpus: fetch, index, measure
    python -m bench.coverage grpc-go jansson      # some
    python -m bench.coverage --report-only        # the tables again from the last run

Writes to `bench/out/coverage/`: `coverage.md` (also printed), `coverage.json` (numbers)
and `<corpus>/misses.jsonl` (every miss with its cause).
"""

from __future__ import annotations

import argparse
import collections
import enum
import json
import logging
import os
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from bench import corpora, groundtruth, tools
from bench.ctags_errors import Regions, SourceFiles, ctags_error, name_lines_fixed

log = logging.getLogger("bench.coverage")

TABLE = corpora.BENCH / "coverage_corpora.toml"
OUT = groundtruth.OUT_DIR / "coverage"
INDEXES = OUT / "indexes"
GOAL = 0.995
EXAMPLES_PER_GROUP = 3
#: Symbols that hold other definitions: spanning a line says nothing about what is there.
_CONTAINER_KINDS = frozenset({"class", "struct", "module", "interface", "trait", "enum"})


class Cause(enum.StrEnum):
    """Why a ctags definition is not in symfind's index (the first that applies)."""

    FILE_NOT_INDEXED = "file not indexed"
    CTAGS_ERROR = "ctags error"
    PARSE_ERROR = "in a parse-error region"
    OTHER_LINE = "name at other lines"
    OTHER_NAME = "another name there"
    NOT_EXTRACTED = "not extracted"


#: What each cause means, for the report.
CAUSE_NOTES = {
    Cause.FILE_NOT_INDEXED: "symfind indexed no symbol of the file: skipped (with the reason "
                            "`symfind status --skipped` gives) or nothing extracted",
    Cause.CTAGS_ERROR: "not a definition: ctags' reading is wrong (see the rule per example)",
    Cause.PARSE_ERROR: "the line lies inside an ERROR node of tree-sitter's parse of the file "
                       "(symfind's error-region re-parse did not recover it)",
    Cause.OTHER_LINE: "symfind holds the same name in the file, but no symbol of it spans "
                      "the line",
    Cause.OTHER_NAME: "symfind holds a symbol spanning the line under another name",
    Cause.NOT_EXTRACTED: "nothing at that line: the tag queries do not extract it",
}



@dataclass(frozen=True)
class Miss:
    """One ctags definition symfind's index does not hold."""

    corpus: str
    language: str
    ctags_kind: str
    name: str
    path: str
    line: int
    cause: str
    detail: str = ""


# --------------------------------------------------------------------------- symfind


def index_corpus(root: Path, workers: int) -> dict:
    """`symfind index --json ROOT` into the coverage index base; its report."""
    command = tools.symfind_command()
    if command is None:
        raise SystemExit("symfind not found: pip install -e . (or set SYMFIND_BIN)")
    INDEXES.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([*command, "index", "--json", "--workers", str(workers), str(root)],
                          env=tools.symfind_env(INDEXES), check=True, capture_output=True,
                          text=True, encoding="utf-8")
    return json.loads(proc.stdout)


def skipped_files(root: Path) -> dict[str, str]:
    """path -> reason for the files symfind did not index (`symfind status --skipped --json`:
    `{"not_indexed": [{"path", "reason"}, ...]}`); {} from a symfind that cannot say."""
    command = tools.symfind_command() or []
    proc = subprocess.run([*command, "status", "--skipped", "--json", str(root)],
                          env=tools.symfind_env(INDEXES), capture_output=True, text=True,
                          encoding="utf-8", errors="replace")
    if proc.returncode != 0:
        log.warning("symfind status --skipped: exit %d, no skip reasons", proc.returncode)
        return {}
    rows = json.loads(proc.stdout).get("not_indexed", [])
    return {row["path"]: row.get("reason", "") for row in rows}


def indexed_symbols(root: Path) -> list:
    """Every symbol of the corpus's index (symfind's Python API)."""
    os.environ["SYMFIND_INDEX_DIR"] = str(INDEXES)
    from symfind.storage import Searcher, index_dir_for  # after the env var: it is read once

    return Searcher(index_dir_for(root.resolve())).all_symbols()


# --------------------------------------------------------------------------- parse errors


def comparable_name(name: str, language: str) -> str:
    """A name as both tools spell it.

    ctags and symfind spell some names differently without meaning another definition:
    C++ operators (`operator ==` / `operator==`: whitespace dropped), C# and PHP qualified names
    (`KeePass.App`, `IEnumerable.GetEnumerator`, `GuzzleHttp\\Psr7`: the last part) and finalizers (`~A`: the
    class name, as symfind names them like constructors), Ruby accessors and aliases
    (`name=` for a writer, `kind_of` for `kind_of?`: the suffix dropped), JS/TS computed
    method names (`[kRun]`: the brackets dropped).
    """
    name = "".join(name.split())
    if language == "csharp":
        name = name.rsplit(".", 1)[-1].lstrip("~")
    elif language == "php":
        name = name.rsplit("\\", 1)[-1]
    elif language == "ruby":
        name = name.rstrip("=?!") or name
    elif language in ("javascript", "typescript", "tsx") and name.startswith("["):
        name = name.strip("[]")  # a computed method name: ctags `[kRun]`, symfind `kRun`
    return name


# --------------------------------------------------------------------------- causes


def classify(corpus: str, files: SourceFiles, defs: list[groundtruth.Definition], symbols: list,
             skipped: dict[str, str]) -> tuple[int, list[Miss]]:
    """Covered count and the misses, each with its cause."""
    by_file: dict[str, list] = collections.defaultdict(list)
    for s in symbols:
        by_file[s.path].append(s)
    covered = 0
    misses: list[Miss] = []
    for d in defs:
        here = by_file.get(d.path, [])
        wanted = comparable_name(d.name, d.language)
        if any(comparable_name(s.name, d.language) == wanted
               and _first_line(s) <= d.line <= s.end_line for s in here):
            covered += 1
            continue
        if not here and d.path in skipped:
            cause, detail = Cause.FILE_NOT_INDEXED, f"skipped: {skipped[d.path]}"
        else:
            line, nearby, regions = files.context(d.path, d.line)
            cause, detail = cause_of(d, here, line, nearby, regions)
        misses.append(Miss(corpus=corpus, language=d.language, ctags_kind=d.ctags_kind,
                           name=d.name, path=d.path, line=d.line, cause=cause.value,
                           detail=detail))
    return covered, misses


def cause_of(d: groundtruth.Definition, here: list, line: str, nearby: str,
             regions: Regions) -> tuple[Cause, str]:
    """Why symfind's symbols of the file (`here`) miss `d`; `line` is its source line,
    `nearby` the lines from two before to two after it."""
    quoted = f"`{line.strip()[:80]}`"
    wrong = ctags_error(d, line, nearby, regions)
    if wrong:
        return Cause.CTAGS_ERROR, wrong
    if d.line in regions.errors:
        return Cause.PARSE_ERROR, quoted
    wanted = comparable_name(d.name, d.language)
    same_name = [s for s in here if comparable_name(s.name, d.language) == wanted]
    if same_name:
        spans = ", ".join(f"{_first_line(s)}-{s.end_line}" for s in same_name[:3])
        return Cause.OTHER_LINE, f"symfind: lines {spans}; {quoted}"
    inner = [s for s in here if _first_line(s) <= d.line <= s.end_line
             and s.kind not in _CONTAINER_KINDS]
    at_line = [s for s in here if s.line == d.line] or inner
    if at_line:
        other = min(at_line, key=lambda s: s.end_line - _first_line(s))
        return Cause.OTHER_NAME, (f"symfind: {other.name} [{other.kind}] "
                                  f"{_first_line(other)}-{other.end_line}")
    if not here:
        return Cause.FILE_NOT_INDEXED, "no symbol extracted, no skip reason"
    return Cause.NOT_EXTRACTED, quoted


def _first_line(symbol) -> int:
    return min(symbol.line, symbol.start_line or symbol.line)


# --------------------------------------------------------------------------- per corpus


def measure(corpus: corpora.Corpus, workers: int) -> dict:
    """Fetch, ground truth, index, compare; write the misses; return the numbers."""
    root = corpora.fetch(corpus)
    files = groundtruth.source_files(root)
    tags = groundtruth.run_ctags(root, files, h_as_c=corpus.language == "c")
    sources = SourceFiles(root)
    defs = name_lines_fixed(sources, groundtruth.definitions_from_tags(tags)[0])
    report = index_corpus(root, workers)
    symbols = indexed_symbols(root)
    covered, misses = classify(corpus.name, sources, defs, symbols, skipped_files(root))
    dest = OUT / corpus.dirname
    dest.mkdir(parents=True, exist_ok=True)
    groundtruth.write_jsonl(dest / "misses.jsonl", [asdict(m) for m in misses])
    by_language: dict[str, dict[str, int]] = {}
    missed_by_language = collections.Counter(m.language for m in misses)
    for language, n in collections.Counter(d.language for d in defs).items():
        by_language[language] = {"definitions": n, "covered": n - missed_by_language[language]}
    ctags_errors = collections.Counter(m.language for m in misses
                                       if m.cause == Cause.CTAGS_ERROR.value)
    for language, counts in by_language.items():
        counts["ctags_errors"] = ctags_errors[language]
    result = {
        "corpus": corpus.name, "version": corpus.version, "language": corpus.language,
        "source": corpus.source, "files": len(files), "definitions": len(defs),
        "ctags_errors": sum(ctags_errors.values()), "covered": covered,
        "symbols": len(symbols), "skipped": report.get("skipped", {}),
        "by_language": by_language,
        "misses_by_cause": dict(collections.Counter(m.cause for m in misses)),
    }
    log.info("%s: %d/%d definitions covered (%.2f%%)", corpus.name, covered, len(defs),
             100 * covered / max(len(defs), 1))
    return result


# --------------------------------------------------------------------------- report


def _share(covered: int, total: int) -> str:
    return f"{100 * covered / total:.2f} %" if total else "-"


def _coverage_cells(definitions: int, ctags_errors: int, covered: int) -> str:
    """`definitions | ctags errors | covered | coverage | of all tags` cells; ✗ below GOAL.

    Coverage is of the real definitions (ctags' errors left out); "of all tags" counts
    ctags' errors as misses too.
    """
    real = definitions - ctags_errors
    flag = " ✗" if real and covered / real < GOAL else ""
    return (f"{definitions} | {ctags_errors} | {covered} | {_share(covered, real)}{flag} "
            f"| {_share(covered, definitions)}")


def report(results: list[dict], misses: list[dict]) -> str:
    """All tables as one Markdown document."""
    header = "definitions | ctags errors | covered | coverage | of all tags"
    lines = ["## Coverage of ctags definitions by symfind's index", "",
             "Covered: the index holds a symbol of the same file and name whose lines hold "
             "the definition's line. Coverage: covered / (definitions - ctags' errors); "
             "'of all tags' counts ctags' errors as misses too. "
             f"Goal: >= {100 * GOAL:.1f} % on every corpus (✗: below).", "",
             "### Per corpus", "",
             f"| corpus | version | language | source | files | {header} | misses by cause |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in results:
        causes = ", ".join(f"{c} {n}" for c, n in sorted(r["misses_by_cause"].items(),
                                                          key=lambda kv: -kv[1])) or "-"
        lines.append(f"| {r['corpus']} | {r['version']} | {r['language']} | {r['source']} "
                     f"| {r['files']} | "
                     f"{_coverage_cells(r['definitions'], r['ctags_errors'], r['covered'])} "
                     f"| {causes} |")
    below = sum(1 for r in results if "✗" in _coverage_cells(
        r["definitions"], r["ctags_errors"], r["covered"]))
    totals = [sum(r[k] for r in results) for k in ("definitions", "ctags_errors", "covered")]
    lines += [f"| **all** | | | | {sum(r['files'] for r in results)} | "
              f"{_coverage_cells(*totals)} | {below} of {len(results)} corpora below the goal |",
              "", "### Per language (every corpus that holds it)", "",
              "The language is ctags' reading of the file (a `.h` in a C corpus is C, "
              "else C++).", "",
              f"| language | corpora | {header} |", "|---|---:|---:|---:|---:|---:|---:|"]
    per_language: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in results:
        for language, counts in r["by_language"].items():
            per_language[language]["corpora"] += 1
            per_language[language].update(counts)
    for language, c in sorted(per_language.items()):
        lines.append(f"| {language} | {c['corpora']} | "
                     f"{_coverage_cells(c['definitions'], c['ctags_errors'], c['covered'])} |")
    lines += ["", "### Misses by cause", ""]
    by_cause: dict[str, list[dict]] = collections.defaultdict(list)
    for m in misses:
        by_cause[m["cause"]].append(m)
    for cause in Cause:
        group = by_cause.get(cause.value, [])
        if not group:
            continue
        lines += [f"#### {cause.value}: {len(group)}", "", CAUSE_NOTES[cause] + ".", "",
                  "| language | ctags kind | misses | corpora | examples |",
                  "|---|---|---:|---|---|"]
        kinds: dict[tuple[str, str], list[dict]] = collections.defaultdict(list)
        for m in group:
            kinds[(m["language"], m["ctags_kind"])].append(m)
        for (language, kind), ms in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
            names = sorted({m["corpus"] for m in ms})
            examples = "; ".join(
                f"{m['corpus']} `{m['path']}:{m['line']}` {m['name']}"
                + (f" ({m['detail']})" if m["detail"] else "")
                for m in ms[:EXAMPLES_PER_GROUP])
            lines.append(f"| {language} | {kind} | {len(ms)} | {', '.join(names)} "
                         f"| {_cell(examples)} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpora (default: all of the table)")
    parser.add_argument("--table", type=Path, default=TABLE, help="default: %(default)s")
    parser.add_argument("--workers", type=int, default=1,
                        help="symfind's extraction processes (default: %(default)s)")
    parser.add_argument("--report-only", action="store_true",
                        help="the tables again from the last run's coverage.json")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    chosen = corpora.select(corpora.load_table(args.table), args.names)
    OUT.mkdir(parents=True, exist_ok=True)
    numbers = OUT / "coverage.json"
    if args.report_only:
        results = json.loads(numbers.read_text(encoding="utf-8"))
    else:
        results = [measure(corpus, args.workers) for corpus in chosen]
        numbers.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    known = {c.name: c for c in corpora.load_table(args.table)}
    misses = [m for r in results
              for m in groundtruth.read_jsonl(OUT / known[r["corpus"]].dirname / "misses.jsonl")]
    text = report(results, misses)
    (OUT / "coverage.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
