"""The `symfind` command line: index, reindex, search, status, daemon, mcp, serve, token.

Each command is a module of `cli/commands/` (its parser and how it runs); this one
assembles their parsers, runs the command asked for, and turns its errors into one line
on stderr and an exit code.

Imports: `storage`, `daemon` modules. Output goes to stdout; logs,
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
import sys
from collections.abc import Callable
from typing import NoReturn, TextIO

from symfind.cli.commands import daemon, index, mcp, refs, search, serve, status, token
from symfind.cli.commands.arguments import add_verbose, verbosity
from symfind.cli.commands.output import (
    EXIT_INDEX,
    EXIT_INTERRUPTED,
    EXIT_IO,
    EXIT_LOCKED,
    EXIT_NOT_ANSWERING,
    EXIT_USAGE,
    report_error,
)
from symfind.daemon.errors import DaemonError, DaemonNotAnswering, DaemonRunning
from symfind.daemon.protocol import ProtocolError
from symfind.storage import VERSION, IndexLocked, IndexMissing, NotARepository, QueryError
from symfind.storage import SchemaMismatch, StorageError, escape_line

__all__ = ["build_parser", "main", "parse_args", "run", "verbosity"]

#: How each command runs: (parsed arguments, stdout) → exit code.
COMMANDS: dict[str, Callable[[argparse.Namespace, TextIO], int]] = {
    "index": index.run, "reindex": index.run, "search": search.run, "refs": refs.run,
    "status": status.run,
    "daemon": daemon.run, "mcp": mcp.run, "serve": serve.run, "token": token.run,
}


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
    add_verbose(parser)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    index.add_parsers(commands)
    search.add_parser(commands)
    refs.add_parser(commands)
    status.add_parser(commands)
    daemon.add_parser(commands)
    mcp.add_parser(commands)
    serve.add_parser(commands)
    token.add_parser(commands)
    return parser


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line, with PATHs taken wherever they stand (argparse stops filling
    positionals once an option follows one: `search Foo --limit 3 src/`,
    `daemon start --json src/`)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    stray = [arg for arg in extra if not arg.startswith("-")]
    if args.command == "search":
        args.paths += stray
        extra = [arg for arg in extra if arg.startswith("-")]
    elif len(stray) == 1 and getattr(args, "path", "") is None:
        args.path = stray[0]
        extra.remove(stray[0])
    if extra:
        _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _command_parser(parser: argparse.ArgumentParser,
                    args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command `args` ran, whose `--help` a usage error points to."""
    for dest in ("command", "action"):
        commands = [action for action in parser._actions  # noqa: SLF001  # argparse has no API
                    if isinstance(action, argparse._SubParsersAction)]  # noqa: SLF001
        if not commands or getattr(args, dest, None) is None:
            break
        parser = commands[0].choices[getattr(args, dest)]
    return parser


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    """Run one `symfind` command; returns the process exit code."""
    return run(parse_args(argv), out)


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the parsed command; returns the process exit code (errors: one line on stderr)."""
    try:
        return COMMANDS[args.command](args, out or sys.stdout)
    except DaemonRunning as exc:
        report_error(exc)
        return EXIT_LOCKED
    except DaemonNotAnswering as exc:
        report_error(exc)
        return EXIT_NOT_ANSWERING
    except ProtocolError as exc:
        report_error(f"the daemon broke off the exchange: {exc}")
        return EXIT_NOT_ANSWERING
    except (QueryError, DaemonError, NotARepository) as exc:
        report_error(exc)
        return EXIT_USAGE
    except (IndexMissing, SchemaMismatch) as exc:
        report_error(exc)
        return EXIT_INDEX
    except IndexLocked as exc:
        report_error(exc)
        return EXIT_LOCKED
    except StorageError as exc:
        report_error(exc)
        return EXIT_INDEX
    except OSError as exc:  # the index or the repository: permissions, a full disk
        report_error(os_error_line(exc))
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
