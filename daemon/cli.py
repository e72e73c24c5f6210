"""The `symfind` command line: index, reindex, search, status, daemon, mcp, serve, token.

Imports: msgspec, `extract`, `storage`, `daemon` modules. Output goes to stdout; logs,
progress and errors to stderr. Exit codes: 0 success, 2 usage or bad input, 3 index
missing or unusable, 4 index locked by another process (`daemon run` while a daemon runs;
`index`/`reindex` hand the work to a running daemon), 5 `daemon status` found no daemon, 6 the index or the repository cannot be read or written
(permission denied, disk full), 7 a daemon runs but does not answer (busy past
`SYMFIND_DAEMON_TIMEOUT`, suspended, or its socket gone), 130 interrupted (Ctrl-C). `search` with several `--repo` fuses their answers
(`storage.federation`): 0 when at least one repository answered, 3 when none did.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import signal
import sys
import time
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import msgspec

from symfind.daemon.client import index_via_daemon, request
from symfind.daemon.config import Config, load_config, require_readable
from symfind.daemon.errors import DaemonError, DaemonNotAnswering, DaemonRunning, RepositoryError
from symfind.daemon.protocol import (
    ErrorReply,
    IndexReport,
    IndexRequest,
    ProtocolError,
    SearchReply,
    SearchRequest,
    StatusReply,
    StatusRequest,
)
from symfind.daemon.registry import daemon_holding, daemon_of, resident_bytes, running_daemons
from symfind.daemon.render import ProgressBar, format_federated, format_response
from symfind.extract import LANGUAGES, SymbolKind
from symfind.storage import (
    MAX_LIMIT,
    IndexLocked,
    IndexMissing,
    IndexSource,
    NotARepository,
    QueryError,
    Repo,
    RepoSearch,
    RepoState,
    SchemaMismatch,
    Searcher,
    SearchQuery,
    SearchResponse,
    SearchResult,
    FileState,
    Freshness,
    Manifest,
    VERSION,
    StorageError,
    check_root,
    describe_freshness,
    escape_line,
    is_partial,
    live_daemon_status,
    repo_labels,
    search_repo,
    search_repos,
)

if TYPE_CHECKING:
    from symfind.daemon.process import Stopped

logger = logging.getLogger(__name__)

EXIT_OK, EXIT_USAGE, EXIT_INDEX, EXIT_LOCKED, EXIT_NOT_RUNNING, EXIT_IO = 0, 2, 3, 4, 5, 6
EXIT_NOT_ANSWERING = 7
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command Ctrl-C stopped
_JSON = msgspec.json.Encoder()


def _positive_int(text: str, most: int | None = None) -> int:
    """An argument that must be an integer of at least 1 (and at most `most`)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if most is not None and not 1 <= value <= most:
        raise argparse.ArgumentTypeError(f"must be between 1 and {most}, got {value}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _limit(text: str) -> int:
    # The search's own limit (SearchQuery.check), said in argparse's words at parse time.
    return _positive_int(text, MAX_LIMIT)


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a usage error in one line (what to fix, and where the usage is)
    instead of the usage block; its subcommands' parsers too. Exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"symfind: {escape_line(message)} — see `{self.prog} --help`\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="symfind",
        description="Find where the thing you mean is defined: fuzzy, ranked symbol search.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"symfind {VERSION}")
    _add_verbose(parser)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    for name, text in (
        ("index", "build or update the index of a repository"),
        ("reindex", "drop the index and rebuild it from scratch"),
    ):
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument("path", nargs="?", help="repository root (default: the one holding .)")
        sub.add_argument("--max-file-bytes", type=_positive_int, help="skip larger files (1 MB)")
        sub.add_argument("--workers", type=_positive_int, help="extraction processes (all cores)")
        sub.add_argument("--json", action="store_true", help="print the report as JSON")
        _add_force(sub)
        _add_verbose(sub)

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
        "--queries-from", type=Path, metavar="FILE", help="one query per line; JSON lines out"
    )
    _add_verbose(search)

    status = commands.add_parser("status", help="what the index holds and how fresh it is")
    status.add_argument("path", nargs="?", help="repository root (default: the one holding .)")
    status.add_argument("--json", action="store_true", help="JSON output")
    status.add_argument(
        "--skipped", action="store_true",
        help="list every file and directory not indexed, with the reason",
    )
    _add_verbose(status)

    daemon = commands.add_parser(
        "daemon",
        help="the per-repository daemon that keeps the index fresh",
        description="start: detach a daemon (log in the index dir); stop: stop it; "
        "status: ask it; run: serve in the foreground with logs on stderr; list: every "
        "running daemon of this user.",
    )
    daemon.add_argument("action", choices=["start", "stop", "status", "run", "list"])
    daemon.add_argument("path", nargs="?", help="repository root (default: the one holding .)")
    daemon.add_argument("--json", action="store_true", help="JSON output")
    daemon.add_argument(
        "--lease", type=_seconds, metavar="SECONDS",
        help="exit once no MCP server has used it for SECONDS (what `symfind mcp` asks for); "
        "default: stay until stopped",
    )
    _add_force(daemon)
    _add_verbose(daemon)

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
    _add_force(mcp)
    _add_verbose(mcp)

    # Parsed by the MCP server's own entry point, which they run (`run_mcp_command`).
    for name, text in (
        ("serve", "serve the MCP tools over HTTP to a team, behind personal access tokens"),
        ("token", "create, list or revoke the personal access tokens `serve` accepts"),
    ):
        commands.add_parser(name, help=text, add_help=False)
    return parser


