"""`symfind refs` as a user runs it: the real command on a real index of a small Python
package, read directly and through a running daemon, in text and JSON; its bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.integration.test_cli import symfind
from tests.integration.test_index_via_daemon import wait_until_idle

FILES = {
    "shop/cart.py": (
        "class Cart:\n"                                   # 1
        "    def add(self, item):\n"                      # 2
        "        self.items.append(item)\n"               # 3
        "\n"                                              # 4
        "    def add_many(self, items):\n"                # 5
        "        for item in items:\n"                    # 6
        "            self.add(item)\n"                    # 7
    ),
    "shop/checkout.py": (
        "from shop.cart import Cart\n"                    # 1
        "\n"                                              # 2
        "\n"                                              # 3
        "def checkout(items):\n"                          # 4
        "    cart = Cart()\n"                             # 5
        "    cart.add_many(items)\n"                      # 6
        "    return cart\n"                               # 7
    ),
    "shop/__init__.py": "",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("refs") / "shop-repo"
    for rel, text in FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    (repo / ".git").mkdir()
    env = {"SYMFIND_INDEX_DIR": str(tmp_path_factory.mktemp("refs-index"))}
    result = symfind("index", str(repo), env=env)
    assert result.returncode == 0, result.stderr
    return repo, env


def without_timing(text: str) -> str:
    return re.sub(r"; [0-9.]+ ms\]$", "; … ms]", text.rstrip("\n"), flags=re.M)


UNCHECKED = (
    "not checked: dynamic dispatch: a call on an object whose type the file does not show is "
    "'possible', not resolved\n"
    "not checked: code generated at build time is seen only where its files are indexed\n"
    "not checked: calls through getattr(), a string or a dict of functions are not seen\n"
)


def test_refs_lists_the_uses_of_a_class_by_file_and_enclosing_definition(shop) -> None:
    repo, env = shop
    result = symfind("refs", "Cart", str(repo), env=env)
    assert (result.returncode, result.stderr) == (0, "")
    assert without_timing(result.stdout) == (
        "Cart (class)  shop/cart.py:1 — 2 resolved in 1 file, 0 possible, 0 elsewhere\n"
        "shop/checkout.py  at module level\n"
        "       1  import          shop.cart\n"
        "shop/checkout.py  in checkout\n"
        "       5  call\n"
        + UNCHECKED +
        "[references; 1 file read; … ms]")


def test_refs_of_a_method_through_self_and_a_typed_local(shop) -> None:
    repo, env = shop
    result = symfind("refs", "shop/cart.py:2", "--repo", str(repo), env=env)
    assert (result.returncode, result.stderr) == (0, "")
    assert without_timing(result.stdout) == (
        "Cart.add (method)  shop/cart.py:2 — 1 resolved in 1 file, 0 possible, 0 elsewhere\n"
        "shop/cart.py  in Cart.add_many\n"
        "       7  attribute_call  self\n"
        + UNCHECKED +
        "[references; 1 file read; … ms]")
    answer = json.loads(symfind("refs", "Cart.add_many", str(repo), "--json", env=env).stdout)
    assert [(g["path"], [(s["line"], s["kind"], s["receiver"]) for s in g["sites"]])
            for g in answer["groups"]] == [("shop/checkout.py", [(6, "attribute_call", "cart")])]
    assert (answer["resolved"], answer["possible"], answer["elsewhere"]) == (1, 0, 0)


def test_refs_with_a_daemon_running_answers_the_same_and_says_it_is_current(
    shop, monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, env = shop
    direct = json.loads(symfind("refs", "Cart", str(repo), "--json", env=env).stdout)
    assert symfind("daemon", "start", str(repo), env=env).returncode == 0
    try:
        # Until its first re-check of the files is done, the daemon's answers say "behind".
        monkeypatch.setenv("SYMFIND_INDEX_DIR", env["SYMFIND_INDEX_DIR"])
        wait_until_idle(repo)
        via = json.loads(symfind("refs", "Cart", str(repo), "--json", env=env).stdout)
    finally:
        symfind("daemon", "stop", str(repo), env=env)
    states = []
    for answer in (direct, via):
        answer.pop("took_ms")
        states.append(answer.pop("freshness")["state"])
    # Without a daemon nothing keeps the index fresh; with one, the answer says it is current.
    assert states == ["unwatched", "current"]
    assert via == direct


@pytest.mark.parametrize(("args", "message"), [
    (["refs", ""], "symfind: say which definition: a name, a qualified name, or a handle\n"),
    (["refs", "Cart", "--limit", "0"],
     "symfind: argument --limit: must be between 1 and 500, got 0 — see `symfind refs --help`\n"),
    (["refs", "Cart", "--bogus"],
     "symfind: unrecognized arguments: --bogus — see `symfind refs --help`\n"),
])
def test_bad_input_is_one_line_and_exit_2(shop, args: list[str], message: str) -> None:
    repo, env = shop
    result = symfind(*args, cwd=repo, env=env)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", message)


def test_a_name_nothing_defines_says_so(shop) -> None:
    repo, env = shop
    result = symfind("refs", "Basket", str(repo), env=env)
    assert (result.returncode, result.stdout, result.stderr) == (
        0, "no definition named 'Basket' is indexed\n", "")


def test_a_second_repository_is_refused_not_silently_taken_instead(shop, tmp_path: Path) -> None:
    repo, env = shop
    result = symfind("refs", "Cart", "--repo", str(repo), "--repo", str(tmp_path), env=env)
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", "symfind: give the repository once: as PATH or as --repo (refs answers for one "
               "repository)\n")


def indexed_copy(root: Path, env: dict[str, str]) -> Path:
    """Another repository holding the shop's files, indexed."""
    repo = root / "shop-copy"
    for rel, text in FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    (repo / ".git").mkdir()
    result = symfind("index", str(repo), env=env)
    assert result.returncode == 0, result.stderr
    return repo


