"""The rewrites' rule on every corpus of the bench's tables: each rewrite of a file's
grammar (`extract.rewrite.REWRITES`, in list order, as `parser_input` runs them) keeps the
same length and every newline where it was, checked on what it is given.

The tests check the rule on the language fixtures, the rewrites' own shapes and a few small
pinned corpora (tests/unit/extract/rewrite/test_rule.py); this checks it on every corpus
present, at most `MAX_FILES_PER_CORPUS` files of each, evenly spaced. Only files of the
grammars some rewrite runs for count (C, C++, TypeScript, TSX): most corpora hold none.

Usage:
    python -m bench.rewrite_rule                     # every present corpus of the tables
    python -m bench.rewrite_rule --corpora DIR       # corpora fetched elsewhere (--into)

Prints one row per corpus (files checked, breaks) and every break; exits 1 on a break.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from bench.corpora import BENCH, CORPORA_DIR, load_table
from symfind.extract import LANGUAGES, language_for_file, language_for_path
from symfind.extract.parse import _as_utf8 as as_utf8  # what the rewrites are given
from symfind.extract.rewrite import REWRITES, Rewrite

MAX_FILES_PER_CORPUS = 2000
CORPUS_TABLES = ("corpora.toml", "coverage_corpora.toml", "multi_corpora.toml")
# Every byte a space but a newline: two texts map to the same bytes exactly when they
# have the same length and their newlines at the same offsets.
_NEWLINES_ONLY = bytes(b"\n"[0] if byte == b"\n"[0] else b" "[0] for byte in range(256))
_REWRITTEN_GRAMMARS = frozenset().union(*(rewrite.grammars for rewrite in REWRITES))


def broken(rewrite: Rewrite, given: bytes, path: str) -> tuple[bytes, list[str]]:
    """What `rewrite` makes of `given`, and the break of the rule it shows, if any."""
    made = rewrite.apply(given)
    if made.translate(_NEWLINES_ONLY) == given.translate(_NEWLINES_ONLY):
        return made, []
    at = next((i for i, (a, b) in enumerate(zip(given, made)) if (a == 10) != (b == 10)),
              min(len(given), len(made)))
    return made, [f"{path}: {rewrite.name} moves bytes (length {len(given)} -> {len(made)},"
                  f" a newline differs at offset {at})"]


def in_order(grammar: str, source: bytes, path: str) -> list[str]:
    """The breaks of the rule of the rewrites of `grammar`, each on what the one before made."""
    breaks: list[str] = []
    for rewrite in REWRITES:
        if grammar in rewrite.grammars:
            source, broke = broken(rewrite, source, path)
            breaks += broke
    return breaks


def rewritten_files(root: Path) -> list[tuple[str, Path]]:
    """The files under `root` whose language's grammar some rewrite runs for (a `.h` may
    be C++: its content tells, and both are rewritten), at most MAX_FILES_PER_CORPUS."""
    found = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories.sort()
        for name in names:
            path = Path(directory, name)
            relative = path.relative_to(root).as_posix()
            language = language_for_path(relative)
            if (language is not None and LANGUAGES[language].grammar in _REWRITTEN_GRAMMARS
                    and path.is_file() and not path.is_symlink()):
                found.append((relative, path))
    found.sort()
    step = max(1, -(-len(found) // MAX_FILES_PER_CORPUS))  # ceiling: at most the cap
    return found[::step]


def check_corpus(root: Path) -> tuple[int, list[str]]:
    """Files checked under `root`, and the breaks found."""
    files = rewritten_files(root)
    breaks: list[str] = []
    for relative, path in files:
        source = as_utf8(path.read_bytes())
        language = language_for_file(relative, source[:4096])
        if language is not None:
            breaks += in_order(LANGUAGES[language].grammar, source, relative)
    return len(files), breaks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA_DIR,
                        help="where the corpora are (bench/corpora)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    seen: set[str] = set()
    absent, clean, all_breaks, total = [], 0, [], 0
    print("| corpus | table | files checked | breaks |\n|---|---|---:|---:|")
    for table in CORPUS_TABLES:
        for corpus in load_table(BENCH / table):
            if corpus.dirname in seen:
                continue
            seen.add(corpus.dirname)
            root = args.corpora / corpus.dirname
            if not root.is_dir():
                absent.append(corpus.dirname)
                continue
            files, breaks = check_corpus(root)
            total += files
            clean += not breaks
            all_breaks += [f"{corpus.dirname}/{b}" for b in breaks]
            print(f"| {corpus.dirname} | {table} | {files} | {len(breaks)} |")
    print(f"\n{len(seen) - len(absent)} corpora present ({clean} without a break), "
          f"{total} files checked, {len(all_breaks)} breaks, in "
          f"{time.monotonic() - started:.1f} s; absent: {', '.join(absent) or 'none'}")
    for line in all_breaks:
        print(line)
    return 1 if all_breaks else 0


if __name__ == "__main__":
    sys.exit(main())
