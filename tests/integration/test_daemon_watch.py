"""How the daemon notices changes when inotify cannot be trusted: polling (asked for, or
as the fallback when inotify's limits are reached) and a kernel queue that overflowed.

Real observers on real directories; waits are on the daemon's notifications or its socket,
with timeouts. Nothing here exhausts the machine's inotify resources: the fallback test
exhausts the instances of the `nobody` user only, in a process of its own.
"""

from __future__ import annotations

import ctypes
import logging
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from symfind.cli.program import main as cli_main
from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.watcher import unwatched_directories
from symfind.storage import index_dir_for
from tests.integration.daemon_process import idle, wait_for_status
from tests.integration.second_user import as_nobody, nobody_cwd, runs_as_nobody
from tests.integration.test_daemon import TIMEOUT_S, Running, klass, write

LINUX = sys.platform.startswith("linux")


def _sysctl(name: str) -> int | None:
    try:
        return int(Path("/proc/sys/fs/inotify", name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@pytest.fixture
def polling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    repo = tmp_path / "repo"
    write(repo, "a.py", klass("Alpha"))
    write(repo, "pkg/b.py", klass("Beta"))
    repo = repo.resolve()
    # The index where the CLI looks for it, so that `symfind daemon status` finds the daemon.
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(tmp_path / "indexes"))
    config = Config(repo=repo, index_dir=index_dir_for(repo), options=IndexOptions(),
                    workers=1, watch="polling")
    daemon = Running(config).start()
    yield daemon
    daemon.stop()


def test_polling_sees_create_modify_rename_and_delete(polling: Running) -> None:
    repo = polling.config.repo
    assert polling.daemon.status().watch == "polling"
    write(repo, "c.py", klass("Gamma"))
    assert polling.wait_for_files({"a.py", "pkg/b.py", "c.py"}) == ["a.py", "c.py", "pkg/b.py"]
    write(repo, "c.py", klass("GammaTwo"))
    assert polling.daemon.wait_until(lambda _: ("c.py", "GammaTwo") in polling.indexed(), TIMEOUT_S)
    (repo / "pkg").rename(repo / "lib")
    (repo / "a.py").unlink()
    assert polling.wait_for_files({"c.py", "lib/b.py"}) == ["c.py", "lib/b.py"]
    assert polling.indexed() == [
        ("c.py", "GammaTwo"), ("c.py", "GammaTwo.go"), ("lib/b.py", "Beta"), ("lib/b.py", "Beta.go"),
    ]


def test_daemon_status_names_the_watch_mode(
    polling: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["daemon", "status", str(polling.config.repo)]) == 0
    assert ", watching by polling" in capsys.readouterr().out


@pytest.mark.skipif(not LINUX, reason="inotify")
def test_inotify_watches_every_directory_of_the_tree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for relative in ("a.py", "pkg/b.py", "pkg/deep/er/c.py", ".git/objects/ab/cd"):
        write(repo, relative, klass("X"))
    repo = repo.resolve()
    other = tmp_path / "not-watched"
    write(other, "sub/x.py", klass("Y"))
    config = Config(repo=repo, index_dir=tmp_path / "index", options=IndexOptions(), workers=1)
    daemon = Running(config).start()
    try:
        assert daemon.daemon.status().watch == "inotify"
        assert unwatched_directories(repo) == []
        # What the check reports when watches are missing: a tree nobody watches.
        assert unwatched_directories(other) == [str(other), str(other / "sub")]
    finally:
        daemon.stop()


@runs_as_nobody
@pytest.mark.skipif(not LINUX or not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="needs root to become `nobody`, whose inotify instances it exhausts")
def test_inotify_instance_limit_reached_falls_back_to_polling() -> None:
    limit = _sysctl("max_user_instances")
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if limit is None or limit > 1024 or soft < limit + 256:
        pytest.skip(f"inotify instance limit {limit}, open-file limit {soft}")
    base = Path(tempfile.mkdtemp(prefix="symfind-daemon-poll-"))
    base.chmod(0o777)
    repo = base / "repo"
    write(repo, "a.py", klass("Alpha"))
    write(repo, "pkg/b.py", klass("Beta"))
    for path in (repo, repo / "pkg"):
        path.chmod(0o777)
    index_dir = base / "index"
    index_dir.mkdir(mode=0o777)
    index_dir.chmod(0o777)
    log = base / "daemon.log"
    # As `nobody`, take every inotify instance that user may have (it normally has none),
    # then run the daemon: watchdog cannot create its own.
    command = as_nobody(
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "held = []\n"
        "while libc.inotify_init() >= 0:\n"
        "    held.append(1)\n"
        "assert ctypes.get_errno() == errno.EMFILE, ctypes.get_errno()\n"
        f"Daemon(Config(repo=Path({str(repo)!r}), index_dir=Path({str(index_dir)!r}),"
        " options=IndexOptions(), workers=1)).run()\n",
        before_drop="import ctypes, errno\n",
    )
    with open(log, "wb") as stderr:
        process = subprocess.Popen(command, cwd=nobody_cwd(), stderr=stderr)
    try:
        started = wait_for_status(index_dir, process, lambda s: idle(s) and s.files == 2)
        assert started.watch == "polling"
        write(repo, "pkg/c.py", klass("Gamma"))
        (repo / "a.py").unlink()
        wait_for_status(index_dir, process, lambda s: idle(s) and s.files == 2
                        and s.generation >= started.generation + 1 and s.symbols == 4)
        process.terminate()
        assert process.wait(timeout=TIMEOUT_S) == 0
        text = log.read_text(encoding="utf-8", errors="replace")
        assert "inotify instance limit reached" in text
        assert "sysctl fs.inotify.max_user_instances" in text
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.skipif(not LINUX, reason="inotify")
def test_an_overflowed_inotify_queue_re_checks_the_whole_tree(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Events lost in the kernel are never seen: only the overflow says they existed.

    While this process holds the GIL (a libc call through `ctypes.PyDLL` keeps it),
    watchdog cannot read inotify's queue; another process floods it with events under
    `node_modules/` (which the daemon ignores), then makes two changes the daemon must
    not miss. Their events come after the overflow and are lost.
    """
    queue_size = _sysctl("max_queued_events")
    if queue_size is None or queue_size > 200_000:
        pytest.skip(f"inotify queue of {queue_size} events")
    repo = tmp_path / "repo"
    write(repo, "a.py", klass("Alpha"))
    write(repo, "pkg/b.py", klass("Beta"))
    flood = repo / "node_modules" / "flood"
    flood.mkdir(parents=True)  # watched from the start: no event needed to add its watch
    repo = repo.resolve()
    config = Config(repo=repo, index_dir=tmp_path / "index", options=IndexOptions(), workers=1)
    daemon = Running(config).start()
    script = (
        "import os, sys\n"
        "flood, repo, count = sys.argv[1], sys.argv[2], int(sys.argv[3])\n"
        "for i in range(count):\n"  # 3 events each: create, close_write, delete
        "    path = os.path.join(flood, f'f{i}')\n"
        "    open(path, 'w').close()\n"
        "    os.unlink(path)\n"
        "with open(os.path.join(repo, 'after.py'), 'w') as f:\n"
        "    f.write('class AfterOverflow:\\n    pass\\n')\n"
        "os.unlink(os.path.join(repo, 'a.py'))\n"
    )
    try:
        with caplog.at_level(logging.WARNING):
            flooder = subprocess.Popen([sys.executable, "-c", script, str(flood), str(repo),
                                        str(queue_size)])
            status = ctypes.c_int()
            ctypes.PyDLL(None).waitpid(flooder.pid, ctypes.byref(status), 0)  # GIL held
            flooder.returncode = os.waitstatus_to_exitcode(status.value)
            assert flooder.returncode == 0
            assert daemon.wait_for_files({"pkg/b.py", "after.py"}) == ["after.py", "pkg/b.py"]
        assert ("after.py", "AfterOverflow") in daemon.indexed()
        assert any("inotify queue overflowed: re-checking" in r.getMessage()
                   for r in caplog.records)
    finally:
        daemon.stop()
