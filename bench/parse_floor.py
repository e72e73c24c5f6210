"""The parse floor: the time tree-sitter alone needs to parse the files symfind indexes.

symfind builds a syntax tree of every file it indexes, so no amount of work on its own
code can index faster than parsing those files: that is the honest reference for its full
index time (ctags tags without building trees). Here every file of a finished index (the
paths in its manifest) is read and parsed with tree-sitter-language-pack's parser for its
language, nothing else: no queries, no records, nothing written. The files are split into
tasks of 16 over as many spawned processes as symfind's extraction uses, process start-up
included (symfind's is too).

Usage (the paths from the index of ROOT under SYMFIND_INDEX_DIR, or from a file):
    python -m bench.parse_floor ROOT [--processes N] [--paths-from FILE]

`bench.speed` and `bench.kernel` time this command as a whole, beside `symfind index`, so
that both pay for starting an interpreter.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

TASK_FILES = 16


def indexed_paths(root: Path) -> list[str]:
    """Repo-relative paths of every file in `root`'s index (under SYMFIND_INDEX_DIR)."""
    from symfind.storage import index_dir_for, read_manifest

    manifest = read_manifest(index_dir_for(root.resolve()))
    if manifest is None:
        raise SystemExit(f"no index of {root}: run `symfind index {root}` first")
    return sorted(manifest.files)


def paths_to_measure(root: Path, paths_from: Path | None) -> list[str]:
    """The paths listed in `paths_from` (one a line), else those of `root`'s index."""
    if paths_from is not None:
        return paths_from.read_text(encoding="utf-8").splitlines()
    return indexed_paths(root)


def _parse_task(task: tuple[str, list[str]]) -> int:
    """Read and parse each file of one task; returns the bytes parsed."""
    from tree_sitter_language_pack import get_parser

    from symfind.extract import LANGUAGES, language_for_file

    root, paths = task
    parsers = {}
    parsed = 0
    for path in paths:
        data = Path(root, path).read_bytes()
        language = language_for_file(path, data[:8192])
        if language is None:
            continue
        parser = parsers.get(language)
        if parser is None:
            parser = parsers[language] = get_parser(LANGUAGES[language].grammar)
        parser.parse(data)
        parsed += len(data)
    return parsed


def parse_floor(root: Path, paths: list[str], processes: int) -> float:
    """Wall seconds to parse `paths` under `root` in `processes` spawned processes."""
    tasks = [(str(root), paths[i : i + TASK_FILES]) for i in range(0, len(paths), TASK_FILES)]
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        for _ in pool.imap_unordered(_parse_task, tasks):
            pass
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--paths-from", type=Path, help="repo-relative paths, one a line")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    paths = paths_to_measure(args.root, args.paths_from)
    seconds = parse_floor(args.root.resolve(), paths, args.processes)
    print(f"{len(paths)} files parsed in {seconds:.2f} s ({args.processes} processes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
