"""Entry point of `symfind` and `python -m symfind.cli`: logging set-up, then the CLI.

Imports: the standard library, then (inside `main`) `cli.program` and `storage` (the log formatter).

Ctrl-C ends any command with exit code 130 and no traceback (an index left as of its
last commit); output the terminal's encoding cannot show is written as `\\uXXXX`
escapes instead of failing (`PYTHONIOENCODING=ascii`, a C locale).
"""

from __future__ import annotations

import codecs
import io
import logging
import sys

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


#: Codec error handler of stdout and stderr (registered below).
ESCAPE_ERRORS = "symfind-escape"


def _escape_unencodable(error: UnicodeError) -> tuple[str, int]:
    """`\\uXXXX` for each UTF-16 unit of what the stream cannot encode: readable in a
    table, and still valid JSON in `--json` output (where Python's `\\xXX` is not)."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    units = error.object[error.start : error.end].encode("utf-16-be", "surrogatepass")
    escaped = "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))
    return escaped, error.end


codecs.register_error(ESCAPE_ERRORS, _escape_unencodable)


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors=ESCAPE_ERRORS)
    try:
        # Imported here: a Ctrl-C while the CLI's dependencies load is caught too.
        from symfind.cli.program import parse_args, run, verbosity
        from symfind.storage import EscapingFormatter

        args = parse_args(argv)
        level = logging.WARNING - 10 * min(verbosity(args), 2)
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(EscapingFormatter("%(levelname)s %(name)s: %(message)s"))
        logging.basicConfig(level=level, handlers=[handler])
        return run(args)
    except KeyboardInterrupt:
        print("symfind: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
