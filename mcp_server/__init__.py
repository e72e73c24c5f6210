"""mcp_server: symfind's MCP tools over one repository's index, or several searched together.

Imports: `storage` only of ours; mcp (and pydantic) are confined here. `symfind mcp` and
`symfind serve` run it in their own process, through `mcp_server.entry`.
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from symfind.mcp_server.server import build_roots_server, build_server


def __getattr__(name: str) -> object:
    # Loaded when first asked for: `symfind mcp` imports this package
    # first, and its entry point must be the one to load mcp (to catch a Ctrl-C meanwhile).
    if name in ("build_roots_server", "build_server"):
        return getattr(import_module("symfind.mcp_server.server"), name)
    raise AttributeError(f"module 'symfind.mcp_server' has no attribute {name!r}")


__all__ = ["build_roots_server", "build_server"]