def first_page_cursor(repo: Path, env: dict[str, str]) -> str:
    """`next_cursor` of the first page of `Cart`'s uses, one use a page."""
    result = symfind("refs", "Cart", str(repo), "--limit", "1", "--json", env=env)
    assert result.returncode == 0, result.stderr
    cursor = json.loads(result.stdout)["next_cursor"]
    assert re.fullmatch(r"[0-9]+:1:[0-9a-f]{8}", cursor), cursor
    return cursor


def test_a_cursor_reads_its_own_next_page(shop) -> None:
    repo, env = shop
    cursor = first_page_cursor(repo, env)
    result = symfind("refs", "Cart", str(repo), "--limit", "1", "--cursor", cursor, env=env)
    assert (result.returncode, result.stderr) == (0, "")
    assert without_timing(result.stdout) == (
        "Cart (class)  shop/cart.py:1 — 2 resolved in 1 file, 0 possible, 0 elsewhere\n"
        "shop/checkout.py  in checkout\n"
        "       5  call\n"
        + UNCHECKED +
        "[references; 1 file read; … ms]")


def test_a_cursor_that_does_not_fit_the_question_is_refused_never_misread(
    shop, tmp_path: Path,
) -> None:
    """Each of these was once taken as an offset into another list: a page of other uses,
    or none at all under counts that said there were some."""
    repo, env = shop
    cursor = first_page_cursor(repo, env)
    generation, _, tag = cursor.split(":")
    other_repo = indexed_copy(tmp_path, {**env, "SYMFIND_INDEX_DIR": str(tmp_path / "index")})
    refused = {
        "another definition": symfind("refs", "Cart.add_many", str(repo), "--cursor", cursor,
                                      env=env),
        "another repository": symfind("refs", "Cart", str(other_repo), "--cursor", cursor,
                                      env={**env, "SYMFIND_INDEX_DIR": str(tmp_path / "index")}),
        "past the end": symfind("refs", "Cart", str(repo), "--cursor",
                                f"{generation}:2:{tag}", env=env),
        "another generation": symfind("refs", "Cart", str(repo), "--cursor",
                                      f"{int(generation) + 1}:1:{tag}", env=env),
        "too many digits": symfind("refs", "Cart", str(repo), "--cursor", "1:" + "9" * 5000,
                                   env=env),
    }
    assert {why: (r.returncode, r.stdout, r.stderr) for why, r in refused.items()} == {
        "another definition": (2, "", f"symfind: the cursor '{cursor}' is of another question "
                               "(another definition, or another repository's index) — pass "
                               "`next_cursor` with the question that returned it\n"),
        "another repository": (2, "", f"symfind: the cursor '{cursor}' is of another question "
                               "(another definition, or another repository's index) — pass "
                               "`next_cursor` with the question that returned it\n"),
        "past the end": (2, "", "symfind: the cursor starts at use 3, past the last of the 2 "
                         "resolved uses — ask again without it\n"),
        "another generation": (2, "", "symfind: the cursor is of another state of the index "
                               f"(generation {int(generation) + 1}, now {generation}): the "
                               "index changed since, and its uses may have moved — ask again "
                               "without it\n"),
        "too many digits": (2, "", "symfind: malformed cursor '1:999999999999999999999999999999"
                            "9999999…': pass `next_cursor` as given\n"),
    }


