"""What every command's output shares: the exit codes, a `--json` answer, the error line.

Imports: msgspec, `storage`. Answers go to stdout; errors, one line each, to stderr.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec

from symfind.storage import VERSION, escape_line

EXIT_OK, EXIT_USAGE, EXIT_INDEX, EXIT_LOCKED, EXIT_NOT_RUNNING, EXIT_IO = 0, 2, 3, 4, 5, 6
EXIT_NOT_ANSWERING = 7
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command Ctrl-C stopped
JSON = msgspec.json.Encoder()


def json_answer(value: Any) -> str:
    """One `--json` answer: `value` (a Struct or a dict) with the symfind version that made it."""
    fields = value if isinstance(value, dict) else msgspec.to_builtins(value)
    return JSON.encode({**fields, "symfind_version": VERSION}).decode()


def report_error(message: object) -> None:
    """One line on stderr, control characters escaped (messages quote paths and queries)."""
    print(f"symfind: {escape_line(str(message))}", file=sys.stderr)
