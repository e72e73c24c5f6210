"""A damaged index, damaged for real on disk: an error naming the fix on every front end
(CLI exit 3, MCP tool error, daemon status), never an empty or wrong answer, and
`symfind reindex` (or `symfind index`) always repairs it, whatever is on disk."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from symfind.daemon.client import request
from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.protocol import ErrorReply, SearchReply, SearchRequest
from symfind.daemon.repair import RepairingIndexer
from symfind.mcp_server.server import build_server
from symfind.storage import SearchQuery, index_dir_for
from symfind.storage.manifest import read_header
from tests.integration.daemon_process import TIMEOUT_S, idle, wait_for_status
from tests.integration.mcp_support import error_text, text_of
from tests.integration.test_daemon import Running

FIXTURE_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "repo"
QUERY = "AsyncClient"
#: A rebuild of a few thousand files on a busy machine.
REBUILD_TIMEOUT_S = 180.0


def symfind(*args: str, base: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", *args],
        capture_output=True, text=True, check=False, timeout=TIMEOUT_S,
        env={**os.environ, "SYMFIND_INDEX_DIR": str(base), "SYMFIND_WORKERS": "1"},
    )


def segment_file(tantivy: Path, extension: str) -> Path:
    (path,) = tantivy.glob(f"*.{extension}")
    return path


def body_end(data: bytes) -> int:
    """Where a Tantivy file's footer starts (JSON, its u32 length, a u32 magic)."""
    return len(data) - 8 - int.from_bytes(data[-8:-4], "little")


