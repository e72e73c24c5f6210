"""mcp_server: symfind's MCP tools over one repository's index, or several searched together.

Imports: `storage` only of ours; mcp (and pydantic) are confined here. Run it with
`python -m symfind.mcp_server --repo PATH [--repo PATH ...]` (what `symfind mcp` execs).
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from symfind.mcp_server.server import build_roots_server, build_server


def __getattr__(name: str) -> object:
    # Loaded when first asked for: `python -m symfind.mcp_server` imports this package
    # first, and its __main__ must be the one to load mcp (to catch a Ctrl-C meanwhile).
    if name in ("build_roots_server", "build_server"):
        return getattr(import_module("symfind.mcp_server.server"), name)
    raise AttributeError(f"module 'symfind.mcp_server' has no attribute {name!r}")


__all__ = ["build_roots_server", "build_server"]