def _add_verbose(parser: argparse.ArgumentParser) -> None:
    """`-v` before or after the subcommand (`symfind -v search …`, `symfind search … -vv`):
    each level counts under its own name, `verbosity()` adds them up."""
    dest = "verbose" if parser.prog == "symfind" else "sub_verbose"
    parser.add_argument("-v", "--verbose", dest=dest, action="count", default=0,
                        help="more logs (-vv: debug)")


def _add_force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force", action="store_true",
        help="index it even if it is /, the home directory, or a huge tree with no .git",
    )


def verbosity(args: argparse.Namespace) -> int:
    """How many `-v` were given, before and after the subcommand."""
    return args.verbose + getattr(args, "sub_verbose", 0)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line, with PATHs taken wherever they stand (argparse stops filling
    positionals once an option follows one: `search Foo --limit 3 src/`,
    `daemon start --json src/`)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command in ("serve", "token"):
        args.passthrough = extra
        return args
    stray = [arg for arg in extra if not arg.startswith("-")]
    if args.command == "search":
        args.paths += stray
        extra = [arg for arg in extra if arg.startswith("-")]
    elif len(stray) == 1 and getattr(args, "path", "") is None:
        args.path = stray[0]
        extra.remove(stray[0])
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def _report_text(report: IndexReport, config: Config) -> str:
    skipped = ", ".join(f"{n} {reason}" for reason, n in sorted(report.skipped.items()))
    return escape_line(
        f"indexed {config.repo}: {report.files} files, {report.symbols} symbols "
        f"({report.indexed} extracted, {report.unchanged} unchanged, {report.deleted} removed"
        + (f"; skipped: {skipped}" if skipped else "")
        + f") in {report.seconds:.2f}s → {config.index_dir}"
    )


def _json(value: Any) -> str:
    """One `--json` answer: `value` (a Struct or a dict) with the symfind version that made it."""
    fields = value if isinstance(value, dict) else msgspec.to_builtins(value)
    return _JSON.encode({**fields, "symfind_version": VERSION}).decode()