def flip_bytes(extension: str) -> Callable[[Path], str]:
    def damage(tantivy: Path) -> str:
        path = segment_file(tantivy, extension)
        data = bytearray(path.read_bytes())
        end = body_end(bytes(data))
        for offset in range(end // 3, 2 * end // 3 + 1, 5):
            data[offset] ^= 0xFF
        with open(path, "r+b") as handle:  # in place, as a bad disk or a stray write would
            handle.write(data)
        return re.escape(f"{path.name} fails its checksum (flipped or overwritten bytes)")

    return damage


def truncate_meta(tantivy: Path) -> str:
    meta = tantivy / "meta.json"
    meta.write_bytes(meta.read_bytes()[:40])
    return r"meta\.json does not decode \(.+\)"


def garbage_meta(tantivy: Path) -> str:
    (tantivy / "meta.json").write_bytes(b"\x00\xff garbage \x17" * 10)
    return r"meta\.json does not decode \(.+\)"


def delete_segment_file(tantivy: Path) -> str:
    path = segment_file(tantivy, "term")
    path.unlink()
    return re.escape(f"{path.name} is missing")


def overwrite_segment_file(tantivy: Path) -> str:
    path = segment_file(tantivy, "store")
    path.write_bytes(b"\0" * path.stat().st_size)
    return re.escape(f"{path.name} has no valid footer (truncated or overwritten)")


def truncate_segment_file(tantivy: Path) -> str:
    path = segment_file(tantivy, "idx")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return re.escape(f"{path.name} has no valid footer (truncated or overwritten)")


def file_log(tantivy: Path) -> Path:
    """The log of file states the manifest header names."""
    header = read_header(tantivy.parent)
    assert header is not None
    return tantivy.parent / header.log_name


def random_log(tantivy: Path) -> str:
    log = file_log(tantivy)
    log.write_bytes(random.Random(12).randbytes(log.stat().st_size))
    return re.escape(f"{log.name} fails its checksum (flipped or overwritten bytes)")


def flip_log(tantivy: Path) -> str:
    # One letter of a path: the log still decodes, naming a file that is not there.
    log = file_log(tantivy)
    data = bytearray(log.read_bytes())
    data[data.index(b"client.py")] ^= 0x20  # client.py -> Client.py
    log.write_bytes(bytes(data))
    return re.escape(f"{log.name} fails its checksum (flipped or overwritten bytes)")


FAULTS: dict[str, Callable[[Path], str]] = {
    **{f"flipped .{ext}": flip_bytes(ext)
       for ext in ("store", "term", "idx", "pos", "fast", "fieldnorm")},
    "truncated meta.json": truncate_meta,
    "garbage meta.json": garbage_meta,
    "deleted .term": delete_segment_file,
    "overwritten .store": overwrite_segment_file,
    "truncated .idx": truncate_segment_file,
    "random bytes over the file log": random_log,
    "flipped file log": flip_log,
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[dict[str, object]]]:
    """A repository indexed once, and its search answer before any damage."""
    repo = tmp_path_factory.mktemp("damage") / "repo"
    shutil.copytree(FIXTURE_REPO, repo)
    base = tmp_path_factory.mktemp("damage-index")
    assert symfind("index", str(repo), base=base).returncode == 0
    return repo, base, search_results(repo, base)


def search_results(repo: Path, base: Path) -> list[dict[str, object]]:
    done = symfind("search", QUERY, "--repo", str(repo), "--json", "--limit", "20", base=base)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return json.loads(done.stdout)["results"]


@pytest.fixture
def damaged_copy(
    built: tuple[Path, Path, list[dict[str, object]]], tmp_path: Path
) -> tuple[Path, Path, Path]:
    """A copy of the built index for one test to damage: (repo, index base, index dir)."""
    repo, base, _ = built
    copy = tmp_path / "index"
    shutil.copytree(base, copy)
    return repo, copy, copy / index_dir_for(repo.resolve()).name


def expected_line(index_dir: Path, why: str) -> str:
    return (rf"symfind: index at {re.escape(str(index_dir))} is damaged \({why}\) — run "
            r"`symfind reindex`\n")


@pytest.mark.parametrize("fault", list(FAULTS))
def test_damage_is_exit_3_naming_reindex_and_reindex_repairs_it(
    fault: str, damaged_copy: tuple[Path, Path, Path],
    built: tuple[Path, Path, list[dict[str, object]]],
) -> None:
    repo, base, index_dir = damaged_copy
    why = FAULTS[fault](index_dir / "tantivy")
    for command in (["search", QUERY, "--repo", str(repo)], ["status", str(repo)]):
        done = symfind(*command, base=base)
        assert (done.returncode, done.stdout) == (3, ""), done.stderr
        assert re.fullmatch(expected_line(index_dir, why), done.stderr), done.stderr
    done = symfind("reindex", str(repo), base=base)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert strip_scores(search_results(repo, base)) == strip_scores(built[2])


@pytest.mark.parametrize("fault", ["flipped .term", "garbage meta.json", "deleted .term"])
def test_index_rebuilds_a_damaged_index_too(
    fault: str, damaged_copy: tuple[Path, Path, Path],
    built: tuple[Path, Path, list[dict[str, object]]],
) -> None:
    repo, base, index_dir = damaged_copy
    why = FAULTS[fault](index_dir / "tantivy")
    done = symfind("index", str(repo), base=base)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(
        rf"WARNING symfind\.storage\.writer: rebuilding the index: "
        rf"{expected_line(index_dir, why)[len('symfind: '):]}", done.stderr,
    ), done.stderr
    assert strip_scores(search_results(repo, base)) == strip_scores(built[2])


def test_reindex_replaces_whatever_is_in_the_index_directory(
    damaged_copy: tuple[Path, Path, Path], built: tuple[Path, Path, list[dict[str, object]]],
) -> None:
    repo, base, index_dir = damaged_copy
    shutil.rmtree(index_dir / "tantivy")
    (index_dir / "tantivy").write_bytes(b"not a directory")
    (index_dir / "manifest.json").unlink()
    (index_dir / "manifest.json").mkdir()
    done = symfind("reindex", str(repo), base=base)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert strip_scores(search_results(repo, base)) == strip_scores(built[2])


def strip_scores(results: list[dict[str, object]]) -> list[dict[str, object]]:
    """Results as they rank (BM25 scores can move with a rebuilt index's statistics)."""
    return [{k: v for k, v in r.items() if k != "score"} for r in results]


@pytest.mark.anyio
async def test_mcp_tools_answer_a_damaged_index_with_an_error_naming_reindex(
    damaged_copy: tuple[Path, Path, Path],
) -> None:
    repo, base, index_dir = damaged_copy
    why = FAULTS["flipped .term"](index_dir / "tantivy")
    message = expected_line(index_dir, why)[len("symfind: "):-2]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(base))
        async with Client(build_server(repo.resolve(), auto_index=False)) as client:
            text = error_text(await client.call_tool("codebase_search", {"query": QUERY}))
            status = await client.call_tool("index_status", {})
    assert re.fullmatch(
        f"Error executing tool codebase_search: {message}"
        + re.escape(" (index_status shows the index's state)"), text,
    ), text
    assert status.structured_content is not None
    assert status.structured_content["status"] == "unusable"
    assert re.fullmatch(message, status.structured_content["message"])


