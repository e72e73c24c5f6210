"""A copy of a corpus with every definition's doc blanked, every line number kept.

The question benchmark (`bench.question_bench`) asks for a definition with the first sentence of
its doc; in the blanked variant that doc must not be in the index, so the name, signature,
body and neighbours have to carry the question (CodeSearchNet's setting).

What a doc is comes from symfind's own extractor: `extract_file` runs with its doc reader
wrapped, so every doc comment or docstring it reads is recorded by byte range -- the
blanking follows the extractor, whatever it counts as a doc. Then, in the copy:

- a comment (`//`, `/** */`, `#`, `///`, `--` ...) becomes spaces, newlines kept;
- a docstring (a string literal as the body's first statement: Python, and a JS
  `"use strict"` the extractor also reads as a doc) becomes `""` and spaces, so a body
  whose only statement it was stays valid code.

A blanked doc can uncover another one (the extractor then reads the comment block further
up), so a file is blanked again until its extraction reads no doc (at most `MAX_PASSES`).
The copy's extraction is compared with the original's: the definitions that moved, appeared
or kept a doc are counted (`BlankReport.differing`).

Imports: symfind's `extract` (its private `parse` internals: this is a measuring tool that
must see exactly what the extractor sees), the standard library.
"""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from symfind.extract import parse

log = logging.getLogger("bench.blank_docs")

_NOT_NEWLINE = re.compile(rb"[^\r\n]")
Range = tuple[int, int, bool]  # start byte, end byte, is a docstring
MAX_PASSES = 4


@dataclass
class BlankReport:
    """What blanking a corpus did, and what the check of the copy found."""

    files: int = 0
    files_blanked: int = 0
    docs: int = 0  # definitions with a doc in the original
    ranges: int = 0  # comment / docstring nodes blanked
    #: (path, name, line) of definitions extracted from only one of the two trees.
    missing: list[tuple[str, str, int]] = field(default_factory=list)
    added: list[tuple[str, str, int]] = field(default_factory=list)
    #: (path, name, line, doc) of definitions of the copy that still have a doc.
    kept_doc: list[tuple[str, str, int, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # path, error

    @property
    def differing(self) -> int:
        return len(self.missing) + len(self.added) + len(self.kept_doc)

    def as_dict(self) -> dict:
        return {"files": self.files, "files_blanked": self.files_blanked, "docs": self.docs,
                "ranges": self.ranges, "differing": self.differing,
                "missing": self.missing[:50], "added": self.added[:50],
                "kept_doc": self.kept_doc[:50], "failed": self.failed[:50],
                "missing_count": len(self.missing), "added_count": len(self.added),
                "kept_doc_count": len(self.kept_doc), "failed_count": len(self.failed)}


def _doc_nodes(
    definition: parse._Definition, anchor: parse.Node, parent: parse.Node | None
) -> list[parse.Node]:
    """The nodes `parse._doc` read its text from (the same walk, nodes instead of text)."""
    doc_node = definition.doc_node or parse._docstring(definition.node)
    if doc_node is not None:
        return [doc_node]
    nodes = []
    expected_row = anchor.start_point.row
    sibling = parse._node_before(anchor, parent)
    while sibling is not None and "comment" in sibling.type:
        if parse._end_line(sibling) - 1 < expected_row - 1:  # a blank line ends the block
            break
        nodes.append(sibling)
        expected_row = sibling.start_point.row
        sibling = sibling.prev_sibling
    return nodes


def extract_with_doc_ranges(path: str, source: bytes) -> tuple[list, bytes, set[Range]]:
    """symfind's symbols of one file, the UTF-8 source they were read from, and the byte
    ranges (of that source) of every doc the extractor read."""
    ranges: set[Range] = set()
    seen_source: list[bytes] = []
    original = parse._doc

    def recording(definition, anchor, parent, text: bytes) -> str:  # noqa: ANN001 (parse's types)
        doc = original(definition, anchor, parent, text)
        if not seen_source:
            seen_source.append(text)
        if doc:
            docstring = definition.doc_node is None and parse._docstring(definition.node) is not None
            ranges.update((n.start_byte, n.end_byte, docstring)
                          for n in _doc_nodes(definition, anchor, parent))
        return doc

    parse._doc = recording
    try:
        symbols = parse.extract_symbols(path, source)
    finally:
        parse._doc = original
    return symbols, (seen_source[0] if seen_source else parse._as_utf8(source)), ranges


def blank(source: bytes, ranges: Iterable[Range]) -> bytes:
    """`source` with each range blanked: comments to spaces, docstrings to `""` and spaces;
    newlines kept, so every line keeps its number."""
    out = bytearray(source)
    for start, end, docstring in sorted(ranges):
        spaces = _NOT_NEWLINE.sub(b" ", source[start:end])
        if docstring:
            spaces = b'""' + spaces[2:]
        out[start:end] = spaces
    return bytes(out)


def blanker_version() -> str:
    """A hash of what decides the copy: this module and the extractor."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(parse.extraction_fingerprint().encode())
    return digest.hexdigest()[:16]


def blank_corpus(root: Path, dest: Path, paths: Iterable[str]) -> BlankReport:
    """Copy `root` to `dest` (replaced) and blank the docs of the files `paths` (those
    symfind indexes), then check the copy."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(root, dest, symlinks=True)
    report = BlankReport()
    for path in sorted(set(paths)):
        report.files += 1
        try:
            before, source, ranges = extract_with_doc_ranges(path, (root / path).read_bytes())
        except Exception as exc:  # noqa: BLE001 -- a file the extractor refuses stays as is
            report.failed.append((path, f"{type(exc).__name__}: {exc}"))
            continue
        report.docs += sum(1 for s in before if s.doc)
        if not ranges:
            continue
        blanked = source
        for _ in range(MAX_PASSES):
            # A blanked doc can uncover another: a comment after a Rust attribute is read
            # as the doc, and once it is gone the `///` block above the attribute is.
            blanked = blank(blanked, ranges)
            report.ranges += len(ranges)
            after, _, ranges = extract_with_doc_ranges(path, blanked)
            if not ranges:
                break
        (dest / path).write_bytes(blanked)
        report.files_blanked += 1
        _compare(path, before, after, report)
    return report


def _compare(path: str, before: list, after: list, report: BlankReport) -> None:
    keys_before = {(s.name, s.line) for s in before}
    keys_after = {(s.name, s.line) for s in after}
    report.missing.extend((path, n, line) for n, line in sorted(keys_before - keys_after))
    report.added.extend((path, n, line) for n, line in sorted(keys_after - keys_before))
    report.kept_doc.extend((path, s.name, s.line, s.doc) for s in after if s.doc)
