"""Check hand-written question files: every target is where the file says it is.

Each line of a question file is one JSON object:

    {"query": ..., "corpus": ..., "path": ..., "line": ..., "name": ..., "kind": ...,
     "shares_name_word": ...}

For each question this checks that the fields are there with the right types, that
`path` (relative to the corpus root) exists, that its 1-based `line` contains the last
part of `name` (after the last `.`, `::` or `#`), that no query is repeated, and that
`shares_name_word` equals what a loose word comparison of the query and the name finds
(names split at `.`/`::`/`_` and camelCase, words stemmed loosely so `parse` and
`parsing` count as the same word; see `shared_words`: it errs towards "shared"). It prints
one line per problem and the counts.

Usage:
    python -m bench.questions.check_handwritten            # handwritten/*.jsonl, corpora.toml
    python -m bench.questions.check_handwritten F.jsonl --root DIR   # one file, one directory
Exit status: 0 when every question passes, 1 otherwise, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
HANDWRITTEN = Path(__file__).resolve().parent / "handwritten"
FIELDS = {"query": str, "corpus": str, "path": str, "line": int, "name": str, "kind": str,
          "shares_name_word": bool}
KINDS = {"class", "struct", "interface", "trait", "enum", "type", "function", "method",
         "macro", "module", "constant", "variable", "field"}

_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ers", "er", "ed", "es", "s", "ly")


#: Abbreviations common in names, read as the word they stand for (`cmd` is `command`).
ABBREVIATIONS = {
    "arg": "argument", "args": "arguments", "attr": "attribute", "attrs": "attributes",
    "buf": "buffer", "cfg": "config", "cmd": "command", "cmds": "commands",
    "conn": "connection", "ctx": "context", "desc": "description", "dir": "directory",
    "doc": "document", "elem": "element", "env": "environment", "err": "error",
    "fmt": "format", "fn": "function", "func": "function", "gt": "greater", "idx": "index",
    "len": "length", "msg": "message", "num": "number", "opt": "option", "opts": "options",
    "pos": "position", "rt": "runtime", "str": "string", "tmpl": "template", "val": "value",
    "var": "variable", "vars": "variables",
}


def stem(word: str) -> str:
    """A loose stem: `parsing`, `parses`, `parsed` and `parse` all give `pars`."""
    word = word.lower()
    word = ABBREVIATIONS.get(word, word)
    for suffix in _SUFFIXES:
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def words(text: str) -> set[str]:
    """The stemmed words of a query or a name, split at punctuation, `_` and camelCase."""
    chunks = re.split(r"[^A-Za-z0-9]+", text)
    return {stem(part) for chunk in chunks for part in _CAMEL.findall(chunk)}


def shared_words(query: str, name: str) -> list[str]:
    """The name's words the query also has. Loose on purpose, so that it errs towards
    "shared": the same stem, an abbreviation and its word (`cmd`, `command`), or one stem of
    3 letters or more inside the other (`render`/`rendered`, `pad`/`rpad`,
    `command`/`subcommand`)."""
    found = set()
    for a in words(query):
        for b in words(name):
            short, long = sorted((a, b), key=len)
            if a == b or (len(short) >= 3 and short in long):
                found.add(b)
    return sorted(found)


def corpus_roots() -> dict[str, Path]:
    table = tomllib.loads((BENCH / "corpora.toml").read_text())
    return {c["name"]: BENCH / "corpora" / f"{c['name']}-{c['version']}" for c in table["corpus"]}


def check_file(path: Path, root: Path | None) -> tuple[int, int, list[str]]:
    """Returns (questions, of which share no name word, problems)."""
    problems: list[str] = []
    seen: set[str] = set()
    count = no_share = 0
    roots = corpus_roots() if root is None else {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        where = f"{path.name}:{number}"
        if not raw.strip():
            continue
        try:
            question = json.loads(raw)
        except json.JSONDecodeError as error:
            problems.append(f"{where}: not JSON ({error})")
            continue
        wrong = [k for k, t in FIELDS.items() if type(question.get(k)) is not t]
        if wrong:
            problems.append(f"{where}: missing or mistyped field(s) {', '.join(wrong)}")
            continue
        count += 1
        query, name = question["query"], question["name"]
        if query.lower() in seen:
            problems.append(f"{where}: repeated query {query!r}")
        seen.add(query.lower())
        if question["kind"] not in KINDS:
            problems.append(f"{where}: unknown kind {question['kind']!r}")
        shared = shared_words(query, name)
        if bool(shared) != question["shares_name_word"]:
            problems.append(f"{where}: shares_name_word is {question['shares_name_word']}, "
                            f"the words say {bool(shared)} {shared}")
        no_share += not question["shares_name_word"]
        base = root if root is not None else roots.get(question["corpus"])
        if base is None:
            problems.append(f"{where}: unknown corpus {question['corpus']!r}")
            continue
        source = base / question["path"]
        if not source.is_file():
            problems.append(f"{where}: no file {source}")
            continue
        lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
        last = re.split(r"\.|::|#", name)[-1]
        if not 1 <= question["line"] <= len(lines):
            problems.append(f"{where}: line {question['line']} is outside {question['path']}")
        else:
            text = lines[question["line"] - 1]
            if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(last)}(?![A-Za-z0-9_])", text):
                problems.append(f"{where}: {question['path']}:{question['line']} does not "
                                f"contain {last!r}: {text.strip()[:80]!r}")
    return count, no_share, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path,
                        help="question files (default: handwritten/*.jsonl)")
    parser.add_argument("--root", type=Path,
                        help="the corpus root for every file (default: from corpora.toml)")
    args = parser.parse_args(argv)
    files = args.files or sorted(HANDWRITTEN.glob("*.jsonl"))
    if not files:
        print("no question files", file=sys.stderr)
        return 2
    failed = False
    for path in files:
        if not path.is_file():
            print(f"{path}: no such file", file=sys.stderr)
            return 2
        count, no_share, problems = check_file(path, args.root)
        for problem in problems:
            print(problem)
        failed |= bool(problems)
        share = f"{no_share / count:.0%}" if count else "-"
        print(f"{path.name}: {count} questions, {no_share} ({share}) share no word with the name, "
              f"{len(problems)} problem(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
