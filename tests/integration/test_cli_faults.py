"""Faults an unlucky user meets, made for real: a full disk (a small tmpfs), an index
directory or a repository another user cannot read (`setpriv` as `nobody`), Ctrl-C
(SIGINT to the process group, as a terminal sends it), a process stopped while it holds
the index's lock. Each is one line on stderr and a
documented exit code, never a traceback; an interrupted `index` leaves a consistent index."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index
from symfind.storage import Searcher, index_dir_for, read_manifest
from tests.integration.daemon_process import TIMEOUT_S
from tests.integration.lock_holder import held_by_a_stopped_process
from tests.integration.second_user import runs_as_nobody
from tests.integration.terminal import as_from_a_terminal

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXIT_LOCKED, EXIT_IO, EXIT_INTERRUPTED = 4, 6, 130
SETPRIV = shutil.which("setpriv")
AS_NOBODY = [SETPRIV or "setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups"]


def symfind(*args: str, base: Path, as_nobody: bool = False,
            timeout_s: float = TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    prefix = AS_NOBODY if as_nobody else []
    return subprocess.run(
        [*prefix, sys.executable, "-P", "-m", "symfind.cli", *args],
        capture_output=True, text=True, check=False, timeout=timeout_s, cwd="/",
        env={**os.environ, "SYMFIND_INDEX_DIR": str(base), "SYMFIND_WORKERS": "1"},
    )


def no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and len(stderr.splitlines()) == 1, stderr


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A directory every user can enter (pytest's own temp dirs are the owner's only)."""
    path = Path(tempfile.mkdtemp(prefix="symfind-faults-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def nobody_can_run_symfind() -> str:
    """Why `nobody` cannot run this symfind ("" when it can)."""
    if os.geteuid() != 0 or SETPRIV is None:
        return "needs root and setpriv to run symfind as another user"
    probe = subprocess.run(
        [*AS_NOBODY, sys.executable, "-P", "-c", "import symfind.cli.program"],
        capture_output=True, text=True, check=False, cwd="/", timeout=TIMEOUT_S,
    )
    if probe.returncode != 0:
        return f"nobody cannot import this checkout's symfind: {probe.stderr.strip()[-200:]}"
    return ""


def copy_repo(destination: Path) -> Path:
    shutil.copytree(FIXTURES / "repo", destination)
    for path in [destination, *destination.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return destination.resolve()


# ---- a full disk -------------------------------------------------------------------------


def test_a_full_disk_during_index_is_one_line_and_exit_6(full_disk: Path, tmp_path: Path) -> None:
    repo = copy_repo(tmp_path / "repo")
    done = symfind("index", str(repo), base=full_disk)
    assert (done.returncode, done.stdout) == (EXIT_IO, ""), done.stderr
    no_traceback(done.stderr)
    assert re.fullmatch(
        rf"symfind: no space left on device: {re.escape(str(full_disk))}/\S+ — free some "
        r"space, then run the command again\n", done.stderr,
    ), done.stderr


# ---- another user ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["search", "HttpClient", "--repo", "{repo}"], ["status", "{repo}"], ["index", "{repo}"],
     ["daemon", "start", "{repo}"], ["daemon", "status", "{repo}"]],
    ids=lambda c: " ".join(c[:2]),
)
@runs_as_nobody
def test_an_index_directory_the_user_cannot_read_is_one_line_and_exit_6(
    command: list[str], shared_tmp: Path
) -> None:
    if reason := nobody_can_run_symfind():
        pytest.skip(reason)
    repo = copy_repo(shared_tmp / "repo")
    base = shared_tmp / "root-only-indexes"
    base.mkdir(mode=0o700)
    assert symfind("index", str(repo), base=base).returncode == 0
    done = symfind(*(part.format(repo=repo) for part in command), base=base, as_nobody=True)
    assert (done.returncode, done.stdout) == (EXIT_IO, ""), done.stderr
    no_traceback(done.stderr)
    assert re.fullmatch(rf"symfind: permission denied: {re.escape(str(base))}/\S+\n",
                        done.stderr), done.stderr


@runs_as_nobody
@pytest.mark.parametrize("command", ["index", "reindex"])
def test_a_repository_the_user_cannot_read_is_one_line_and_exit_6(
    command: str, shared_tmp: Path
) -> None:
    if reason := nobody_can_run_symfind():
        pytest.skip(reason)
    repo = copy_repo(shared_tmp / "repo")
    repo.chmod(0o700)  # root's: nobody may not list it
    base = shared_tmp / "nobody-indexes"
    base.mkdir()
    os.chown(base, *_nobody_ids())
    done = symfind(command, str(repo), base=base, as_nobody=True)
    assert (done.returncode, done.stdout, done.stderr) == (
        EXIT_IO, "", f"symfind: permission denied: {repo}\n"
    )
    assert read_manifest(index_dir_for_base(base, repo)) is None  # nothing claimed indexed


def _nobody_ids() -> tuple[int, int]:
    import pwd

    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


def index_dir_for_base(base: Path, repo: Path) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(base))
        return index_dir_for(repo)


