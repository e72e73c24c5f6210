"""The MCP server with several roots (`--repo A --repo B …`), as MCP hosts run it: over stdio.

The fixture repositories of `test_multi_repo.py` (`tests/fixtures/multi/`): billing
(Python) and frontend (TypeScript) indexed, tools (Go) never indexed, and legacy (a copy
of tools) indexed by another schema version. Whole result orders — (repo, qualname, path,
line) for every result — and the whole per-repository status lists are compared; a
definition of the second repository is read by its handle.
"""

from __future__ import annotations

import base64
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from symfind.mcp_server.server import build_roots_server
from symfind.storage import SCHEMA_VERSION
from tests.integration.mcp_support import assert_valid, error_text, kept_private, text_of
from tests.integration.test_multi_repo import ALL_ANSWER, FIXTURES, index, make_stale

pytestmark = pytest.mark.anyio

NAMES = ("billing", "frontend", "tools", "legacy")
TOOL_NAMES = ["codebase_search", "help", "read_symbol", "find_references", "index_status"]

Row = tuple[str, str, str, int]

#: billing and frontend answering: their results of the three-repository answers, in the
#: same order (each repository keeps its own ranking, and the fusion never depends on
#: which other repositories answered; no answer is long enough for the limit to cut).
TWO_ANSWER: dict[str, list[Row]] = {
    query: [row for row in three if row[0] in ("billing", "frontend")]
    for query, three in ALL_ANSWER.items()
}


def unwatched(files: int) -> str:
    """What index_status says of an index no daemon keeps fresh (a `--no-index` server)."""
    return (f"no daemon keeps this index up to date: it holds the {files} files of its last "
            "commit, and edits since are not in it — `symfind daemon start` keeps it fresh")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], Path]:
    """The four roots, and the index base where billing and frontend are indexed, legacy
    is indexed by another schema version and tools is not."""
    base = tmp_path_factory.mktemp("mcp-multi")
    shutil.copytree(FIXTURES / "multi", base, dirs_exist_ok=True)
    shutil.copytree(base / "tools", base / "legacy")
    roots = {name: (base / name).resolve() for name in NAMES}
    indexes = tmp_path_factory.mktemp("mcp-multi-index")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(indexes))
        index(roots["billing"])
        index(roots["frontend"])
        make_stale(index(roots["legacy"]))
    return roots, indexes


def server_params(roots: dict[str, Path], indexes: Path, *command: str) -> StdioServerParameters:
    """`symfind mcp --no-index --repo …` (or `command`) over stdio."""
    flags = [part for root in roots.values() for part in ("--repo", str(root))]
    return StdioServerParameters(
        command=sys.executable,
        args=["-P", "-m", *(command or ("symfind.cli", "mcp", "--no-index")), *flags],
        env={"SYMFIND_INDEX_DIR": str(indexes), **kept_private()},
        cwd=str(indexes),
    )


def rows(out: dict[str, Any]) -> list[Row]:
    return [(r["repo"], r["qualname"], r["path"], r["line"]) for r in out["results"]]


def with_repo(handle: str, repo: str | None) -> str:
    """`handle` naming another repository (`None`: none, as a one-repository server's)."""
    version, payload, mac = handle.split(".")
    fields = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    fields = fields[:6] + ([repo] if repo is not None else [])
    edited = base64.urlsafe_b64encode(json.dumps(fields).encode()).rstrip(b"=").decode()
    return f"{version}.{edited}.{mac}"


