"""A lock held by a process that is stopped (SIGSTOP, as Ctrl-Z or a debugger stops it)
while it holds it: what a reader or writer that waits on the lock with no deadline would
wait on forever."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_HOLDER = """
import fcntl, os, signal, sys
lock = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(lock, fcntl.LOCK_EX)
print("held", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""


@contextmanager
def held_by_a_stopped_process(lock: Path) -> Iterator[None]:
    """While in the block, `lock` (created if missing) is flocked by a stopped process;
    killed on the way out."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.kill()
        holder.communicate()
