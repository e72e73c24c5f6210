"""Hostile file names cannot drive the terminal of whoever reads symfind's output.

Real files whose names hold ESC sequences (window title, screen clear), an 8-bit CSI, a
bidi override and a newline (a forged `injected.py:1` row) are indexed and searched by a
real `symfind` process; every human-readable output shows them escaped as `<U+XXXX>`.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from symfind.storage import EscapingFormatter

HOSTILE = {
    "\x1b]0;pwned\x07title.py": ("HostileTitle", "<U+001B>]0;pwned<U+0007>title.py"),
    "clear\x1b[2J\x1b[H.py": ("HostileClear", "clear<U+001B>[2J<U+001B>[H.py"),
    "row.py\ninjected.py": ("HostileRow", "row.py<U+000A>injected.py"),
    "csi\x9b31m.py": ("HostileCsi", "csi<U+009B>31m.py"),
    "rtl\u202eyp.py": ("HostileBidi", "rtl<U+202E>yp.py"),
    "tab\there.py": ("HostileTab", "tab<U+0009>here.py"),
}


def symfind(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "symfind.cli", *args],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, **env}, timeout=300)


def only_visible(text: str) -> bool:
    """Nothing a terminal would act on: printable characters and line ends only."""
    return all(char == "\n" or char.isprintable() for char in text)


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("hostile") / "repo\x1b[2J"
    repo.mkdir()
    for name, (klass, _shown) in HOSTILE.items():
        (repo / name).write_text(f"class {klass}:\n    pass\n", encoding="utf-8")
    env = {"SYMFIND_INDEX_DIR": str(tmp_path_factory.mktemp("hostile-index"))}
    indexed = symfind("index", str(repo), env=env)
    assert indexed.returncode == 0, indexed.stderr
    assert only_visible(indexed.stdout) and "repo<U+001B>[2J" in indexed.stdout
    return repo, env


def test_the_result_table_shows_hostile_names_escaped(
    hostile_repo: tuple[Path, dict[str, str]],
) -> None:
    repo, env = hostile_repo
    table = symfind("search", "Hostile", "--repo", str(repo), "--limit", "20", env=env)
    answer = symfind("search", "Hostile", "--repo", str(repo), "--limit", "20", "--json",
                     env=env)
    assert (table.returncode, table.stderr) == (0, "")
    assert only_visible(table.stdout)
    results = json.loads(answer.stdout)["results"]
    shown = {klass: escaped for klass, escaped in HOSTILE.values()}
    rows = table.stdout.splitlines()
    assert len(rows) == len(HOSTILE) + 1  # one row per definition and the footer: none forged
    assert [row.split()[1:4] for row in rows[:-1]] == [
        ["class", r["qualname"], f"{shown[r['qualname']]}:1"] for r in results
    ]
    assert sorted(r["qualname"] for r in results) == sorted(shown)


def test_status_and_errors_show_hostile_paths_escaped(
    hostile_repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, env = hostile_repo
    status = symfind("status", str(repo), env=env)
    assert status.returncode == 0, status.stderr
    assert only_visible(status.stdout)
    shown = str(repo).replace("\x1b", "<U+001B>")
    assert status.stdout.splitlines()[0] == f"repository    {shown}"
    no_index = symfind("search", "x", "--repo", str(repo),
                       env={"SYMFIND_INDEX_DIR": str(tmp_path)})
    assert (no_index.returncode, no_index.stdout) == (3, "")
    assert only_visible(no_index.stderr) and no_index.stderr.count("\n") == 1
    assert no_index.stderr.startswith(
        f"symfind: no index of {shown} (looked in {tmp_path}/repo<U+001B>[2J-")


def test_log_lines_escape_the_file_names_they_quote() -> None:
    record = logging.LogRecord("symfind.daemon.indexer", logging.WARNING, __file__, 1,
                               "cannot read %s", ("a\x1b[2J\nWARNING forged.py",), None)
    formatter = EscapingFormatter("%(levelname)s %(name)s: %(message)s")
    assert formatter.format(record) == (
        "WARNING symfind.daemon.indexer: cannot read a<U+001B>[2J<U+000A>WARNING forged.py"
    )
