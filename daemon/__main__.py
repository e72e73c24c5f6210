"""Entry point of `symfind` and `python -m symfind.daemon`: logging set-up, then the CLI."""

from __future__ import annotations

import logging
import sys

from symfind.daemon.cli import main as cli_main
from symfind.storage import EscapingFormatter


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    verbosity = sum(a.count("v") for a in argv if a.startswith("-v") and set(a[1:]) == {"v"})
    verbosity += argv.count("--verbose")
    level = logging.WARNING - 10 * min(verbosity, 2)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(EscapingFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
