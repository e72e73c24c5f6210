"""`symfind serve`: symfind's MCP tools over Streamable HTTP, for a team, behind personal
access tokens, served in this process (`mcp_server.entry.run_http`; what guards it is in
`mcp_server.http`).

Imports: `mcp_server` modules (the server's own only when it runs).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from symfind.cli.commands.arguments import (
    add_served_repos,
    add_verbose,
    port,
    positive_int,
    seconds,
    verbosity,
)
from symfind.mcp_server.options import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_PORT,
    DEFAULT_REQUEST_TIMEOUT_S,
    ServeOptions,
)


def add_parser(commands: argparse._SubParsersAction[Any]) -> None:
    """`serve`, on the `symfind` parser's subcommands."""
    serve = commands.add_parser(
        "serve", help="serve the MCP tools over HTTP to a team, behind personal access tokens",
        description="Serve symfind's MCP tools over HTTP (Streamable HTTP at /mcp) to the "
        "holders of personal access tokens (`symfind token create`).",
    )
    add_served_repos(serve)
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=port, default=DEFAULT_PORT,
                       help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    serve.add_argument("--tls-cert", type=Path, metavar="FILE", help="TLS certificate (PEM)")
    serve.add_argument("--tls-key", type=Path, metavar="FILE", help="its private key (PEM)")
    serve.add_argument(
        "--insecure-http", action="store_true",
        help="listen on an address other machines reach without TLS (only behind a proxy "
        "that terminates TLS on this machine)")
    serve.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="another name clients use for this server in the Host header (repeatable; "
        "the bind address and this machine's names are allowed already)")
    serve.add_argument(
        "--request-timeout", type=seconds, default=DEFAULT_REQUEST_TIMEOUT_S, metavar="SECONDS",
        help=f"a client must send its whole request within this (default "
        f"{DEFAULT_REQUEST_TIMEOUT_S:.0f})")
    serve.add_argument("--max-connections", type=positive_int, default=DEFAULT_MAX_CONNECTIONS,
                       metavar="N", help=f"open connections at most (default "
                       f"{DEFAULT_MAX_CONNECTIONS}); past it, 503")
    add_verbose(serve)


def run(args: argparse.Namespace, _out: TextIO) -> int:
    """Serve until Ctrl-C or SIGTERM; returns the exit code."""
    options = ServeOptions(
        repo=tuple(args.repo), force=args.force, no_index=args.no_index,
        tool_prefix=args.tool_prefix or "", host=args.host, port=args.port, tls_cert=args.tls_cert,
        tls_key=args.tls_key, insecure_http=args.insecure_http,
        allow_host=tuple(args.allow_host), request_timeout=args.request_timeout,
        max_connections=args.max_connections, verbose=verbosity(args),
    )
    from symfind.mcp_server.entry import run_http  # noqa: PLC0415  # when it runs only

    return run_http(options)
