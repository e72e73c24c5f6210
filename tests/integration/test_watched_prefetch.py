"""A file saved in a watched repository is read ahead from the watcher's real events, and
its batch takes the outcome: the watcher's half of `daemon.prefetch` (its own rules are
tested in `tests/unit/daemon/test_prefetch.py`).

A real `RepositoryWatcher` (inotify, or polling where inotify is missing) on a temporary
repository; the batch waits on an event, with a generous deadline.
"""

from __future__ import annotations

import threading
from pathlib import Path

from symfind.daemon.config import IndexOptions
from symfind.daemon.prefetch import Prefetch
from symfind.daemon.watcher import Batch, RepositoryWatcher
from tests.unit.daemon.test_prefetch import encoded, read_now, without_read_time

DEADLINE_S = 60.0


def test_a_saved_file_is_read_ahead_and_taken_by_its_batch(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    told: list[tuple[str, bool]] = []
    taken: list[bytes] = []
    handed = threading.Condition()
    prefetch = Prefetch(str(root), IndexOptions(), lambda path: None, writing=lambda: True)

    def on_change(path: str, final: bool) -> None:
        told.append((path, final))
        prefetch.changed(path, final)

    def on_batch(batch: Batch) -> None:
        # A machine slow enough to hand the file's creation over in a batch of its own
        # hands the rest of its save in the next one: each batch takes what it can.
        if any(change.path.endswith("client.py") for change in batch.changes):
            outcome = prefetch.take("client.py", None)
            with handed:
                taken.append(encoded(without_read_time(outcome)))
                handed.notify_all()

    watcher = RepositoryWatcher(root, on_batch, on_change=on_change)
    watcher.start()
    try:
        (root / "client.py").write_text("def retry_upload(session):\n    return session.send()\n",
                                        encoding="utf-8")
        expected = read_now(root, "client.py")
        with handed:
            assert handed.wait_for(lambda: expected in taken, timeout=DEADLINE_S), (
                f"no batch took the saved file read ahead; told {told}")
    finally:
        watcher.stop()
        prefetch.close()
    assert {path for path, _ in told} == {"client.py"}
    if watcher.mode != "polling":  # a snapshot's diff knows no close: inotify's events do
        assert ("client.py", True) in told  # the close after writing ends the write


def test_a_failure_to_read_ahead_loses_no_change(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    batches: list[list[str]] = []
    handed = threading.Event()

    def on_change(path: str, final: bool) -> None:
        raise RuntimeError("reading ahead broke")

    def on_batch(batch: Batch) -> None:
        batches.append(sorted({change.path for change in batch.changes}))
        handed.set()

    watcher = RepositoryWatcher(root, on_batch, on_change=on_change)
    watcher.start()
    try:
        (root / "client.py").write_text("def retry_upload():\n    pass\n", encoding="utf-8")
        assert handed.wait(DEADLINE_S)
    finally:
        watcher.stop()
    assert batches[0] == [str(root / "client.py")]
