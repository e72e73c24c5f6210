"""The daemon with a real watchdog observer on a real directory: changes become searchable.

Every wait is on the daemon's own change notifications, with a timeout; no sleeps.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from symfind.daemon.client import request
from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index
from symfind.daemon.protocol import DaemonStatus, SearchReply, SearchRequest, StatusReply, StatusRequest
from symfind.daemon.service import RESYNC_FROM_EVENTS, Daemon, DaemonRunning
from symfind.daemon.watcher import Batch, Change
from symfind.storage import Searcher, SearchQuery, read_manifest
from tests.integration.daemon_process import idle, wait_for_status
from tests.integration.second_user import as_nobody, nobody_cwd, runs_as_nobody

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 20.0


def write(root: Path, relative: str, content: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


def klass(name: str) -> str:
    return f"class {name}:\n    def go(self):\n        pass\n"


class Running:
    """A daemon serving in a thread of the test process."""

    def __init__(self, config: Config) -> None:
        self.daemon = Daemon(config)
        self.config = config
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self.daemon.run()
        except BaseException as exc:  # surfaced by the test
            self.error = exc
            with self.daemon.changed:
                self.daemon.changed.notify_all()

    def start(self) -> Running:
        self.thread.start()
        assert self.daemon.wait_until(lambda s: s.state == "idle", TIMEOUT_S), self.error
        return self

    def stop(self) -> None:
        self.daemon.stop()
        self.thread.join(TIMEOUT_S)
        assert not self.thread.is_alive()

    def indexed(self) -> list[tuple[str, str]]:
        return [(s.path, s.qualname) for s in Searcher(self.config.index_dir).all_symbols()]

    def wait_until_applied(self, sentinel: str) -> None:
        """Wait until `sentinel`, written after every other change, is committed and
        the daemon idle: every change before it has been handled then."""
        def done(status: DaemonStatus) -> bool:
            manifest = read_manifest(self.config.index_dir)
            return (manifest is not None and sentinel in manifest.files
                    and status.state == "idle" and status.pending == 0)
        assert self.daemon.wait_until(done, TIMEOUT_S), self.daemon.status()

    def wait_for_files(self, expected: set[str]) -> list[str]:
        """Wait until the committed file set is `expected`; return it."""
        def committed() -> set[str]:
            manifest = read_manifest(self.config.index_dir)
            return set(manifest.files) if manifest else set()
        self.daemon.wait_until(lambda _status: committed() == expected, TIMEOUT_S)
        return sorted(committed())


def full_symbols(index_dir: Path) -> list[tuple[object, ...]]:
    return [
        (s.path, s.line, s.end_line, s.qualname, s.kind, s.signature)
        for s in Searcher(index_dir).all_symbols()
    ]


def fresh_symbols(repo: Path, tmp_path: Path) -> list[tuple[object, ...]]:
    """The symbols of a from-scratch index of `repo` as it is now."""
    config = Config(repo=repo, index_dir=tmp_path / "fresh", options=IndexOptions(), workers=1)
    update_index(config, fresh=True)
    return full_symbols(config.index_dir)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, "a.py", klass("Alpha"))
    write(root, "pkg/b.py", klass("Beta"))
    return root.resolve()


@pytest.fixture
def running(repo: Path, tmp_path: Path) -> Iterator[Running]:
    config = Config(repo=repo, index_dir=tmp_path / "index", options=IndexOptions(), workers=1)
    daemon = Running(config).start()
    yield daemon
    daemon.stop()


def test_start_up_indexes_what_is_on_disk(running: Running) -> None:
    assert running.indexed() == [
        ("a.py", "Alpha"), ("a.py", "Alpha.go"), ("pkg/b.py", "Beta"), ("pkg/b.py", "Beta.go"),
    ]


def test_create_modify_delete(running: Running, repo: Path) -> None:
    write(repo, "c.py", klass("Gamma"))
    assert running.wait_for_files({"a.py", "pkg/b.py", "c.py"}) == ["a.py", "c.py", "pkg/b.py"]
    write(repo, "c.py", klass("GammaTwo"))
    running.daemon.wait_until(lambda _: ("c.py", "GammaTwo") in running.indexed(), TIMEOUT_S)
    (repo / "a.py").unlink()
    assert running.wait_for_files({"pkg/b.py", "c.py"}) == ["c.py", "pkg/b.py"]
    assert running.indexed() == [
        ("c.py", "GammaTwo"), ("c.py", "GammaTwo.go"), ("pkg/b.py", "Beta"), ("pkg/b.py", "Beta.go"),
    ]


def test_rename_and_move_out_of_the_repository(running: Running, repo: Path, tmp_path: Path) -> None:
    (repo / "a.py").rename(repo / "renamed.py")
    assert running.wait_for_files({"renamed.py", "pkg/b.py"}) == ["pkg/b.py", "renamed.py"]
    (repo / "pkg" / "b.py").rename(tmp_path / "b_outside.py")
    assert running.wait_for_files({"renamed.py"}) == ["renamed.py"]
    assert running.indexed() == [("renamed.py", "Alpha"), ("renamed.py", "Alpha.go")]


def test_directory_rename(running: Running, repo: Path) -> None:
    (repo / "pkg").rename(repo / "lib")
    assert running.wait_for_files({"a.py", "lib/b.py"}) == ["a.py", "lib/b.py"]


def test_gitignore_edit_re_evaluates_what_is_indexed(running: Running, repo: Path) -> None:
    write(repo, ".gitignore", "pkg/\n")
    assert running.wait_for_files({"a.py"}) == ["a.py"]
    (repo / ".gitignore").write_text("# nothing ignored\n", encoding="utf-8")
    assert running.wait_for_files({"a.py", "pkg/b.py"}) == ["a.py", "pkg/b.py"]


def test_git_info_exclude_edit_re_evaluates_what_is_indexed(running: Running, repo: Path) -> None:
    """Git's own ignore file lives in `.git/`, whose events are otherwise dropped."""
    # As in any clone, `.git/info` exists before: made one level at a time, each seen by
    # the watcher before the next (watchdog warns when a new directory's subdirectory
    # appears while it adds watches below it, and the suite makes warnings errors).
    (repo / ".git").mkdir()
    write(repo, "sentinel.py", klass("Sentinel"))
    running.wait_until_applied("sentinel.py")
    (repo / ".git" / "info").mkdir()
    write(repo, "sentinel.py", klass("SentinelAgain"))
    running.daemon.wait_until(
        lambda _: ("sentinel.py", "SentinelAgain") in running.indexed(), TIMEOUT_S)
    write(repo, ".git/info/exclude", "pkg/\n")
    assert running.wait_for_files({"a.py", "sentinel.py"}) == ["a.py", "sentinel.py"]
    (repo / ".git" / "info" / "exclude").write_text("# nothing\n", encoding="utf-8")
    assert running.wait_for_files({"a.py", "pkg/b.py", "sentinel.py"}) == [
        "a.py", "pkg/b.py", "sentinel.py"]