def test_a_daemon_reports_damage_as_an_error_and_rebuilds(
    damaged_copy: tuple[Path, Path, Path], built: tuple[Path, Path, list[dict[str, object]]],
    tmp_path: Path,
) -> None:
    repo, base, index_dir = damaged_copy
    env = {**os.environ, "SYMFIND_INDEX_DIR": str(base), "SYMFIND_WORKERS": "1"}
    with open(tmp_path / "daemon.log", "wb") as log:
        daemon = subprocess.Popen(
            [sys.executable, "-P", "-m", "symfind.cli", "daemon", "run", str(repo)],
            env=env, stderr=log, start_new_session=True,
        )
    try:
        wait_for_status(index_dir, daemon, idle)
        assert strip_scores(search_results(repo, base)) == strip_scores(built[2])
        why = FAULTS["flipped .store"](index_dir / "tantivy")
        deadline = time.monotonic() + TIMEOUT_S
        while True:  # documents read before may come from Tantivy's cache until a recheck
            done = symfind("search", QUERY, "--repo", str(repo), "--json", "--limit", "20",
                           base=base)
            if done.returncode != 0:
                break
            assert strip_scores(json.loads(done.stdout)["results"]) == strip_scores(built[2])
            assert time.monotonic() < deadline, "the damage was never noticed"
        assert (done.returncode, done.stdout) == (3, "")
        assert re.fullmatch(expected_line(index_dir, why), done.stderr), done.stderr
        status = wait_for_status(index_dir, daemon, lambda s: s.errors >= 1)
        assert re.fullmatch(f"reading the index: IndexDamaged: {expected_line(index_dir, why)[len('symfind: '):-2]}",
                            status.last_error), status.last_error
        # The daemon rebuilds the index from scratch, and answers as before the damage.
        wait_for_status(index_dir, daemon, lambda s: idle(s) and s.files == 7)
        assert strip_scores(search_results(repo, base)) == strip_scores(built[2])
    finally:
        daemon.send_signal(signal.SIGTERM)
        code = daemon.wait(timeout=TIMEOUT_S)
    assert code == 0, (tmp_path / "daemon.log").read_text(encoding="utf-8")[-3000:]


# ---- while a daemon rebuilds a damaged index ----------------------------------------------

#: Files of the repository a daemon rebuilds: its first commit of files comes after 1,000
#: (`CATCH_UP_COMMIT_EVERY`), a wide window in which the index holds none yet.
REBUILT_FILES = 1_500
#: How long a CLI waits for a daemon that does not answer (a suspended one, here).
DAEMON_TIMEOUT_S = 2


def modules(repo: Path, files: int) -> Path:
    for number in range(files):
        directory = repo / f"pkg{number % 30}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"mod{number}.py").write_text(
            f"def some_function_{number}():\n    return {number}\n\n\n"
            f"def caller_{number}():\n    return some_function_{number}()\n",
            encoding="utf-8")
    return repo.resolve()


def status_file(index_dir: Path) -> dict[str, object]:
    return json.loads((index_dir / "status.json").read_bytes())


