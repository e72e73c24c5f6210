"""`python -m symfind.mcp_server --repo PATH [--repo PATH ...]`: serve symfind's MCP tools on stdio.

Imports: `mcp_server.server`, `storage` (the log formatter), the standard library.
`symfind mcp --repo PATH ...` execs exactly this. stdout is the protocol: logs go to stderr, set up here and only here.
One `--repo` serves that repository; several serve them all, searched together.
Exit codes: 0 when the client closes stdin, 2 for a bad repository path.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from symfind.mcp_server.server import build_roots_server, build_server
from symfind.storage import EscapingFormatter

logger = logging.getLogger("symfind.mcp_server")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logs (-vv: debug)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(EscapingFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
    repos = [Path(repo).expanduser() for repo in args.repo or ["."]]
    for repo in repos:
        if not repo.is_dir():
            logger.error("repository %r is not a directory", str(repo))
            return 2
    roots = list(dict.fromkeys(repo.resolve() for repo in repos))
    if len(roots) == 1:
        server = build_server(repos[0], auto_index=not args.no_index)
    else:
        server = build_roots_server(roots, auto_index=not args.no_index)
    logger.info("serving %s on stdio", ", ".join(map(str, roots)))
    server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