def test_editor_style_atomic_save(running: Running, repo: Path) -> None:
    temp = write(repo, ".a.py.swp~", klass("AlphaSaved"))
    os.replace(temp, repo / "a.py")
    running.daemon.wait_until(lambda _: ("a.py", "AlphaSaved") in running.indexed(), TIMEOUT_S)
    assert running.indexed() == [
        ("a.py", "AlphaSaved"), ("a.py", "AlphaSaved.go"), ("pkg/b.py", "Beta"), ("pkg/b.py", "Beta.go"),
    ]


def test_a_thousand_files_written_at_once(running: Running, repo: Path) -> None:
    expected = {"a.py", "pkg/b.py"} | {f"many/m{i:04}.py" for i in range(1000)}
    for i in range(1000):
        write(repo, f"many/m{i:04}.py", klass(f"Many{i:04}"))
    assert running.wait_for_files(expected) == sorted(expected)
    assert len(running.indexed()) == 2 * len(expected)


def test_files_deleted_between_event_and_read_leave_no_trace(
    running: Running, repo: Path, tmp_path: Path
) -> None:
    """Files created (or rewritten) and deleted at once, while batches are being read:
    the daemon finds many gone when it reads them (`vanished`). Names repeat, so some
    were indexed by an earlier batch and must be dropped; a quarter are kept."""
    for i in range(1000):
        path = write(repo, f"flicker/f{i % 13}.py", klass(f"Flicker{i}"))
        if i % 4 == 0:
            continue
        if i % 4 == 1:
            path = path.rename(repo / f"flicker/moved{i % 5}.py")
        path.unlink()
    write(repo, "sentinel.py", klass("Sentinel"))
    running.wait_until_applied("sentinel.py")
    assert full_symbols(running.config.index_dir) == fresh_symbols(repo, tmp_path)
    assert running.daemon.status().errors == 0


