"""The watcher, the daemon and the indexer judge changed paths as `symfind index` does.

A daemon watches an empty repository (natively, then by polling) while a tree with every
kind of path is written into it: real files, real watchdog events, batches applied by the
keeper. `update_index`, which walks the tree once, must then find exactly the same files
and the same skipped files. The ignore files and the virtualenv marker are written
first, in a batch of their own, so that the files they rule out arrive as single changes
judged one by one (a change to an ignore file would re-check the whole tree instead).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from symfind.daemon.config import Config, IndexOptions, WatchMode
from symfind.daemon.indexer import update_index
from symfind.storage import read_manifest
from tests.integration.test_daemon import Running, klass, write

# Small enough for a test file to be too large.
MAX_FILE_BYTES = 4_096
BAD_NAME = os.fsdecode(b"src/caf\xe9.py")
# The rules, and git's marker and a virtualenv's, written before the files they rule on.
IGNORE_FILES = [
    (".gitignore", "generated/\n*.log\nignored*.py\n"),
    ("src/.symfindignore", "!ignored_kept.py\n"),
    (".git/info/exclude", "excluded.py\n"),
    (".git/HEAD", "ref: refs/heads/main\n"),
    ("env3/pyvenv.cfg", "home = /usr/bin\n"),
]
CODE = [
    "src/app.py", "src/build/gen.py", "src/ignored_kept.py", "ignored.py", "excluded.py",
    "generated/gen.py", "build/out.py", "web/node_modules/pkg/index.py", ".git/hooks/x.py",
    ".symfind/stray.py", "env3/lib/site.py", ".env", "deploy/credentials.json", BAD_NAME,
    "README.md", "src/debug.log",
]


def _write_tree(repo: Path, elsewhere: Path) -> None:
    """The files judged one by one: code, ignored code, credentials, a bad name, files
    too large or binary, symlinks out of the repository."""
    for relative in CODE:
        write(repo, relative, klass("K" + str(abs(hash(relative)))))
    (repo / "big.py").write_text(klass("Big") * (MAX_FILE_BYTES // 20), encoding="utf-8")
    (repo / "blob.py").write_bytes(b"\0\1\2" * 100)
    write(elsewhere, "x.py", klass("Elsewhere"))
    (repo / "link_out.py").symlink_to(elsewhere / "x.py")
    (repo / "outside").symlink_to(elsewhere, target_is_directory=True)


@pytest.mark.parametrize("watch", [WatchMode.AUTO, WatchMode.POLLING])
def test_the_daemon_watching_a_tree_written_finds_what_index_finds(
    tmp_path: Path, watch: WatchMode
) -> None:
    repo = (tmp_path / "repo")
    repo.mkdir()
    repo = repo.resolve()
    options = IndexOptions(max_file_bytes=MAX_FILE_BYTES)
    # The daemon's index inside the repository: its own writes are changes never indexed.
    watched = Config(repo=repo, index_dir=repo / ".symfind" / "daemon", options=options,
                     workers=1, watch=watch)
    running = Running(watched).start()
    try:
        for relative, text in IGNORE_FILES:
            write(repo, relative, text)
        write(repo, "sentinel_rules.py", klass("RulesWritten"))
        running.wait_until_applied("sentinel_rules.py")
        _write_tree(repo, tmp_path / "elsewhere")
        write(repo, "sentinel_tree.py", klass("TreeWritten"))
        running.wait_until_applied("sentinel_tree.py")
        by_daemon = read_manifest(watched.index_dir)
    finally:
        running.stop()

    walked = Config(repo=repo, index_dir=repo / ".symfind" / "index", options=options,
                    workers=1)
    update_index(walked)
    by_index = read_manifest(walked.index_dir)
    assert by_daemon is not None and by_index is not None
    assert (sorted(by_daemon.files), by_daemon.skipped) == (sorted(by_index.files),
                                                            by_index.skipped)
    assert sorted(by_index.files) == [
        "sentinel_rules.py", "sentinel_tree.py", "src/app.py", "src/build/gen.py",
        "src/ignored_kept.py",
    ]
    assert by_index.skipped == {
        ".env": "secret", "big.py": "too_large", "blob.py": "binary",
        "deploy/credentials.json": "secret", "link_out.py": "symlink",
        "src/caf\\xe9.py": "bad_name",
    }
