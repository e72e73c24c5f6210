"""The commands of `symfind`, one module each (`cli.program` assembles their parsers and
maps their errors to exit codes): `index` (index, reindex), `search`, `status`, `daemon`,
`mcp` (mcp, serve, token). `arguments` and `output` hold what several of them share.

Imports: `extract`, `storage` and `daemon` modules.
"""

__all__: list[str] = []