async def test_several_roots_search_read_and_report_each_repository(
    served: tuple[dict[str, Path], Path],
) -> None:
    roots, indexes = served
    async with Client(server_params(roots, indexes)) as client:
        tools = (await client.list_tools()).tools
        assert [tool.name for tool in tools] == TOOL_NAMES
        schemas = {tool.name: tool.output_schema for tool in tools}
        assert all("$ref" not in json.dumps(schema) for schema in schemas.values())
        assert client.instructions is not None and "several repositories" in client.instructions

        answers = {}
        for query in TWO_ANSWER:
            result = await client.call_tool("codebase_search", {"query": query})
            answers[query] = assert_valid(result, schemas["codebase_search"])
        assert {query: rows(out) for query, out in answers.items()} == TWO_ANSWER
        out = answers["HttpClient"]
        assert [
            (s["repo"], s["root"], s["status"], s["message"], s["results"]) for s in out["repos"]
        ] == [
            ("billing", str(roots["billing"]), "ok", "", 5),
            ("frontend", str(roots["frontend"]), "ok", "", 3),
            ("tools", str(roots["tools"]), "missing index",
             f"{roots['tools']} is not indexed — run `symfind index {roots['tools']}`", 0),
            ("legacy", str(roots["legacy"]), "schema mismatch",
             f"index schema v{SCHEMA_VERSION + 1}, symfind needs v{SCHEMA_VERSION}"
             " — run `symfind reindex`", 0),
        ]
        assert [(s["freshness"] or {}).get("files") for s in out["repos"]] == [3, 2, None, None]
        text = text_of(await client.call_tool("codebase_search", {"query": "HttpClient"}))
        assert text.splitlines()[1:3] == [
            f"tools: missing index — {out['repos'][2]['message']}",
            f"legacy: schema mismatch — {out['repos'][3]['message']}",
        ]
        assert "\n2. [frontend] class HttpClient  src/http.ts:8-14  (typescript)\n" in text

        # A definition of the second repository, read by its handle: frontend's file.
        second = out["results"][1]
        read = await client.call_tool("read_symbol", {"handle": second["handle"]})
        source = assert_valid(read, schemas["read_symbol"])
        lines = (roots["frontend"] / "src" / "http.ts").read_text(encoding="utf-8").splitlines()
        assert {k: v for k, v in source.items() if k not in ("bytes", "total_bytes")} == {
            "repo": "frontend", "name": "HttpClient", "path": "src/http.ts",
            "language": "typescript", "start_line": 8, "end_line": 14, "definition_end_line": 14,
            "source": "\n".join(lines[7:14]), "is_truncated": False, "escaped_characters": 0,
        }
        assert text_of(read).startswith("[frontend] HttpClient  src/http.ts:8-14  (typescript)\n")

        # The handle names its repository: another label is refused before any read.
        served_labels = "billing, frontend, tools, legacy"
        for repo, message in (
            ("nowhere", f"unknown repository 'nowhere' in the handle: this server searches "
                        f"{served_labels} — re-run codebase_search and pass a result's `handle` "
                        "unchanged"),
            (None, f"invalid handle: it names no repository, and this server searches several "
                   f"({served_labels}) — pass the `handle` of one of its codebase_search "
                   "results unchanged"),
            # billing's index verifies it: frontend's handle was not signed with its key.
            ("billing", "stale handle: it is of another build of the index (rebuilt since the "
                        "search that returned it, or another repository's) — re-run "
                        "codebase_search on this server and use the new handle"),
        ):
            refused = await client.call_tool(
                "read_symbol", {"handle": with_repo(second["handle"], repo)}
            )
            assert error_text(refused) == f"Error executing tool read_symbol: {message}"

        status = assert_valid(await client.call_tool("index_status", {}), schemas["index_status"])
        assert [
            (s["label"], s["repo"], s["status"], s["message"], s["files"], s["symbols"])
            for s in status["repos"]
        ] == [
            ("billing", str(roots["billing"]), "ready", unwatched(3), 3, 14),
            ("frontend", str(roots["frontend"]), "ready", unwatched(2), 2, 9),
            ("tools", str(roots["tools"]), "missing", out["repos"][2]["message"], 0, 0),
            ("legacy", str(roots["legacy"]), "unusable", out["repos"][3]["message"], 0, 0),
        ]

        guide = assert_valid(await client.call_tool("help", {}), schemas["help"])
        assert guide["repos"] == {name: str(root) for name, root in roots.items()}
        assert {k: v for k, v in guide["index"].items() if k != "kinds"} == {
            "status": "ready", "files": 5, "symbols": 23,
            "languages": {"python": 2, "typescript": 2},
        }


async def test_the_search_fails_only_when_no_repository_answers(
    served: tuple[dict[str, Path], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    roots, indexes = served
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(indexes))
    server = build_roots_server([roots["tools"], roots["legacy"]], auto_index=False)
    async with Client(server) as client:
        result = await client.call_tool("codebase_search", {"query": "Config"})
        bad_query = await client.call_tool("codebase_search", {"query": "((((("})
    assert error_text(result) == (
        "Error executing tool codebase_search: none of the 2 repositories could be searched: "
        f"tools: {roots['tools']} is not indexed — run `symfind index {roots['tools']}`; "
        f"legacy: index schema v{SCHEMA_VERSION + 1}, symfind needs v{SCHEMA_VERSION}"
        " — run `symfind reindex`"
    )
    assert error_text(bad_query).startswith(
        "Error executing tool codebase_search: nothing searchable in '((((('"
    )


async def test_symfind_mcp_passes_every_repo_to_the_server(
    served: tuple[dict[str, Path], Path],
) -> None:
    roots, indexes = served
    two = {name: roots[name] for name in ("frontend", "billing")}
    async with Client(server_params(two, indexes, "symfind.cli", "mcp")) as client:
        out = (await client.call_tool("codebase_search", {"query": "RetryPolicy", "limit": 2}))
    assert rows(out.structured_content or {}) == [
        ("frontend", "RetryPolicy", "src/http.ts", 3),
        ("billing", "RetryPolicy", "billing/client.py", 6),
    ]
    assert [s["repo"] for s in (out.structured_content or {})["repos"]] == ["frontend", "billing"]
