"""A daemon that is ready loads what its first search and first save would wait for
(daemon/warm_up.py): its index is opened before any search, with the grammars of the
languages its manifest lists; a warm-up that cannot open the index says so in one line
and leaves the error to the search that meets it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.warm_up import warm_up
from symfind.storage import IndexSource
from tests.integration.test_daemon import TIMEOUT_S, Running, write


class _Seen(logging.Handler):
    """Keeps the records of symfind's loggers, and tells when one says `until`."""

    def __init__(self, until: str) -> None:
        super().__init__(logging.INFO)
        self.until = until
        self.records: list[logging.LogRecord] = []
        self.done = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        if record.getMessage().startswith(self.until):
            self.done.set()


@pytest.fixture
def seen() -> Iterator[_Seen]:
    handler = _Seen(until="warmed up")
    logger = logging.getLogger("symfind")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


def test_a_ready_daemon_opens_its_index_and_loads_its_languages_before_any_search(
    tmp_path: Path, seen: _Seen
) -> None:
    repo = tmp_path / "repo"
    write(repo, "app.py", "def serve():\n    pass\n")
    write(repo, "engine/core.cpp", "int spin() { return 1; }\n")
    write(repo, "tool/main.go", "package main\n\nfunc main() {}\n")
    write(repo, "README.md", "not code\n")
    config = Config(repo=repo, index_dir=tmp_path / "index", options=IndexOptions(), workers=1)
    running = Running(config).start()
    try:
        assert seen.done.wait(TIMEOUT_S), [r.getMessage() for r in seen.records]
    finally:
        running.stop()
    warm_up_lines = [r.getMessage() for r in seen.records if r.threadName == "symfind-warm-up"]
    # No search was made: the index was opened by the warm-up, in its thread.
    assert [line.split(" (generation")[0] for line in warm_up_lines] == [
        f"opened index {config.index_dir}",
        "warmed up: languages loaded: cpp, go, python",
    ]


def test_a_warm_up_that_cannot_open_the_index_says_so_in_one_line(
    tmp_path: Path, seen: _Seen
) -> None:
    missing = tmp_path / "no-index"
    warm_up(IndexSource(missing), threading.Lock())
    assert [(r.levelname, r.getMessage()) for r in seen.records] == [
        ("WARNING", (f"warm-up: the index was not opened: no index at {missing} — "
                     "run `symfind index` first")),
        ("INFO", "warmed up: languages loaded: none"),
    ]
    assert all(r.exc_info is None for r in seen.records)
