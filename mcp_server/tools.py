"""The server's tools, registered in the order tools/list shows them.

Imports: mcp, `mcp_server` modules.

Each tool lives in its own module: `search_tool` (codebase_search), `help_tool` (help),
`read_tool` (read_symbol), `status_tool` (index_status); `calls` holds what they share.
Every tool is read-only. Tool functions are sync: the SDK runs them in worker threads,
and `Repository` serialises index access. Storage and handle failures become
`ToolError`s with a fix hint; anything unexpected is left to the SDK, which answers
"Error executing tool <name>" and logs the traceback to stderr only.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from mcp_server.help_tool import show_help
from mcp_server.read_tool import read_symbol
from mcp_server.search_tool import codebase_search
from mcp_server.status_tool import index_status

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def register(server: MCPServer[Any]) -> None:
    """Add the tools to `server`, in the order tools/list shows them."""
    server.tool(
        name="codebase_search", title="Find definitions", description=_doc(codebase_search),
        annotations=READ_ONLY,
    )(codebase_search)
    server.tool(
        name="help", title="How to search this repository", description=_doc(show_help),
        annotations=READ_ONLY,
    )(show_help)
    server.tool(
        name="read_symbol", title="Read a definition's source", description=_doc(read_symbol),
        annotations=READ_ONLY,
    )(read_symbol)
    server.tool(
        name="index_status", title="Index status", description=_doc(index_status),
        annotations=READ_ONLY,
    )(index_status)


def _doc(fn: Callable[..., object]) -> str:
    """A tool's docstring without its source indentation (it is the agent-facing text)."""
    return inspect.cleandoc(fn.__doc__ or "")
