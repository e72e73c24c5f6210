"""An edit that keeps a file's size and mtime is still an edit: `symfind index`, the
daemon's catch-up and its watcher see it (real `touch -d`, `cp -p`, `tar`, `rsync -t`, and
`os.utime` putting the nanoseconds back)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from symfind.daemon.config import IndexOptions, load_config
from symfind.daemon.extraction import RACY_WINDOW_NS, process_file
from symfind.storage import FileState, Searcher
from tests.integration.daemon_process import idle, wait_for_status

ROOT = Path(__file__).resolve().parents[2]
BEFORE = "def alpha_one():\n    return 1\n"
AFTER = "def omega_two():\n    return 2\n"  # the same size: only the content differs
assert len(BEFORE) == len(AFTER)
STAMP = "2020-02-02 02:02:02.123456789"


def symfind(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "symfind.cli", *args],
                          capture_output=True, text=True, check=False, cwd=ROOT,
                          env={**os.environ, **(env or {})})


def names(repo: Path) -> list[tuple[str, str]]:
    return sorted((s.path, s.name) for s in Searcher(load_config(repo).index_dir).all_symbols())


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "mod.py").write_text(BEFORE, encoding="utf-8")
    (repo / "pkg" / "other.py").write_text("def other():\n    pass\n", encoding="utf-8")
    subprocess.run(["touch", "-d", STAMP, str(repo / "pkg" / "mod.py")], check=True)
    return repo


def settled(repo: Path) -> None:
    """Wait until every file's last change is older than the racy window: a file read
    within it is read again at the next check (`RACY_WINDOW_NS`), which would add to the
    counts asserted here."""
    newest = max(path.stat().st_ctime_ns for path in repo.rglob("*.py"))
    deadline = time.monotonic() + 60
    while time.time_ns() <= newest + RACY_WINDOW_NS and time.monotonic() < deadline:
        time.sleep(0.01)  # a clock to pass, not a process to wait for


def staged(root: Path) -> Path:
    """The edited file outside the repository, with the original's size and mtime."""
    source = root / "edited" / "mod.py"
    source.parent.mkdir(exist_ok=True)
    source.write_text(AFTER, encoding="utf-8")
    subprocess.run(["touch", "-d", STAMP, str(source)], check=True)
    return source


def edit_in_place_touch_d(root: Path, target: Path) -> None:
    target.write_text(AFTER, encoding="utf-8")
    subprocess.run(["touch", "-d", STAMP, str(target)], check=True)


def edit_in_place_utime(root: Path, target: Path) -> None:
    before = target.stat()
    target.write_text(AFTER, encoding="utf-8")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))


def copy_preserving(root: Path, target: Path) -> None:
    subprocess.run(["cp", "-p", str(staged(root)), str(target)], check=True)


def rsync_times(root: Path, target: Path) -> None:
    # --checksum: by size and mtime alone rsync would take the file as unchanged too.
    subprocess.run(["rsync", "-t", "--checksum", str(staged(root)), str(target)], check=True)


def untar(root: Path, target: Path) -> None:
    archive = root / "edited.tar"
    source = staged(root)  # posix format: the mtime to the nanosecond
    subprocess.run(["tar", "--format=posix", "-cf", str(archive), "-C", str(source.parent),
                    source.name], check=True)
    subprocess.run(["tar", "-xf", str(archive), "-C", str(target.parent)], check=True)


EDITS: dict[str, Callable[[Path, Path], None]] = {
    "touch -d": edit_in_place_touch_d,
    "os.utime": edit_in_place_utime,
    "cp -p": copy_preserving,
    "tar": untar,
    "rsync -t": rsync_times,
}


def edit(name: str, root: Path, target: Path) -> None:
    if name == "rsync -t" and shutil.which("rsync") is None:
        pytest.skip("rsync is not installed (CI installs it)")
    before = target.stat()
    EDITS[name](root, target)
    after = target.stat()
    # What made the fault: the edit left what `index` compared as it was.
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert target.read_text(encoding="utf-8") == AFTER


