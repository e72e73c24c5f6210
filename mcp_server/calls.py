"""What every tool call shares: the repository (or roots) from the call's context,
anticipated failures as tool errors, and answers as a text block plus structured content.

Imports: mcp, pydantic, `storage`, `mcp_server` modules.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from symfind.mcp_server.access import visible_roots
from symfind.mcp_server.handles import HandleError
from symfind.mcp_server.source import SourceError
from symfind.mcp_server.state import IndexBuilding, Repository, Roots
from symfind.storage import QueryError, SchemaMismatch, StorageError


Tool = TypeVar("Tool", bound=Callable[..., Any])


def same_parameters(template: Callable[..., Any]) -> Callable[[Tool], Tool]:
    """Give a tool `template`'s parameters (names, annotations, defaults), keeping its own
    return annotation: a tool's `…_repos` form, written `(ctx, **params)`, then takes and
    publishes exactly the parameters of the one-repository form. The SDK builds a tool's
    input schema from `inspect.signature`, which answers `__signature__` when it is set."""
    parameters = inspect.signature(template, eval_str=True).parameters.values()

    def apply(tool: Tool) -> Tool:
        returns = inspect.signature(tool, eval_str=True).return_annotation
        tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            list(parameters), return_annotation=returns
        )
        return tool

    return apply


def repository(ctx: Context) -> Repository:
    """The Repository the server's lifespan yielded (see `server.build_server`).

    Raises:
        ToolError: The request's token may not see it (over HTTP `access.ScopeGuard`
            has refused such a request already).
    """
    repo = cast(Repository, ctx.request_context.lifespan_context)
    visible = visible_roots(ctx.request_context.request)
    if visible is not None and str(repo.root) not in visible:
        raise ToolError("refused: this token is not for the repository this server serves")
    return repo


def roots(ctx: Context) -> Roots:
    """The Roots the lifespan of a server with several repositories yielded
    (see `server.build_roots_server`), as far as the request's token may see them: over
    HTTP a token limited to some repositories searches, reads and lists only those."""
    served = cast(Roots, ctx.request_context.lifespan_context)
    visible = visible_roots(ctx.request_context.request)
    if visible is None:
        return served
    seen = copy.copy(served)  # the same executor and repositories, fewer of them
    seen.repos = {label: repo for label, repo in served.repos.items() if str(repo.root) in visible}
    return seen


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