def test_a_huge_batch_re_checks_the_whole_tree(
    running: Running, repo: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A burst of RESYNC_FROM_EVENTS events may have overflowed inotify's queue: its
    batch re-checks every file, and finds even a change no event reported."""
    running.daemon._watcher.stop()  # noqa: SLF001 (white-box: changes no event reports)
    write(repo, "unseen.py", klass("Unseen"))
    (repo / "a.py").unlink()
    batch = Batch([Change(str(repo / "pkg/b.py"), False)] * RESYNC_FROM_EVENTS)
    with caplog.at_level(logging.INFO, logger="symfind.daemon.batches"):
        running.daemon.keeper.on_batch(batch)
    assert running.indexed() == [
        ("pkg/b.py", "Beta"), ("pkg/b.py", "Beta.go"), ("unseen.py", "Unseen"),
        ("unseen.py", "Unseen.go"),
    ]
    assert f"re-checked everything: {RESYNC_FROM_EVENTS} events in one batch" in caplog.text


def test_status_of_an_older_daemon_still_decodes() -> None:
    old = b'{"pid": 7, "repo": "/r", "state": "idle", "pending": 0, "files": 3}'
    status = msgspec.json.decode(old, type=DaemonStatus)
    assert (status.files, status.watch, status.errors, status.last_error) == (3, "", 0, "")


def test_bad_files_are_counted_and_the_daemon_keeps_running(
    running: Running, repo: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path, "outside.py", klass("Outside"))
    (repo / "link_out.py").symlink_to(outside)
    (repo / "loop").symlink_to(repo / "loop")  # a symlink loop
    big = repo / "huge.py"
    with open(big, "wb") as handle:  # 2 GB, sparse: appears at once, never read
        handle.truncate(2 * 1024**3)
    write(repo, "after.py", klass("After"))
    running.wait_for_files({"a.py", "pkg/b.py", "after.py"})
    assert running.daemon.wait_until(
        lambda s: s.skipped == {"symlink": 1, "too_large": 1}, TIMEOUT_S
    ), running.daemon.status()
    assert ("after.py", "After") in running.indexed()


def test_socket_answers_search_and_status(running: Running) -> None:
    reply = request(running.config.index_dir, SearchRequest(SearchQuery(text="Alpah", limit=1)))
    assert isinstance(reply, SearchReply)
    assert [(r.qualname, r.path, r.line) for r in reply.response.results] == [("Alpha", "a.py", 1)]
    status = request(running.config.index_dir, StatusRequest())
    assert isinstance(status, StatusReply)
    assert (status.status.state, status.status.files, status.status.pid) == ("idle", 2, os.getpid())


def test_a_second_daemon_on_the_same_repository_is_refused(running: Running) -> None:
    with pytest.raises(DaemonRunning, match=f"a symfind daemon \\(pid {os.getpid()}\\) already serves"):
        Daemon(running.config).run()
    assert running.indexed()[0] == ("a.py", "Alpha")


def test_stopping_removes_socket_and_pid_file(repo: Path, tmp_path: Path) -> None:
    config = Config(repo=repo, index_dir=tmp_path / "idx", options=IndexOptions(), workers=1)
    daemon = Running(config).start()
    assert sorted(p.name for p in config.index_dir.iterdir() if p.name.startswith("daemon.")) == [
        "daemon.pid", "daemon.sock",
    ]
    daemon.stop()
    assert sorted(p.name for p in config.index_dir.iterdir() if p.name.startswith("daemon.")) == []
    shutil.rmtree(config.index_dir)


@runs_as_nobody
@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_a_watched_file_that_becomes_unreadable_is_counted_not_fatal() -> None:
    # Root reads everything, so the daemon runs in a subprocess that drops to `nobody`
    # once it has loaded what it reads of symfind (second_user.py says why).
    base = Path(tempfile.mkdtemp(prefix="symfind-daemon-perm-"))
    base.chmod(0o777)
    repo = base / "repo"
    write(repo, "a.py", klass("Alpha"))
    victim = write(repo, "b.py", klass("Beta"))
    for path in (repo, repo / "a.py", victim):
        path.chmod(0o777 if path.is_dir() else 0o666)
    index_dir = base / "index"
    index_dir.mkdir()
    index_dir.chmod(0o777)
    command = as_nobody(
        f"Daemon(Config(repo=Path({str(repo)!r}), index_dir=Path({str(index_dir)!r}),"
        " options=IndexOptions(), workers=1)).run()\n"
    )
    process = subprocess.Popen(command, cwd=nobody_cwd())
    try:
        wait_for_status(index_dir, process, lambda s: idle(s) and s.files == 2)
        victim.chmod(0o000)
        status = wait_for_status(
            index_dir, process, lambda s: s.skipped == {"unreadable": 1} and idle(s)
        )
        assert status.files == 1
        write(repo, "c.py", klass("Gamma"))
        wait_for_status(index_dir, process, lambda s: s.files == 2)
    finally:
        process.terminate()
        assert process.wait(timeout=TIMEOUT_S) == 0
        shutil.rmtree(base, ignore_errors=True)
