"""Taking an flock without waiting forever. Imports: nothing of ours.

A process stopped (SIGSTOP, Ctrl-Z, a debugger) or hung while it holds a lock keeps it
until it goes on or dies, and `fcntl.flock` waits that long. The locks symfind takes are
held for milliseconds, so one still held after `LOCK_WAIT_S` is reported, not waited on.
"""

from __future__ import annotations

import fcntl
import time

#: How long a lock held for milliseconds is waited for before it is said to be held.
#: As long as a client waits for a daemon's answer by default.
LOCK_WAIT_S = 10.0
_POLL_S = 0.01


def flock_within(fd: int, seconds: float = LOCK_WAIT_S) -> bool:
    """Take an exclusive flock on `fd`, trying for up to `seconds`; False when another
    process held it all that time."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)
