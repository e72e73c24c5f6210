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
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from symfind.mcp_server.server import build_server
from symfind.storage import index_dir_for
from symfind.storage.manifest import read_header
from tests.integration.daemon_process import TIMEOUT_S, idle, wait_for_status
from tests.integration.mcp_support import error_text

FIXTURE_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "repo"
QUERY = "AsyncClient"


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
