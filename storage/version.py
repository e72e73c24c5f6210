"""symfind's version, written once: pyproject.toml reads it (`[tool.setuptools.dynamic]`),
and the CLI and the MCP server report it without importlib.metadata, which costs a cold
`symfind search --json` a tenth of its imports.

Imports: nothing.
"""

VERSION = "0.1.0"
