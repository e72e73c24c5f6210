"""mcp_server: symfind's MCP tools over one repository's index, or several searched together.

Imports: `storage` only of ours; mcp (and pydantic) are confined here. Run it with
`python -m symfind.mcp_server --repo PATH [--repo PATH ...]` (what `symfind mcp` execs).
"""

from symfind.mcp_server.server import build_roots_server, build_server

__all__ = ["build_roots_server", "build_server"]