def _config_to_index(args: argparse.Namespace, path: str, **options: int | None) -> Config:
    """The Config of a repository about to be indexed or watched: refused when it is not
    repository-like, unless `--force`.

    Raises:
        RepositoryError: Bad path or settings.
        NotARepository: `/`, the home directory or a huge unmarked tree, without `--force`.
        PermissionError: The repository's root cannot be read.
    """
    config = load_config(path, **options)
    require_readable(config.repo)
    if not args.force:
        check_root(config.repo)
    return config


def run_index(args: argparse.Namespace, out: TextIO, *, fresh: bool) -> int:
    config = _config_to_index(
        args, args.path, max_file_bytes=args.max_file_bytes, workers=args.workers
    )
    report = _index_via_daemon(config, args, fresh=fresh)
    if report is None:
        from symfind.daemon.indexer import update_index  # extraction: only the commands that index

        logger.info("%s %s into %s with %d workers", "rebuilding" if fresh else "indexing",
                    config.repo, config.index_dir, config.workers)
        report = update_index(config, fresh=fresh, progress=ProgressBar("indexing"))
    out.write((_json(report) if args.json else _report_text(report, config)) + "\n")
    return EXIT_OK


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


def _result_fields(result: SearchResult) -> dict[str, object]:
    """A result as `search --queries-from` prints it (its JSONL contract: README.md)."""
    return {
        "name": result.name, "qualname": result.qualname, "kind": result.kind,
        "language": result.language, "path": result.path, "line": result.line,
        "end_line": result.end_line, "signature": result.signature, "score": result.score,
        "why": {"channels": result.why.channels},
    }


def _invalid_line(query: str, exc: QueryError) -> bytes:
    return _JSON.encode({"query": query, "route": "invalid", "took_ms": 0.0, "results": [],
                         "error": str(exc), "symfind_version": VERSION})


def _batch_line(repo: Repo, query: SearchQuery, notes: FreshnessNotes) -> bytes:
    """One JSONL answer of `search --queries-from` (the contract in README.md, "Search output")."""
    try:
        response = search_repo(repo, query)
    except QueryError as exc:
        return _invalid_line(query.text, exc)
    notes.tell(response.freshness)
    results = [_result_fields(r) for r in response.results]
    return _JSON.encode(
        {"query": query.text, "route": response.route, "took_ms": response.took_ms,
         "results": results, "freshness": response.freshness, "symfind_version": VERSION}
    )


class FreshnessNotes:
    """Says on stderr, once per repository and run, that answers come from an index
    being built, behind or failing to be updated (`storage.freshness`)."""

    def __init__(self) -> None:
        self._told: set[str] = set()

    def tell(self, fresh: Freshness | None, label: str = "") -> None:
        if fresh is None or not is_partial(fresh) or label in self._told:
            return
        self._told.add(label)
        _error(f"{label}: {describe_freshness(fresh)}" if label else describe_freshness(fresh))


#: A line of `--queries-from` longer than this is no query (the longest is 512
#: characters): the file is the wrong one (binary, `/dev/zero`), not read any further.
MAX_QUERY_LINE_BYTES = 64 * 1024
#: All of `--queries-from` is read before searching, at most this much.
MAX_QUERIES_BYTES = 16 * 1024 * 1024


def _query_lines(path: Path) -> list[str]:
    """The lines of a `--queries-from` file, stripped — blank ones too: one answer per
    line. Lines end at `\\n` only (a `\\r` before it is dropped).

    Raises:
        QueryError: The file cannot be read, has a line over MAX_QUERY_LINE_BYTES or is
            over MAX_QUERIES_BYTES.
    """
    lines: list[str] = []
    total = 0
    try:
        with open(path, "rb") as source:
            while line := source.readline(MAX_QUERY_LINE_BYTES + 1):
                total += len(line)
                if len(line) > MAX_QUERY_LINE_BYTES:
                    raise QueryError(
                        f"line {len(lines) + 1} of {path} is over {MAX_QUERY_LINE_BYTES:,} "
                        "bytes: --queries-from takes one query per line"
                    )
                if total > MAX_QUERIES_BYTES:
                    raise QueryError(
                        f"{path} is over {MAX_QUERIES_BYTES // 2**20} MiB; "
                        "--queries-from reads at most that much (split the file)"
                    )
                lines.append(line.decode("utf-8", errors="replace").strip())
    except OSError as exc:
        raise QueryError(f"cannot read {path}: {exc.strerror}") from exc
    return lines


