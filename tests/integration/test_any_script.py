"""Names in any script are found as typed (issue 21, item 3): real source files indexed
and searched by the real CLI.

`def привет_мир`, `def 计算总和` and JavaScript's `function ｆｕｌｌｗｉｄｔｈ` were
indexed, and every query in those scripts was refused as "nothing searchable" (exit 2).
A name whose file spells it decomposed (NFD: `e` and a combining accent, as macOS file
systems and some editors write it) is found by the same name typed composed (NFC), and
fullwidth letters match their ASCII forms (NFKC).
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from tests.integration.test_cli import symfind

NFD_CAFE = "cafe\u0301"  # `café` as `e` + U+0301 COMBINING ACUTE ACCENT
NFD_CREME_BRULEE = "Cre\u0300meBru\u0302le\u0301e"  # `CrèmeBrûlée`, decomposed
SOURCES = {
    "greet.py": (
        "def привет_мир():\n"
        '    """Печатает приветствие."""\n'
        "    return 1\n"
        "\n\n"
        "def 计算总和(数字):\n"
        "    return sum(数字)\n"
        "\n\n"
        "class ΟδόςΚαι:\n"
        "    def ΠΡΟΣΘΕΣΕ_ΔΡΟΜΟ(self):\n"
        "        pass\n"
    ),
    "wide.js": (
        "function ｆｕｌｌｗｉｄｔｈ() {\n"
        "  return 1;\n"
        "}\n"
        "\n"
        "function ＨｔｔｐＣｌｉｅｎｔ() {}\n"
    ),
    "menu.py": (
        f"def {NFD_CAFE}():\n"
        "    return 1\n"
        "\n\n"
        f"class {NFD_CREME_BRULEE}:\n"
        "    pass\n"
    ),
    "plain.py": "def cafe():\n    return 0\n\n\ndef full_width():\n    return 0\n",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("scripts") / "repo"
    path.mkdir()
    for name, text in SOURCES.items():
        (path / name).write_bytes(text.encode("utf-8"))
    # The decomposed spelling is what is on disk, byte for byte.
    assert "e\u0301".encode() in (path / "menu.py").read_bytes()
    assert unicodedata.is_normalized("NFC", (path / "menu.py").read_text(encoding="utf-8")) is False
    return path


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, repo: Path) -> dict[str, str]:
    env = {"SYMFIND_INDEX_DIR": str(tmp_path_factory.mktemp("scripts-index"))}
    result = symfind("index", str(repo), env=env)
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    return env


def found(answer: dict) -> tuple[str, list[tuple[str, str, int]]]:
    return answer["route"], [(r["qualname"], r["path"], r["line"]) for r in answer["results"]]


PRIVET = ("привет_мир", "greet.py", 1)
SUM = ("计算总和", "greet.py", 6)
ODOS = ("ΟδόςΚαι", "greet.py", 10)
ADD_ROUTE = ("ΟδόςΚαι.ΠΡΟΣΘΕΣΕ_ΔΡΟΜΟ", "greet.py", 11)
FULLWIDTH = ("ｆｕｌｌｗｉｄｔｈ", "wide.js", 1)
HTTP_CLIENT = ("ＨｔｔｐＣｌｉｅｎｔ", "wide.js", 5)
CAFE = ("café", "menu.py", 1)  # stored and shown composed
CREME_BRULEE = ("CrèmeBrûlée", "menu.py", 5)
PLAIN_CAFE = ("cafe", "plain.py", 1)
FULL_WIDTH = ("full_width", "plain.py", 5)


QUERIES = [
        ("привет_мир", "identifier", [PRIVET]),
        ("ПРИВЕТ_МИР", "identifier", [PRIVET]),
        ("приветМир", "identifier", [PRIVET]),
        ("привет мир", "words", [PRIVET]),
        ("привет_мри", "identifier", [PRIVET]),  # a typo, found by the fuzzy channel
        ("计算总和", "identifier", [SUM]),
        ("计算", "identifier", [SUM]),  # a prefix, found by the ngram channel
        ("ΟδόςΚαι", "identifier", [ODOS, ADD_ROUTE]),
        ("ΟδόςΚαι.προσθεσε_δρομο", "qualified", [ADD_ROUTE]),
        ("ｆｕｌｌｗｉｄｔｈ", "identifier", [FULLWIDTH, FULL_WIDTH]),
        ("fullwidth", "identifier", [FULLWIDTH, FULL_WIDTH]),
        ("full_width", "identifier", [FULL_WIDTH, FULLWIDTH]),
        ("ｆｕｌｌ＿ｗｉｄｔｈ", "identifier", [FULL_WIDTH, FULLWIDTH]),
        ("http client", "words", [HTTP_CLIENT]),
        ("ＨｔｔｐＣｌｉｅｎｔ", "identifier", [HTTP_CLIENT]),
        ("café", "identifier", [CAFE, PLAIN_CAFE]),  # typed composed, written decomposed
        (NFD_CAFE, "identifier", [CAFE, PLAIN_CAFE]),  # typed decomposed too
        ("cafe", "identifier", [PLAIN_CAFE, CAFE]),
        ("crème_brûlée", "identifier", [CREME_BRULEE]),
        ("crème brûlée", "words", [CREME_BRULEE]),
]


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory, repo: Path, env: dict[str, str]) -> dict:
    """Every query of QUERIES, one a line, through one `--queries-from` process."""
    queries = tmp_path_factory.mktemp("queries") / "queries.txt"
    queries.write_text("".join(f"{q}\n" for q, _, _ in QUERIES), encoding="utf-8")
    result = symfind("search", "--queries-from", str(queries), "--repo", str(repo), "--json",
                     env=env)
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    assert [reply["query"] for reply in replies] == [q for q, _, _ in QUERIES]
    return {reply["query"]: reply for reply in replies}


@pytest.mark.parametrize(("query", "route", "expected"), QUERIES)
def test_a_name_in_any_script_is_found_as_typed(
    answers: dict, query: str, route: str, expected: list[tuple[str, str, int]]
) -> None:
    assert found(answers[query]) == (route, expected)


@pytest.mark.parametrize(
    ("query", "expected"),
    [("привет_мир", PRIVET), ("计算总和", SUM), ("ｆｕｌｌｗｉｄｔｈ", FULLWIDTH), ("café", CAFE)],
)
def test_the_queries_once_refused_are_answered_on_the_command_line(
    repo: Path, env: dict[str, str], query: str, expected: tuple[str, str, int]
) -> None:
    result = symfind("search", query, "--repo", str(repo), "--limit", "1", "--json", env=env)
    assert (result.returncode, result.stderr) == (0, "")
    assert found(json.loads(result.stdout))[1] == [expected]


def test_names_are_shown_composed_whatever_their_files_spell(repo: Path, env: dict[str, str]) -> None:
    result = symfind("search", "café", "--repo", str(repo), "--limit", "1", env=env)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines()[0].split() == ["1", "function", "café", "menu.py:1",
                                                      "exact#1", "fuzzy#1(d0)", "ngram#1"]
    assert unicodedata.is_normalized("NFC", result.stdout)
