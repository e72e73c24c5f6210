"""Crash safety: a daemon killed at any moment leaves an index that the next daemon brings
to exactly the symbols on disk, none lost, none duplicated; an extraction worker killed
at any moment does not stop a daemon, and stops `symfind index` with a clear error.

The corpus is real code: a copy of the installed `mcp` package's sources. Each round
starts a daemon process, edits files, SIGKILLs it after a random delay (during start-up,
extraction, adding documents or committing), restarts it, waits until it is idle and
compares its full symbol list with what a fresh index of the same tree holds: every file
extracted on its own (checked once against a fresh `symfind index`).
"""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.extraction import process_file
from symfind.daemon.indexer import update_index
from symfind.daemon.walk import IgnoreRules, walk_repository
from symfind.extract import Symbol
from symfind.storage import Searcher, index_dir_for
from tests.integration.daemon_process import TIMEOUT_S, idle, wait_for_status

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 20


def start_daemon(repo: Path, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as stderr:  # the daemon's own log, shown when a round fails
        return subprocess.Popen(
            [sys.executable, "-m", "symfind.cli", "-v", "daemon", "run", str(repo)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr,
            start_new_session=True,  # its own process group: we can see its workers die too
        )


def wait_group_gone(pgid: int) -> None:
    """The killed daemon's extraction workers must not outlive it."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)
    raise AssertionError(f"processes of group {pgid} outlived the killed daemon")


def copy_corpus(destination: Path) -> Path:
    """A copy of the installed `mcp` package's sources (124 files) at `destination`."""
    source = Path(importlib.util.find_spec("mcp").submodule_search_locations[0])  # type: ignore[union-attr,index]
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("__pycache__"))
    return destination.resolve()


def extraction_workers(pid: int) -> list[int]:
    """The daemon's extraction worker processes (not multiprocessing's resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        if ppid == pid and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return found


def kill_first_worker(process: subprocess.Popen[bytes] | subprocess.Popen[str]) -> int:
    """SIGKILL the first extraction worker of `process` the moment it shows in /proc, while
    the others are still being started; returns its pid."""
    deadline = time.monotonic() + TIMEOUT_S
    while not (workers := extraction_workers(process.pid)):  # no sleep: the scan is the wait
        assert process.poll() is None, f"exited with {process.returncode} before any worker"
        assert time.monotonic() < deadline, "no extraction worker started"
    os.kill(workers[0], signal.SIGKILL)
    return workers[0]


def edit(repo: Path, rng: random.Random, round_no: int) -> None:
    """A burst of edits: modify, create, delete and rename files."""
    files = sorted(repo.rglob("*.py"))
    for path in rng.sample(files, 5):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"\n\ndef added_in_round_{round_no}_{rng.randrange(10**6)}():\n    pass\n")
    for i in range(3):
        (repo / f"new_{round_no}_{i}.py").write_text(
            f"class NewInRound{round_no}x{i}:\n    def method(self):\n        pass\n", encoding="utf-8"
        )
    for path in rng.sample(files, 2):
        path.unlink()
    victim = rng.choice([f for f in files if f.exists()])
    victim.rename(victim.with_name(f"renamed_{round_no}_{victim.name}"))


def symbols(index_dir: Path) -> list[tuple[object, ...]]:
    return [
        (s.path, s.line, s.end_line, s.qualname, s.kind, s.signature)
        for s in Searcher(index_dir).all_symbols()
    ]


def symbols_on_disk(repo: Path, extracted: dict[tuple[str, bytes], list[Symbol]]) -> list[
        tuple[object, ...]]:
    """What a fresh index of `repo` holds (as `symbols` gives it): every file the walk
    lists, extracted on its own, without an index; `extracted` keeps each (path, content)
    extracted once, so a round extracts only what its edits changed."""
    found = []
    for path in walk_repository(repo, IgnoreRules(repo)):
        key = (path, (repo / path).read_bytes())
        if key not in extracted:
            extracted[key] = process_file(str(repo), path, IndexOptions(), None).symbols
        found += extracted[key]
    found.sort(key=lambda s: (s.path, s.line, s.name, s.kind))
    return [(s.path, s.line, s.end_line, s.qualname, s.kind, s.signature) for s in found]


@pytest.mark.slow
def test_sigkill_at_random_points_never_loses_or_duplicates_symbols(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = copy_corpus(tmp_path / "corpus")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SYMFIND_INDEX_DIR": str(tmp_path / "indexes")}
    config = Config(repo=repo, index_dir=tmp_path / "fresh", options=IndexOptions(), workers=1)
    rng = random.Random(20261123)
    monkeypatch.setenv("SYMFIND_INDEX_DIR", env["SYMFIND_INDEX_DIR"])
    index_dir = index_dir_for(repo)
    update_index(config)
    extracted: dict[tuple[str, bytes], list[Symbol]] = {}
    assert symbols_on_disk(repo, extracted) == symbols(config.index_dir)  # the oracle is one

    log = tmp_path / "daemon.log"
    for round_no in range(ROUNDS):
        try:
            crash_and_recover(repo, env, log, index_dir, extracted, rng, round_no)
        except BaseException as exc:  # show what the daemons logged, whatever failed
            tail = log.read_text(encoding="utf-8", errors="replace")[-4000:]
            raise AssertionError(f"round {round_no} failed: {exc!r}\ndaemon log tail:\n{tail}") from exc


def crash_and_recover(
    repo: Path, env: dict[str, str], log: Path, index_dir: Path,
    extracted: dict[tuple[str, bytes], list[Symbol]], rng: random.Random, round_no: int,
) -> None:
    """One round: edit under a daemon, SIGKILL it, restart, compare with what a fresh
    index of the files on disk holds."""
    daemon = start_daemon(repo, env, log)
    if round_no % 2:
        wait_for_status(index_dir, daemon, idle)  # half the rounds: kill during change handling
    edit(repo, rng, round_no)
    time.sleep(rng.uniform(0.0, 0.6))  # the random kill point
    daemon.send_signal(signal.SIGKILL)
    daemon.wait()
    wait_group_gone(daemon.pid)

    daemon = start_daemon(repo, env, log)
    try:
        wait_for_status(index_dir, daemon, idle)
        assert symbols(index_dir) == symbols_on_disk(repo, extracted)
    finally:
        daemon.send_signal(signal.SIGTERM)
        code = daemon.wait(timeout=TIMEOUT_S)
    assert code == 0, f"daemon exited with {code} after SIGTERM"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc")
@pytest.mark.parametrize("when", ["as the workers start", "once outcomes flow"])
def test_a_killed_extraction_worker_does_not_stop_the_catch_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """An extraction worker dies during the catch-up (the OOM killer, a crash in a parser):
    the moment it appears, while the daemon still starts the others, or once outcomes flow
    and the others are busy or blocked sending theirs. The catch-up fails with
    ExtractionWorkerDied, the other workers are killed, and the daemon retries without
    workers, ending with exactly the symbols of a fresh index. (With Python's
    ProcessPoolExecutor, a death as the workers started hung the catch-up for good.)
    """
    repo = tmp_path / "corpus"
    # Once outcomes flow, enough files that the catch-up outlasts the kill; as the workers
    # start, one copy (124 files) gives each of the 8 workers a task the catch-up awaits.
    for copy in ("a", "b", "c")[: 1 if when == "as the workers start" else 3]:
        copy_corpus(repo / copy)
    repo = repo.resolve()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SYMFIND_INDEX_DIR": str(tmp_path / "indexes"),
           "SYMFIND_WORKERS": "8"}  # many workers: starting them all takes a while
    monkeypatch.setenv("SYMFIND_INDEX_DIR", env["SYMFIND_INDEX_DIR"])
    index_dir = index_dir_for(repo)
    log = tmp_path / "daemon.log"
    daemon = start_daemon(repo, env, log)
    try:
        if when == "as the workers start":
            killed = kill_first_worker(daemon)
        else:
            status = wait_for_status(index_dir, daemon, lambda s: s.catch_up_done > 0)
            assert status.catch_up_done < status.catch_up_total, "caught up before the kill"
            killed = extraction_workers(daemon.pid)[0]
            os.kill(killed, signal.SIGKILL)
        status = wait_for_status(index_dir, daemon, idle)
        assert status.errors == 1, status
        assert (f"ExtractionWorkerDied: extraction worker (pid {killed}) was killed by signal 9"
                in status.last_error), status
        assert extraction_workers(daemon.pid) == []  # the others were killed, not left behind
        config = Config(repo=repo, index_dir=tmp_path / "fresh", options=IndexOptions(), workers=1)
        update_index(config, fresh=True)
        assert symbols(index_dir) == symbols(config.index_dir)
    except BaseException as exc:
        tail = log.read_text(encoding="utf-8", errors="replace")[-4000:]
        raise AssertionError(f"{exc!r}\ndaemon log tail:\n{tail}") from exc
    finally:
        daemon.send_signal(signal.SIGTERM)
        code = daemon.wait(timeout=TIMEOUT_S)
    assert code == 0, f"daemon exited with {code} after SIGTERM"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc")
def test_symfind_index_stops_with_a_clear_error_when_a_worker_dies_and_a_rerun_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`symfind index` whose worker dies as the workers start exits 2 with one line saying
    so (no traceback, no hang, no worker left); running it again builds the whole index."""
    repo = copy_corpus(tmp_path / "corpus")  # 124 files: a task of 16 files for each worker
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SYMFIND_INDEX_DIR": str(tmp_path / "indexes")}
    monkeypatch.setenv("SYMFIND_INDEX_DIR", env["SYMFIND_INDEX_DIR"])
    command = [sys.executable, "-m", "symfind.cli", "index", str(repo)]
    index = subprocess.Popen(
        [*command, "--workers", "8"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        killed = kill_first_worker(index)
        _, stderr = index.communicate(timeout=TIMEOUT_S)
    except BaseException:
        os.killpg(index.pid, signal.SIGKILL)  # a hung index must not outlive the test
        raise
    wait_group_gone(index.pid)
    assert index.returncode == 2, stderr
    assert "Traceback" not in stderr, stderr
    assert stderr.splitlines()[-1].startswith(
        f"symfind: extraction worker (pid {killed}) was killed by signal 9"
    ), stderr
    assert "run it again" in stderr, stderr

    rerun = subprocess.run([*command, "--workers", "2"], cwd=ROOT, env=env, capture_output=True,
                           text=True, check=False, timeout=TIMEOUT_S)
    assert rerun.returncode == 0, rerun.stderr
    config = Config(repo=repo, index_dir=tmp_path / "fresh", options=IndexOptions(), workers=1)
    update_index(config, fresh=True)
    assert symbols(index_dir_for(repo)) == symbols(config.index_dir)
