"""An intact index on a read-only mount (a real bind mount, remounted read-only): read as
on a writable one, by the CLI and the MCP server; only writing it fails, in one line.

Tantivy locks a file beside an index's files even to read them, so a read-only index is
read through a private directory of links (`storage.index`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from symfind.storage import Searcher, SearchQuery, index_dir_for
from tests.integration.mcp_support import kept_private, text_of

FIXTURE_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "repo"
TIMEOUT_S = 120


@pytest.fixture
def mounts(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(an index base directory, the same directory bind-mounted read-only)."""
    if os.geteuid() != 0:
        pytest.skip("bind mounts take root")
    writable, read_only = tmp_path / "indexes", tmp_path / "read-only"
    writable.mkdir()
    read_only.mkdir()
    subprocess.run(["mount", "--bind", str(writable), str(read_only)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(read_only)], check=True)
        yield writable, read_only
    finally:
        subprocess.run(["umount", "--lazy", str(read_only)], check=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    shutil.copytree(FIXTURE_REPO, path)
    return path.resolve()


def symfind(*args: str, base: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", *args], capture_output=True, text=True,
        check=False, timeout=TIMEOUT_S,
        env={**os.environ, "SYMFIND_INDEX_DIR": str(base), "SYMFIND_WORKERS": "1"},
    )


def test_a_read_only_index_answers_as_a_writable_one_and_refuses_only_writes(
    mounts: tuple[Path, Path], repo: Path
) -> None:
    writable, read_only = mounts
    assert symfind("index", str(repo), base=writable).returncode == 0
    for command in (["search", "AsyncClinet", str(repo), "--json"],
                    ["search", "http client", str(repo)],
                    ["search", "--queries-from", "/dev/null", "--repo", str(repo)],
                    ["status", str(repo), "--json"], ["status", str(repo), "--skipped"]):
        there, here = symfind(*command, base=writable), symfind(*command, base=read_only)
        assert (here.returncode, here.stderr) == (0, ""), here.stderr
        assert timeless(here.stdout.replace(str(read_only), str(writable))) == \
            timeless(there.stdout)
    index_dir = index_dir_for_base(repo, read_only)
    tantivy = index_dir / "tantivy"
    for command, where in (("index", tantivy), ("reindex", tantivy / ".tantivy-writer.lock")):
        refused = symfind(command, str(repo), base=read_only)
        assert (refused.returncode, refused.stdout, refused.stderr) == (
            6, "", f"symfind: read-only file system: {where}\n")


def timeless(output: str) -> object:
    """JSON output without its timings; other output as is, less the `[… ms]` footer."""
    try:
        data = json.loads(output)
    except json.JSONDecodeError:
        return [line for line in output.splitlines() if not line.endswith(" ms]")]
    data.pop("took_ms", None)
    return data


def index_dir_for_base(repo: Path, base: Path) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(base))
        return index_dir_for(repo)


def test_the_mcp_server_searches_a_read_only_index(mounts: tuple[Path, Path], repo: Path) -> None:
    writable, read_only = mounts
    assert symfind("index", str(repo), base=writable).returncode == 0
    server = StdioServerParameters(
        command=sys.executable, args=["-P", "-m", "symfind.cli", "mcp", "--repo", str(repo)],
        env={"SYMFIND_INDEX_DIR": str(read_only), **kept_private()}, cwd=str(repo),
    )

    async def search() -> tuple[dict[str, object], str]:
        async with Client(server) as client:
            answer = await client.call_tool("codebase_search", {"query": "AsyncClinet"})
        assert not answer.is_error, text_of(answer)
        return answer.structured_content, text_of(answer)

    out, text = anyio.run(search)
    assert [(r["qualname"], r["path"]) for r in out["results"]][:1] == [
        ("AsyncClient", "httpkit/client.py")]
    # It could start no daemon there (nothing can be written): it says so.
    assert out["freshness"]["state"] == "unwatched"
    assert "\nNote: no daemon keeps this index up to date" in text


def test_a_reader_of_the_read_only_mount_follows_commits_made_elsewhere(
    mounts: tuple[Path, Path], repo: Path
) -> None:
    writable, read_only = mounts
    assert symfind("index", str(repo), base=writable).returncode == 0
    searcher = Searcher(index_dir_for_base(repo, read_only))
    query = SearchQuery(text="added_after_the_mount")
    assert searcher.search(query).results == []
    (repo / "later.py").write_text("def added_after_the_mount():\n    pass\n", encoding="utf-8")
    assert symfind("index", str(repo), base=writable).returncode == 0
    assert searcher.refresh()
    assert [(r.qualname, r.path) for r in searcher.search(query).results][:1] == [
        ("added_after_the_mount", "later.py")]