def _search_via_daemon(index_dir: Path, message: SearchRequest) -> SearchResponse | None:
    """Ask the repository's daemon (warm index); None when no daemon runs."""
    reply = request(index_dir, message)
    if reply is None:
        return None
    if isinstance(reply, ErrorReply):
        raise QueryError(reply.message) if reply.kind == "query" else StorageError(reply.message)
    if not isinstance(reply, SearchReply):
        raise StorageError("unexpected reply from the daemon")
    return reply.response


def _search_query(args: argparse.Namespace, text: str) -> SearchQuery:
    return SearchQuery(text=text, limit=args.limit, kind=args.kind, language=args.lang,
                       path=args.path)


def _named_index_missing(config: Config) -> IndexMissing:
    """"No index" naming the repository symfind looked for (found from the cwd upwards)."""
    try:
        check_root(config.repo)
    except NotARepository:  # `/`, the home directory: not to be indexed, but named
        fix = "name the repository to search (`symfind search QUERY PATH`, or `--repo PATH`)"
    else:
        fix = f"run `symfind index {config.repo}` first"
    return IndexMissing(f"no index of {config.repo} (looked in {config.index_dir}) — {fix}")


def run_search(args: argparse.Namespace, out: TextIO) -> int:
    """`search`: one repository, or several (PATHs, `--repo` repeated) fused into one
    ranking. Each is searched through its daemon when one runs, else its index directly."""
    paths = [*(args.repo or []), *args.paths]
    if len(paths) > 1:
        return run_federated_search(args, paths, out)
    config = load_config(paths[0] if paths else ".")  # a bad path: exit 2
    try:
        return _search_one(args, config, out)
    except IndexMissing:
        raise _named_index_missing(config) from None


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
    out.write(_format(response, args.json) + "\n")
    FreshnessNotes().tell(response.freshness)
    return EXIT_OK


def _daemon_or_index(index_dir: Path) -> RepoSearch:
    """Search one repository through its daemon when one runs, else its index directly."""
    direct = IndexSource(index_dir)

    def search(query: SearchQuery) -> SearchResponse:
        try:
            response = _search_via_daemon(index_dir, SearchRequest(query))
        except QueryError:
            raise
        except (StorageError, ProtocolError) as exc:
            # A daemon still building (or rebuilding) the index: reading the index
            # directly says precisely why it cannot be searched (missing, schema mismatch).
            logger.info("daemon of %s: %s; reading the index directly", index_dir, exc)
            response = None
        except DaemonNotAnswering as exc:  # the index on disk answers as of its last commit
            logger.warning("%s; searched the index on disk instead (its last commit)", exc)
            response = None
        if response is not None:
            return response
        # Read directly: a daemon that did not answer may still be at work (its status file).
        return direct.search(query, daemon=live_daemon_status(index_dir))

    return search


def _unsearchable(error: Exception) -> RepoSearch:
    """A repository path that does not resolve: it reports its error in its status."""

    def search(_query: SearchQuery) -> SearchResponse:
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
    return _JSON.encode(line), response.answered


def run_federated_search(args: argparse.Namespace, paths: list[str], out: TextIO) -> int:
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
        out.write(_json(response) + "\n")
    else:
        for status in response.repos:
            if status.status is not RepoState.OK:
                _error(f"{status.repo}: {status.message}")
        if response.answered:
            out.write(format_federated(response) + "\n")
        else:
            _error(response.empty_reason)
    notes = FreshnessNotes()
    for status in response.repos:
        notes.tell(status.freshness, status.repo)
    return EXIT_OK if response.answered else EXIT_INDEX


