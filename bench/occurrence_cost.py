"""What extracting occurrences and imports adds to extraction, per language.

`extract_file` reads each file's uses of names and its imports in the same pass as its
definitions (`extract/occurrences.py`). Here extraction alone (no index) runs over a
corpus's files twice per round, in this process, alternately without the occurrences
(their step replaced by one that returns nothing) and with them, and the medians of the
rounds' CPU times are compared: the ratio is what occurrences cost extraction.

Usage:
    python -m bench.occurrence_cost ROOT [ROOT ...] [--runs N] [--language L ...]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from symfind.extract import ExtractError, language_for_file
from symfind.extract import parse as extract_parse

MAX_BYTES = 2_000_000  # larger files are minified or generated: not what symfind indexes


def corpus_files(root: Path, languages: set[str] | None) -> dict[str, list[tuple[str, bytes]]]:
    """The files under `root` symfind would extract, by language."""
    files: dict[str, list[tuple[str, bytes]]] = defaultdict(list)
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        language = language_for_file(path.name, data[:4096])
        if language and len(data) <= MAX_BYTES and (not languages or language in languages):
            files[language].append((path.relative_to(root).as_posix(), data))
    return files


def _no_occurrences(*_args: object) -> tuple[list, list]:
    return [], []


def extraction_seconds(files: list[tuple[str, bytes]], language: str) -> tuple[float, int]:
    """CPU seconds to extract `files`, and the occurrences found."""
    started, found = time.process_time(), 0
    for path, data in files:
        try:
            found += len(extract_parse.extract_file(path, data, language=language).occurrences)
        except ExtractError:  # a timeout or a failed query: the same in both runs
            continue
    return time.process_time() - started, found


def compare(files: list[tuple[str, bytes]], language: str, runs: int) -> dict[str, float | int]:
    """Medians of `runs` alternated rounds without and with occurrences."""
    real: Callable = extract_parse.occurrences_and_imports
    without: list[float] = []
    with_: list[float] = []
    found = 0
    try:
        for round_ in range(runs + 1):  # the first round warms caches and is dropped
            extract_parse.occurrences_and_imports = _no_occurrences  # type: ignore[assignment]
            seconds, _ = extraction_seconds(files, language)
            if round_:
                without.append(seconds)
            extract_parse.occurrences_and_imports = real
            seconds, found = extraction_seconds(files, language)
            if round_:
                with_.append(seconds)
    finally:
        extract_parse.occurrences_and_imports = real
    before, after = statistics.median(without), statistics.median(with_)
    return {"files": len(files), "occurrences": found, "without_s": before, "with_s": after,
            "ratio": after / before if before else 0.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--language", action="append", help="only these languages")
    args = parser.parse_args(argv)
    print("| corpus | language | files | occurrences | extraction without (s) | with (s) | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for root in args.roots:
        by_language = corpus_files(root, set(args.language or ()))
        for language, files in sorted(by_language.items()):
            if len(files) < 3:
                continue
            figures = compare(files, language, args.runs)
            print(f"| {root.name} | {language} | {figures['files']} | {figures['occurrences']} "
                  f"| {figures['without_s']:.2f} | {figures['with_s']:.2f} "
                  f"| {figures['ratio']:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