# ---- Ctrl-C ------------------------------------------------------------------------------


def big_repo(root: Path, copies: int) -> Path:
    """The language fixtures' real sources, copied into `copies` packages."""
    sources = [p for p in (FIXTURES / "languages").rglob("*")
               if p.is_file() and p.suffix != ".json"]
    for number in range(copies):
        for source in sources:
            target = root / f"pkg{number}" / source.relative_to(FIXTURES / "languages")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    return root.resolve()


def extraction_workers(pid: int) -> list[int]:
    children = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children += [int(c) for c in (task / "children").read_text(encoding="utf-8").split()]
        except (FileNotFoundError, ProcessLookupError):
            continue  # the thread ended between the listing and the read
    return children


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_during_index_exits_130_quietly_and_leaves_a_consistent_index(
    workers: str, tmp_path: Path
) -> None:
    repo = big_repo(tmp_path / "repo", copies=20)
    base = tmp_path / "indexes"
    index_dir = index_dir_for_base(base, repo)
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "symfind.cli", "index", str(repo), "--workers", workers],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "SYMFIND_INDEX_DIR": str(base)}, preexec_fn=as_from_a_terminal,
    )
    try:
        deadline = time.monotonic() + TIMEOUT_S
        # Under way: the first (empty) commit is made, and the workers run (with 2).
        while not (read_manifest(index_dir) is not None
                   and (workers == "1" or len(extraction_workers(process.pid)) >= 2)):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "indexing never got under way"
            time.sleep(0.01)  # another process: nothing to wait on but its files
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group
        stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()  # also closes the pipes: no ResourceWarning in a later test
    assert (process.returncode, stdout, stderr) == (
        EXIT_INTERRUPTED, "",
        "symfind: interrupted; the index keeps its last commit — run `symfind index` to go on\n",
    )
    # Consistent: whatever was committed is searchable, and going on gives exactly the
    # symbols of a from-scratch index.
    Searcher(index_dir).all_symbols()
    assert symfind("index", str(repo), base=base, timeout_s=10 * TIMEOUT_S).returncode == 0
    fresh = Config(repo=repo, index_dir=tmp_path / "fresh", options=IndexOptions(), workers=1)
    update_index(fresh, fresh=True)
    assert Searcher(index_dir).all_symbols() == Searcher(fresh.index_dir).all_symbols()


# ---- a process stopped while it holds the index --------------------------------------------

def test_a_reader_facing_a_stopped_lock_holder_says_so_in_one_line_and_exit_4(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "repo", repo)
    base = tmp_path / "indexes"
    assert symfind("index", str(repo), base=base).returncode == 0
    lock = index_dir_for_base(base, repo) / "tantivy" / ".tantivy-meta.lock"
    # Tantivy's meta lock, which a reader takes while it loads a commit.
    with held_by_a_stopped_process(lock), ThreadPoolExecutor(2) as pool:
        # Both at once: each waits for the lock as long as a reader does.
        searched, status = pool.map(lambda args: symfind(*args, base=base), [
            ("search", "AsyncClinet", str(repo)), ("status", str(repo))])
    why = (f"symfind: another process has held the index at {lock.parent.parent} for 10 s "
           "without letting go (a stopped or hung symfind process?) — resume or stop it, "
           "then try again\n")
    assert (searched.returncode, searched.stdout, searched.stderr) == (EXIT_LOCKED, "", why)
    assert (status.returncode, status.stdout, status.stderr) == (EXIT_LOCKED, "", why)
    # Once the holder is gone, the same search is answered.
    found = symfind("search", "AsyncClinet", str(repo), "--limit", "1", base=base)
    assert (found.returncode, found.stderr) == (0, "")
    assert found.stdout.split()[:3] == ["1", "class", "AsyncClient"]


@runs_as_nobody
@pytest.mark.parametrize("command", [["refs", "HttpClient"], ["search", "HttpClient"]],
                         ids=lambda c: c[0])
def test_a_repository_behind_a_directory_the_user_cannot_enter_is_not_called_missing(
    command: list[str], shared_tmp: Path
) -> None:
    if reason := nobody_can_run_symfind():
        pytest.skip(reason)
    closed = shared_tmp / "closed"
    closed.mkdir(mode=0o700)  # root's: nobody may not enter it
    repo = copy_repo(closed / "repo")
    base = shared_tmp / "indexes"
    base.mkdir(mode=0o755)
    assert symfind("index", str(repo), base=base).returncode == 0
    done = symfind(*command, str(repo), base=base, as_nobody=True)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"symfind: repository '{repo}' cannot be reached: permission denied on the way "
               "to it\n")
