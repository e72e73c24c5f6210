"""`walk.judge_path`: whether a changed path matters to the index, and how.

One real tree holds every kind of path the daemon is told about; each is judged as the
watcher asks (no ignore rules) and as the indexer asks (with them), and the whole table
is compared. Then every file of the tree is judged and the answers compared with what
`walk_repository` itself yields and passes over: the two must never disagree.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from symfind.daemon.walk import (
    LISTED_EXCLUSIONS,
    Exclusion,
    IgnoreRules,
    Relevance,
    Verdict,
    judge_path,
    printable_path,
    walk_repository,
)

BAD_NAME = b"src/caf\xe9.py".decode("utf-8", "surrogateescape")

# Each row: a path (a directory ends with "/"), its verdict as the watcher asks (without
# the ignore rules), and as the indexer asks (with them): `relevance` or `relevance:reason`.
TABLE = r"""
src/app.py                      file        indexed
src/                            directory   directory
# a directory the ignore rules leave out: still re-checked below (what the index holds
# there goes), and each file in it is passed over
generated/                      directory   directory
generated/gen.py                file        passed_over:ignored
ignored.py                      file        passed_over:ignored
src/debug.log                   file        passed_over
# a deeper ignore file's `!` takes back the root's pattern; git's exclude file counts
src/ignored_kept.py             file        indexed
excluded.py                     file        passed_over:ignored
# ignore files, git's own included: the rules of their directory change
.gitignore                      rules       rules
src/.symfindignore              rules       rules
.git/info/exclude               rules       rules
docs/.gitignore.bak             file        passed_over
# where the index never looks, whatever the ignore files say
.git/HEAD                       never       never
.git/                           never       never
web/node_modules/               never       never
web/node_modules/pkg/index.js   never       never
web/node_modules/.gitignore     never       never
.symfind/x.py                   never       never
build/out.py                    never       never
src/build/gen.py                file        indexed
# a virtualenv under any name, found by its pyvenv.cfg
env3/lib/site.py                file        passed_over:virtualenv
# credential files and names that are not UTF-8: listed with the skipped files
.env                            file        listed:secret
deploy/credentials.json         file        listed:secret
src/caf\xe9.py                  file        listed:bad_name
# not source code
README.md                       file        passed_over
logo.png                        file        passed_over
# judged by the path alone: too large, binary, a symlink are found when read
big.py                          file        indexed
blob.py                         file        indexed
link_out.py                     file        indexed
# below a symlink to a directory out of the repository: the walk never goes there
outside/x.py                    file        passed_over
# a file the change deleted, where the walk would still look: it goes from the index
src/deleted.py                  file        indexed
"""
ROWS = [line.split() for line in TABLE.splitlines() if line and not line.startswith("#")]
# The paths of the table as the file system has them (the table shows them printable).
PATHS = [BAD_NAME if printable_path(BAD_NAME) == row[0] else row[0] for row in ROWS]


def _shown(verdict: Verdict) -> str:
    return verdict.relevance + (f":{verdict.reason}" if verdict.reason else "")


def _write(root: Path, relative: str, data: bytes = b"x = 1\n") -> None:
    path = root / os.fsdecode(os.fsencode(relative))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Every path of the table on disk (but the deleted one), and their rules."""
    root = tmp_path / "repo"
    elsewhere = tmp_path / "elsewhere"
    _write(elsewhere, "x.py")
    _write(root, ".gitignore", b"generated/\n*.log\nignored*.py\n")
    _write(root, "src/.symfindignore", b"!ignored_kept.py\n")
    _write(root, ".git/info/exclude", b"excluded.py\n")
    _write(root, "env3/pyvenv.cfg", b"home = /usr/bin\n")
    for relative in PATHS:
        if relative.endswith("/"):
            (root / relative).mkdir(parents=True, exist_ok=True)
        elif relative not in {"src/deleted.py", "link_out.py", "outside/x.py"} and not (
                root / relative).exists():
            _write(root, relative)
    (root / "big.py").write_bytes(b"x = 1\n" * 200_000)
    (root / "blob.py").write_bytes(b"\0\1\2" * 100)
    (root / "link_out.py").symlink_to(elsewhere / "x.py")
    (root / "outside").symlink_to(elsewhere, target_is_directory=True)
    return root


def test_each_kind_of_path_is_judged_as_the_walk_would(tree: Path) -> None:
    rules = IgnoreRules(tree)
    judged = [
        [printable_path(path),
         _shown(judge_path(path.rstrip("/"), is_dir=path.endswith("/"))),
         _shown(judge_path(path.rstrip("/"), is_dir=path.endswith("/"), rules=rules))]
        for path in PATHS
    ]
    assert judged == ROWS


def test_every_file_of_the_tree_is_judged_as_the_walk_finds_it(tree: Path) -> None:
    """Every file on disk, wherever it is (below `.git`, `node_modules`, a virtualenv,
    a symlink): what the walk yields is what is `INDEXED`, what it lists with the skipped
    files is what is `LISTED`, and nothing else is either."""
    rules = IgnoreRules(tree)
    everything = []
    for directory, _dirs, files in os.walk(tree, followlinks=True):
        relative_dir = os.path.relpath(directory, tree)
        prefix = "" if relative_dir == "." else relative_dir + "/"
        everything += [prefix + name for name in files]
    passed_over: dict[str, Exclusion] = {}
    walked = set(walk_repository(tree, IgnoreRules(tree), excluded=passed_over))
    verdicts = {path: judge_path(path, rules=rules) for path in everything}
    assert {p for p, v in verdicts.items() if v.relevance is Relevance.INDEXED} == walked
    assert {printable_path(p): v.reason for p, v in verdicts.items()
            if v.relevance is Relevance.LISTED} == {
        p: r for p, r in passed_over.items() if r in LISTED_EXCLUSIONS}
    assert "outside/x.py" in everything and "env3/lib/site.py" in everything
    assert sorted(walked) == ["big.py", "blob.py", "link_out.py", "src/app.py",
                              "src/build/gen.py", "src/ignored_kept.py"]
