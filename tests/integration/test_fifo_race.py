"""A file replaced by a FIFO between the checks on its path and its `open`: never a hang.

The race is made deterministic with a real FIFO: an audit hook (`sys.addaudithook`, run
by `os.open` just before the system call) replaces the file with a FIFO at the moment the
code under test opens it, after every check it makes on the path. Each read runs in a
thread; one that blocks is released by opening the FIFO's other end, and the test fails.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from symfind.daemon.config import IndexOptions
from symfind.daemon.extraction import process_file
from symfind.daemon.walk import IgnoreRules
from symfind.mcp_server.source import SourceError, open_indexed
from symfind.storage import FileState, file_digest

FIXTURE_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "repo"
DEADLINE_S = 60.0
T = TypeVar("T")

# The name `os.open` is called with -> what to do to the file at that moment.
_SWAPS: dict[str, Callable[[], None]] = {}
_SWAPS_LOCK = threading.Lock()


def _swap_on_open(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _SWAPS or not isinstance(args[0], str | os.PathLike):
        return
    with _SWAPS_LOCK:
        swap = _SWAPS.pop(os.fsdecode(args[0]), None)
    if swap is not None:
        swap()


sys.addaudithook(_swap_on_open)  # audit hooks cannot be removed: it acts only when armed


def fifo_when_opened(opened_as: str, path: Path) -> None:
    """Turn `path` into a FIFO when `os.open` is next called with `opened_as`."""

    def swap() -> None:
        path.unlink()
        os.mkfifo(path)

    with _SWAPS_LOCK:
        _SWAPS[opened_as] = swap


def without_hanging(read: Callable[[], T], fifo: Path) -> T:
    """Run `read` in a thread; fail (after releasing it) if it blocks on `fifo`."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(("ok", read()))
        except BaseException as exc:  # handed to the test thread
            outcome.append(("raised", exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLINE_S)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # lets the blocked open return
        thread.join(DEADLINE_S)
        pytest.fail(f"reading blocked on the FIFO {fifo} until a writer came")
    with _SWAPS_LOCK:
        assert not _SWAPS, "the FIFO was never swapped in: the race was not run"
    kind, value = outcome[0]
    if kind == "raised":
        raise value
    return value


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE_REPO, root)
    return root.resolve()


def test_indexing_a_file_swapped_for_a_fifo_after_its_lstat_skips_it(repo: Path) -> None:
    full = repo / "httpkit" / "client.py"
    fifo_when_opened(str(full), full)
    outcome = without_hanging(
        lambda: process_file(str(repo), "httpkit/client.py", IndexOptions(), None), full
    )
    assert (outcome.skip_reason, outcome.symbols, outcome.state) == ("not_regular", [], None)


def test_indexing_a_file_swapped_for_a_symlink_after_its_lstat_skips_it(repo: Path) -> None:
    full = repo / "httpkit" / "client.py"
    outside = repo.parent / "outside.py"
    outside.write_text("def secret():\n    pass\n", encoding="utf-8")

    def swap() -> None:
        full.unlink()
        full.symlink_to(outside)

    with _SWAPS_LOCK:
        _SWAPS[str(full)] = swap
    outcome = process_file(str(repo), "httpkit/client.py", IndexOptions(), None)
    assert not _SWAPS, "the symlink was never swapped in: the race was not run"
    assert (outcome.skip_reason, outcome.symbols) == ("symlink", [])


def test_an_ignore_file_swapped_for_a_fifo_is_not_read(repo: Path) -> None:
    ignore = repo / ".gitignore"
    ignore.write_text("web/\n", encoding="utf-8")
    fifo_when_opened(str(ignore), ignore)
    rules = IgnoreRules(repo)
    ignored = without_hanging(lambda: rules.is_ignored("web/app.ts"), ignore)
    assert ignored is False  # no rules could be read from it


def test_reading_a_definition_swapped_for_a_fifo_is_refused(repo: Path) -> None:
    data = (repo / "httpkit" / "client.py").read_bytes()
    files = {"httpkit/client.py": FileState(mtime_ns=0, size=len(data), digest=file_digest(data))}
    full = repo / "httpkit" / "client.py"
    fifo_when_opened("client.py", full)  # the last segment, opened relative to its directory
    with pytest.raises(SourceError) as raised:
        without_hanging(lambda: open_indexed(repo, "httpkit/client.py", files), full)
    assert str(raised.value) == "refused: 'httpkit/client.py' is not a regular file"