def _format(response: SearchResponse, as_json: bool) -> str:
    return _json(response) if as_json else format_response(response)


def _directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _not_indexed(manifest: Manifest | None) -> list[dict[str, str]]:
    """Every file and directory not indexed, with why: files by path, then directories
    (a trailing `/`) passed over with everything in them; sorted by reason then path."""
    if manifest is None:
        return []
    entries = {**manifest.excluded, **manifest.skipped}
    return [
        {"path": path, "reason": reason}
        for path, reason in sorted(entries.items(), key=lambda item: (item[1], item[0]))
    ]


def _parsed_with_errors(manifest: Manifest | None) -> dict[str, FileState]:
    """Indexed files whose parse had regions it could not read, by path."""
    files = manifest.files if manifest is not None else {}
    return {path: state for path, state in sorted(files.items()) if state.error_regions}


def _counts(entries: list[dict[str, str]], *, directories: bool) -> dict[str, int]:
    counts: dict[str, int] = {}
    for entry in entries:
        if entry["path"].endswith("/") == directories:
            counts[entry["reason"]] = counts.get(entry["reason"], 0) + 1
    return counts


def run_status(args: argparse.Namespace, out: TextIO) -> int:
    config = load_config(args.path)
    try:
        searcher = Searcher(config.index_dir)  # validates schema version and readability
    except IndexMissing:
        raise _named_index_missing(config) from None
    manifest = searcher.manifest  # IndexDamaged when the file log does not decode
    not_indexed = _not_indexed(manifest)
    with_errors = _parsed_with_errors(manifest)
    if args.skipped:
        if args.json:
            errors = [{"path": path, "error_regions": state.error_regions,
                       "recovered": state.recovered} for path, state in with_errors.items()]
            listed = {"not_indexed": not_indexed, "parsed_with_errors": errors}
            out.write(_json(listed) + "\n")
        else:
            out.writelines(f"{entry['reason']:<13} {entry['path']}\n" for entry in not_indexed)
            out.writelines(
                f"parse_errors  {path} ({state.error_regions} regions not parsed, "
                f"{state.recovered} definitions recovered by re-parsing)\n"
                for path, state in with_errors.items()
            )
        return EXIT_OK
    skipped = _counts(not_indexed, directories=False)
    skipped_dirs = _counts(not_indexed, directories=True)
    status = {
        "repo": str(config.repo),
        "index_dir": str(config.index_dir),
        "schema_version": searcher.header.schema_version,
        "generation": searcher.header.generation,
        "files": searcher.header.file_count,
        "symbols": searcher.num_symbols,
        "skipped": skipped,
        "skipped_dirs": skipped_dirs,
        "parse_errors": {
            "files": len(with_errors),
            "error_regions": sum(state.error_regions for state in with_errors.values()),
            "recovered": sum(state.recovered for state in with_errors.values()),
        },
        "pending": len(searcher.header.pending),
        "updated_at": searcher.header.updated_at,
        "index_bytes": _directory_bytes(config.index_dir),
        "daemon": _daemon_fields(config),
    }
    if args.json:
        out.write(_json(status) + "\n")
        return EXIT_OK
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(status["updated_at"]))
    skipped_text = ", ".join(f"{n} {r}" for r, n in sorted(skipped.items())) or "none"
    dirs_text = ", ".join(f"{n} {r}" for r, n in sorted(skipped_dirs.items())) or "none"
    out.write(
        f"repository    {escape_line(status['repo'])}\n"
        f"index         {escape_line(status['index_dir'])} ({status['index_bytes'] / 1e6:.1f} MB)\n"
        f"schema        v{status['schema_version']}, generation {status['generation']}\n"
        f"files         {status['files']} indexed; skipped: {skipped_text}\n"
        f"directories   skipped: {dirs_text}\n"
        f"parse errors  {_parse_errors_text(status['parse_errors'])}\n"
        f"symbols       {status['symbols']}\n"
        f"last commit   {when}\n"
        f"daemon        {_daemon_line(status['daemon'])}\n"
    )
    if not_indexed:
        out.write("(`symfind status --skipped` lists what was skipped and why)\n")
    return EXIT_OK


