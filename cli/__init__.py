"""cli: the `symfind` command line, every command parsed and run in one process.

Imports: `daemon`, `mcp_server` and `storage`; neither `daemon` nor `mcp_server` imports it.
The MCP server's modules are imported only by the commands that serve (`mcp`, `serve`,
`token`), when they run.
"""
