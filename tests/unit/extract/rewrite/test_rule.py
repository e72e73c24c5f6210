"""Every rewrite keeps the rule on real code: the same length, every newline where it was.

Over every file of the language fixtures, and the shapes the rewrites' own tests hold,
each rewrite of `REWRITES` runs on the bytes as written, whatever their language (the
rule holds for any bytes), and the rewrites of a fixture's grammar run in order as
`parser_input` runs them, each checked on what it is given. Over the bench corpora that are present (`python -m bench.corpora` fetches
them; an absent one is skipped, and says so), the rewrites of each file's grammar run
the same way, on at most `MAX_FILES_PER_CORPUS` files of a corpus, evenly spaced. The
corpora are those of the bench's tables (`CORPUS_TABLES`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.corpora import BENCH, load_table
from symfind.extract import LANGUAGES, language_for_file, language_for_path
from symfind.extract.parse import _as_utf8 as as_utf8  # what the rewrites are given
from symfind.extract.rewrite import REWRITES, Rewrite, parser_input
from tests.unit.extract.rewrite.test_macro_scans import SOURCES as MACRO_SHAPES
from tests.unit.extract.rewrite.test_managed_cpp import HEADER, SOURCE
from tests.unit.extract.rewrite.test_typescript_rewrites import SIGNATURES, TEMPLATE_TYPE, VARIANCE

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "languages"
MAX_FILES_PER_CORPUS = 2000
CORPUS_TABLES = ("corpora.toml", "coverage_corpora.toml", "multi_corpora.toml")
# Every byte a space but a newline: two texts map to the same bytes exactly when they
# have the same length and their newlines at the same offsets.
_NEWLINES_ONLY = bytes(b"\n"[0] if byte == b"\n"[0] else b" "[0] for byte in range(256))
_REWRITTEN_GRAMMARS = frozenset().union(*(rewrite.grammars for rewrite in REWRITES))
# The shapes each rewrite is written for (a fixture need not hold them all).
SHAPES = [*MACRO_SHAPES, HEADER, SOURCE, SIGNATURES, TEMPLATE_TYPE, *(shape for shape, _ in VARIANCE)]


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
    params: dict[str, object] = {}
    for table in CORPUS_TABLES:
        for corpus in load_table(BENCH / table):
            marks = [] if corpus.present else [pytest.mark.skip(
                reason=f"corpus absent, not checked: bench/corpora/{corpus.dirname} (bench/{table})")]
            params.setdefault(corpus.dirname, pytest.param(corpus, id=corpus.dirname, marks=marks))
    return list(params.values())


def rewritten_files(root: Path) -> list[tuple[str, Path]]:
    """The files under `root` whose language's grammar some rewrite runs for (a `.h` may
    be C++: its content tells, and both are rewritten)."""
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


@pytest.mark.parametrize("corpus", corpus_params())
def test_each_rewrite_keeps_the_rule_on_a_corpus(corpus: object) -> None:
    breaks: list[str] = []
    for relative, path in rewritten_files(corpus.path):  # type: ignore[attr-defined]
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
