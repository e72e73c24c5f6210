"""`symfind mcp`, `symfind serve` and `symfind token`: this process replaced with the MCP
server's entry point (by process: `daemon` never imports `mcp_server`), which serves the
MCP tools on stdio (`mcp`), over HTTP (`serve`), or manages `serve`'s tokens (`token`).

Imports: the standard library, `cli.commands.arguments`.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any, NoReturn, TextIO

from symfind.cli.commands.arguments import add_force, add_verbose, config_to_index, verbosity

#: The commands whose arguments the MCP server's own entry point parses (`run`).
PASSED_THROUGH = ("serve", "token")


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    """`mcp`, `serve` and `token`, on the `symfind` parser's subcommands."""
    mcp = commands.add_parser(
        "mcp", help="serve the MCP tools on stdio",
        description="Run the MCP server on stdio, for one repository or several searched together.",
    )
    mcp.add_argument(
        "--repo", action="append", metavar="PATH",
        help="repository root (default: .); repeat to serve several, searched together",
    )
    mcp.add_argument(
        "--tool-prefix", metavar="PREFIX",
        help="put PREFIX before every tool name (sf_ → sf_codebase_search), for hosts whose "
        "own tools have the same names",
    )
    mcp.add_argument(
        "--remote", metavar="URL",
        help="forward to the server `symfind serve` runs at URL, with the token in "
        "$SYMFIND_TOKEN (checked at start), instead of serving repositories of this machine",
    )
    mcp.add_argument("--insecure-http", action="store_true",
                     help="with --remote: send the token over plain http to another machine")
    add_force(mcp)
    add_verbose(mcp)

    for name, text in (
        ("serve", "serve the MCP tools over HTTP to a team, behind personal access tokens"),
        ("token", "create, list or revoke the personal access tokens `serve` accepts"),
    ):
        commands.add_parser(name, help=text, add_help=False)


def run(args: argparse.Namespace, _out: TextIO) -> NoReturn:
    """Replace this process with the MCP server (by process: `daemon` never imports it)."""
    if args.command in PASSED_THROUGH:
        _exec_mcp_server(_passed_through(args))
    if args.remote is not None:  # the server checks the URL, and that no --repo goes with it
        _exec_mcp_server(["--remote", args.remote, *["--insecure-http"] * args.insecure_http,
                          *[part for repo in args.repo or () for part in ("--repo", repo)]])
    repos = [str(config_to_index(args, path).repo) for path in args.repo or ["."]]
    flags = [part for repo in dict.fromkeys(repos) for part in ("--repo", repo)]
    flags += ["--force"] * args.force + ["-v"] * min(verbosity(args), 2)
    if args.tool_prefix is not None:
        flags += ["--tool-prefix", args.tool_prefix]  # checked by the server
    _exec_mcp_server(flags)


def _passed_through(args: argparse.Namespace) -> list[str]:
    """The arguments of `serve` and `token` for the MCP server's entry point, which parses
    them (`args.passthrough`)."""
    argv = [args.command, *args.passthrough]
    if args.command == "serve":  # `symfind -v serve`: the -v before the command
        argv += ["-v"] * min(verbosity(args), 2)
    return argv


def _exec_mcp_server(argv: list[str]) -> NoReturn:
    """Replace this process with `python -P -m symfind.mcp_server ARGV`."""
    # Blocked until the server has its handler (it unblocks it): a Ctrl-C while the new
    # interpreter starts is then handled as any other, not a traceback from its start-up.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    # -P: a directory named like our packages in the cwd must not shadow them.
    os.execv(sys.executable, [sys.executable, "-P", "-m", "symfind.mcp_server", *argv])
