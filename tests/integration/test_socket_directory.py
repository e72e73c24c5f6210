"""The daemon's socket directory outside the index directory cannot be hijacked.

When the index directory's path is too long for a Unix socket, the socket goes to a
per-user directory in the shared temp dir. Another user (a real one: `nobody`, through
`runuser`) who creates that directory first must not get our socket: the daemon and
every client refuse it in one line.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.second_user import runs_as_nobody

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("runuser") is not None
needs_second_user = pytest.mark.skipif(
    not AS_ROOT, reason="needs root and runuser to act as a second user (nobody)"
)


def symfind(*args: str, tmpdir: Path, index_base: Path) -> subprocess.CompletedProcess[str]:
    # The defaults under test: no runtime directory given (the conftest's private registry
    # is replaced by the one in `tmpdir`, as private to this test).
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_RUNTIME_DIR", "SYMFIND_RUNTIME_DIR")}
    env.update(TMPDIR=str(tmpdir), SYMFIND_INDEX_DIR=str(index_base))
    return subprocess.run([sys.executable, "-P", "-m", "symfind.cli", *args],
                          capture_output=True, text=True, check=False, env=env, timeout=120)


def as_nobody(*command: str) -> None:
    subprocess.run(["runuser", "-u", "nobody", "--", *command], check=True)


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temp dir like /tmp: anyone may create entries in it (sticky, 1777)."""
    path = Path(tempfile.mkdtemp(prefix="symfind-shared-tmp-"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    (path / "a.py").write_text("class Alpha:\n    pass\n", encoding="utf-8")
    return path


@pytest.fixture
def long_index_base(tmp_path: Path) -> Iterator[Path]:
    """An index location whose socket path is over the ~100 bytes a socket path may have.

    A daemon that started where it should have refused (the bug) is killed afterwards.
    """
    base = tmp_path / ("long-index-location-" * 5)
    yield base
    for pid_file in base.glob("*/daemon.pid"):
        try:
            os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGKILL)
        except (ValueError, ProcessLookupError):
            pass


def refusal(directory: Path, reason: str) -> str:
    return (
        f"symfind: refusing the socket directory {directory}: {reason}; another user could "
        "intercept symfind's searches through it — remove it, or set XDG_RUNTIME_DIR\n"
    )


@runs_as_nobody
@needs_second_user
def test_a_directory_another_user_made_first_is_refused_by_daemon_and_clients(
    shared_tmp: Path, repo: Path, long_index_base: Path
) -> None:
    hijacked = shared_tmp / f"symfind-{os.getuid()}"
    as_nobody("mkdir", "-m", "777", str(hijacked))
    expected = refusal(hijacked, f"it is owned by uid {NOBODY}, not by you (uid {os.getuid()})")
    for args in (("daemon", "start", str(repo)), ("daemon", "run", str(repo)),
                 ("search", "Alpha", "--repo", str(repo)), ("daemon", "status", str(repo))):
        result = symfind(*args, tmpdir=shared_tmp, index_base=long_index_base)
        assert (result.returncode, result.stdout, result.stderr) == (2, "", expected), args
    assert os.listdir(hijacked) == []


@runs_as_nobody
@needs_second_user
def test_a_symlink_another_user_planted_is_refused(
    shared_tmp: Path, repo: Path, long_index_base: Path
) -> None:
    theirs = shared_tmp / "nobodys-dir"
    as_nobody("mkdir", "-m", "700", str(theirs))
    planted = shared_tmp / f"symfind-{os.getuid()}"
    as_nobody("ln", "-s", str(theirs), str(planted))
    result = symfind("daemon", "run", str(repo), tmpdir=shared_tmp, index_base=long_index_base)
    assert (result.returncode, result.stderr) == (2, refusal(planted, "it is a symbolic link"))
    assert os.listdir(theirs) == []


def test_our_own_directory_writable_by_others_is_refused(
    shared_tmp: Path, repo: Path, long_index_base: Path
) -> None:
    loose = shared_tmp / f"symfind-{os.getuid()}"
    loose.mkdir()
    loose.chmod(0o777)
    result = symfind("daemon", "start", str(repo), tmpdir=shared_tmp, index_base=long_index_base)
    assert (result.returncode, result.stderr) == (
        2, refusal(loose, "others can write to it (mode 0777)")
    )


def test_the_daemon_makes_the_directory_private_and_is_reached_through_it(
    shared_tmp: Path, repo: Path, long_index_base: Path
) -> None:
    started = symfind("daemon", "start", str(repo), tmpdir=shared_tmp, index_base=long_index_base)
    try:
        assert started.returncode == 0, started.stderr
        directory = shared_tmp / f"symfind-{os.getuid()}"
        info = directory.lstat()
        assert (stat.S_ISDIR(info.st_mode), stat.S_IMODE(info.st_mode), info.st_uid) == (
            True, 0o700, os.getuid(),
        )
        # Beside the socket: the registry of running daemons (`daemon list`), as private.
        assert sorted(p.name for p in directory.iterdir() if not p.name.endswith(".sock")) == [
            "daemons"]
        [sock] = directory.glob("*.sock")
        assert stat.S_ISSOCK(sock.lstat().st_mode)
        status = symfind("daemon", "status", str(repo), tmpdir=shared_tmp,
                         index_base=long_index_base)
        assert status.returncode == 0 and status.stdout.startswith("running, pid "), status
    finally:
        stopped = symfind("daemon", "stop", str(repo), tmpdir=shared_tmp,
                          index_base=long_index_base)
    assert stopped.returncode == 0, stopped.stderr
    # The socket is gone, and so is the daemon's registry entry.
    directory = shared_tmp / f"symfind-{os.getuid()}"
    assert (list(directory.glob("*.sock")), list((directory / "daemons").iterdir())) == ([], [])