def _parse_errors_text(counts: dict[str, int]) -> str:
    if not counts["files"]:
        return "none"
    return (f"{counts['files']} files indexed with {counts['error_regions']} regions not parsed; "
            f"{counts['recovered']} definitions recovered by re-parsing")


def _daemon_fields(config: Config) -> dict[str, object] | None:
    """`status`'s daemon: its status, state `not_answering` with why, or None (none runs)."""
    from symfind.daemon.process import running_status

    try:
        status = running_status(config)
    except DaemonNotAnswering as exc:
        return {"pid": exc.pid, "state": NOT_ANSWERING, "message": str(exc)}
    return msgspec.to_builtins(status) if status is not None else None


#: The state `status`, `daemon status --json` and `daemon list` give a daemon that runs
#: but does not answer.
NOT_ANSWERING = "not_answering"


def _daemon_line(daemon: dict[str, object] | None) -> str:
    if daemon is None:
        return "not running (`symfind daemon start` keeps the index fresh)"
    if daemon["state"] == NOT_ANSWERING:
        return escape_line(f"not answering: {daemon['message']}")
    line = f"running, pid {daemon['pid']}, {daemon['state']}, {daemon['pending']} changes pending"
    if daemon.get("failing"):
        line += f", {daemon['failing']} files not indexed because indexing fails"
    if daemon.get("watch"):
        line += f", watching by {daemon['watch']}"
    if daemon.get("errors"):
        line += f"; {daemon['errors']} indexing errors, last: {daemon.get('last_error')}"
    return escape_line(line)


def _config_to_find(path: str | None) -> Config:
    """The Config of the repository whose daemon `daemon stop|status` is about — also one
    deleted (or moved away) while its daemon runs: found in the registry by its path.

    Raises:
        RepositoryError: The path is no repository and no daemon's.
    """
    try:
        return load_config(path)
    except RepositoryError:
        where = _absolute(path or ".")
        entry = daemon_holding(where) if where is not None else None
        if entry is None:
            raise
        return Config(repo=Path(entry.repo), index_dir=Path(entry.index_dir))


def _absolute(path: str) -> Path | None:
    """`path` made absolute, whether or not it exists; when the working directory itself
    was deleted, from the shell's `$PWD` (None without one)."""
    try:
        return Path(path).expanduser().resolve()
    except OSError:  # os.getcwd() fails in a deleted directory
        pwd = os.environ.get("PWD", "")
        return Path(pwd, path).expanduser().resolve() if os.path.isabs(pwd) else None


def _registered_config(config: Config) -> Config:
    """`config` pointing at the index directory of the daemon registered for its
    repository, when one runs (started with another `SYMFIND_INDEX_DIR`)."""
    entry = daemon_of(config.repo)
    if entry is None or Path(entry.index_dir) == config.index_dir:
        return config
    return msgspec.structs.replace(config, index_dir=Path(entry.index_dir))


def run_daemon_list(args: argparse.Namespace, out: TextIO) -> int:
    """`daemon list`: every running daemon of this user, with its state and memory."""
    rows = []
    for entry in running_daemons():
        try:
            reply = request(Path(entry.index_dir), StatusRequest())
        except (DaemonNotAnswering, ProtocolError):
            reply = None
        state = reply.status.state if isinstance(reply, StatusReply) else NOT_ANSWERING
        rows.append({**msgspec.to_builtins(entry), "state": state,
                     "rss_bytes": resident_bytes(entry.pid)})
    if args.json:
        out.write(_json({"daemons": rows}) + "\n")
        return EXIT_OK
    out.write(f"{'PID':>8}  {'BY':<4}  {'LEASE':>6}  {'STATE':<13}  {'RSS':>8}  REPOSITORY\n")
    for row in rows:
        rss = f"{row['rss_bytes'] / 2**20:.0f}MiB" if row["rss_bytes"] else "?"
        lease = f"{row['lease_s']:g}s" if row["lease_s"] else "-"
        out.write(f"{row['pid']:>8}  {row['started_by']:<4}  {lease:>6}  {row['state']:<13}  "
                  f"{rss:>8}  {escape_line(str(row['repo']))}\n")
    return EXIT_OK


