"""`python -m symfind.mcp_server --repo PATH [--repo PATH ...]`: serve symfind's MCP tools on stdio.

`python -m symfind.mcp_server serve ...` and `... token ...` run `symfind serve` (over HTTP,
`mcp_server.http`) and `symfind token` (`mcp_server.token_cli`) instead.

Imports: `mcp_server.launch`, `mcp_server.remote`, `storage` (the log formatter) and the
standard library. `symfind mcp --repo
PATH ...` execs exactly this. stdout is the protocol: logs go to stderr, set up here and only here.
One `--repo` serves that repository; several serve them all, searched together.
Each `--repo` is taken from the repository holding it (`storage.find_root`), and refused
(`/`, the home directory, a huge tree with no VCS marker) unless `--force`.
Exit codes: 0 when the client closes stdin, 2 for a bad or refused repository path, 130
on Ctrl-C (no traceback, even while the server's dependencies load). `--remote URL`
forwards to a `symfind serve` instead (`mcp_server.remote`, which adds its own codes).
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import os
import re
import signal
import sys
from importlib import import_module
from typing import NoReturn

logger = logging.getLogger("symfind.mcp_server")


class _OneLineParser(argparse.ArgumentParser):
    """A usage error in one line, as the CLI's (not the usage block); exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"symfind: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="python -m symfind.mcp_server",
        description="Serve symfind's MCP tools (codebase_search, help, read_symbol, "
        "index_status) for one repository, or several searched together, on stdio.",
    )
    parser.add_argument(
        "--repo", action="append", metavar="PATH",
        help="repository root (default: .); repeat to serve several, searched together",
    )
    parser.add_argument(
        "--no-index",
        action="store_true",
        help="do not start the indexer when a repository has no index yet",
    )
    parser.add_argument(
        "--tool-prefix", metavar="PREFIX", type=_tool_prefix,
        help="put PREFIX before every tool name (sf_ → sf_codebase_search), for hosts whose "
        "own tools have the same names",
    )
    parser.add_argument(
        "--force", action="store_true",
        help="serve a repository even if it is /, the home directory or a huge tree with no .git",
    )
    parser.add_argument(
        "--remote", metavar="URL",
        help="forward to the server `symfind serve` runs at URL (https://host:8765/mcp), with "
        "the token in $SYMFIND_TOKEN, instead of serving repositories of this machine",
    )
    parser.add_argument(
        "--insecure-http", action="store_true",
        help="with --remote: send the token over plain http to a machine other than this one",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logs (-vv: debug)")
    return parser


def _tool_prefix(text: str) -> str:
    # Tool names are 1-128 of [A-Za-z0-9_-.] (MCP); hosts join server and tool names with
    # `__` or `_`, so keep to what every host accepts.
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,31}", text):
        raise argparse.ArgumentTypeError(
            f"must be a letter then up to 31 letters, digits, _ or -; got {text!r}")
    return text


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def _exit_on_ctrl_c(_signum: int, _frame: object) -> None:
    # Exit at once: the stdio transport reads stdin in a worker thread that nothing can
    # interrupt, so a KeyboardInterrupt (asyncio cancelling the server) would wait for the
    # client's next line. The server only reads; there is nothing to flush or commit.
    os.write(2, b"symfind: interrupted\n")
    os._exit(EXIT_INTERRUPTED)


#: The first argument that runs another command, and the module whose `main` runs it.
COMMANDS = {"serve": "symfind.mcp_server.http", "token": "symfind.mcp_server.token_cli"}


#: glibc's `mallopt` option for how many heaps ("arenas") threads allocate from.
_M_ARENA_MAX = -8
#: Arenas a server allocates from. By default glibc gives threads up to 8 per core, each
#: keeping its own free pieces; a server answering 50 clients from ~40 threads held ~6 MB
#: less with 2, at the same calls per second (bench/history/memory.md, "The MCP server's
#: memory over time").
SERVER_ARENAS = 2


def _limit_malloc_arenas() -> None:
    """Fewer malloc arenas, set before the server starts its threads (glibc only: other C
    libraries have no `mallopt`, and their allocators are left as they are)."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(_M_ARENA_MAX, SERVER_ARENAS)
    except (OSError, AttributeError):
        pass


def main(argv: list[str] | None = None) -> int:
    _limit_malloc_arenas()
    signal.signal(signal.SIGINT, _exit_on_ctrl_c)
    # `symfind mcp` blocks SIGINT before it execs this server, so that a Ctrl-C while the
    # interpreter starts is not lost nor a traceback: it is handled here, now.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in COMMANDS:
        command = import_module(COMMANDS[argv[0]])
        args = command.build_parser().parse_args(argv[1:])
        log_to_stderr(getattr(args, "verbose", 0))
        return command.run(args)
    args = build_parser().parse_args(argv)
    log_to_stderr(args.verbose)
    return serve(args)


def log_to_stderr(verbose: int) -> None:
    """Logs on stderr (stdout is the protocol over stdio): warnings, `-v` info, `-vv` debug."""
    from symfind.storage import EscapingFormatter  # here: loading storage takes a while

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(EscapingFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING - 10 * min(verbose, 2), handlers=[handler])


def serve(args: argparse.Namespace) -> int:
    """Check the roots, then serve them on stdio until the client closes stdin."""
    if args.remote is not None:
        if args.repo:
            print("symfind: --remote serves the remote server's repositories: give no --repo",
                  file=sys.stderr)
            return 2
        # Imported here, once Ctrl-C is handled: they take a while to load.
        from symfind.mcp_server.remote import forward

        return forward(args.remote, insecure_http=args.insecure_http)
    from symfind.mcp_server.launch import Refused, new_server, served_roots

    try:
        roots = served_roots(args.repo, force=args.force)
        server = new_server(roots, auto_index=not args.no_index,
                            tool_prefix=args.tool_prefix or "")
    except Refused as exc:
        print(f"symfind: {exc}", file=sys.stderr)
        return 2
    logger.info("serving %s on stdio", ", ".join(map(str, roots)))
    server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
