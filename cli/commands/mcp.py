"""`symfind mcp`: symfind's MCP tools on stdio, for one repository or several searched
together, or forwarded to a `symfind serve` (`--remote`), served in this process
(`mcp_server.entry.run_stdio`).

Imports: `mcp_server` modules (the server's own only when it runs).
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from symfind.cli.commands.arguments import add_served_repos, add_verbose, config_to_index
from symfind.mcp_server.options import StdioOptions


def add_parser(commands: argparse._SubParsersAction[Any]) -> None:
    """`mcp`, on the `symfind` parser's subcommands."""
    mcp = commands.add_parser(
        "mcp", help="serve the MCP tools on stdio",
        description="Serve symfind's MCP tools (codebase_search, help, read_symbol, "
        "index_status) on stdio, for one repository or several searched together.",
    )
    add_served_repos(mcp)
    mcp.add_argument(
        "--remote", metavar="URL",
        help="forward to the server `symfind serve` runs at URL (https://host:8765/mcp), with "
        "the token in $SYMFIND_TOKEN (checked at start), instead of serving repositories of "
        "this machine",
    )
    mcp.add_argument("--insecure-http", action="store_true",
                     help="with --remote: send the token over plain http to another machine")
    add_verbose(mcp)


def run(args: argparse.Namespace, _out: TextIO) -> int:
    """Serve on stdio until the client closes stdin; returns the exit code."""
    if args.remote is not None:  # the server checks the URL, and that no --repo goes with it
        repos = args.repo
    else:  # each PATH's repository: readable, and not refused unless --force
        repos = [str(config_to_index(args, path).repo) for path in args.repo or ["."]]
    options = StdioOptions(
        repo=tuple(dict.fromkeys(repos)), force=args.force, no_index=args.no_index,
        tool_prefix=args.tool_prefix or "", remote=args.remote, insecure_http=args.insecure_http,
    )
    from symfind.mcp_server.entry import run_stdio  # noqa: PLC0415  # when it runs only

    return run_stdio(options)
