"""mcp_server: the MCP tools of symfind. Imports: `storage` only; mcp is confined here."""

__all__: list[str] = []