def rebuilding_with_nothing_committed(index_dir: Path, generation: int) -> bool:
    """The daemon has dropped the damaged index, committed the empty one it rebuilds and
    listed every file, of which it has committed none yet: its status file says so."""
    header = read_header(index_dir)
    try:
        status = status_file(index_dir)
    except (OSError, ValueError):  # being replaced
        return False
    return (header is not None and header.generation > generation
            and header.file_count == 0 and status["state"] == "indexing"
            and status["building"] is True and status["pending"] == REBUILT_FILES)


def suspended_daemon_line(command: str, pid: int) -> str:
    read = "searched the index on disk instead" if command == "search" else "read the index on disk instead"
    return (f"WARNING symfind.cli.commands.{command}: the daemon (pid {pid}) is suspended "
            f"(stopped by a signal) and did not answer within {DAEMON_TIMEOUT_S}s — "
            f"`kill -CONT {pid}` resumes it, `symfind daemon stop` stops it; {read} "
            "(its last commit)\n")


def test_while_a_daemon_rebuilds_a_damaged_index_every_reader_says_it_is_being_built(
    tmp_path: Path,
) -> None:
    repo = modules(tmp_path / "repo", REBUILT_FILES)
    other = modules(tmp_path / "other", 3)  # searched beside it
    base = tmp_path / "indexes"
    index_dir = base / index_dir_for(repo).name
    env = {**os.environ, "SYMFIND_INDEX_DIR": str(base), "SYMFIND_WORKERS": "1",
           "SYMFIND_DAEMON_TIMEOUT": str(DAEMON_TIMEOUT_S)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-P", "-m", "symfind.cli", *args],
                              capture_output=True, text=True, check=False,
                              timeout=TIMEOUT_S, env=env)

    for indexed in (repo, other):
        assert cli("index", str(indexed)).returncode == 0
    with open(tmp_path / "daemon.log", "wb") as log:
        daemon = subprocess.Popen(
            [sys.executable, "-P", "-m", "symfind.cli", "daemon", "run", str(repo)],
            env=env, stderr=log, start_new_session=True,
        )
    stopped = False
    try:
        try:
            wait_for_status(index_dir, daemon, idle, REBUILD_TIMEOUT_S)
            # Damaged, and found so by a search: the daemon drops the index and rebuilds it.
            # Suspended once it has listed the files and committed none of them, until it is
            # found so suspended (a commit that slipped in between: damaged again, once more).
            while not stopped:
                generation = read_header(index_dir).generation  # type: ignore[union-attr]
                why = FAULTS["flipped .store"](index_dir / "tantivy")
                deadline = time.monotonic() + REBUILD_TIMEOUT_S
                while (done := cli("search", "some_function", "--repo", str(repo), "--limit",
                                   "1000")).returncode == 0:
                    assert time.monotonic() < deadline, "the damage was never noticed"
                assert (done.returncode, done.stdout) == (3, "")
                assert re.fullmatch(expected_line(index_dir, why), done.stderr), done.stderr
                deadline = time.monotonic() + REBUILD_TIMEOUT_S
                while not rebuilding_with_nothing_committed(index_dir, generation):
                    assert daemon.poll() is None and time.monotonic() < deadline, (
                        read_header(index_dir), status_file(index_dir))
                    time.sleep(0.01)  # another process: its files are the only way in
                daemon.send_signal(signal.SIGSTOP)
                stopped = rebuilding_with_nothing_committed(index_dir, generation)
                if not stopped:
                    daemon.send_signal(signal.SIGCONT)
                    wait_for_status(index_dir, daemon, idle, REBUILD_TIMEOUT_S)

            header = read_header(index_dir)  # the empty index's last commit: files listed
            assert header is not None
            building = ("the index is being built: 0 files indexed so far, 1,500 to go — ask "
                        "again in 5 s")
            search = suspended_daemon_line("search", daemon.pid)
            done = cli("search", "some_function_12", "--repo", str(repo))
            assert (done.returncode, done.stdout, done.stderr) == (
                0, f"not found so far: {building}\n", f"{search}symfind: {building}\n")
            done = cli("search", "some_function_12", "--repo", str(repo), "--json")
            assert (done.returncode, done.stderr) == (0, f"{search}symfind: {building}\n")
            answer = json.loads(done.stdout)
            assert (answer["results"], answer["empty_reason"], answer["freshness"]) == (
                [], building,
                {"generation": header.generation, "updated_at": header.updated_at, "files": 0, "pending": REBUILT_FILES, "state": "building", "watching": True,
                 "failing": 0, "error": "", "retry_after_s": 5.0})
            done = cli("refs", "some_function_12", "--repo", str(repo))
            assert (done.returncode, done.stdout, done.stderr) == (
                0, f"no definition named 'some_function_12' is indexed; {building}\n",
                f"{suspended_daemon_line('refs', daemon.pid)}symfind: {building}\n")
            done = cli("status", str(repo), "--json")
            assert (done.returncode, done.stderr) == (0, "")
            shown = json.loads(done.stdout)
            assert (shown["files"], shown["freshness"]["state"], shown["daemon"]["state"]) == (
                0, "building", "not_answering")
            # Over several repositories: the other one answers, this one says it is being built.
            done = cli("search", "some_function_1", "--repo", str(repo), "--repo", str(other),
                       "--json")
            assert (done.returncode, done.stderr) == (0, f"{search}symfind: repo: {building}\n")
            federated = json.loads(done.stdout)
            assert {result["repo"] for result in federated["results"]} == {"other"}
            assert [(s["repo"], s["status"], s["freshness"]["state"]) for s in federated["repos"]
                    ] == [("repo", "ok", "building"), ("other", "ok", "unwatched")]
            assert_mcp_says_building(repo, base, building)
        finally:
            daemon.send_signal(signal.SIGCONT)
        # Resumed, it completes the rebuild (every file indexed, or skipped: a parse may
        # run out of time on a busy machine) and answers as an index up to date.
        wait_for_status(index_dir, daemon, lambda s: idle(s) and s.files + sum(
            s.skipped.values()) == REBUILT_FILES, REBUILD_TIMEOUT_S)
        done = cli("search", "some_function_12", "--repo", str(repo), "--json", "--limit", "1")
        assert (done.returncode, done.stderr) == (0, "")
        assert json.loads(done.stdout)["freshness"]["state"] == "current"
    finally:
        daemon.send_signal(signal.SIGTERM)
        code = daemon.wait(timeout=TIMEOUT_S)
    assert code == 0, (tmp_path / "daemon.log").read_text(encoding="utf-8")[-3000:]