def test_a_cursor_from_before_the_index_changed_is_refused(tmp_path: Path) -> None:
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "index")}
    repo = indexed_copy(tmp_path, env)
    cursor = first_page_cursor(repo, env)
    with (repo / "shop" / "checkout.py").open("a", encoding="utf-8") as edited:
        edited.write("\n\ndef again(items):\n    return Cart()\n")
    assert symfind("index", str(repo), env=env).returncode == 0
    generation = int(cursor.split(":")[0])
    result = symfind("refs", "Cart", str(repo), "--cursor", cursor, env=env)
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", f"symfind: the cursor is of another state of the index (generation "
               f"{generation}, now {generation + 1}): the index changed since, and its uses "
               "may have moved — ask again without it\n")


def test_a_name_nothing_indexed_defines_says_a_skipped_file_may(tmp_path: Path) -> None:
    """The definition is in a file too large to index: the answer said only that nothing
    defines it, as if every file had been read."""
    repo = tmp_path / "big-repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "tables.py").write_text("def lookup_table():\n    return 1\n" + "X = 1\n" * 400,
                                    encoding="utf-8")
    (repo / "use.py").write_text("from tables import lookup_table\n\nlookup_table()\n",
                                 encoding="utf-8")
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "index"), "SYMFIND_MAX_FILE_BYTES": "1000"}
    assert symfind("index", str(repo), env=env).returncode == 0
    result = symfind("refs", "lookup_table", str(repo), env=env)
    assert (result.returncode, result.stdout, result.stderr) == (
        0, "no definition named 'lookup_table' is indexed; it may be defined "
           "in one of the 1 files the index skipped: too_large 1\n", "")
    answer = json.loads(symfind("refs", "lookup_table", str(repo), "--json", env=env).stdout)
    assert answer["unchecked"][-1] == "1 files the index skipped: too_large 1"


def test_path_line_forms_an_editor_prints_and_lines_that_hold_no_definition(shop) -> None:
    repo, env = shop
    absolute = symfind("refs", f"{repo}/shop/cart.py:2", str(repo), env=env)
    assert (absolute.returncode, absolute.stderr) == (0, "")
    assert absolute.stdout.splitlines()[0] == (
        "Cart.add (method)  shop/cart.py:2 — 1 resolved in 1 file, 0 possible, 0 elsewhere")
    (repo.parent / "elsewhere.py").write_text("def f():\n    pass\n", encoding="utf-8")
    refused = {target: symfind("refs", target, str(repo), env=env) for target in (
        "shop/cart.py:99", "../elsewhere.py:1", "shop/__init__.py:1")}
    assert {t: (r.returncode, r.stdout, r.stderr) for t, r in refused.items()} == {
        # A line past the definitions of an indexed file: the file may have changed.
        "shop/cart.py:99": (2, "", "symfind: no definition at shop/cart.py:99 in the index (the "
                           "file changed since?) — search for it again\n"),
        "../elsewhere.py:1": (2, "", "symfind: no definition at ../elsewhere.py:1: the index "
                              "holds none in ../elsewhere.py (outside the repository, not "
                              "indexed, or defining nothing) — give path:line as search "
                              "prints it\n"),
        "shop/__init__.py:1": (2, "", "symfind: no definition at shop/__init__.py:1: the index "
                               "holds none in shop/__init__.py (outside the repository, not "
                               "indexed, or defining nothing) — give path:line as search "
                               "prints it\n"),
    }


def test_a_line_naming_several_definitions_takes_the_type_and_lists_the_others(
        tmp_path: Path) -> None:
    repo = tmp_path / "colors"
    repo.mkdir()
    (repo / "colors.h").write_text("typedef enum { RED, GREEN } color;\n", encoding="utf-8")
    (repo / "paint.c").write_text('#include "colors.h"\nstatic color pick(void) '
                                  "{ return RED; }\n", encoding="utf-8")
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "index")}
    assert symfind("index", str(repo), env=env).returncode == 0
    result = symfind("refs", "colors.h:1", "--repo", str(repo), env=env)
    assert (result.returncode, result.stderr) == (0, "")
    assert without_timing(result.stdout).splitlines()[:4] == [
        "color (type)  colors.h:1 — 1 resolved in 1 file, 0 possible, 0 elsewhere",
        "  also defined on that line (give its name for one of them): GREEN, RED",
        "paint.c  in pick",
        "       2  type",
    ]
