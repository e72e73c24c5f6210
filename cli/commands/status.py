"""`symfind status`: what a repository's index holds and how fresh it is, its daemon's
state, and (`--skipped`) every file and directory not indexed, with why.

Imports: msgspec, `storage`, `daemon` modules.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, TextIO

import msgspec

from symfind.cli.commands.arguments import add_verbose, named_index_missing
from symfind.cli.commands.output import EXIT_OK, json_answer
from symfind.daemon.config import Config, load_config
from symfind.daemon.errors import DaemonNotAnswering
from symfind.storage import (
    SCHEMA_VERSION,
    FileState,
    Freshness,
    IndexMissing,
    Manifest,
    Searcher,
    assess_freshness,
    describe_freshness,
    escape_line,
    is_partial,
    live_daemon_status,
)

#: The state `status`, `daemon status --json` and `daemon list` give a daemon that runs
#: but does not answer.
NOT_ANSWERING = "not_answering"


def add_parser(commands: argparse._SubParsersAction[Any]) -> None:
    """`status`, on the `symfind` parser's subcommands."""
    status = commands.add_parser("status", help="what the index holds and how fresh it is")
    status.add_argument("path", nargs="?", help="repository root (default: the one holding .)")
    status.add_argument("--json", action="store_true", help="JSON output")
    status.add_argument(
        "--skipped", action="store_true",
        help="list every file and directory not indexed, with the reason",
    )
    add_verbose(status)


def run(args: argparse.Namespace, out: TextIO) -> int:
    config = load_config(args.path)
    daemon = None
    try:
        searcher: Searcher | None = Searcher(config.index_dir)  # checks version, readability
    except IndexMissing:
        # No commit yet: no index, unless a live daemon is building it (just started, or
        # rebuilding a damaged index), whose status says how far it is.
        searcher, daemon = None, live_daemon_status(config.index_dir)
        if daemon is None or not is_partial(assess_freshness(None, daemon)):
            raise named_index_missing(config) from None
    manifest = searcher.manifest if searcher else None  # IndexDamaged: a log that does not decode
    not_indexed = _not_indexed(manifest)
    with_errors = _parsed_with_errors(manifest)
    if args.skipped:
        if args.json:
            errors = [{"path": path, "error_regions": state.error_regions,
                       "recovered": state.recovered} for path, state in with_errors.items()]
            listed = {"not_indexed": not_indexed, "parsed_with_errors": errors}
            out.write(json_answer(listed) + "\n")
        else:
            out.writelines(f"{entry['reason']:<13} {entry['path']}\n" for entry in not_indexed)
            out.writelines(
                f"parse_errors  {path} ({state.error_regions} regions not parsed, "
                f"{state.recovered} definitions recovered by re-parsing)\n"
                for path, state in with_errors.items()
            )
        return EXIT_OK
    skipped = _counts(not_indexed, directories=False)
    # What a search's answer would say of this index now (`storage.freshness`).
    if searcher is None:
        fresh = assess_freshness(None, daemon)
    else:
        fresh = searcher.freshness(live_daemon_status(config.index_dir))
    header = searcher.header if searcher is not None else None
    skipped_dirs = _counts(not_indexed, directories=True)
    status = {
        "repo": str(config.repo),
        "index_dir": str(config.index_dir),
        "schema_version": header.schema_version if header else SCHEMA_VERSION,
        "generation": fresh.generation,
        "files": fresh.files,
        "symbols": searcher.num_symbols if searcher else 0,
        "skipped": skipped,
        "skipped_dirs": skipped_dirs,
        "parse_errors": {
            "files": len(with_errors),
            "error_regions": sum(state.error_regions for state in with_errors.values()),
            "recovered": sum(state.recovered for state in with_errors.values()),
        },
        "pending": fresh.pending,
        "freshness": fresh,
        "updated_at": fresh.updated_at,
        # Built by another extraction (an upgrade) or other options: searches answer from
        # it as it is until a writer rebuilds it.
        "extraction_current": header is None or header.options_hash == (
            config.options.fingerprint()),
        "index_bytes": _directory_bytes(config.index_dir),
        "daemon": _daemon_fields(config),
    }
    if args.json:
        out.write(json_answer(status) + "\n")
        return EXIT_OK
    when = (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(status["updated_at"]))
            if status["updated_at"] else "none yet")
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
        f"extraction    {_extraction_text(status['extraction_current'])}\n"
        f"last commit   {when}\n"
        f"freshness     {_freshness_text(status['freshness'])}\n"
        f"daemon        {daemon_line(status['daemon'])}\n"
    )
    if not_indexed:
        out.write("(`symfind status --skipped` lists what was skipped and why)\n")
    return EXIT_OK


def _extraction_text(current: bool) -> str:
    if current:
        return "as this symfind extracts"
    return ("by another version of symfind or other indexing options: answers come from it "
            "as it is until `symfind index` re-reads every file (a daemon does when it starts)")


def _freshness_text(fresh: Freshness) -> str:
    """The freshness a search's answer would carry: its state, and what it may miss."""
    return escape_line(f"{fresh.state}, {fresh.pending:,} pending"
                       + (f" — {describe_freshness(fresh)}" if is_partial(fresh) else ""))


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


def daemon_line(daemon: dict[str, object] | None) -> str:
    """A daemon's status (as `status --json` gives it) in one line; None: none runs."""
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
