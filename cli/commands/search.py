"""`symfind search`: one repository, or several fused into one ranking, each searched
through its daemon when one runs, else its index directly; one query, or one per line of
`--queries-from` (JSON lines out).

Imports: `extract`, `storage`, `daemon` modules.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from symfind.daemon.client import request
from symfind.cli.commands.arguments import add_verbose, named_index_missing, positive_int
from symfind.cli.commands.output import (
    EXIT_INDEX,
    EXIT_OK,
    JSON,
    json_answer,
    report_error,
)
from symfind.daemon.config import Config, load_config
from symfind.daemon.errors import DaemonNotAnswering, RepositoryError
from symfind.daemon.protocol import ErrorReply, ProtocolError, SearchReply, SearchRequest
from symfind.cli.render import format_federated, format_response
from symfind.extract import LANGUAGES, SymbolKind, head_fields
from symfind.storage import (
    MAX_LIMIT,
    VERSION,
    Freshness,
    IndexDamaged,
    IndexMissing,
    IndexSource,
    Plan,
    QueryError,
    Repo,
    RepoSearch,
    RepoState,
    SearchQuery,
    SearchResponse,
    SearchResult,
    StorageError,
    describe_freshness,
    is_partial,
    live_daemon_status,
    repo_labels,
    search_repo,
    search_repos,
)

logger = logging.getLogger(__name__)

#: A line of `--queries-from` longer than this is no query (the longest is 512
#: characters): the file is the wrong one (binary, `/dev/zero`), not read any further.
MAX_QUERY_LINE_BYTES = 64 * 1024
#: All of `--queries-from` is read before searching, at most this much.
MAX_QUERIES_BYTES = 16 * 1024 * 1024


def _limit(text: str) -> int:
    # The search's own limit (SearchQuery.check), said in argparse's words at parse time.
    return positive_int(text, MAX_LIMIT)


def add_parser(commands: argparse._SubParsersAction[Any]) -> None:
    """`search`, on the `symfind` parser's subcommands."""
    search = commands.add_parser(
        "search",
        help="search definitions by name, typo'd name, qualified name or words",
        description="Search definitions: `HtppClient`, `http client`, `AsyncClient#send`, "
        "`pkg.mod.func`, `ns::Type`.",
    )
    search.add_argument("query", nargs="?", help="what to look for")
    search.add_argument(
        "paths", nargs="*", metavar="PATH",
        help="repository (default: the one holding .); several are searched together",
    )
    search.add_argument(
        "--repo", action="append", metavar="PATH",
        help="repository root, as PATH; repeat to search several and fuse their results",
    )
    search.add_argument("--limit", type=_limit, default=10, help=f"results, 1..{MAX_LIMIT}")
    search.add_argument("--kind", choices=[k.value for k in SymbolKind], help="only this kind")
    search.add_argument("--lang", choices=sorted(LANGUAGES), help="only this language")
    search.add_argument("--path", help="only paths matching this glob (src/**/*.py, tests/)")
    search.add_argument("--json", action="store_true", help="JSON output")
    search.add_argument(
        "--queries-from", type=Path, metavar="FILE",
        help="one query per line (-: standard input); JSON lines out"
    )
    add_verbose(search)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """`search`: one repository, or several (PATHs, `--repo` repeated) fused into one
    ranking. Each is searched through its daemon when one runs, else its index directly."""
    paths = [*(args.repo or []), *args.paths]
    if len(paths) > 1:
        return _run_federated(args, paths, out)
    config = load_config(paths[0] if paths else ".")  # a bad path: exit 2
    try:
        return _search_one(args, config, out)
    except IndexMissing:
        raise named_index_missing(config) from None


# ---- one repository ----------------------------------------------------------------------


