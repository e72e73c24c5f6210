"""A repository replaced under a running daemon (`rm -rf R && recreate`, `mv R R2 && mkdir
R`): the daemon notices that its root is another directory now, watches the new one and
re-checks every file, so the index ends up holding exactly the new tree; while the root
is gone, its status and its searches say so."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from symfind.daemon.client import request
from symfind.daemon.config import Config, IndexOptions, WatchMode
from symfind.daemon.protocol import ErrorReply, SearchRequest
from symfind.storage import SearchQuery
from tests.integration.test_daemon import (
    TIMEOUT_S,
    Running,
    fresh_symbols,
    full_symbols,
    klass,
    write,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def old_tree(repo: Path) -> None:
    write(repo, "old.py", klass("OldOnly"))
    write(repo, "pkg/shared.py", klass("SharedOld"))


def new_tree(repo: Path) -> None:
    """A different tree: a real package (the fixture's httpkit) and a file of the same
    path as in the old tree with other content."""
    shutil.copytree(FIXTURES / "repo" / "httpkit", repo / "httpkit")
    write(repo, "pkg/shared.py", klass("SharedNew"))


@pytest.fixture(params=list(WatchMode))
def running(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Running]:
    repo = tmp_path / "repo"
    old_tree(repo)
    repo = repo.resolve()
    config = Config(repo=repo, index_dir=tmp_path / "index", options=IndexOptions(),
                    workers=1, watch=request.param)
    daemon = Running(config).start()
    yield daemon
    daemon.stop()


def gone_message(repo: Path) -> str:
    return (f"the repository {repo} was deleted or moved away; the daemon waits for it to "
            "come back (or stop it: `symfind daemon stop`)")


def wait_until_noticed_gone(running: Running) -> None:
    """Wait until the daemon says its root is gone: only then is the new tree created, as
    a `git clone` of any size would be, after the daemon has seen the old one go."""
    message = gone_message(running.config.repo)
    assert running.daemon.wait_until(
        lambda s: s.state == "error" and s.last_error == message, TIMEOUT_S
    ), running.daemon.status()


def wait_for_symbols(running: Running, expected: list[tuple[object, ...]]) -> None:
    """Wait until the daemon is idle with exactly `expected` committed."""
    index_dir = running.config.index_dir

    def done(status: object) -> bool:
        return running.daemon.status().state == "idle" and full_symbols(index_dir) == expected

    assert running.daemon.wait_until(done, TIMEOUT_S), (
        running.daemon.status(), full_symbols(index_dir))


def test_a_repository_deleted_and_recreated_is_indexed_anew(
    running: Running, tmp_path: Path
) -> None:
    repo = running.config.repo
    shutil.rmtree(repo)
    wait_until_noticed_gone(running)
    repo.mkdir()
    new_tree(repo)
    expected = fresh_symbols(repo, tmp_path)
    wait_for_symbols(running, expected)
    # And it watches the new tree: a file added now is indexed.
    write(repo, "added.py", klass("AddedAfter"))
    wait_for_symbols(running, fresh_symbols(repo, tmp_path / "again"))
    assert running.daemon.status().state == "idle"


def test_a_repository_recreated_at_once_is_indexed_anew(running: Running, tmp_path: Path) -> None:
    """Recreated before the daemon looks (the new directory often gets the old inode
    number back): the watcher's report that the root was deleted is enough."""
    repo = running.config.repo
    shutil.rmtree(repo)
    repo.mkdir()
    new_tree(repo)
    wait_for_symbols(running, fresh_symbols(repo, tmp_path))
    write(repo, "added.py", klass("AddedAfter"))
    wait_for_symbols(running, fresh_symbols(repo, tmp_path / "again"))


def test_a_repository_moved_away_and_replaced_is_indexed_anew(
    running: Running, tmp_path: Path
) -> None:
    repo = running.config.repo
    repo.rename(tmp_path / "moved")
    wait_until_noticed_gone(running)
    repo.mkdir()
    new_tree(repo)
    wait_for_symbols(running, fresh_symbols(repo, tmp_path))
    # Edits in the moved-away tree are not the repository's any more.
    write(tmp_path / "moved", "late.py", klass("InTheOldTree"))
    write(repo, "added.py", klass("AddedAfter"))
    wait_for_symbols(running, fresh_symbols(repo, tmp_path / "again"))


def test_while_the_repository_is_gone_searches_are_refused_until_it_is_back(
    running: Running, tmp_path: Path
) -> None:
    repo = running.config.repo
    shutil.rmtree(repo)
    wait_until_noticed_gone(running)
    reply = request(running.config.index_dir, SearchRequest(query=SearchQuery(text="OldOnly")), timeout_s=TIMEOUT_S)
    assert reply == ErrorReply(kind="index", message=gone_message(repo))
    # It comes back: indexed anew, searches answer again.
    repo.mkdir()
    new_tree(repo)
    wait_for_symbols(running, fresh_symbols(repo, tmp_path))