def assert_mcp_says_building(repo: Path, base: Path, building: str) -> None:
    """The MCP tools, reading the index and the daemon's status file as the CLI does."""

    async def ask() -> list[CallToolResult]:
        async with Client(build_server(repo, auto_index=False)) as client:
            return [await client.call_tool("codebase_search", {"query": "some_function_12"}),
                    await client.call_tool("find_references", {"target": "some_function_12"})]

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(base))
        search, references = anyio.run(ask)
    for answer in (search, references):
        assert not answer.is_error, text_of(answer)
        fresh = answer.structured_content["freshness"]  # type: ignore[index]
        assert (fresh["state"], fresh["files"], fresh["pending"], fresh["message"]) == (
            "building", 0, REBUILT_FILES, building)
    assert f"\nNot found so far: {building}" in text_of(search)


@pytest.mark.parametrize("command", ["search", "refs", "status"])
def test_no_index_yet_is_being_built_while_a_live_daemon_builds_it_else_run_index(
    command: str, tmp_path: Path,
) -> None:
    # The instant a daemon has started (or dropped a damaged index) and not committed yet:
    # its status file says it builds the index, which has no commit to read.
    repo = modules(tmp_path / "repo", 2)
    base = tmp_path / "indexes"
    index_dir = base / index_dir_for(repo).name
    index_dir.mkdir(parents=True)
    args = {"search": ["search", "some_function_1", "--repo", str(repo)],
            "refs": ["refs", "some_function_1", "--repo", str(repo)],
            "status": ["status", str(repo)]}[command]
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        for pid, alive in ((sleeper.pid, True), (dead_pid(), False)):
            (index_dir / "status.json").write_text(json.dumps({
                "pid": pid, "repo": str(repo), "state": "catching_up", "building": True,
                "busy_since": time.time()}), encoding="utf-8")
            done = symfind(*args, base=base)
            if not alive:  # no daemon at work on it: nothing builds it
                assert (done.returncode, done.stdout, done.stderr) == (
                    3, "", f"symfind: no index of {repo} (looked in {index_dir}) — run "
                    f"`symfind index {repo}` first\n")
                continue
            building = ("the index is being built: 0 files indexed so far, still listing "
                        "the repository's files — ask again in 5 s")
            assert done.returncode == 0, done.stderr
            if command == "status":
                assert done.stderr == ""
                assert f"freshness     building, 0 pending — {building}\n" in done.stdout
                assert "last commit   none yet\n" in done.stdout
                continue
            said = {"search": f"not found so far: {building}\n",
                    "refs": f"not found so far: {building}\n"}[command]
            assert (done.stdout, done.stderr) == (said, f"symfind: {building}\n")
    finally:
        sleeper.kill()
        sleeper.wait()


