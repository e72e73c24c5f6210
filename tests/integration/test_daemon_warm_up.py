"""A daemon that is ready loads what its first search and first save would wait for
(daemon/warm_up.py): its index is opened before any search, and that open index is the one
the first search uses; the grammars of the languages its manifest lists are loaded, once,
and the first save uses them; loading waits for the lock of whatever parses in the daemon.
A warm-up that cannot open the index says so in one line and leaves the error to the
search that meets it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from symfind.daemon.client import request
from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index
from symfind.daemon.protocol import SearchReply, SearchRequest
from symfind.daemon.warm_up import warm_up
from symfind.extract import parse
from symfind.storage import IndexSource, SearchQuery
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


def three_languages(tmp_path: Path) -> Config:
    """A repository of Python, C++ and Go, indexed; no grammar loaded in this process."""
    repo = tmp_path / "repo"
    write(repo, "app.py", "def serve():\n    pass\n")
    write(repo, "engine/core.cpp", "int spin() { return 1; }\n")
    write(repo, "tool/main.go", "package main\n\nfunc main() {}\n")
    write(repo, "README.md", "not code\n")
    config = Config(repo=repo, index_dir=tmp_path / "index", options=IndexOptions(), workers=1)
    update_index(config)
    parse._parser_and_query.cache_clear()  # what a new daemon process starts with
    return config


def loaded_grammars() -> tuple[int, int]:
    """(grammars loaded in this process, times one was loaded)."""
    info = parse._parser_and_query.cache_info()
    return info.currsize, info.misses


def search_names(config: Config, text: str) -> list[str]:
    reply = request(config.index_dir, SearchRequest(SearchQuery(text=text)))
    assert isinstance(reply, SearchReply), reply
    return [f"{r.path}:{r.name}" for r in reply.response.results]


def test_a_ready_daemon_loads_what_its_first_search_and_save_use_once_before_either(
    tmp_path: Path, seen: _Seen
) -> None:
    config = three_languages(tmp_path)
    running = Running(config).start()
    try:
        assert seen.done.wait(TIMEOUT_S), [r.getMessage() for r in seen.records]
        # Before any search or save: the index is open, three grammars loaded, each once.
        assert loaded_grammars() == (3, 3)
        assert search_names(config, "serve") == ["app.py:serve"]
        write(config.repo, "tool/stop.py", "def stop():\n    pass\n")
        running.wait_until_applied("tool/stop.py")
        assert search_names(config, "stop") == ["tool/stop.py:stop"]
        assert loaded_grammars() == (3, 3)  # the save parsed with the grammar loaded
    finally:
        running.stop()
    lines = [(r.threadName, r.getMessage().split(" (generation")[0]) for r in seen.records
             if r.getMessage().startswith(("opened index", "warmed up", "caught up"))]
    # The catch-up had nothing to extract: the warm-up loaded the grammars; and the
    # index was opened once, by the warm-up, and searched as it opened it.
    assert [line for _, line in lines] == [
        "caught up: 3 files, 0 extracted",
        f"opened index {config.index_dir}",
        "warmed up: languages loaded: cpp, go, python",
    ]
    assert [thread for thread, line in lines if line != lines[0][1]] == ["symfind-warm-up"] * 2


class _WatchedLock:
    """A real lock that tells when someone waits for it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wanted = threading.Event()

    def __enter__(self) -> None:
        self.wanted.set()
        self.lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def test_the_warm_up_loads_grammars_only_under_the_parsing_lock(
    tmp_path: Path, seen: _Seen
) -> None:
    config = three_languages(tmp_path)
    work_lock = _WatchedLock()
    with work_lock:  # a save being parsed
        work_lock.wanted.clear()
        thread = threading.Thread(target=warm_up, args=(IndexSource(config.index_dir), work_lock),
                                  name="symfind-warm-up")
        thread.start()
        assert work_lock.wanted.wait(TIMEOUT_S), "the warm-up never asked for the lock"
        assert (loaded_grammars(), seen.done.is_set()) == ((0, 0), False)
    thread.join(TIMEOUT_S)
    assert (thread.is_alive(), loaded_grammars()) == (False, (3, 3))
    assert seen.records[-1].getMessage() == "warmed up: languages loaded: cpp, go, python"


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
