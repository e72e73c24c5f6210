"""The MCP server's entry points, which the `symfind` command line calls in its own process
with options it has parsed: `run_stdio` (`symfind mcp`) and `run_http` (`symfind serve`).

Imports: `mcp_server` modules and the standard library. The server's own
(`mcp_server.launch`, `mcp_server.http`, `mcp_server.remote`) are imported by the entry
point that runs them, once Ctrl-C is handled: they take a while to load.

Over stdio, stdout is the protocol: logs go to stderr (the command line sets them up).
Each repository is taken from the repository holding it (`storage.find_root`), and refused
(`/`, the home directory, a huge tree with no VCS marker) unless `force`. Exit codes of
`run_stdio`: 0 when the client closes stdin, 2 for a bad or refused repository path or a
bad `$SYMFIND_DAEMON_LEASE`, 130 on Ctrl-C; `remote` forwards to a `symfind serve` instead
(`mcp_server.remote`, which adds its own codes). `run_http`'s are `mcp_server.http`'s.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys

from symfind.mcp_server.options import ServeOptions, StdioOptions

logger = logging.getLogger("symfind.mcp_server")

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it

#: glibc's `mallopt` option for how many heaps ("arenas") threads allocate from.
_M_ARENA_MAX = -8
#: Arenas a server allocates from. By default glibc gives threads up to 8 per core, each
#: keeping its own free pieces; a server answering 50 clients from ~40 threads held ~6 MB
#: less with 2, at the same calls per second (bench/history/memory.md, "The MCP server's memory
#: over time").
SERVER_ARENAS = 2


def _exit_on_ctrl_c(_signum: int, _frame: object) -> None:
    # Exit at once: the stdio transport reads stdin in a worker thread that nothing can
    # interrupt, so a KeyboardInterrupt (asyncio cancelling the server) would wait for the
    # client's next line. The server only reads; there is nothing to flush or commit.
    os.write(2, b"symfind: interrupted\n")
    os._exit(EXIT_INTERRUPTED)


def _limit_malloc_arenas() -> None:
    """Fewer malloc arenas, set before the server starts its threads (glibc only: other C
    libraries have no `mallopt`, and their allocators are left as they are)."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(_M_ARENA_MAX, SERVER_ARENAS)
    except (OSError, AttributeError):
        pass


def run_stdio(options: StdioOptions) -> int:
    """Check the roots, then serve them on stdio until the client closes stdin; returns the
    exit code (errors: one line on stderr)."""
    _limit_malloc_arenas()
    signal.signal(signal.SIGINT, _exit_on_ctrl_c)
    if options.remote is not None:
        if options.repo:
            print("symfind: --remote serves the remote server's repositories: give no --repo",
                  file=sys.stderr)
            return EXIT_USAGE
        # Imported here, once Ctrl-C is handled: they take a while to load.
        from symfind.mcp_server.remote import forward

        return forward(options.remote, insecure_http=options.insecure_http)
    from symfind.mcp_server.launch import Refused, new_server, served_roots

    try:
        roots = served_roots(options.repo, force=options.force)
        server = new_server(roots, auto_index=not options.no_index,
                            tool_prefix=options.tool_prefix)
    except Refused as exc:
        print(f"symfind: {exc}", file=sys.stderr)
        return EXIT_USAGE
    logger.info("serving %s on stdio", ", ".join(map(str, roots)))
    server.run("stdio")
    return 0


def run_http(options: ServeOptions) -> int:
    """Serve over HTTP until Ctrl-C or SIGTERM (`mcp_server.http`); returns the exit code."""
    _limit_malloc_arenas()
    from symfind.mcp_server.http import run

    return run(options)
