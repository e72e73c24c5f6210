"""`symfind refs`: where a definition is used, through the repository's daemon when one
runs, else its index directly (`storage.references`: resolved, possible and elsewhere).

Imports: `storage`, `daemon` modules.
"""

from __future__ import annotations

import argparse
import logging
import re
from pathlib import Path
from typing import Any, TextIO

from symfind.cli.commands.arguments import add_verbose, named_index_missing, positive_int
from symfind.cli.commands.output import EXIT_OK, json_answer
from symfind.cli.commands.search import FreshnessNotes, reply_error
from symfind.cli.render import format_references
from symfind.daemon.client import request
from symfind.daemon.config import Config, load_config
from symfind.daemon.errors import DaemonNotAnswering
from symfind.daemon.protocol import ErrorReply, ProtocolError, ReferencesReply, ReferencesRequest
from symfind.storage import (
    IndexMissing,
    IndexSource,
    QueryError,
    ReferencesAnswer,
    ReferencesQuery,
    StorageError,
    live_daemon_status,
)
from symfind.storage.references import MAX_LIMIT

logger = logging.getLogger(__name__)

#: `path:line` names one definition exactly, as a search result prints it.
_AT_LINE = re.compile(r"^(?P<path>.+):(?P<line>[1-9][0-9]*)$")


def add_parser(commands: argparse._SubParsersAction[Any]) -> None:
    """`refs`, on the `symfind` parser's subcommands."""
    refs = commands.add_parser(
        "refs",
        help="where a definition is used (resolved, possible, elsewhere)",
        description="Where a definition is used. TARGET is a name or qualified name, as "
        "`search` takes it (`Session.send`, `http.Server.Serve`), or `path:line` of a "
        "definition as `search` prints it.",
    )
    refs.add_argument("target", metavar="TARGET", help="name, qualified name, or path:line")
    refs.add_argument("path", nargs="?", metavar="PATH",
                      help="repository (default: the one holding .)")
    # Appended, so that a second --repo is refused rather than silently taken instead.
    refs.add_argument("--repo", action="append", default=[], metavar="PATH",
                      help="repository root, as PATH (one: the uses of one repository)")
    refs.add_argument("--limit", type=lambda text: positive_int(text, MAX_LIMIT), default=50,
                      help=f"resolved uses listed, 1..{MAX_LIMIT} (the counts cover all)")
    refs.add_argument("--cursor", default="",
                      help="`next_cursor` of the previous answer: its next page")
    refs.add_argument("--json", action="store_true", help="JSON output")
    add_verbose(refs)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """`refs`: the answer, as a table or JSON, and a line on stderr when the index may
    miss uses (being built, behind, failing)."""
    if len(args.repo) + bool(args.path) > 1:
        raise QueryError("give the repository once: as PATH or as --repo (refs answers for "
                         "one repository)")
    config = load_config((args.repo or [args.path or "."])[0])  # a bad path: exit 2
    query = _query(args, config)
    try:
        answer = _references(config, query)
    except IndexMissing:
        raise named_index_missing(config) from None
    out.write((json_answer(answer) if args.json else format_references(answer)) + "\n")
    FreshnessNotes().tell(answer.freshness)
    return EXIT_OK


def _query(args: argparse.Namespace, config: Config) -> ReferencesQuery:
    target = args.target.strip()
    at = _AT_LINE.match(target)
    path = Path(at["path"]) if at else None
    if path and path.is_absolute() and path.is_relative_to(config.repo):
        path = path.relative_to(config.repo)  # as an editor or grep prints it
    if at and path and (config.repo / path).is_file():
        return ReferencesQuery(path=path.as_posix(), line=int(at["line"]),
                               limit=args.limit, cursor=args.cursor)
    return ReferencesQuery(target=target, limit=args.limit, cursor=args.cursor)


def _references(config: Config, query: ReferencesQuery) -> ReferencesAnswer:
    """Through the daemon when one runs (its index is warm), else the index directly."""
    try:
        reply = request(config.index_dir, ReferencesRequest(query))
    except DaemonNotAnswering as exc:
        logger.warning("%s; read the index on disk instead (its last commit)", exc)
        reply = None
    except ProtocolError as exc:
        logger.info("daemon of %s: %s; reading the index directly", config.index_dir, exc)
        reply = None
    if isinstance(reply, ErrorReply):
        if reply.kind in ("query", "damaged"):  # the damage as the daemon found it
            raise reply_error(reply)
        logger.info("daemon of %s: %s; reading the index directly", config.index_dir,
                    reply.message)
        reply = None
    if isinstance(reply, ReferencesReply):
        return reply.answer
    if reply is not None:
        raise StorageError("unexpected reply from the daemon")
    return IndexSource(config.index_dir).find_references(
        query, daemon=live_daemon_status(config.index_dir))
