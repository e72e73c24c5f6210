"""`symfind index` and `symfind reindex`: build or update a repository's index, or
rebuild it, here or by the repository's running daemon (the index's only writer).

Imports: `storage`, `daemon` modules.
"""

from __future__ import annotations

import argparse
import logging
from typing import Any, TextIO

from symfind.daemon.client import index_via_daemon
from symfind.cli.commands.arguments import add_force, add_verbose, config_to_index, positive_int
from symfind.cli.commands.output import EXIT_OK, json_answer
from symfind.daemon.config import Config
from symfind.daemon.errors import DaemonError, DaemonRunning
from symfind.daemon.protocol import IndexReport, IndexRequest, ProtocolError
from symfind.cli.render import ProgressBar
from symfind.storage import escape_line

logger = logging.getLogger(__name__)


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    """`index` and `reindex`, on the `symfind` parser's subcommands."""
    for name, text in (
        ("index", "build or update the index of a repository"),
        ("reindex", "drop the index and rebuild it from scratch"),
    ):
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument("path", nargs="?", help="repository root (default: the one holding .)")
        sub.add_argument("--max-file-bytes", type=positive_int, help="skip larger files (1 MB)")
        sub.add_argument("--workers", type=positive_int, help="extraction processes (all cores)")
        sub.add_argument("--json", action="store_true", help="print the report as JSON")
        add_force(sub)
        add_verbose(sub)


def run(args: argparse.Namespace, out: TextIO) -> int:
    fresh = args.command == "reindex"
    config = config_to_index(
        args, args.path, max_file_bytes=args.max_file_bytes, workers=args.workers
    )
    report = _index_via_daemon(config, args, fresh=fresh)
    if report is None:
        from symfind.daemon.indexer import update_index  # extraction: only the commands that index

        logger.info("%s %s into %s with %d workers", "rebuilding" if fresh else "indexing",
                    config.repo, config.index_dir, config.workers)
        report = update_index(config, fresh=fresh, progress=ProgressBar("indexing"))
    out.write((json_answer(report) if args.json else _report_text(report, config)) + "\n")
    return EXIT_OK


def _report_text(report: IndexReport, config: Config) -> str:
    skipped = ", ".join(f"{n} {reason}" for reason, n in sorted(report.skipped.items()))
    return escape_line(
        f"indexed {config.repo}: {report.files} files, {report.symbols} symbols "
        f"({report.indexed} extracted, {report.unchanged} unchanged, {report.deleted} removed"
        + (f"; skipped: {skipped}" if skipped else "")
        + f") in {report.seconds:.2f}s → {config.index_dir}"
    )


def _index_via_daemon(
    config: Config, args: argparse.Namespace, *, fresh: bool
) -> IndexReport | None:
    """`index`/`reindex` while a daemon runs: the daemon (the index's only writer) does it
    and we wait, showing its progress; None when no daemon runs.

    Raises:
        DaemonRunning: `--max-file-bytes` was given: the daemon indexes with its own.
        DaemonError: The daemon failed to index, or broke the exchange.
    """
    from symfind.daemon.process import running_status

    if args.max_file_bytes is not None:
        status = running_status(config)
        if status is not None:
            raise DaemonRunning(
                f"a symfind daemon (pid {status.pid}) serves {config.repo} with its own "
                "--max-file-bytes; stop it (`symfind daemon stop`) to index with another"
            )
    bar = ProgressBar("reindexing (daemon)" if fresh else "indexing (daemon)")
    try:
        return index_via_daemon(config.index_dir, IndexRequest(fresh=fresh), bar)
    except ProtocolError as exc:
        raise DaemonError(
            f"the running daemon did not index: {exc}; stop it (`symfind daemon stop`) "
            "and run this again"
        ) from exc
