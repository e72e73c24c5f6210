"""Ignore files mean what they mean to git: every file the walk's rules keep is one that
`git ls-files --others --exclude-standard` lists on the same tree (real git, real files),
for the lines git reads oddly (`!`, `\\`, `[z-a]`), binary ignore files and 1 MB ones."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from symfind.daemon.config import load_config
from symfind.daemon.walk import IgnoreRules, directory_excluded
from symfind.storage import Searcher
from tests.integration.daemon_process import idle, wait_for_status

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

# Names that patterns of glob characters can match, at the root and in directories.
NAMES = ["a", "b", "z", "ab", "az", "ba", "-", "!", "^", ":", "[", "]", "\\", "a b", "a ",
         "#a", "!a", "a.py", "b.py", "z.py", "A.py", "9.py", "é.py", "a\\b", "[a]", "x\ry"]
DIRS = ["", "d/", "d/e/", "zz/d/", "[d]/", "deep/er/"]


def make_tree(root: Path) -> list[str]:
    paths = [directory + name for directory in DIRS for name in NAMES]
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(b"x\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return sorted(paths)


def kept_by_git(root: Path) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z", "--others", "--exclude-standard"],
                            cwd=root, capture_output=True, check=True).stdout
    return sorted(os.fsdecode(path) for path in listed.split(b"\0") if path and
                  not path.endswith(b".gitignore"))


def kept_by_us(root: Path, paths: list[str]) -> list[str]:
    rules = IgnoreRules(root)
    kept = []
    for path in paths:
        directory = path.rpartition("/")[0]
        if directory and directory_excluded(directory, rules):
            continue
        if not rules.is_ignored(path):
            kept.append(path)
    return kept


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("gitignore") / "repo"
    root.mkdir()
    return root, make_tree(root)


def agree(root: Path, paths: list[str], files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).write_bytes(data)
    try:
        assert kept_by_us(root, paths) == kept_by_git(root)
    finally:
        for name in files:
            (root / name).unlink()


LINES = [
    b"!", b"\\", b"[z-a]", b"[z-a]*", b"a[z-a]", b"[!z-a]", b"[z-ab]", b"[a-]", b"[-a]", b"[]]",
    b"[!]]", b"[\\]]", b"[]-a]", b"[[:alpha:]]", b"[[:digit:]].py", b"[[:foo:]]", b"[[:alpha:]",
    b"[[:]]", b"[", b"[a", b"x\\", b"\\!a", b"\\#a", b"#a", b"a\\ ", b"a ", b"a  \\ ", b"\\a",
    b"*.py", b"*", b"**", b"*/", b"**/", b"/a", b"/a/", b"a/", b"a/*", b"a/**", b"a/**/b",
    b"**/b", b"**/a/b", b"**a", b"a**/b", b"a/**b", b"*a*a*", b"?", b"??", b"?.py", b"[^a]",
    b"[!a]*", b"\\[a]", b"[[]a]", b"deep/**/a", b"deep/*/a", b"/", b"//", b"!/", b"\xc3\xa9.py",
    b"[\xc3]*", b"a\\/b", b"*\\/*", b"**\\/a", b"deep/er", b"d/", b"/d/", b"d/*", b"d/**",
    b"d/**/b", b"**/d/b", b"**/e", b"d/e/", b"e/", b"[d]/", b"\\[d]/", b"*/d/", b"zz/*/",
]


@pytest.mark.parametrize("line", LINES, ids=[repr(line)[2:-1] for line in LINES])
def test_a_line_means_what_it_means_to_git(tree: tuple[Path, list[str]], line: bytes) -> None:
    root, paths = tree
    agree(root, paths, {".gitignore": line + b"\n"})


@pytest.mark.parametrize("line", LINES[:20], ids=[repr(line)[2:-1] for line in LINES[:20]])
def test_a_negated_line_means_what_it_means_to_git(tree: tuple[Path, list[str]], line: bytes) -> None:
    root, paths = tree
    agree(root, paths, {".gitignore": b"*\n!*/\n!" + line + b"\n"})


def test_how_git_reads_a_file_crlf_bom_nul_and_trailing_spaces(tree: tuple[Path, list[str]]) -> None:
    root, paths = tree
    agree(root, paths, {".gitignore": b"\xef\xbb\xbfz\r\nb\0.py\n#ab\n  a.py\na.py   \nA.py\\ \n ab"})


def test_nested_ignore_files_and_git_info_exclude(tree: tuple[Path, list[str]]) -> None:
    root, paths = tree
    agree(root, paths, {
        ".git/info/exclude": b"z\n!b\n",
        ".gitignore": b"*.py\nb\n!zz/\n",
        "d/.gitignore": b"!b.py\n[z-a]\n/e/\n",
        "deep/er/.gitignore": b"!*\n",
    })


# Ignore files made of glob characters at random: git's reading and ours must agree on
# every one (a seed that fails is a case to add to LINES).
ALPHABET = b"ab*?[]!-/\\ :^z.\n\n\r"


@pytest.mark.parametrize("seed", range(40))
def test_random_ignore_files_of_glob_characters(tree: tuple[Path, list[str]], seed: int) -> None:
    root, paths = tree
    rng = random.Random(seed)
    data = bytes(rng.choice(ALPHABET) for _ in range(200))
    agree(root, paths, {".gitignore": data})


@pytest.mark.parametrize("seed", range(5))
def test_binary_ignore_files(tree: tuple[Path, list[str]], seed: int) -> None:
    root, paths = tree
    agree(root, paths, {".gitignore": random.Random(seed).randbytes(4096)})


def test_a_one_megabyte_ignore_file(tree: tuple[Path, list[str]]) -> None:
    root, paths = tree
    rng = random.Random(7)
    lines = [rng.choice([b"", b"", b"!"]) + b"".join(
        rng.choice([b"a", b"b", b"z", b"*", b"?", b"[a-z]", b"/", b".py", b"deep"])
        for _ in range(rng.randrange(1, 8))) for _ in range(200_000)]
    data = b"\n".join(lines)[: 1024 * 1024]
    assert len(data) == 1024 * 1024
    agree(root, paths, {".gitignore": data})


# --- `symfind index`, `reindex` and the daemon on a repository with such ignore files ---

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["a.py", "b.py", "z.py", "y.py", "keep/c.py", "keep/z.py", "[z]/d.py"]


def symfind(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "symfind.cli", *args],
                          capture_output=True, text=True, check=False, cwd=ROOT)


def code_repo(root: Path, ignore: bytes) -> Path:
    for path in SOURCES:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"def {function_of(path)}():\n    pass\n", encoding="utf-8")
    (root / ".gitignore").write_bytes(ignore)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def function_of(path: str) -> str:
    return "f_" + "".join(char if char.isalnum() else "_" for char in path.removesuffix(".py"))


def indexed_paths(repo: Path) -> list[str]:
    index_dir = load_config(repo).index_dir
    return sorted({symbol.path for symbol in Searcher(index_dir).all_symbols()})


def git_keeps(repo: Path) -> list[str]:
    return [path for path in kept_by_git(repo) if path.endswith(".py")]


WARNED = {
    b"!": "'!' passed over: it has nothing to match",
    b"\\": "'\\\\' passed over: it has a backslash at its end",
    b"x[y": "'x[y' passed over: it has a [ that is never closed",
}


@pytest.mark.parametrize("line", [b"!", b"\\", b"[z-a].py", b"x[y", b"keep/[z-a].py"],
                         ids=["bang", "backslash", "reversed-range", "unclosed", "nested"])
def test_index_and_reindex_read_the_lines_git_accepts(tmp_path: Path, line: bytes) -> None:
    repo = code_repo(tmp_path / "repo", b"# lines git accepts\n" + line + b"\n")
    expected = git_keeps(repo)
    assert expected != []
    warning = WARNED.get(line)
    for command in ("index", "reindex"):
        result = symfind(command, str(repo), "--json")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["files"] == len(expected)
        if warning is None:
            assert result.stderr == ""
        else:
            assert result.stderr.splitlines() == [
                (f"WARNING symfind.daemon.gitignore: .gitignore:2: pattern {warning}, and matches "
                 "nothing (git passes it over too)")]
        assert indexed_paths(repo) == expected


@pytest.mark.parametrize("size", [4096, 1024 * 1024], ids=["4KB", "1MB"])
def test_index_reads_a_binary_ignore_file_as_git_does(tmp_path: Path, size: int) -> None:
    junk = random.Random(size).randbytes(size).replace(b"*", b"-")  # a `*` line hides all
    repo = code_repo(tmp_path / "repo", junk + b"\n[z-a].py\n")
    expected = git_keeps(repo)
    assert "z.py" not in expected and "a.py" in expected
    result = symfind("index", str(repo), "--json")
    assert result.returncode == 0, result.stderr
    assert indexed_paths(repo) == expected
    # At most three lines named (quoted as Python would), then how many more.
    named, more = result.stderr.splitlines()[:3], result.stderr.splitlines()[3:]
    assert named != []
    for warning in named:
        assert re.fullmatch(r"WARNING symfind\.daemon\.gitignore: \.gitignore:\d+: pattern .+"
                            r" passed over: it has .+, and matches nothing \(git passes it over too\)",
                            warning), warning
    assert more == [] or len(more) == 1 and re.fullmatch(
        r"WARNING symfind\.daemon\.gitignore: \.gitignore: \d+ more patterns that match nothing "
        r"passed over", more[0])


def test_a_one_megabyte_ignore_file_of_paths(tmp_path: Path) -> None:
    lines = [b"build/gen%d/file%d.o" % (i % 97, i) for i in range(60_000)]
    data = b"\n".join(lines) + b"\nz.py\n!keep/z.py\n"
    assert len(data) >= 1024 * 1024
    repo = code_repo(tmp_path / "repo", data)
    expected = git_keeps(repo)
    assert "z.py" not in expected and "keep/z.py" in expected
    result = symfind("index", str(repo), "--json")
    assert (result.returncode, result.stderr) == (0, "")
    assert indexed_paths(repo) == expected


def test_the_daemon_reads_new_ignore_lines_as_git_does_and_keeps_indexing(tmp_path: Path) -> None:
    repo = code_repo(tmp_path / "repo", b"")
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "symfind.cli", "daemon", "run", str(repo)], cwd=ROOT,
        stderr=subprocess.PIPE,
    )
    index_dir = load_config(repo).index_dir
    try:
        wait_for_status(index_dir, process, lambda s: idle(s) and s.files == len(SOURCES))
        (repo / ".gitignore").write_bytes(b"!\n\\\n[z-a].py\n" + random.Random(3).randbytes(4096)
                                          .replace(b"*", b"-"))
        status = wait_for_status(index_dir, process,
                                 lambda s: idle(s) and s.files == len(git_keeps(repo)))
        assert status.state == "idle"
        assert indexed_paths(repo) == git_keeps(repo)
        (repo / "after.py").write_text("def after():\n    pass\n", encoding="utf-8")
        wait_for_status(index_dir, process, lambda s: idle(s) and "after.py" in indexed_paths(repo))
        assert indexed_paths(repo) == git_keeps(repo)
    finally:
        process.terminate()
        _out, stderr = process.communicate(timeout=60)
    assert b".gitignore:1: pattern '!' passed over" in stderr
    assert b".gitignore:2: pattern '\\\\' passed over" in stderr