def dead_pid() -> int:
    """A pid no process has any more."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_daemon_answers_during_its_rebuild_that_the_index_is_being_built(
    tmp_path: Path,
) -> None:
    # The daemon itself answering (the CLI asks it first): held at the start of its
    # rebuild, once it has listed the files and committed none, by its progress callback.
    repo = modules(tmp_path / "repo", 40)
    base = tmp_path / "indexes"
    config = Config(repo=repo, index_dir=base / index_dir_for(repo).name,
                    options=IndexOptions(), workers=1)
    running = Running(config).start()
    indexer = running.daemon.keeper._batches.indexer  # noqa: SLF001
    listed, resume = threading.Event(), threading.Event()

    def held_at_start(done: int, total: int) -> None:
        RepairingIndexer.count_progress(indexer, done, total)
        if done == 0:
            listed.set()
            assert resume.wait(REBUILD_TIMEOUT_S)

    indexer.count_progress = held_at_start  # type: ignore[method-assign]
    try:
        try:
            why = FAULTS["flipped .store"](config.index_dir / "tantivy")
            query = SearchRequest(SearchQuery(text="some_function", limit=1000))
            deadline = time.monotonic() + REBUILD_TIMEOUT_S
            while isinstance(reply := request(config.index_dir, query), SearchReply):
                assert time.monotonic() < deadline, "the damage was never noticed"
            # The search that found the damage says so, whatever the rebuild has done since.
            assert isinstance(reply, ErrorReply) and reply.kind == "damaged", reply
            assert re.fullmatch(expected_line(config.index_dir, why)[len("symfind: "):-2],
                                reply.message), reply.message
            assert listed.wait(REBUILD_TIMEOUT_S)
            building = ("the index is being built: 0 files indexed so far, 40 to go — ask again "
                        "in 5 s")
            reply = request(config.index_dir, SearchRequest(SearchQuery(text="some_function_12")))
            assert isinstance(reply, SearchReply), reply
            assert (reply.response.results, reply.response.empty_reason,
                    reply.response.freshness.state, reply.response.freshness.pending) == (
                [], building, "building", 40)
            done = symfind("search", "some_function_12", "--repo", str(repo), base=base)
            assert (done.returncode, done.stdout, done.stderr) == (
                0, f"not found so far: {building}\n", f"symfind: {building}\n")
            done = symfind("refs", "some_function_12", "--repo", str(repo), base=base)
            assert (done.returncode, done.stdout, done.stderr) == (
                0, f"no definition named 'some_function_12' is indexed; {building}\n",
                f"symfind: {building}\n")
        finally:
            resume.set()
        assert running.daemon.wait_until(lambda s: s.state == "idle" and s.files == 40,
                                         REBUILD_TIMEOUT_S), running.daemon.status()
    finally:
        running.stop()
