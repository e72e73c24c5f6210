"""Every rewrite keeps the rule on real code: the same length, every newline where it was.

Over every file of the language fixtures, and the shapes the rewrites' own tests hold,
each rewrite of `REWRITES` runs on the bytes as written, whatever their language (the
rule holds for any bytes), and the rewrites of a fixture's grammar run in order as
`parser_input` runs them, each checked on what it is given. Over real code, the rewrites
of each file's grammar run the same way on `TEST_CORPORA`: small corpora pinned by version
in `bench/coverage_corpora.toml`, of the grammars rewrites run for (C headers, C++
headers, TypeScript, TSX), fetched once into a cache outside the checkout,
`~/.cache/symfind-tests/corpora/<name>-<version>/`, by `.ci/run`'s set-up (the command is
in `FETCH`). Every corpus of the bench's tables is checked by `python -m bench.rewrite_rule`,
recorded in bench/RESULTS.md: most of them hold no file a rewrite runs on, and all of them
together are gigabytes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.corpora import BENCH, load_table
from bench.rewrite_rule import broken, in_order, rewritten_files
from symfind.extract import LANGUAGES, language_for_file
from symfind.extract.parse import _as_utf8 as as_utf8  # what the rewrites are given
from symfind.extract.rewrite import REWRITES, Rewrite, parser_input
from tests.unit.extract.rewrite.test_macro_scans import SOURCES as MACRO_SHAPES
from tests.unit.extract.rewrite.test_managed_cpp import HEADER, SOURCE
from tests.corpora import TEST_CORPORA_DIR
from tests.unit.extract.rewrite.test_typescript_rewrites import SIGNATURES, TEMPLATE_TYPE, VARIANCE

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "languages"
#: Pinned in bench/coverage_corpora.toml: C headers (sqlite, curl), C++ headers (nlohmann
#: json, googletest), TypeScript (mobx) and TSX (react-day-picker); ~4 MB in all.
TEST_CORPORA = ("sqlite-headers", "curl-headers", "nlohmann-json", "gtest-headers", "mobx",
                "react-day-picker")
FETCH = ("python3 -m bench.corpora --table bench/coverage_corpora.toml --into "
         f"{TEST_CORPORA_DIR} {' '.join(TEST_CORPORA)}")
# The shapes each rewrite is written for (a fixture need not hold them all).
SHAPES = [*MACRO_SHAPES, HEADER, SOURCE, SIGNATURES, TEMPLATE_TYPE, *(shape for shape, _ in VARIANCE)]


def test_each_rewrite_keeps_the_rule_on_every_fixture_and_shape() -> None:
    files = sorted(path for path in FIXTURES.rglob("*") if path.is_file() and path.suffix != ".json")
    sources = [(path.relative_to(FIXTURES).as_posix(), as_utf8(path.read_bytes())) for path in files]
    breaks: list[str] = []
    rewritten = dict.fromkeys((rewrite.name for rewrite in REWRITES), 0)  # sources changed
    for name, source in [*sources, *((f"shape {n}", shape) for n, shape in enumerate(SHAPES))]:
        for rewrite in REWRITES:
            made, broke = broken(rewrite, source, name)
            breaks += broke
            rewritten[rewrite.name] += made != source
    for relative, source in sources:
        language = language_for_file(relative, source[:4096])
        if language is not None:
            breaks += in_order(LANGUAGES[language].grammar, source, relative)
    assert breaks == []
    # Each check could fail: every rewrite changes something it is given here.
    assert [name for name, count in rewritten.items() if count == 0] == []


def test_a_rewrite_that_moves_bytes_breaks_the_rule() -> None:
    """The check itself: a byte dropped, or a newline moved at the same length, is found."""
    dropping = Rewrite("drop", frozenset({"c"}), lambda source: source.replace(b"ab", b"a"))
    moving = Rewrite("move", frozenset({"c"}), lambda source: source.replace(b"b\n", b"\nb"))
    assert broken(dropping, b"ab\n", "f.c") == (
        b"a\n", ["f.c: drop moves bytes (length 3 -> 2, a newline differs at offset 1)"])
    assert broken(moving, b"ab\n", "f.c") == (
        b"a\nb", ["f.c: move moves bytes (length 3 -> 3, a newline differs at offset 1)"])


def corpus_params() -> list[object]:
    corpora = {corpus.name: corpus for corpus in load_table(BENCH / "coverage_corpora.toml")}
    params = []
    for name in TEST_CORPORA:
        path = TEST_CORPORA_DIR / corpora[name].dirname
        marks = [] if path.is_dir() else [pytest.mark.skip(
            reason=f"corpus absent, not checked: {path} (fetch them: {FETCH})")]
        params.append(pytest.param(path, id=name, marks=marks))
    return params


@pytest.mark.parametrize("root", corpus_params())
def test_each_rewrite_keeps_the_rule_on_a_corpus(root: Path) -> None:
    files = rewritten_files(root)
    assert files, f"no file of {root} is rewritten: the check would check nothing"
    breaks: list[str] = []
    for relative, path in files:
        source = as_utf8(path.read_bytes())
        grammar = LANGUAGES[language_for_file(relative, source[:4096])].grammar  # type: ignore[index]
        breaks += in_order(grammar, source, relative)
    assert breaks == []


def test_parser_input_runs_every_rewrite_of_a_grammar_in_order() -> None:
    """One loop, no rewrite skipped: each grammar's input is its rewrites composed in list
    order (C++ gets the C++/CLI rewrite and then the macro blanking)."""
    source = b"ref class Node EXPORT_API {\n  FMT_BEGIN_NAMESPACE\n  gcnew Node();\n};\n"
    for grammar in ("c", "cpp", "typescript", "tsx", "python"):
        expected = source
        for rewrite in REWRITES:
            if grammar in rewrite.grammars:
                expected = rewrite.apply(expected)
        assert parser_input(grammar, source) == expected
    assert parser_input("cpp", source) == (
        b"    class Node            {\n                     \n  new   Node();\n};\n")
