"""What every tool call shares: the repository (or roots) from the call's context,
anticipated failures as tool errors, and answers as a text block plus structured content.

Imports: mcp, pydantic, `storage`, `mcp_server` modules.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from symfind.mcp_server.handles import HandleError
from symfind.mcp_server.source import SourceError
from symfind.mcp_server.state import IndexBuilding, Repository, Roots
from symfind.storage import QueryError, SchemaMismatch, StorageError


def repository(ctx: Context) -> Repository:
    """The Repository the server's lifespan yielded (see `server.build_server`)."""
    return cast(Repository, ctx.request_context.lifespan_context)


def roots(ctx: Context) -> Roots:
    """The Roots the lifespan of a server with several repositories yielded
    (see `server.build_roots_server`)."""
    return cast(Roots, ctx.request_context.lifespan_context)


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turn anticipated failures into ToolErrors that say what to do."""
    try:
        yield
    except IndexBuilding as exc:
        raise ToolError(str(exc)) from None
    except QueryError as exc:
        raise ToolError(f"{exc} (call help for the query shapes that work)") from None
    except SchemaMismatch as exc:
        text = str(exc)
        if "symfind reindex" not in text:
            text += " — run `symfind reindex`"
        raise ToolError(text) from None
    except StorageError as exc:
        raise ToolError(f"{exc} (index_status shows the index's state)") from None
    except (HandleError, SourceError) as exc:
        raise ToolError(str(exc)) from None


def answer(model: BaseModel, text: str) -> CallToolResult:
    """A tool's answer: `text` for the agent to read, `model` as structuredContent."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json", by_alias=True),
    )
