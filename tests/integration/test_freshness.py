"""Answers that tell the truth about the index: while it is behind, being built or failing
to be updated, the daemon's status, a CLI search and an MCP answer say so, with numbers.

Real daemons in processes of their own, a real `git checkout` of many files, a real full
disk (a tmpfs mounted for the test), real MCP clients over stdio. Waits poll the daemon's
socket or status file (other processes: nothing else to wait on), with deadlines.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from symfind.daemon.client import request
from symfind.daemon.protocol import DaemonStatus, StatusReply, StatusRequest
from symfind.mcp_server.server import build_server
from symfind.mcp_server.state import DaemonLaunch, Repository
from symfind.storage import index_dir_for
from symfind.storage.manifest import read_header
from tests.integration.conftest import fill
from tests.integration.daemon_process import idle, wait_for_status
from tests.integration.mcp_support import kept_private, run_symfind, text_of
from tests.integration.test_daemon import fresh_symbols, full_symbols

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 120.0
#: Files a branch switch rewrites: a burst of thousands of events, as in a real checkout.
CHECKOUT_FILES = 1_500


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def module(tag: str, number: int) -> str:
    return f"def {tag}_function_{number}():\n    return {number}\n\n\nclass {tag.title()}Class{number}:\n    pass\n"


def two_branches(repo: Path, files: int) -> Path:
    """A git repository with branches `before` and `after`: `after` rewrites every file,
    deletes a fifth of them and adds as many new ones."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "before")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "test")
    for number in range(files):
        write_module(repo, number, "before")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "before")
    git(repo, "checkout", "-qb", "after")
    for path in repo.glob("pkg*/mod*.py"):
        path.unlink()
    for number in range(files // 5, files + files // 5):
        write_module(repo, number, "after")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "after")
    git(repo, "checkout", "-q", "before")
    return repo.resolve()


def write_module(repo: Path, number: int, tag: str) -> None:
    directory = repo / f"pkg{number % 30}"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"mod{number}.py").write_text(module(tag, number), encoding="utf-8")


