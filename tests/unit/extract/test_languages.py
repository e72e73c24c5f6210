"""Every language fixture's full symbol list matches its golden JSON.

Each `tests/fixtures/languages/<lang>/` holds one source file (`sample.<ext>`) and
`expected.json`: the complete list of symbols, compared whole. Regenerate a golden with
`python -m tests.fixtures.regen <lang>` and review the diff by eye before committing.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

import symfind.extract
from symfind.extract import LANGUAGES, extract_symbols
from tests.fixtures.regen import readable

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "languages"


def fixture_source(language: str) -> Path:
    sources = [p for p in (FIXTURES / language).iterdir() if p.name.startswith("sample.")]
    assert len(sources) == 1, f"{language}: expected exactly one sample.* file, got {sources}"
    return sources[0]


def test_every_supported_language_has_a_fixture() -> None:
    assert sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()) == sorted(LANGUAGES)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_fixture_symbols_match_golden(language: str) -> None:
    source = fixture_source(language)
    relative = f"{language}/{source.name}"
    symbols = extract_symbols(relative, source.read_bytes(), language=language)
    expected = msgspec.json.decode((FIXTURES / language / "expected.json").read_bytes())
    assert readable(symbols) == expected


def test_every_query_fragment_is_defined_and_used() -> None:
    """`{{name}}` in a tag query is `queries/fragments/name.scm` (parse.py): none is
    missing, none is left unused."""
    queries = Path(symfind.extract.__file__).resolve().parent / "queries"
    used = {name for path in queries.glob("*.scm")
            for name in re.findall(r"\{\{([\w-]+)\}\}", path.read_text(encoding="utf-8"))}
    defined = {path.stem for path in (queries / "fragments").glob("*.scm")}
    assert used == defined


def test_no_query_compares_two_captures() -> None:
    """`(#eq? @a @b)` and its kin compare two captures in py-tree-sitter's C code, which
    corrupts memory: the next query run in the process crashed (seen with 0.26 on
    lodash-es). A pattern that needs it says `(#set! unless-named-as "_capture")` and
    parse.py compares the texts."""
    queries = Path(symfind.extract.__file__).resolve().parent / "queries"
    compared = [f"{path.name}: {found}" for path in sorted(queries.rglob("*.scm"))
                for found in re.findall(r"\(#(?:not-|any-)?(?:eq|match|any-of)\?\s+@[\w.]+\s+@[\w.]+",
                                        path.read_text(encoding="utf-8"))]
    assert compared == []


def test_no_query_needs_a_python_predicate() -> None:
    """A predicate py-tree-sitter does not know itself goes to a Python callback, and 0.26
    keeps about half a kilobyte for good at every call: `#outside?`, called for every
    declaration inside an `#if` of kernel C, took one process extracting 2,537 kernel
    files from 127 to 481 MiB. Only the built-in text predicates are used; what needs Python is a
    `#set!` setting that parse.py reads after matching (`#set! outside "types"`)."""
    built_in = {"eq?", "not-eq?", "any-eq?", "any-not-eq?", "match?", "not-match?",
                "any-match?", "any-not-match?", "any-of?", "not-any-of?", "set!"}
    queries = Path(symfind.extract.__file__).resolve().parent / "queries"
    used = {f"{path.name}: #{name}" for path in sorted(queries.rglob("*.scm"))
            for name in re.findall(r"\(#([\w-]+[?!])", path.read_text(encoding="utf-8"))
            if name not in built_in}
    assert used == set()
