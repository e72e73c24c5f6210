"""Dump what extraction produces for every file of the bench corpora, to compare two versions.

A refactor of `extract/` that must not change its output is checked by dumping before and
after and comparing the dumps byte for byte (`cmp -s`). One JSON line per file, sorted by
path, holding the SHA-256 of each grammar's parser input (`parser_input`: what the
rewrites before parsing produce), and either the file's `Extraction` (every symbol, every
field; error counts) or the one-line error it raised. Extraction gets a deadline no file
reaches (`--deadline`), so that a busy machine cannot turn a symbol list into a timeout.

Usage:
    python -m bench.symbol_dump OUT_DIR [CORPUS ...]   # one OUT_DIR/<corpus>.jsonl each;
                                                       # all corpora under bench/corpora
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

import msgspec

from symfind.extract import LANGUAGES, ExtractError, extract_file, language_for_file
from symfind.extract.parse import _as_utf8, parser_input

CORPORA_DIR = Path(__file__).resolve().parent / "corpora"
_ENCODER = msgspec.json.Encoder(order="sorted")


def corpus_files(root: Path) -> list[tuple[str, Path]]:
    """Every regular file under `root` (symlinks not followed), as (relative path, path)."""
    found = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories.sort()
        for name in files:
            path = Path(directory, name)
            if path.is_file() and not path.is_symlink():
                found.append((path.relative_to(root).as_posix(), path))
    return sorted(found)


def dump_line(relative: str, path: Path, deadline_s: float) -> bytes | None:
    """One file's JSON line, or None when symfind has no language for it."""
    source = path.read_bytes()
    language = language_for_file(relative, source[:4096])
    if language is None:
        return None
    record: dict[str, object] = {"path": relative, "language": language}
    parsed = parser_input(LANGUAGES[language].grammar, _as_utf8(source))
    record["parsed_sha256"] = hashlib.sha256(parsed).hexdigest()
    try:
        record["extraction"] = extract_file(relative, source, language=language,
                                            deadline_s=deadline_s)
    except ExtractError as exc:
        record["error"] = f"{type(exc).__name__}: {exc}"
    return _ENCODER.encode(record)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("corpora", nargs="*", help="corpus directory names (default: all)")
    parser.add_argument("--deadline", type=float, default=600.0, help="seconds per file")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    names = args.corpora or sorted(p.name for p in CORPORA_DIR.iterdir()
                                   if p.is_dir() and not p.name.startswith("."))
    args.out.mkdir(parents=True, exist_ok=True)
    for name in names:
        lines = [line for relative, path in corpus_files(CORPORA_DIR / name)
                 if (line := dump_line(relative, path, args.deadline)) is not None]
        (args.out / f"{name}.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
        print(f"{name}: {len(lines)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
