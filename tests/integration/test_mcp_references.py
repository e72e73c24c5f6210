"""find_references through the MCP SDK's client, in-process, on a real index: the answer
validates against the tool's outputSchema, counts come first, a handle names one
definition exactly, and failures are tool errors that say what to do."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client

from symfind.mcp_server.server import build_server
from tests.integration.mcp_support import assert_valid, error_text, text_of
from tests.integration.test_references import build, project

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    repo = tmp_path / "repo"
    repo.mkdir()
    index_dir = tmp_path / "index"
    build(index_dir, project())
    async with Client(build_server(repo, index_dir=index_dir, auto_index=False)) as connected:
        yield connected


async def schema(client: Client) -> dict:
    tools = (await client.list_tools()).tools
    found = next(tool for tool in tools if tool.name == "find_references")
    assert found.annotations is not None and found.annotations.read_only_hint
    return found.output_schema or {}


async def test_find_references_answers_counts_first_then_groups_with_handles(
    client: Client,
) -> None:
    result = await client.call_tool("find_references", {"target": "Session.get"})
    out = assert_valid(result, await schema(client))
    assert (out["resolved"], out["possible"], out["elsewhere"], out["resolved_files"]) == (
        2, 2, 4, 2)
    assert [(g["path"], g["enclosing"]["qualname"] if g["enclosing"] else None,
             [(s["line"], s["receiver"], s["reason"]) for s in g["sites"]])
            for g in out["groups"]] == [
        ("pkg/sessions.py", "Session.fetch", [(6, "self", "self is a Session")]),
        ("app.py", "main", [(5, "s", "receiver is a Session")]),
    ]
    assert [(g["receiver"], g["count"], g["reason"]) for g in out["possible_groups"]] == [
        ("conn", 2, "receiver's type unknown")]
    text = text_of(result)
    assert text.splitlines()[0] == (
        "References to Session.get (method, pkg/sessions.py:2): 2 resolved in 2 files, "
        "2 possible, 4 of other definitions named so; 4 of 4 files using the name read.")
    assert "  conn. ×2 in 1 file — receiver's type unknown (e.g. app.py:6, app.py:7)" in text
    assert "      L5:5 s.get() (attribute_call) — receiver is a Session" in text
    # The target's handle asks about exactly that definition again.
    again = await client.call_tool("find_references", {"handle": out["target"]["handle"]})
    pinned = assert_valid(again, await schema(client))
    assert (pinned["target"], pinned["groups"], pinned["resolved"]) == (
        out["target"], out["groups"], out["resolved"])
    assert pinned["query"] == "get"


async def test_an_ambiguous_name_lists_the_other_definition_with_its_handle(
    client: Client,
) -> None:
    out = assert_valid(await client.call_tool("find_references", {"target": "get"}),
                       await schema(client))
    named = [out["target"]["qualname"], *(a["qualname"] for a in out["alternatives"])]
    assert sorted(named) == ["Session.get", "get"]
    other = out["alternatives"][0]
    answer = assert_valid(await client.call_tool("find_references", {"handle": other["handle"]}),
                          await schema(client))
    assert answer["target"]["qualname"] == other["qualname"]


async def test_find_references_failures_are_tool_errors_that_say_what_to_do(
    client: Client,
) -> None:
    neither = error_text(await client.call_tool("find_references", {}))
    assert neither == ("Error executing tool find_references: give `target` (a name) or "
                       "`handle` (a codebase_search result's)")
    found = assert_valid(await client.call_tool("find_references", {"target": "get"}),
                         await schema(client))
    both = error_text(await client.call_tool("find_references", {
        "target": "Session.get", "handle": found["target"]["handle"]}))
    # The handle answered, for `get`, and the target went unread.
    assert both == ("Error executing tool find_references: give `target` (a name) or "
                    "`handle` (a codebase_search result's), not both")
    as_text = error_text(await client.call_tool("find_references", {"target": "get",
                                                                    "limit": "5"}))
    assert as_text == ("Error executing tool find_references: bad arguments: `limit` must be "
                       "an integer (got '5') (tools/list has each argument's schema; call "
                       "help for how to search)")
    forged = error_text(await client.call_tool("find_references", {"handle": "s1.abc.def"}))
    assert forged.startswith("Error executing tool find_references: invalid handle: it does "
                             "not decode")
    unknown = assert_valid(
        await client.call_tool("find_references", {"target": "nothing_named_so"}),
        await schema(client))
    assert (unknown["target"], unknown["resolved"], unknown["groups"]) == (None, 0, [])
    assert unknown["empty_reason"].startswith("no definition named 'nothing_named_so' is indexed")


async def test_on_several_repositories_each_one_that_defines_the_name_answers(
    tmp_path: Path,
) -> None:
    from symfind.mcp_server.server import build_roots_server
    from symfind.storage import index_dir_for

    roots = {}
    for label, files in (("one", project()), ("two", {"pkg/api.py": project()["pkg/api.py"]})):
        root = (tmp_path / label)
        root.mkdir()
        roots[label] = root.resolve()
        build(index_dir_for(roots[label]), files)
    async with Client(build_roots_server(list(roots.values()), auto_index=False)) as client:
        out = assert_valid(await client.call_tool("find_references", {"target": "Session.get"}),
                           await schema(client))
        assert [(a["repo"], a["target"]["qualname"], a["resolved"]) for a in out["repos"]] == [
            ("one", "Session.get", 2)]
        both = assert_valid(await client.call_tool("find_references", {"target": "get"}),
                            await schema(client))
        assert [(a["repo"], a["target"]["path"]) for a in both["repos"]] == [
            ("one", "pkg/api.py"), ("two", "pkg/api.py")]
        handle = both["repos"][1]["target"]["handle"]
        pinned = assert_valid(await client.call_tool("find_references", {"handle": handle}),
                              await schema(client))
        assert [(a["repo"], a["resolved"], a["files_using"]) for a in pinned["repos"]] == [
            ("two", 0, 0)]
        refused = [error_text(await client.call_tool("find_references", arguments))
                   for arguments in ({"target": "get", "handle": handle},
                                     {"target": "get", "limit": "5"})]
        assert refused == [
            "Error executing tool find_references: give `target` (a name) or `handle` (a "
            "codebase_search result's), not both",
            "Error executing tool find_references: bad arguments: `limit` must be an integer "
            "(got '5') (tools/list has each argument's schema; call help for how to search)"]


async def test_a_cursor_of_another_question_is_a_tool_error(client: Client) -> None:
    first = assert_valid(await client.call_tool("find_references", {"target": "get",
                                                                    "limit": 1}),
                         await schema(client))
    cursor = first["next_cursor"]
    again = assert_valid(await client.call_tool("find_references", {
        "target": "get", "limit": 1, "cursor": cursor}), await schema(client))
    assert [(g["path"], [s["line"] for s in g["sites"]]) for g in again["groups"]] == [
        ("app.py", [3])]
    other = error_text(await client.call_tool("find_references", {
        "target": "Session.get", "cursor": cursor}))
    assert other == (
        f"Error executing tool find_references: the cursor '{cursor}' is of another question "
        "(another definition, or another repository's index) — pass `next_cursor` with the "
        "question that returned it (call help for the query shapes that work)")


async def test_on_several_repositories_a_cursor_pages_only_the_repository_it_is_of(
    tmp_path: Path,
) -> None:
    from symfind.mcp_server.server import build_roots_server
    from symfind.storage import index_dir_for

    roots = {}
    for label in ("one", "two"):
        root = (tmp_path / label)
        root.mkdir()
        roots[label] = root.resolve()
        build(index_dir_for(roots[label]), project())
    async with Client(build_roots_server(list(roots.values()), auto_index=False)) as client:
        first = assert_valid(await client.call_tool("find_references", {
            "target": "get", "limit": 1}), await schema(client))
        assert [(a["repo"], a["resolved"]) for a in first["repos"]] == [("one", 4), ("two", 4)]
        cursor = first["repos"][1]["next_cursor"]
        second = assert_valid(await client.call_tool("find_references", {
            "target": "get", "limit": 1, "cursor": cursor}), await schema(client))
        # Before, each repository took the other's offset: one answered a page it never gave.
        assert [(a["repo"], [(g["path"], [s["line"] for s in g["sites"]]) for g in a["groups"]])
                for a in second["repos"]] == [("two", [("app.py", [3])])]
        stale = cursor.replace(cursor.split(":")[0] + ":", "99:", 1)
        refused = error_text(await client.call_tool("find_references", {
            "target": "get", "limit": 1, "cursor": stale}))
        # The repository the cursor is of says why it no longer fits; the other, nothing.
        assert refused == (
            "Error executing tool find_references: the cursor is of another state of the index "
            "(generation 99, now 1): the index changed since, and its uses may have moved — "
            "ask again without it (call help for the query shapes that work)")


async def test_a_handle_of_another_repositorys_server_is_not_called_rebuilt(
    client: Client, tmp_path: Path,
) -> None:
    """It was refused as 'the index was rebuilt since', which it was not."""
    other = tmp_path / "other"
    other.mkdir()
    build(tmp_path / "other-index", project())
    async with Client(build_server(other, index_dir=tmp_path / "other-index",
                                   auto_index=False)) as elsewhere:
        found = await elsewhere.call_tool("find_references", {"target": "Session.get"})
        foreign = found.structured_content["target"]["handle"]
    refused = error_text(await client.call_tool("find_references", {"handle": foreign}))
    assert refused == (
        "Error executing tool find_references: stale handle: it is of another build of the "
        "index (rebuilt since the search that returned it, or another repository's) — re-run "
        "codebase_search on this server and use the new handle")
