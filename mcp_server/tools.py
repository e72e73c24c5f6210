"""The server's tools, registered in the order tools/list shows them.

Imports: mcp, `mcp_server` modules.

Each tool lives in its own module: `search_tool` (codebase_search), `help_tool` (help),
`read_tool` (read_symbol), `references_tool` (find_references), `status_tool`
(index_status); `calls` holds what they share.
A server with several repositories registers each tool's `…_repos` form under the same
name, with the same parameters, its own output schema, and a description that adds what
differs. Every tool is read-only. Tool functions are sync: the SDK runs them in worker
threads, and `Repository` serialises index access. Storage and handle failures become
`ToolError`s with a fix hint; anything unexpected is left to the SDK, which answers
"Error executing tool <name>" and logs the traceback to stderr only.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations

from symfind.mcp_server.help_tool import show_help, show_help_repos
from symfind.mcp_server.models import lean_schema
from symfind.mcp_server.read_tool import read_symbol, read_symbol_repos
from symfind.mcp_server.references_tool import find_references, find_references_repos
from symfind.mcp_server.search_tool import codebase_search, codebase_search_repos
from symfind.mcp_server.status_tool import index_status, index_status_repos

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

#: Added to each tool's description on a server with several repositories.
SEVERAL_SEARCH = """\
This server searches several repositories at once: one ranking over all of them, best \
first. Each result names its `repo`; `repos` says how each repository answered (one \
without an index, or with an index to rebuild, is reported there and the others still \
answer)."""
SEVERAL_READ = "Handles know their repository: the definition is read from that one."
SEVERAL_STATUS = "This server searches several repositories: one status each, in `repos`."
SEVERAL_HELP = "Also lists the repositories this server searches."
SEVERAL_REFERENCES = ("This server searches several repositories: a handle answers from its "
                      "own; a name, from each repository that defines it (`repos`).")

# (name, title, one-repository tool, several-repositories tool, what the latter adds)
_TOOLS: tuple[tuple[str, str, Callable[..., Any], Callable[..., Any], str], ...] = (
    ("codebase_search", "Find definitions", codebase_search, codebase_search_repos,
     SEVERAL_SEARCH),
    ("help", "How to search this repository", show_help, show_help_repos, SEVERAL_HELP),
    ("read_symbol", "Read a definition's source", read_symbol, read_symbol_repos, SEVERAL_READ),
    ("find_references", "Find where a definition is used", find_references,
     find_references_repos, SEVERAL_REFERENCES),
    ("index_status", "Index status", index_status, index_status_repos, SEVERAL_STATUS),
)


#: Where our texts name a tool: the four names as words, `help` only as "call help" or as
#: an instructions bullet ("- help: …"), never the English word.
_TOOL_MENTION = re.compile(
    r"(?<![\w])(?:codebase_search|read_symbol|index_status|find_references)(?![\w])"
    r"|(?:(?<=call )|(?<=^- ))help(?![\w])",
    re.MULTILINE,
)


def rename_tools(text: str, prefix: str) -> str:
    """`text` with every mention of one of our tools carrying `prefix` (`--tool-prefix`)."""
    return _TOOL_MENTION.sub(lambda mention: prefix + mention.group(0), text) if prefix else text


def build(*, several: bool = False, prefix: str = "") -> list[Tool]:
    """The tools, in the order tools/list shows them: their forms for several repositories
    when `several`, named `prefix` + name (for hosts whose own tools clash with ours).
    Input schemas leave out pydantic's `title`s (`lean_schema`): they repeat the names,
    and hosts put the input schema in the model's context."""
    built = []
    for name, title, one, many, added in _TOOLS:
        description = _doc(one) + (f"\n\n{added}" if several else "")
        if several:
            title = title.replace("this repository", "these repositories")
        tool = Tool.from_function(
            many if several else one, name=prefix + name, title=title,
            description=rename_tools(description, prefix), annotations=READ_ONLY,
        )
        tool.parameters = lean_schema(tool.parameters)
        built.append(tool)
    return built


def _doc(fn: Callable[..., object]) -> str:
    """A tool's docstring without its source indentation (it is the agent-facing text)."""
    return inspect.cleandoc(fn.__doc__ or "")