@pytest.mark.parametrize("how", list(EDITS))
def test_index_sees_an_edit_that_keeps_size_and_mtime(tmp_path: Path, how: str) -> None:
    repo = make_repo(tmp_path)
    settled(repo)
    assert symfind("index", str(repo)).returncode == 0
    assert names(repo) == [("pkg/mod.py", "alpha_one"), ("pkg/other.py", "other")]

    edit(how, tmp_path, repo / "pkg" / "mod.py")
    settled(repo)
    result = symfind("index", str(repo), "--json")
    assert (result.returncode, result.stderr) == (0, "")
    report = json.loads(result.stdout)
    assert (report["indexed"], report["unchanged"]) == (1, 0)  # other.py is not read
    assert names(repo) == [("pkg/mod.py", "omega_two"), ("pkg/other.py", "other")]

    again = json.loads(symfind("index", str(repo), "--json").stdout)
    assert (again["indexed"], again["unchanged"]) == (0, 0)  # nothing left to read


def test_a_file_whose_ctime_alone_moved_is_read_again_not_re_extracted(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    settled(repo)
    assert symfind("index", str(repo)).returncode == 0
    os.chmod(repo / "pkg" / "mod.py", 0o600)  # moves the ctime, not the content
    settled(repo)
    report = json.loads(symfind("index", str(repo), "--json").stdout)
    assert (report["indexed"], report["unchanged"]) == (0, 1)
    again = json.loads(symfind("index", str(repo), "--json").stdout)
    assert (again["indexed"], again["unchanged"]) == (0, 0)


def start_daemon(repo: Path, watch: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-P", "-m", "symfind.cli", "daemon", "run", str(repo)], cwd=ROOT,
        stderr=subprocess.DEVNULL, env={**os.environ, "SYMFIND_WATCH": watch},
    )


def stopped(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    assert process.wait(timeout=60) == 0


@pytest.mark.parametrize("how", ["touch -d", "cp -p", "rsync -t"])
def test_the_daemons_catch_up_sees_an_edit_made_while_it_was_stopped(
    tmp_path: Path, how: str
) -> None:
    repo = make_repo(tmp_path)
    index_dir = load_config(repo).index_dir
    process = start_daemon(repo, "auto")
    try:
        wait_for_status(index_dir, process, lambda s: idle(s) and s.files == 2)
    finally:
        stopped(process)
    assert names(repo) == [("pkg/mod.py", "alpha_one"), ("pkg/other.py", "other")]

    edit(how, tmp_path, repo / "pkg" / "mod.py")
    process = start_daemon(repo, "auto")
    try:
        wait_for_status(index_dir, process,
                        lambda s: idle(s) and ("pkg/mod.py", "omega_two") in names(repo))
        assert names(repo) == [("pkg/mod.py", "omega_two"), ("pkg/other.py", "other")]
    finally:
        stopped(process)


@pytest.mark.parametrize("watch", ["auto", "polling"])
@pytest.mark.parametrize("how", ["touch -d", "cp -p"])
def test_the_daemons_watcher_sees_an_edit_that_keeps_size_and_mtime(
    tmp_path: Path, how: str, watch: str
) -> None:
    repo = make_repo(tmp_path)
    index_dir = load_config(repo).index_dir
    process = start_daemon(repo, watch)
    try:
        wait_for_status(index_dir, process, lambda s: idle(s) and s.files == 2)
        edit(how, tmp_path, repo / "pkg" / "mod.py")
        wait_for_status(index_dir, process,
                        lambda s: idle(s) and ("pkg/mod.py", "omega_two") in names(repo))
        assert names(repo) == [("pkg/mod.py", "omega_two"), ("pkg/other.py", "other")]
    finally:
        stopped(process)


def test_a_file_changed_within_a_clock_tick_of_its_read_is_read_again_next_time(
    tmp_path: Path,
) -> None:
    """A change right after the read can keep the ctime (the clock has not ticked): such a
    state records its ctime as unknown (0), and the real one once the tick has passed."""
    target = tmp_path / "mod.py"
    target.write_text(BEFORE, encoding="utf-8")
    deadline = time.monotonic() + 60

    def state_now() -> FileState:
        state = process_file(str(tmp_path), "mod.py", IndexOptions(), None).state
        assert state is not None
        return state

    racy = None
    while racy is None and time.monotonic() < deadline:  # a busy machine may stall a tick
        target.chmod(target.stat().st_mode ^ 0o100)  # the ctime is now
        state = state_now()
        racy = state if state.ctime_ns == 0 else None
    assert racy is not None
    settled = state_now()
    while settled.ctime_ns == 0 and time.monotonic() < deadline:
        settled = state_now()
    info = target.stat()
    assert settled == msgspec.structs.replace(racy, ctime_ns=info.st_ctime_ns)
    assert (settled.size, settled.mtime_ns, settled.inode) == (
        info.st_size, info.st_mtime_ns, info.st_ino)