def run_daemon(args: argparse.Namespace, out: TextIO) -> int:
    from symfind.daemon.process import running_unless_stopping, start_daemon, stop_daemon

    if args.action == "list":
        return run_daemon_list(args, out)
    if args.action in ("start", "run"):
        config = msgspec.structs.replace(_config_to_index(args, args.path), lease_s=args.lease)
    else:
        config = _registered_config(_config_to_find(args.path))
    if args.action == "run":
        from symfind.daemon.service import Daemon  # the watcher and extraction: `daemon run` only

        return Daemon(config).run()
    if args.action == "start":
        running = running_unless_stopping(config)
        if running is not None and args.json:  # idempotent: what the MCP server relies on
            out.write(_json(running) + "\n")
            return EXIT_OK
        if running is not None:
            out.write(f"daemon already running for {escape_line(running.repo)} "
                      f"(pid {running.pid}, {running.state})\n")
            return EXIT_OK
        status = start_daemon(config)
        if args.json:
            out.write(_json(status) + "\n")
        else:
            repo = escape_line(status.repo)
            out.write(f"daemon running for {repo} (pid {status.pid}, {status.state})\n")
        return EXIT_OK
    if args.action == "stop":
        stopped = stop_daemon(config)
        if args.json:
            out.write(_json({"repo": str(config.repo), "stopped": stopped is not None,
                             "pid": stopped.pid if stopped else None,
                             "how": stopped.how if stopped else None,
                             "why": stopped.why if stopped else ""}) + "\n")
        else:
            out.write(escape_line(_stopped_line(stopped)) + "\n")
        return EXIT_OK
    return run_daemon_status(config, args.json, out)


def _stopped_line(stopped: Stopped | None) -> str:
    if stopped is None:
        return "no daemon was running"
    if stopped.how == "signalled":
        return f"daemon (pid {stopped.pid}) stopped by SIGTERM: {stopped.why}"
    if stopped.how == "killed":
        return (f"daemon (pid {stopped.pid}) killed (SIGKILL): {stopped.why}; the next daemon "
                "re-checks the changes it had not committed")
    return f"daemon (pid {stopped.pid}) stopped"


def run_daemon_status(config: Config, as_json: bool, out: TextIO) -> int:
    """`daemon status`: the daemon's status (0), not running (5) or not answering (7);
    JSON says which by `running` and `answering`."""
    from symfind.daemon.process import running_status

    try:
        status = running_status(config)
    except DaemonNotAnswering as exc:
        if as_json:
            out.write(_json({"repo": str(config.repo), "running": True, "answering": False,
                             "pid": exc.pid, "state": NOT_ANSWERING, "message": str(exc)}) + "\n")
        else:
            out.write(escape_line(f"not answering: {exc}") + "\n")
        return EXIT_NOT_ANSWERING
    if status is None:
        absent = {"repo": str(config.repo), "running": False, "answering": False}
        out.write((_json(absent) if as_json else "not running") + "\n")
        return EXIT_NOT_RUNNING
    if as_json:
        out.write(_json({**msgspec.to_builtins(status), "running": True, "answering": True})
                  + "\n")
    else:
        out.write(_daemon_line(msgspec.to_builtins(status)) + "\n")
    return EXIT_OK