@contextlib.contextmanager
def daemon_process(repo: Path, env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`symfind daemon run REPO` in a process of its own; stopped (SIGTERM) on the way out."""
    with open(log, "ab") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "symfind.cli", "-v", "daemon", "run", str(repo)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr,
        )
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(DEADLINE_S)


def status_of(index_dir: Path) -> DaemonStatus | None:
    reply = request(index_dir, StatusRequest(), timeout_s=10)
    return reply.status if isinstance(reply, StatusReply) else None


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(tmp_path / "indexes"))
    return {**os.environ, "SYMFIND_WORKERS": "2"}


# ---- a branch switch: the status is never idle while files wait ----------------------------


def test_the_daemon_never_says_idle_while_a_checkout_waits_to_be_indexed(
    tmp_path: Path, env: dict[str, str]
) -> None:
    repo = two_branches(tmp_path / "repo", CHECKOUT_FILES)
    index_dir = index_dir_for(repo)
    with daemon_process(repo, env, tmp_path / "daemon.log") as daemon:
        wait_for_status(index_dir, daemon, idle, DEADLINE_S)
        for branch in ("after", "before"):  # there and back again
            most_pending = switch_and_watch(repo, branch, index_dir, daemon)
            # The first moment the daemon says it is idle with nothing pending after the
            # checkout, the index holds exactly what a fresh index of the tree would.
            assert full_symbols(index_dir) == fresh_symbols(repo, tmp_path / branch)
            # What it counted while the checkout was being indexed: the files, not zero.
            assert most_pending >= CHECKOUT_FILES // 2, most_pending


def switch_and_watch(
    repo: Path, branch: str, index_dir: Path, daemon: subprocess.Popen[bytes]
) -> int:
    """Check out `branch` and ask the daemon for its status until, the checkout over, it
    says idle with nothing pending; the most it counted as pending meanwhile."""
    checkout = subprocess.Popen(["git", "checkout", "-q", branch], cwd=repo)
    most_pending = 0
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        assert daemon.poll() is None, "the daemon died"
        over = checkout.poll() is not None  # before asking: the status comes after it
        status = status_of(index_dir)
        assert status is not None, "the daemon did not answer"
        most_pending = max(most_pending, status.pending)
        if over and status.state == "idle" and status.pending == 0:
            assert checkout.returncode == 0
            return most_pending
        time.sleep(0.02)  # another process: nothing to wait on but its socket
    checkout.kill()
    raise AssertionError(f"the daemon never settled after checking out {branch}")


# ---- a full disk: the files left out, and why ------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mounts tmpfs file systems of a given size (`8m`); unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs takes root")
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        where = tmp_path / f"disk{len(mounted)}"
        where.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                       check=True)
        mounted.append(where)
        return where

    yield mount
    gc.collect()  # searchers of this process keep the index's files mapped until collected
    for where in mounted:
        # Lazily: the kernel may still hold it a moment for processes just gone (the
        # daemon's workers); it goes once they are.
        subprocess.run(["umount", "--lazy", str(where)], check=True)


def fill_but(disk: Path, leave_bytes: int) -> Path:
    """Fill `disk` with one file, then give back `leave_bytes`: the file, to free the rest."""
    ballast = fill(disk, "ballast")
    os.truncate(ballast, max(0, ballast.stat().st_size - leave_bytes))
    return ballast


def documented_module(number: int) -> str:
    doc = '    """' + "what this function does, at some length " * 8 + '"""\n'
    return "".join(f"def added_{number}_{k}():\n{doc}    pass\n\n\n" for k in range(10))


def random_docs_module(number: int) -> str:
    """Ten functions whose docstrings are hex digests: text no compressor shrinks."""
    def words(k: int) -> str:
        return " ".join(hashlib.sha256(f"{number}-{k}-{w}".encode()).hexdigest()[:12]
                        for w in range(12))
    return "".join(f'def added_{number}_{k}():\n    """{words(k)}"""\n    pass\n\n\n'
                   for k in range(10))


def indexes_on(disk: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Indexes go to `disk` (here and in processes run with the environment returned)."""
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(disk))
    return {**os.environ, "SYMFIND_WORKERS": "2"}


