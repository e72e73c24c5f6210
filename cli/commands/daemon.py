"""`symfind daemon start|stop|status|run|list`: the per-repository daemon that keeps the
index fresh.

Imports: msgspec, `storage`, `daemon` modules.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import msgspec

from symfind.daemon.client import request
from symfind.cli.commands.arguments import add_force, add_verbose, config_to_index, seconds
from symfind.cli.commands.output import (
    EXIT_NOT_ANSWERING,
    EXIT_NOT_RUNNING,
    EXIT_OK,
    json_answer,
)
from symfind.cli.commands.status import NOT_ANSWERING, daemon_line
from symfind.daemon.config import Config, load_config
from symfind.daemon.errors import DaemonNotAnswering, RepositoryError
from symfind.daemon.protocol import ProtocolError, StatusReply, StatusRequest
from symfind.daemon.registry import daemon_holding, daemon_of, resident_bytes, running_daemons
from symfind.storage import escape_line

if TYPE_CHECKING:
    from symfind.daemon.process import Stopped


def add_parser(commands: argparse._SubParsersAction[Any]) -> None:
    """`daemon`, on the `symfind` parser's subcommands."""
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
        "--lease", type=seconds, metavar="SECONDS",
        help="exit once no MCP server has used it for SECONDS (what `symfind mcp` asks for); "
        "default: stay until stopped",
    )
    add_force(daemon)
    add_verbose(daemon)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from symfind.daemon.process import running_unless_stopping, start_daemon, stop_daemon

    if args.action == "list":
        return _run_list(args, out)
    if args.action in ("start", "run"):
        config = msgspec.structs.replace(config_to_index(args, args.path), lease_s=args.lease)
    else:
        config = _registered_config(_config_to_find(args.path))
    if args.action == "run":
        from symfind.daemon.service import Daemon  # the watcher and extraction: `daemon run` only

        return Daemon(config).run()
    if args.action == "start":
        running = running_unless_stopping(config)
        if running is not None and args.json:  # idempotent: what the MCP server relies on
            out.write(json_answer(running) + "\n")
            return EXIT_OK
        if running is not None:
            out.write(f"daemon already running for {escape_line(running.repo)} "
                      f"(pid {running.pid}, {running.state})\n")
            return EXIT_OK
        status = start_daemon(config)
        if args.json:
            out.write(json_answer(status) + "\n")
        else:
            repo = escape_line(status.repo)
            out.write(f"daemon running for {repo} (pid {status.pid}, {status.state})\n")
        return EXIT_OK
    if args.action == "stop":
        stopped = stop_daemon(config)
        if args.json:
            out.write(json_answer({"repo": str(config.repo), "stopped": stopped is not None,
                                   "pid": stopped.pid if stopped else None,
                                   "how": stopped.how if stopped else None,
                                   "why": stopped.why if stopped else ""}) + "\n")
        else:
            out.write(escape_line(_stopped_line(stopped)) + "\n")
        return EXIT_OK
    return _run_status(config, args.json, out)


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


def _run_list(args: argparse.Namespace, out: TextIO) -> int:
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
        out.write(json_answer({"daemons": rows}) + "\n")
        return EXIT_OK
    out.write(f"{'PID':>8}  {'BY':<4}  {'LEASE':>6}  {'STATE':<13}  {'RSS':>8}  REPOSITORY\n")
    for row in rows:
        rss = f"{row['rss_bytes'] / 2**20:.0f}MiB" if row["rss_bytes"] else "?"
        lease = f"{row['lease_s']:g}s" if row["lease_s"] else "-"
        out.write(f"{row['pid']:>8}  {row['started_by']:<4}  {lease:>6}  {row['state']:<13}  "
                  f"{rss:>8}  {escape_line(str(row['repo']))}\n")
    return EXIT_OK


def _stopped_line(stopped: Stopped | None) -> str:
    if stopped is None:
        return "no daemon was running"
    if stopped.how == "signalled":
        return f"daemon (pid {stopped.pid}) stopped by SIGTERM: {stopped.why}"
    if stopped.how == "killed":
        return (f"daemon (pid {stopped.pid}) killed (SIGKILL): {stopped.why}; the next daemon "
                "re-checks the changes it had not committed")
    return f"daemon (pid {stopped.pid}) stopped"


def _run_status(config: Config, as_json: bool, out: TextIO) -> int:
    """`daemon status`: the daemon's status (0), not running (5) or not answering (7);
    JSON says which by `running` and `answering`."""
    from symfind.daemon.process import running_status

    try:
        status = running_status(config)
    except DaemonNotAnswering as exc:
        if as_json:
            out.write(json_answer({"repo": str(config.repo), "running": True,
                                   "answering": False, "pid": exc.pid, "state": NOT_ANSWERING,
                                   "message": str(exc)}) + "\n")
        else:
            out.write(escape_line(f"not answering: {exc}") + "\n")
        return EXIT_NOT_ANSWERING
    if status is None:
        absent = {"repo": str(config.repo), "running": False, "answering": False}
        out.write((json_answer(absent) if as_json else "not running") + "\n")
        return EXIT_NOT_RUNNING
    if as_json:
        out.write(json_answer({**msgspec.to_builtins(status), "running": True,
                               "answering": True}) + "\n")
    else:
        out.write(daemon_line(msgspec.to_builtins(status)) + "\n")
    return EXIT_OK