def _search_one(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    repo = Repo(str(config.repo), str(config.repo), _daemon_or_index(config.index_dir))
    if args.queries_from is not None:
        if args.query is not None:
            raise QueryError("give either a QUERY or --queries-from FILE, not both")
        notes = FreshnessNotes()
        out.writelines(_batch_line(repo, _search_query(args, line), notes).decode() + "\n"
                       for line in _query_lines(args.queries_from))
        return EXIT_OK
    if args.query is None:
        raise QueryError("nothing to search: give a QUERY or --queries-from FILE")
    response = search_repo(repo, _search_query(args, args.query))
    out.write((json_answer(response) if args.json else format_response(response)) + "\n")
    FreshnessNotes().tell(response.freshness)
    return EXIT_OK


def _search_query(args: argparse.Namespace, text: str) -> SearchQuery:
    return SearchQuery(text=text, limit=args.limit, kind=args.kind, language=args.lang,
                       path=args.path)


def _daemon_or_index(index_dir: Path) -> RepoSearch:
    """Search one repository through its daemon when one runs, else its index directly."""
    direct = IndexSource(index_dir)

    def search(query: SearchQuery, plan: Plan) -> SearchResponse:
        try:  # the daemon checks the query it receives: it is another process
            response = _search_via_daemon(index_dir, SearchRequest(query))
        except (QueryError, IndexDamaged):
            # Damage the daemon found is said as it found it: reading the index now would
            # find it dropped, or half rebuilt, and say something else.
            raise
        except (StorageError, ProtocolError) as exc:
            # Reading the index directly says precisely why the daemon cannot search it
            # (missing, schema mismatch), or that it is being built.
            logger.info("daemon of %s: %s; reading the index directly", index_dir, exc)
            response = None
        except DaemonNotAnswering as exc:  # the index on disk answers as of its last commit
            logger.warning("%s; searched the index on disk instead (its last commit)", exc)
            response = None
        if response is not None:
            return response
        # Read directly: a daemon that did not answer may still be at work (its status file).
        return direct.search(query, plan, daemon=live_daemon_status(index_dir))

    return search


def _search_via_daemon(index_dir: Path, message: SearchRequest) -> SearchResponse | None:
    """Ask the repository's daemon (warm index); None when no daemon runs."""
    reply = request(index_dir, message)
    if reply is None:
        return None
    if isinstance(reply, ErrorReply):
        raise reply_error(reply)
    if not isinstance(reply, SearchReply):
        raise StorageError("unexpected reply from the daemon")
    return reply.response


def reply_error(reply: ErrorReply) -> StorageError:
    """The error a daemon answered, as the exception the CLI reports it with."""
    if reply.kind == "query":
        return QueryError(reply.message)
    if reply.kind == "damaged":
        return IndexDamaged(reply.message)
    return StorageError(reply.message)


class FreshnessNotes:
    """Says on stderr, once per repository and run, that answers come from an index
    being built, behind or failing to be updated (`storage.freshness`)."""

    def __init__(self) -> None:
        self._told: set[str] = set()

    def tell(self, fresh: Freshness | None, label: str = "") -> None:
        if fresh is None or not is_partial(fresh) or label in self._told:
            return
        self._told.add(label)
        report_error(f"{label}: {describe_freshness(fresh)}" if label
                     else describe_freshness(fresh))


# ---- --queries-from: one query per line, one JSON line per answer ------------------------


def _query_lines(path: Path) -> list[str]:
    """The lines of a `--queries-from` file (`-`: standard input), stripped — blank ones
    too: one answer per line. Lines end at `\\n` only (a `\\r` before it is dropped).

    Raises:
        QueryError: The file cannot be read, has a line over MAX_QUERY_LINE_BYTES or is
            over MAX_QUERIES_BYTES.
    """
    try:
        if str(path) == "-":
            return _read_query_lines(sys.stdin.buffer, "standard input")
        with open(path, "rb") as source:
            return _read_query_lines(source, str(path))
    except OSError as exc:
        raise QueryError(f"cannot read {path}: {exc.strerror}") from exc


def _read_query_lines(source: BinaryIO, name: str) -> list[str]:
    lines: list[str] = []
    total = 0
    while line := source.readline(MAX_QUERY_LINE_BYTES + 1):
        total += len(line)
        if len(line) > MAX_QUERY_LINE_BYTES:
            raise QueryError(
                f"line {len(lines) + 1} of {name} is over {MAX_QUERY_LINE_BYTES:,} "
                "bytes: --queries-from takes one query per line"
            )
        if total > MAX_QUERIES_BYTES:
            raise QueryError(
                f"{name} is over {MAX_QUERIES_BYTES // 2**20} MiB; "
                "--queries-from reads at most that much (split the file)"
            )
        lines.append(line.decode("utf-8", errors="replace").strip())
    return lines


def _result_fields(result: SearchResult) -> dict[str, object]:
    """A result as `search --queries-from` prints it (its JSONL contract: README.md)."""
    return {**head_fields(result), "signature": result.signature, "score": result.score,
            "why": {"channels": result.why.channels}}


def _invalid_line(query: str, exc: QueryError) -> bytes:
    return JSON.encode({"query": query, "route": "invalid", "took_ms": 0.0, "results": [],
                        "error": str(exc), "symfind_version": VERSION})


def _batch_line(repo: Repo, query: SearchQuery, notes: FreshnessNotes) -> bytes:
    """One JSONL answer of `search --queries-from` (the contract in README.md, "Search output")."""
    try:
        response = search_repo(repo, query)
    except QueryError as exc:
        return _invalid_line(query.text, exc)
    notes.tell(response.freshness)
    results = [_result_fields(r) for r in response.results]
    return JSON.encode(
        {"query": query.text, "route": response.route, "took_ms": response.took_ms,
         "results": results, "freshness": response.freshness, "symfind_version": VERSION}
    )


# ---- several repositories ----------------------------------------------------------------


def _unsearchable(error: Exception) -> RepoSearch:
    """A repository path that does not resolve: it reports its error in its status."""

    def search(_query: SearchQuery, _plan: Plan) -> SearchResponse:
        raise StorageError(str(error))

    return search


def federated_repos(paths: list[str]) -> list[Repo]:
    """The repositories of `search --repo A --repo B …`, each once, in the order given."""
    found: list[tuple[str, RepoSearch]] = []
    seen: set[Path] = set()
    for path in paths:
        try:
            config = load_config(path)
        except RepositoryError as exc:
            found.append((path, _unsearchable(exc)))
            continue
        if config.repo not in seen:
            seen.add(config.repo)
            found.append((str(config.repo), _daemon_or_index(config.index_dir)))
    labels = repo_labels([root for root, _ in found])
    return [Repo(label, root, search) for label, (root, search) in zip(labels, found, strict=True)]


def _federated_line(
    repos: list[Repo], query: str, args: argparse.Namespace, pool: Executor,
    notes: FreshnessNotes,
) -> tuple[bytes, int]:
    """One JSONL answer of `search --queries-from` over several repositories, and how
    many repositories answered."""
    try:
        response = search_repos(repos, _search_query(args, query), executor=pool)
    except QueryError as exc:
        return _invalid_line(query, exc), -1
    for status in response.repos:
        notes.tell(status.freshness, status.repo)
    line = {
        "query": query, "route": response.route, "took_ms": response.took_ms,
        "results": [{"repo": r.repo, **_result_fields(r)} for r in response.results],
        "repos": response.repos, "symfind_version": VERSION,
    }
    return JSON.encode(line), response.answered


def _run_federated(args: argparse.Namespace, paths: list[str], out: TextIO) -> int:
    """`search` over several repositories: one fused ranking; per-repository failures are
    reported (stderr for the table, `repos` in JSON) and fail the search only when no
    repository answered."""
    repos = federated_repos(paths)
    with ThreadPoolExecutor(max_workers=min(len(repos), os.cpu_count() or 1)) as pool:
        return _federated_search(args, repos, pool, out)


def _federated_search(
    args: argparse.Namespace, repos: list[Repo], pool: Executor, out: TextIO
) -> int:
    if args.queries_from is not None:
        if args.query is not None:
            raise QueryError("give either a QUERY or --queries-from FILE, not both")
        searched = answered = 0
        notes = FreshnessNotes()
        for query in _query_lines(args.queries_from):
            line, count = _federated_line(repos, query, args, pool, notes)
            out.write(line.decode() + "\n")
            searched += count >= 0
            answered += count > 0
        return EXIT_INDEX if searched and not answered else EXIT_OK
    if args.query is None:
        raise QueryError("nothing to search: give a QUERY or --queries-from FILE")
    response = search_repos(repos, _search_query(args, args.query), executor=pool)
    if args.json:
        out.write(json_answer(response) + "\n")
    else:
        for status in response.repos:
            if status.status is not RepoState.OK:
                report_error(f"{status.repo}: {status.message}")
        if response.answered:
            out.write(format_federated(response) + "\n")
        else:
            report_error(response.empty_reason)
    notes = FreshnessNotes()
    for status in response.repos:
        notes.tell(status.freshness, status.repo)
    return EXIT_OK if response.answered else EXIT_INDEX
