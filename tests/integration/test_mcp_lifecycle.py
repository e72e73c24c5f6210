"""The server over an index that appears, changes and is rebuilt while it runs.

The conftest points SYMFIND_INDEX_DIR at a fresh temp dir for every test; the indexer
the server starts inherits it.
"""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import msgspec
import pytest
from mcp import Client

from symfind.mcp_server.server import build_server
from symfind.storage import SCHEMA_VERSION, index_base_dir, index_dir_for, read_manifest, write_atomically
from tests.integration.mcp_support import error_text, index_repo, make_repo, run_symfind, text_of

pytestmark = pytest.mark.anyio

INDEX_TIMEOUT_S = 60.0


async def top(client: Client, query: str) -> tuple[str, str, int] | None:
    result = await client.call_tool("codebase_search", {"query": query, "limit": 1})
    assert not result.is_error, text_of(result)
    results = result.structured_content["results"]
    return (results[0]["qualname"], results[0]["path"], results[0]["line"]) if results else None


async def handle_of(client: Client, query: str) -> str:
    result = await client.call_tool("codebase_search", {"query": query, "limit": 1})
    return result.structured_content["results"][0]["handle"]


async def test_unindexed_repo_is_indexed_in_the_background_and_then_searchable(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "fresh")
    server = build_server(repo)
    try:
        async with Client(server) as client:
            status = await client.call_tool("index_status", {})
            assert status.structured_content["status"] == "indexing"
            assert "being built" in status.structured_content["message"]
            search = await client.call_tool("codebase_search", {"query": "HttpClient"})
            if search.is_error:  # before the daemon's first commit
                assert "being built" in error_text(search)
                assert "retry in a few seconds" in error_text(search)
            else:  # after it: what is indexed so far, marked as still building
                assert search.structured_content["freshness"]["status"] in {"indexing", "ready"}
            guide = await client.call_tool("help", {})
            assert guide.structured_content["index"]["status"] in {"indexing", "ready"}

            # The daemon is another process: nothing to wait on but its results.
            deadline = time.monotonic() + INDEX_TIMEOUT_S
            while status.structured_content["status"] != "ready":
                assert time.monotonic() < deadline, status.structured_content
                await anyio.sleep(0.05)
                status = await client.call_tool("index_status", {})
            assert (status.structured_content["files"], status.structured_content["watching"]) == (
                4, True,
            )
            assert await top(client, "HtppClient") == ("HttpClient", "httpkit/client.py", 10)

            # The daemon the server started keeps the index fresh.
            (repo / "app" / "later.py").write_text("def added_later():\n    pass\n", encoding="utf-8")
            while await top(client, "added_later") != ("added_later", "app/later.py", 1):
                assert time.monotonic() < deadline
                await anyio.sleep(0.05)
    finally:
        run_symfind("daemon stop", repo, index_base_dir())
    assert (index_dir_for(repo) / "daemon.log").exists()


async def test_missing_index_without_auto_index_says_how_to_build_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    async with Client(build_server(repo, auto_index=False)) as client:
        result = await client.call_tool("codebase_search", {"query": "HttpClient"})
        assert error_text(result) == (
            f"Error executing tool codebase_search: {repo} is not indexed — run `symfind index {repo}`"
        )
        status = await client.call_tool("index_status", {})
        assert status.structured_content["status"] == "missing"
    assert not index_dir_for(repo).exists()


async def test_new_commits_are_searched_without_restart(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    index_repo(repo, index_base_dir())
    async with Client(build_server(repo, auto_index=False)) as client:
        assert await top(client, "brand_new_function") != ("brand_new_function", "app/new.py", 1)
        (repo / "app" / "new.py").write_text("def brand_new_function():\n    pass\n", encoding="utf-8")
        run_symfind("index", repo, index_base_dir())
        assert await top(client, "brand_new_function") == ("brand_new_function", "app/new.py", 1)


async def test_handles_go_stale_when_the_file_changes_or_the_index_is_rebuilt(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    index_repo(repo, index_base_dir())
    async with Client(build_server(repo, auto_index=False)) as client:
        old = await handle_of(client, "HttpClient")
        source = repo / "httpkit" / "client.py"
        source.write_text("# moved down\n" + source.read_text(encoding="utf-8"), encoding="utf-8")
        assert error_text(await client.call_tool("read_symbol", {"handle": old})) == (
            "Error executing tool read_symbol: httpkit/client.py changed since it was indexed — "
            "re-run codebase_search once the index has caught up (index_status shows pending changes)"
        )
        run_symfind("index", repo, index_base_dir())
        assert error_text(await client.call_tool("read_symbol", {"handle": old})) == (
            "Error executing tool read_symbol: httpkit/client.py changed since the search — "
            "re-run codebase_search for a new handle"
        )
        fresh = await handle_of(client, "HttpClient")
        read = await client.call_tool("read_symbol", {"handle": fresh})
        assert read.structured_content["start_line"] == 11
        assert read.structured_content["source"].startswith("class HttpClient:")

        run_symfind("reindex", repo, index_base_dir())
        assert error_text(await client.call_tool("read_symbol", {"handle": fresh})) == (
            "Error executing tool read_symbol: stale handle: it is of another build of the index "
            "(rebuilt since the search that returned it, or another repository's) — re-run "
            "codebase_search on this server and use the new handle"
        )
        rebuilt = await handle_of(client, "HttpClient")
        assert rebuilt != fresh
        assert not (await client.call_tool("read_symbol", {"handle": rebuilt})).is_error


async def test_schema_mismatch_asks_for_reindex(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    index_dir = index_repo(repo, index_base_dir())
    async with Client(build_server(repo, auto_index=False)) as client:
        handle = await handle_of(client, "HttpClient")
        manifest = read_manifest(index_dir)
        assert manifest is not None
        future = msgspec.structs.replace(
            manifest, schema_version=SCHEMA_VERSION + 1, generation=manifest.generation + 1
        )
        write_atomically(index_dir / "manifest.json", msgspec.json.encode(future))
        message = (
            f"index schema v{SCHEMA_VERSION + 1}, symfind needs v{SCHEMA_VERSION} — run `symfind reindex`"
        )
        search = await client.call_tool("codebase_search", {"query": "HttpClient"})
        assert error_text(search) == f"Error executing tool codebase_search: {message}"
        read = await client.call_tool("read_symbol", {"handle": handle})
        assert error_text(read) == f"Error executing tool read_symbol: {message}"
        status = await client.call_tool("index_status", {})
        assert (status.structured_content["status"], status.structured_content["message"]) == (
            "unusable", message
        )


async def test_a_damaged_index_never_leaks_internals(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    index_dir = index_repo(repo, index_base_dir())
    (index_dir / "tantivy" / "meta.json").write_text("garbage\n", encoding="utf-8")
    async with Client(build_server(repo, auto_index=False)) as client:
        text = error_text(await client.call_tool("codebase_search", {"query": "HttpClient"}))
    assert text == (
        f"Error executing tool codebase_search: index at {index_dir} is damaged (meta.json does "
        "not decode (JSON is malformed: invalid character (byte 0))) — run `symfind reindex` "
        "(index_status shows the index's state)"
    )
    assert "corrupt" not in text.lower() and "Traceback" not in text
