"""What symfind's design costs beyond parsing, stage by stage, in CPU seconds of one process.

`bench.parse_floor` times tree-sitter parsing alone; `symfind index` also matches the tag
queries on every tree, builds the symbols in Python, builds each symbol's Tantivy
document, sends symbols between processes, and Tantivy indexes the documents. Here each
stage runs on its own over the files of an index (the paths of its manifest), in this
process, one after another, and its CPU time (this process's, Tantivy's threads
included) is reported, and as a ratio to parsing:

- parse: read and parse each file (after the C/C++ macro blanking that symfind does);
- query: run the tag query over every tree, matches iterated, nothing built;
- python: what `extract_file` adds to parse and query (names, scopes, signatures, docs,
  error recovery);
- to_document: Tantivy documents of every symbol (`storage.schema.file_documents`);
- transfer: msgpack encoding and decoding of the symbols (workers to the writer);
- tantivy: adding those documents to a fresh index and committing.

On 2 cores that all of these keep busy, wall time follows total CPU, so `parse + query +
tantivy` over `parse` is the least `index / parse floor` that any amount of work on
symfind's Python code can reach without indexing fewer fields.

Usage (the paths from the index of ROOT under SYMFIND_INDEX_DIR, as `bench.parse_floor`):
    python -m bench.design_floor ROOT [--paths-from FILE] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
from pathlib import Path

import msgspec

from bench.parse_floor import paths_to_measure
from symfind.extract import LANGUAGES, Symbol, extract_symbols, language_for_file
from symfind.extract import parse as extract_parse
from symfind.storage.index import open_tantivy
from symfind.storage.schema import file_documents

HEAP_BYTES = 512_000_000  # `symfind index`'s (daemon/indexer.py)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def stage_seconds(root: Path, paths: list[str]) -> dict[str, float | int]:
    """CPU seconds of each stage over `paths` under `root` (see the module doc)."""
    sources = [(path, (root / path).read_bytes()) for path in paths]
    figures: dict[str, float | int] = {"files": len(sources)}

    started = _cpu()
    trees = []
    for path, data in sources:
        language = language_for_file(path, data[:4096])
        if language is None:
            continue
        parser, query = extract_parse._parser_and_query(language)
        parsed = extract_parse.parser_input(LANGUAGES[language].grammar, data)
        trees.append((parser.parse(parsed).root_node, query))
    figures["parse"] = _cpu() - started

    from tree_sitter import QueryCursor

    started = _cpu()
    matches = sum(len(QueryCursor(query).matches(tree)) for tree, query in trees)
    figures["query"] = _cpu() - started
    figures["matches"] = matches
    del trees

    started = _cpu()
    files: list[list[Symbol]] = []
    for path, data in sources:
        try:
            files.append(extract_symbols(path, data))
        except Exception:  # noqa: BLE001 - a file symfind skips costs nothing here either
            continue
    figures["python"] = _cpu() - started - figures["parse"] - figures["query"]
    symbols = [symbol for file_symbols in files for symbol in file_symbols]
    figures["symbols"] = len(symbols)

    started = _cpu()
    documents = [document for file_symbols in files for document in file_documents(file_symbols)]
    figures["to_document"] = _cpu() - started

    started = _cpu()
    msgspec.msgpack.decode(msgspec.msgpack.encode(symbols), type=list[Symbol])
    figures["transfer"] = _cpu() - started

    with tempfile.TemporaryDirectory(prefix="symfind-design-floor-") as scratch:
        index = open_tantivy(Path(scratch), create=True)
        writer = index.writer(heap_size=HEAP_BYTES, num_threads=1)
        started = _cpu()
        for document in documents:
            writer.add_document(document)
        writer.commit()
        writer.wait_merging_threads()
        figures["tantivy"] = _cpu() - started
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--paths-from", type=Path, help="repo-relative paths, one a line")
    parser.add_argument("--limit", type=int, help="only the first N paths")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    paths = paths_to_measure(args.root, args.paths_from)
    figures = stage_seconds(args.root.resolve(), paths[: args.limit])
    parse = figures["parse"]
    stages = ("parse", "query", "python", "to_document", "transfer", "tantivy")
    print("| stage | CPU (s) | / parse |\n|---|---:|---:|")
    for stage in stages:
        print(f"| {stage} | {figures[stage]:.2f} | {figures[stage] / parse:.2f} |")
    least = figures["parse"] + figures["query"] + figures["tantivy"]
    total = sum(figures[stage] for stage in stages)
    print(f"| parse + query + tantivy | {least:.2f} | {least / parse:.2f} |")
    print(f"| all stages | {total:.2f} | {total / parse:.2f} |")
    print(json.dumps({key: round(value, 3) for key, value in figures.items()}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