def run_mcp(args: argparse.Namespace) -> int:
    """Replace this process with the MCP server (by process: `daemon` never imports it)."""
    if args.remote is not None:  # the server checks the URL, and that no --repo goes with it
        flags = ["--remote", args.remote, *["--insecure-http"] * args.insecure_http,
                 *[part for repo in args.repo or () for part in ("--repo", repo)]]
        _exec_mcp_server(flags)
    repos = [str(_config_to_index(args, path).repo) for path in args.repo or ["."]]
    flags = [part for repo in dict.fromkeys(repos) for part in ("--repo", repo)]
    flags += ["--force"] * args.force + ["-v"] * min(verbosity(args), 2)
    if args.tool_prefix is not None:
        flags += ["--tool-prefix", args.tool_prefix]  # checked by the server
    _exec_mcp_server(flags)
    return EXIT_OK  # not reached


def run_mcp_command(args: argparse.Namespace) -> int:
    """`serve` and `token`: replace this process with the MCP server's entry point, which
    parses their arguments (by process: `daemon` never imports it)."""
    argv = [args.command, *args.passthrough]
    if args.command == "serve":  # `symfind -v serve`: the -v before the command
        argv += ["-v"] * min(verbosity(args), 2)
    _exec_mcp_server(argv)
    return EXIT_OK  # not reached


def _exec_mcp_server(argv: list[str]) -> None:
    """Replace this process with `python -P -m symfind.mcp_server ARGV`."""
    # Blocked until the server has its handler (it unblocks it): a Ctrl-C while the new
    # interpreter starts is then handled as any other, not a traceback from its start-up.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    # -P: a directory named like our packages in the cwd must not shadow them.
    os.execv(sys.executable, [sys.executable, "-P", "-m", "symfind.mcp_server", *argv])


def _error(message: object) -> None:
    """One line on stderr, control characters escaped (messages quote paths and queries)."""
    print(f"symfind: {escape_line(str(message))}", file=sys.stderr)


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    """Run one `symfind` command; returns the process exit code."""
    return run(parse_args(argv), out)


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the parsed command; returns the process exit code (errors: one line on stderr)."""
    out = out or sys.stdout
    try:
        if args.command in ("index", "reindex"):
            return run_index(args, out, fresh=args.command == "reindex")
        if args.command == "search":
            return run_search(args, out)
        if args.command == "daemon":
            return run_daemon(args, out)
        if args.command == "mcp":
            return run_mcp(args)
        if args.command in ("serve", "token"):
            return run_mcp_command(args)
        return run_status(args, out)
    except DaemonRunning as exc:
        _error(exc)
        return EXIT_LOCKED
    except DaemonNotAnswering as exc:
        _error(exc)
        return EXIT_NOT_ANSWERING
    except ProtocolError as exc:
        _error(f"the daemon broke off the exchange: {exc}")
        return EXIT_NOT_ANSWERING
    except (QueryError, DaemonError, NotARepository) as exc:
        _error(exc)
        return EXIT_USAGE
    except (IndexMissing, SchemaMismatch) as exc:
        _error(exc)
        return EXIT_INDEX
    except IndexLocked as exc:
        _error(exc)
        return EXIT_LOCKED
    except StorageError as exc:
        _error(exc)
        return EXIT_INDEX
    except OSError as exc:  # the index or the repository: permissions, a full disk
        _error(os_error_line(exc))
        return EXIT_IO
    except KeyboardInterrupt:
        if args.command not in ("index", "reindex"):
            print("symfind: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        # Staged changes are rolled back and extraction workers killed on the way out;
        # commits made so far stay, and the next `index` goes on from the last one.
        if sys.stderr.isatty():
            print(file=sys.stderr)  # off the progress bar's line
        print("symfind: interrupted; the index keeps its last commit — run `symfind index` "
              "to go on", file=sys.stderr)
        return EXIT_INTERRUPTED


def os_error_line(exc: OSError) -> str:
    """One line for an OSError: what failed, on which path, and for a full disk the fix."""
    reason = (exc.strerror or str(exc)).lower()
    line = f"{reason}: {exc.filename}" if exc.filename else reason
    if exc.errno == errno.ENOSPC:
        line += " — free some space, then run the command again"
    return line
