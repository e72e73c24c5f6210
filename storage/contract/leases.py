"""Which MCP servers use a repository's index: the lease of a daemon started for them.

Imports: psutil, `storage.location`.

Each MCP server writes `<index dir>/clients/<pid>` (holding its process start time) while
it serves the repository, and removes it when it ends. A daemon started on behalf of an
MCP server (`daemon start --lease SECONDS`) reads the directory now and then: once no
listed process has been alive for SECONDS, it commits and exits. A server killed
outright leaves its file behind; the start time tells it from a later process that got
the same pid, and readers remove such files.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from symfind.storage.location import positive_setting

logger = logging.getLogger(__name__)

CLIENTS_DIR = "clients"
#: `symfind mcp`'s daemon exits this long after its last MCP server ended
#: (`$SYMFIND_DAEMON_LEASE` seconds overrides it).
DEFAULT_LEASE_S = 600.0
LEASE_VARIABLE = "SYMFIND_DAEMON_LEASE"


def process_started_at(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch); None when there is none."""
    import psutil  # noqa: PLC0415  # here: psutil costs a cold `symfind search` ~10 ms

    try:
        return psutil.Process(pid).create_time()
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return None


def is_running(pid: int, started_at: float) -> bool:
    """Whether `pid` is still the process that started at `started_at` (a zombie, ended
    but not reaped by a parent that never waits, is not)."""
    import psutil  # noqa: PLC0415  # here: psutil costs a cold `symfind search` ~10 ms

    try:
        process = psutil.Process(pid)
        return process.create_time() == started_at and process.status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return False


def register_client(index_dir: Path) -> Path:
    """List this process as a client of the index at `index_dir`; the file to remove.

    Raises:
        FileNotFoundError: `index_dir` does not exist (it is not created here: a server
            that indexes nothing leaves nothing behind).
        OSError: The index directory cannot be written.
    """
    clients = index_dir / CLIENTS_DIR
    clients.mkdir(exist_ok=True, mode=0o700)
    entry = clients / str(os.getpid())
    entry.write_text(repr(process_started_at(os.getpid())), encoding="utf-8")
    return entry


def live_clients(index_dir: Path) -> list[int]:
    """The pids of the processes listed as clients that still run (stale entries removed)."""
    try:
        entries = list((index_dir / CLIENTS_DIR).iterdir())
    except OSError:
        return []
    alive: list[int] = []
    for entry in entries:
        try:
            pid, started_at = int(entry.name), float(entry.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # being written, or not ours
        if is_running(pid, started_at):
            alive.append(pid)
        else:
            entry.unlink(missing_ok=True)
    return sorted(alive)


def lease_from_env() -> float:
    """`$SYMFIND_DAEMON_LEASE` (seconds, > 0), else DEFAULT_LEASE_S.

    Raises:
        ValueError: The variable is set but not a positive number.
    """
    return positive_setting(LEASE_VARIABLE, DEFAULT_LEASE_S)
