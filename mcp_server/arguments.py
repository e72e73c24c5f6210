"""Tool arguments that fail the input schema, told in symfind's words.

Imports: pydantic, `mcp_server.render`.

The SDK validates a call's arguments against the tool's schema before the tool runs, and
reports a failure as pydantic's own text (a header, one block per error, a documentation
URL per error). An agent needs one line per argument, naming it, the value it gave and
what is allowed, and what to do next.

Every tool's integer and boolean arguments are strict (pydantic's `StrictInt`,
`StrictBool`), which leaves their schema as it was (`"type": "integer"`): in its default
lax mode pydantic reads `"5"` as 5 and `"yes"` as true, so a client that sends the wrong
type would never hear of it.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from symfind.mcp_server import render

_SHOWN_CHARS = 40


def _shown(value: Any) -> str:
    text = render.escape(repr(value))
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def _allowed(error: ErrorDetails) -> str:
    """The values a `Literal` accepts, as the error's context lists them."""
    expected = str((error.get("ctx") or {}).get("expected", ""))
    return ", ".join(re.findall(r"'([^']*)'", expected)) or expected


def _problem(error: ErrorDetails) -> str:
    """One argument's problem, e.g. "`limit` must be at most 50 (got 1000000)"."""
    location = [str(part) for part in error["loc"] if not isinstance(part, int)]
    # A union (`Literal[...] | None`) nests the member that failed after the name.
    name = location[0] if location else "arguments"
    ctx = error.get("ctx") or {}
    given = error.get("input")
    kind = error["type"]
    if kind == "missing":
        return f"`{name}` is required"
    if kind in ("greater_than_equal", "greater_than"):
        return f"`{name}` must be at least {ctx.get('ge', ctx.get('gt'))} (got {_shown(given)})"
    if kind in ("less_than_equal", "less_than"):
        return f"`{name}` must be at most {ctx.get('le', ctx.get('lt'))} (got {_shown(given)})"
    if kind == "string_too_short":
        return f"`{name}` must not be empty"
    if kind == "string_too_long":
        size = len(given) if isinstance(given, str) else "too many"
        return f"`{name}` is {size} characters; the limit is {ctx.get('max_length')}"
    if kind == "int_type":
        return f"`{name}` must be an integer (got {_shown(given)})"
    if kind == "bool_type":
        return f"`{name}` must be true or false (got {_shown(given)})"
    if kind == "literal_error":
        return f"`{name}` must be one of: {_allowed(error)} (got {_shown(given)})"
    message = error["msg"]
    return f"`{name}`: {message[:1].lower()}{message[1:]} (got {_shown(given)})"


def describe(tool: str, error: ValidationError) -> str:
    """The text of a tool error for arguments that fail the input schema."""
    problems = list(dict.fromkeys(_problem(e) for e in error.errors(include_url=False)))
    return (
        f"Error executing tool {tool}: bad arguments: {'; '.join(problems)} "
        "(tools/list has each argument's schema; call help for how to search)"
    )


def unknown(tool: str, given: list[str], taken: list[str]) -> str:
    """The text of a tool error for arguments the tool does not take."""
    names = ", ".join(f"`{render.escape(name)[:_SHOWN_CHARS]}`" for name in given)
    return (
        f"Error executing tool {tool}: bad arguments: {tool} takes no {names} (it takes "
        f"{', '.join(taken) or 'none'}) (tools/list has each argument's schema; call help for "
        "how to search)"
    )
