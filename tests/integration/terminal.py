"""What a command started from a terminal has that one started by a test may not."""

from __future__ import annotations

import signal


def as_from_a_terminal() -> None:
    """`preexec_fn` for a process a test sends Ctrl-C (SIGINT) to: SIGINT at its default,
    as in a terminal's foreground job. A test run started in the background (`cmd &` in a
    script, as CI runners may) has SIGINT ignored, and a child inherits that (Python then
    leaves it ignored, as it should), so Ctrl-C would never reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
