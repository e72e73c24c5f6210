"""Definitions inside a large ERROR node are recovered by re-parsing from the next line at
column 0 -- and only because of that: without the re-parse they are lost.

The source is the tail of the TypeScript fixture: a grammar gap of tree-sitter-typescript
0.13 (an interface's call signatures with multi-line type parameters) swallows the
declarations after it. The extractor puts a `;` before such signatures
(`separate_call_signatures`), which closes that gap: these tests take it away, so that
the grammar loses the region for real.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from symfind.extract import extract_file, extract_symbols, parse, rewrite

from tests.unit.extract.conftest import ParseCount

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "languages" / "typescript" / "sample.ts"


@pytest.fixture(autouse=True)
def grammar_gap_open(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = tuple(r for r in rewrite.REWRITES if r.name != "call-signatures")
    assert len(kept) == len(rewrite.REWRITES) - 1
    monkeypatch.setattr(rewrite, "REWRITES", kept)


def tail_source() -> bytes:
    text = FIXTURE.read_bytes()
    start = text.index(b"// tree-sitter-typescript 0.13's grammar loses")
    return text[start : text.index(b"// Call signatures one per line", start)]


def names(source: bytes) -> list[tuple[int, str, str]]:
    return [(s.line, s.kind, s.qualname) for s in extract_symbols("tail.ts", source)]


def test_lost_region_is_reparsed() -> None:
    assert names(tail_source()) == [
        (4, "interface", "RequestFactory"),
        (33, "interface", "RecoveredOptions"),
        (35, "method", "RecoveredOptions.backoff"),
        (38, "method", "RecoveredOptions.backoff"),
        (44, "type", "RecoveredAlias"),
        (48, "function", "recoveredHelper"),
    ]


def test_without_reparse_the_region_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse, "RECOVER_MAX_PARSES", 0)
    assert names(tail_source()) == [
        (4, "interface", "RequestFactory"),
        (48, "function", "recoveredHelper"),
    ]


def test_reparses_are_bounded(parse_count: ParseCount) -> None:
    """A file of many lost regions costs at most RECOVER_MAX_PARSES re-parses."""
    broken = tail_source() * 20  # twenty lost regions
    extract_symbols("broken.ts", broken)
    assert parse_count.parses == 1 + parse.RECOVER_MAX_PARSES


def test_error_regions_and_recovered_definitions_are_counted() -> None:
    extraction = extract_file("tail.ts", tail_source())
    assert (extraction.recovered, extraction.error_regions > 0) == (4, True)
    assert extraction.symbols == extract_symbols("tail.ts", tail_source())
    clean = extract_file("clean.ts", b"export function ok(): number {\n  return 1;\n}\n")
    assert (clean.error_regions, clean.recovered, len(clean.symbols)) == (0, 0, 1)
