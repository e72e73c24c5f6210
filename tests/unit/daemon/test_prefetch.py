"""`Prefetch`: a changed file read ahead on its own thread is taken only when it is the file
as it is now, against the digest the index holds now.

Real files and the real thread; each outcome is compared whole with `process_file`'s of
the same file.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from symfind.daemon.config import IndexOptions
from symfind.daemon.extraction import FileOutcome, process_file
from symfind.daemon.prefetch import MAX_TRACKED, Prefetch

OPTIONS = IndexOptions()
DEADLINE_S = 60.0


def module(version: int) -> str:
    return f"def handler_{version}(request):\n    return request.retry({version})\n"


def encoded(outcome: FileOutcome | None) -> bytes:
    return msgspec.msgpack.encode(outcome)


def read_now(root: Path, path: str, digest: str | None = None) -> bytes:
    """What the batch would get by extracting the file itself (the state's ctime left out:
    kept or zeroed by how soon after the file's last change it was read)."""
    return encoded(without_read_time(process_file(str(root), path, OPTIONS, digest)))


def without_read_time(outcome: FileOutcome | None) -> FileOutcome | None:
    if outcome is None or outcome.state is None:
        return outcome
    return msgspec.structs.replace(outcome, state=msgspec.structs.replace(outcome.state,
                                                                          ctime_ns=0))


def taken(prefetch: Prefetch, path: str, digest: str | None = None) -> bytes:
    return encoded(without_read_time(prefetch.take(path, digest)))


def wait_until_read(prefetch: Prefetch, path: str) -> None:
    """Until the thread has an outcome of `path` (a private field: nothing else shows it
    without taking it)."""
    deadline = time.monotonic() + DEADLINE_S
    while path not in prefetch._ready:
        assert time.monotonic() < deadline, f"{path} was never read ahead"
        time.sleep(0.005)


@pytest.fixture
def prefetch(tmp_path: Path) -> Iterator[Prefetch]:
    ahead = Prefetch(str(tmp_path), OPTIONS, lambda path: None, writing=lambda: True)
    yield ahead
    ahead.close()


@pytest.mark.parametrize("final", [False, True], ids=["a write", "a close after writing"])
def test_a_file_read_ahead_is_what_extracting_it_now_gives(tmp_path: Path, prefetch: Prefetch,
                                                           final: bool) -> None:
    (tmp_path / "app.py").write_text(module(1), encoding="utf-8")
    prefetch.changed("app.py", final)
    assert taken(prefetch, "app.py") == read_now(tmp_path, "app.py")
    assert prefetch.take("app.py", None) is None  # taken once: the next batch reads it


def test_a_file_written_again_after_it_was_read_is_read_again(tmp_path: Path,
                                                               prefetch: Prefetch) -> None:
    (tmp_path / "app.py").write_text(module(1), encoding="utf-8")
    prefetch.changed("app.py")
    wait_until_read(prefetch, "app.py")
    (tmp_path / "app.py").write_text(module(2), encoding="utf-8")
    prefetch.changed("app.py")
    got = taken(prefetch, "app.py")
    assert got == read_now(tmp_path, "app.py")
    assert b"handler_2" in got


def test_an_outcome_against_another_digest_is_not_taken(tmp_path: Path,
                                                         prefetch: Prefetch) -> None:
    """The index changed since the file was read ahead (its digest then is not now's)."""
    (tmp_path / "app.py").write_text(module(1), encoding="utf-8")
    prefetch.changed("app.py")
    wait_until_read(prefetch, "app.py")
    assert prefetch.take("app.py", "0" * 32) is None


def test_nothing_is_read_ahead_while_no_writer_is_open(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(module(1), encoding="utf-8")
    asked = threading.Event()

    def writing() -> bool:
        asked.set()
        return False

    ahead = Prefetch(str(tmp_path), OPTIONS, lambda path: None, writing=writing)
    try:
        ahead.changed("app.py")
        assert asked.wait(DEADLINE_S)
        assert ahead.take("app.py", None) is None
    finally:
        ahead.close()


def test_a_burst_is_left_to_the_batch_until_it_is_forgotten(tmp_path: Path,
                                                            prefetch: Prefetch) -> None:
    names = [f"m{number}.py" for number in range(MAX_TRACKED + 1)]
    for name in names:
        (tmp_path / name).write_text(module(1), encoding="utf-8")
        prefetch.changed(name)
    assert prefetch.take(names[-1], None) is None  # one too many: not tracked
    prefetch.forget_through(prefetch.mark())  # the batch re-checked them all
    assert prefetch.take(names[0], None) is None
    prefetch.changed(names[-1])
    assert taken(prefetch, names[-1]) == read_now(tmp_path, names[-1])


def test_a_vanished_file_is_read_ahead_as_the_batch_would_read_it(tmp_path: Path,
                                                                     prefetch: Prefetch) -> None:
    """A file gone by the time it is read: the outcome says so, as the batch's would."""
    prefetch.changed("gone.py")
    assert taken(prefetch, "gone.py") == read_now(tmp_path, "gone.py")


def test_a_file_reported_again_while_it_is_read_is_read_again(tmp_path: Path) -> None:
    """An event during the read: that read is stale whatever it saw, and the file is read
    once more (the index's digest is asked for just before each read: the test holds the
    first read there until the second event is in)."""
    (tmp_path / "app.py").write_text(module(1), encoding="utf-8")
    reading, go_on = threading.Event(), threading.Event()

    def digest_of(path: str) -> None:
        reading.set()
        assert go_on.wait(DEADLINE_S)

    ahead = Prefetch(str(tmp_path), OPTIONS, digest_of, writing=lambda: True)
    try:
        ahead.changed("app.py")
        assert reading.wait(DEADLINE_S)
        (tmp_path / "app.py").write_text(module(2), encoding="utf-8")
        ahead.changed("app.py")
        go_on.set()
        got = taken(ahead, "app.py")
        assert got == read_now(tmp_path, "app.py")
        assert b"handler_2" in got
    finally:
        go_on.set()
        ahead.close()