def symfind(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "symfind.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False, timeout=DEADLINE_S)


def test_a_full_disk_makes_every_answer_say_which_files_are_left_out_and_why(
    tmp_path: Path, small_disk: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = small_disk("8m")
    env = indexes_on(disk, monkeypatch)
    repo = tmp_path / "repo"
    repo.mkdir()
    for number in range(20):
        (repo / f"small{number}.py").write_text(f"def small_{number}():\n    pass\n",
                                                encoding="utf-8")
    repo = repo.resolve()
    index_dir = index_dir_for(repo)
    assert symfind("index", str(repo), env=env).returncode == 0
    with daemon_process(repo, env, tmp_path / "daemon.log") as daemon:
        wait_for_status(index_dir, daemon, idle, DEADLINE_S)
        ballast = fill_but(disk, leave_bytes=128 * 1024)
        for number in range(400):
            (repo / f"added{number}.py").write_text(documented_module(number), encoding="utf-8")
        status = wait_for_status(
            index_dir, daemon, lambda s: s.state == "error" and s.failing and not s.pending,
            DEADLINE_S,
        )
        # What it says is left out is what is left out: every file not in the index.
        assert status.failing == 420 - status.files > 0
        assert "No space left on device" in status.last_error
        why = (f"indexing is failing: {status.failing:,} files are not indexed "
               f"({status.last_error}); answers come from the last commit until the cause "
               "is fixed")

        found = symfind("search", "added_function", str(repo), "--json", env=env)
        assert (found.returncode, found.stderr) == (0, f"symfind: {why}\n")
        header = read_header(index_dir)
        assert header is not None
        assert json.loads(found.stdout)["freshness"] == {
            "generation": header.generation, "updated_at": header.updated_at,
            "files": status.files, "pending": 0, "state": "failing", "watching": True,
            "failing": status.failing, "error": status.last_error, "retry_after_s": 0.0,
        }
        table = symfind("search", "nothing_like_it_anywhere", str(repo), env=env)
        assert table.stdout.splitlines()[0] == (
            f"not found so far: {why}; in what is indexed so far, no indexed definition "
            "matches 'nothing_like_it_anywhere' closely enough"
        )
        shown = symfind("status", str(repo), env=env)
        assert f", {status.failing} files not indexed because indexing fails, " in shown.stdout
        assert_mcp_says(repo, index_dir, why, status.failing)

        ballast.unlink()  # space again: the next change has everything indexed
        (repo / "small0.py").write_text("def small_zero():\n    pass\n", encoding="utf-8")
        status = wait_for_status(index_dir, daemon, lambda s: idle(s) and not s.failing,
                                 DEADLINE_S)
        assert (status.files, status.errors > 0, status.failing) == (420, True, 0)
        assert full_symbols(index_dir) == fresh_symbols(repo, tmp_path / "fresh")


def assert_mcp_says(repo: Path, index_dir: Path, why: str, failing: int) -> None:
    """An MCP answer (its server reads the daemon's status file, which a full disk must not
    freeze) says the same."""

    async def search() -> CallToolResult:
        async with Client(build_server(repo, index_dir=index_dir, auto_index=False)) as client:
            return await client.call_tool("codebase_search", {"query": "small_3"})

    result = anyio.run(search)
    assert not result.is_error
    fresh = result.structured_content["freshness"]
    assert (fresh["state"], fresh["failing"], fresh["message"]) == ("failing", failing, why)
    assert f"\nNote: {why}\n" in text_of(result)


def test_symfind_index_on_a_full_disk_says_so_in_one_line_and_a_rerun_finishes(
    tmp_path: Path, small_disk: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1 MB fills while Tantivy's indexing thread writes documents (docs that do not
    # compress), which kills it; the error it reports then names no cause.
    disk = small_disk("1m")
    env = indexes_on(disk, monkeypatch)
    repo = tmp_path / "repo"
    for number in range(800):
        directory = repo / f"pkg{number % 20}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"mod{number}.py").write_text(random_docs_module(number), encoding="utf-8")
    repo = repo.resolve()
    index_dir = index_dir_for(repo)
    full = symfind("index", str(repo), env=env)
    assert (full.returncode, full.stdout, full.stderr) == (
        6, "", f"symfind: no space left on device: {index_dir / 'tantivy'} — free some space, "
        "then run the command again\n",
    )
    subprocess.run(["mount", "-o", "remount,size=256m", str(disk)], check=True)
    again = symfind("index", str(repo), env=env)
    assert again.returncode == 0, again.stderr
    assert full_symbols(index_dir) == fresh_symbols(repo, tmp_path / "fresh")


# ---- MCP: an index being built, and one a daemon must keep fresh ------------------------------


def stdio_server(repo: Path, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-P", "-m", "symfind.cli", "mcp", "--repo", str(repo), *flags],
        env={"SYMFIND_INDEX_DIR": os.environ["SYMFIND_INDEX_DIR"], **kept_private()},
        cwd=str(repo),
    )


def many_modules(repo: Path, files: int) -> Path:
    for number in range(files):
        write_module(repo, number, "some")
    return repo.resolve()


def test_a_daemon_started_that_has_not_written_its_status_is_said_to_be_building(
    tmp_path: Path,
) -> None:
    # `daemon start` exits once the daemon answers, which may be before the daemon writes
    # its status file: the index is still being built then, never "just built".
    started = subprocess.Popen([sys.executable, "-c", "pass"])
    assert started.wait(timeout=DEADLINE_S) == 0
    repository = Repository(tmp_path, tmp_path / "index", auto_index=False)
    repository.launch = DaemonLaunch(process=started, started_at=time.monotonic(),
                                     log_path=tmp_path / "launch.log")
    assert repository.building_message() == (
        f"the index of {tmp_path} is being built by the daemon just started — retry in a "
        "few seconds; index_status shows progress")


def test_mcp_answers_during_the_first_build_say_how_far_it_is_never_nothing_found(
    tmp_path: Path, env: dict[str, str]
) -> None:
    repo = many_modules(tmp_path / "repo", CHECKOUT_FILES)

    async def session() -> tuple[list[CallToolResult], CallToolResult, CallToolResult]:
        answers = []
        async with Client(stdio_server(repo)) as client:  # no index: it starts the daemon
            deadline = time.monotonic() + DEADLINE_S
            while True:
                assert time.monotonic() < deadline, "the index was never built"
                answer = await client.call_tool("codebase_search",
                                                {"query": "nothing_like_it_anywhere"})
                answers.append(answer)
                fresh = (answer.structured_content or {}).get("freshness", {})
                if fresh.get("state") == "current":
                    break
                await anyio.sleep(0.1)  # another process builds it: nothing to wait on
            found = await client.call_tool("codebase_search", {"query": "some_function_1234"})
            status = await client.call_tool("index_status", {})
        return answers, found, status

    try:
        answers, found, status = anyio.run(session)
    finally:
        run_symfind("daemon stop", repo, Path(os.environ["SYMFIND_INDEX_DIR"]))
    building = [a for a in answers if not a.is_error and
                a.structured_content["freshness"]["state"] == "building"]
    assert building, "no answer came while the index was being built"
    for answer in answers[:-1]:
        if answer.is_error:  # before the first commit: no index to search yet
            assert any(building in text_of(answer) for building in (
                "is being built by the running daemon", "is still being built",
                "is being built by the daemon just started")), text_of(answer)
            continue
        fresh = answer.structured_content["freshness"]
        # Never "nothing found" while indexing: how far it is, and when to ask again.
        assert fresh["state"] in ("building", "behind"), fresh
        assert f"\nNot found so far: {fresh['message']}" in text_of(answer)
        assert "Nothing found" not in text_of(answer)
        assert fresh["retry_after_s"] > 0
    for answer in building:
        fresh = answer.structured_content["freshness"]
        assert fresh["message"] == (
            f"the index is being built: {fresh['files']:,} files indexed so far, "
            f"{fresh['pending']:,} to go — ask again in {seconds(fresh['retry_after_s'])}"
            if fresh["pending"] else
            f"the index is being built: {fresh['files']:,} files indexed so far, still listing "
            f"the repository's files — ask again in {seconds(fresh['retry_after_s'])}"
        )
    last = answers[-1].structured_content
    assert (last["freshness"]["files"], last["freshness"]["pending"]) == (CHECKOUT_FILES, 0)
    assert "\nNothing found: no indexed definition matches" in text_of(answers[-1])
    assert found.structured_content["results"][0]["qualname"] == "some_function_1234"
    assert (status.structured_content["status"], status.structured_content["watching"]) == (
        "ready", True)


def seconds(value: float) -> str:
    return f"{value:.0f} s" if value >= 1.5 else "a second"


def test_mcp_after_symfind_index_keeps_the_index_fresh_with_a_daemon_of_its_own(
    tmp_path: Path, env: dict[str, str]
) -> None:
    repo = many_modules(tmp_path / "repo", 300)
    assert symfind("index", str(repo), env=env).returncode == 0  # the README's quick start

    async def session() -> tuple[CallToolResult, CallToolResult, list[dict[str, object]]]:
        async with Client(stdio_server(repo)) as client:
            status = await until_current(client)  # its daemon started, and caught up
            with open(repo / "pkg7" / "mod7.py", "a", encoding="utf-8") as edited:
                edited.write("\n\ndef appended_later():\n    pass\n")
            edited_at = time.monotonic()
            while True:
                found = await client.call_tool("codebase_search", {"query": "appended_later"})
                results = found.structured_content["results"]
                if results and results[0]["qualname"] == "appended_later":
                    break
                assert time.monotonic() - edited_at < DEADLINE_S, text_of(found)
            await until_current(client)  # the edit's last events handled too
            found = await client.call_tool("codebase_search", {"query": "appended_later"})
            # While the session lasts: its daemon leaves soon after (its lease).
            listed = await anyio.to_thread.run_sync(
                lambda: symfind("daemon", "list", "--json", env=env))
            return status, found, json.loads(listed.stdout)["daemons"]

    try:
        status, found, listed = anyio.run(session)
    finally:
        run_symfind("daemon stop", repo, Path(os.environ["SYMFIND_INDEX_DIR"]))
    assert status.structured_content["watching"]
    assert [(d["repo"], d["started_by"]) for d in listed] == [(str(repo), "mcp")]
    assert (found.structured_content["results"][0]["path"],
            found.structured_content["freshness"]["watching"]) == ("pkg7/mod7.py", True)
    assert found.structured_content["freshness"]["state"] == "current"


async def until_current(client: Client) -> CallToolResult:
    """index_status, asked until the index is watched and holds every change seen."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        status = await client.call_tool("index_status", {})
        if status.structured_content["state"] == "current":
            return status
        assert time.monotonic() < deadline, status.structured_content
        await anyio.sleep(0.05)  # another process: nothing to wait on but its status


def test_mcp_without_a_daemon_says_plainly_that_the_index_is_not_kept_fresh(
    tmp_path: Path, env: dict[str, str]
) -> None:
    repo = many_modules(tmp_path / "repo", 3)
    assert symfind("index", str(repo), env=env).returncode == 0

    async def session() -> CallToolResult:
        async with Client(stdio_server(repo, "--no-index")) as client:
            return await client.call_tool("codebase_search", {"query": "some_function_1"})

    answer = anyio.run(session)
    fresh = answer.structured_content["freshness"]
    why = ("no daemon keeps this index up to date: it holds the 3 files of its last commit, "
           "and edits since are not in it — `symfind daemon start` keeps it fresh")
    assert (fresh["state"], fresh["watching"], fresh["message"]) == ("unwatched", False, why)
    assert text_of(answer).splitlines()[1] == f"Note: {why}"


# ---- no daemon: `symfind index` under way ------------------------------------------------------


def test_a_search_while_symfind_index_runs_says_the_index_is_incomplete(
    tmp_path: Path, env: dict[str, str]
) -> None:
    repo = many_modules(tmp_path / "repo", CHECKOUT_FILES)
    index_dir = index_dir_for(repo)
    answers = []
    with subprocess.Popen([sys.executable, "-m", "symfind.cli", "index", str(repo)],
                          cwd=ROOT, env={**env, "SYMFIND_WORKERS": "1"},
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as run:
        deadline = time.monotonic() + DEADLINE_S
        while read_header(index_dir) is None:  # its first commit: an empty index
            assert time.monotonic() < deadline and run.poll() is None, "no first commit"
            time.sleep(0.01)  # another process: nothing to wait on but its files
        while run.poll() is None:
            answers.append(symfind("search", "nothing_like_it_anywhere", str(repo), "--json",
                                   env=env))
    assert run.returncode == 0
    seen = [(json.loads(a.stdout), a.stderr) for a in answers]
    incomplete = [(out, err) for out, err in seen if out["freshness"]["state"] == "incomplete"]
    assert incomplete, "no search came while the index was being built"
    for out, err in seen:
        fresh = out["freshness"]
        if fresh["state"] != "incomplete":  # the run had made its last commit already
            assert (fresh["state"], fresh["files"], err) == ("unwatched", CHECKOUT_FILES, "")
            continue
        left = (f"{fresh['pending']:,} files still to index" if fresh["pending"]
                else "the files to index not counted yet")
        why = (f"the index is incomplete: {fresh['files']:,} files indexed, {left} — an "
               "indexing run is under way, or was cut short (`symfind index` completes it)")
        assert err == f"symfind: {why}\n"
        assert out["empty_reason"] == why if not fresh["files"] else \
            out["empty_reason"].startswith(f"{why}; in what is indexed so far, ")
    done = symfind("search", "nothing_like_it_anywhere", str(repo), "--json", env=env)
    assert (json.loads(done.stdout)["freshness"]["state"], done.stderr) == ("unwatched", "")
