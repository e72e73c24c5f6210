"""What the MCP server's entry points take, already parsed: `StdioOptions` for `symfind mcp`
and `ServeOptions` for `symfind serve`, with their defaults.

Imports: msgspec. Light on purpose: the command line builds its parsers from these
defaults without loading the server (mcp, uvicorn), which only the commands that serve
load, when they run.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

DEFAULT_PORT = 8765
DEFAULT_REQUEST_TIMEOUT_S = 30.0
DEFAULT_MAX_CONNECTIONS = 512
#: Ports a server may listen on; 0 asks the system for a free one.
MAX_PORT = 65535


class StdioOptions(msgspec.Struct, frozen=True, kw_only=True):
    """`symfind mcp`: the repositories to serve on stdio, or a `symfind serve` to forward to."""

    #: Repository paths as given (none: the current directory); the server finds their roots.
    repo: tuple[str, ...] = ()
    #: Serve a repository even if it is /, the home directory or a huge unmarked tree.
    force: bool = False
    #: Start no daemon (nor build a missing index) for a repository.
    no_index: bool = False
    #: Put before every tool name ("" for none); checked by the parser.
    tool_prefix: str = ""
    #: Forward to the `symfind serve` at this URL instead of serving repositories here.
    remote: str | None = None
    #: With `remote`: send the token over plain http to another machine.
    insecure_http: bool = False


class ServeOptions(msgspec.Struct, frozen=True, kw_only=True):
    """`symfind serve`: the repositories, the bind and the guards of the HTTP server."""

    repo: tuple[str, ...] = ()
    force: bool = False
    no_index: bool = False
    tool_prefix: str = ""
    host: str = "127.0.0.1"
    #: 0..MAX_PORT (0: a free one).
    port: int = DEFAULT_PORT
    tls_cert: Path | None = None
    tls_key: Path | None = None
    #: Listen on an address other machines reach without TLS.
    insecure_http: bool = False
    #: Other names clients may put in the Host header.
    allow_host: tuple[str, ...] = ()
    #: Seconds a client has to send its whole request (more than 0).
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT_S
    #: Open connections at most (at least 1).
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    #: `-v` given: 1 logs a line per request, 2 debug.
    verbose: int = 0
