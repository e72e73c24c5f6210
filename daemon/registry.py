"""The per-user registry of running daemons: `symfind daemon list`, and how `daemon stop`
finds a daemon whatever `SYMFIND_INDEX_DIR` says.

Imports: msgspec, psutil, `storage`, `daemon` modules.

Each daemon writes `<runtime dir>/daemons/<pid>.json` once it serves (its repository,
index directory, start time, and whether it was started by hand or for an MCP server) and
removes it when it stops. The runtime dir is `$SYMFIND_RUNTIME_DIR`, else the user's
runtime directory (`$XDG_RUNTIME_DIR/symfind`), else `<temp dir>/symfind-<uid>`; it is
created 0700 and refused unless it is a real directory owned by the user and closed to
others. An entry whose process is gone (a daemon killed outright) is removed by readers:
the process start time tells a live daemon from a later process that got the same pid.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path

import msgspec

from symfind.daemon.client import private_dir, runtime_base
from symfind.storage.contract.leases import is_running, process_started_at

RUNTIME_VARIABLE = "SYMFIND_RUNTIME_DIR"


class StartedBy(StrEnum):
    HAND = "hand"  # `symfind daemon start` / `daemon run`: stays until stopped
    MCP = "mcp"  # started for an MCP server: exits once no MCP server used it for its lease


class DaemonEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One running daemon as it registered itself."""

    pid: int
    repo: str
    index_dir: str
    started_by: StartedBy
    #: Seconds without an MCP server before it exits; None: never.
    lease_s: float | None = None
    #: Process start time (seconds since the epoch), to tell it from a reused pid.
    started_at: float


_DECODER = msgspec.json.Decoder(DaemonEntry)


def runtime_dir() -> Path:
    """The user's registry directory, created if need be.

    Raises:
        UnsafeSocketDirectory: It exists but is not a private directory of this user.
    """
    directory = _registry_dir(create=True)
    assert directory is not None  # created, or refused
    return directory


def _registry_dir(*, create: bool) -> Path | None:
    """The user's registry directory; None when it does not exist and was not to be made.

    Raises:
        UnsafeSocketDirectory: It exists but is not a private directory of this user.
    """
    override = os.environ.get(RUNTIME_VARIABLE, "").strip()
    base = Path(override).expanduser() if override else runtime_base()
    daemons = base / "daemons"
    if not private_dir(base, create=create, parents=True):
        return None
    return daemons if private_dir(daemons, create=create) else None


def register(entry: DaemonEntry) -> Path:
    """Write this daemon's entry; the file to remove when it stops.

    Raises:
        UnsafeSocketDirectory: The registry directory is not private.
        OSError: It cannot be written.
    """
    path = runtime_dir() / f"{entry.pid}.json"
    staging = path.with_suffix(".tmp")
    staging.write_bytes(msgspec.json.encode(entry))
    staging.replace(path)
    return path


def this_process(repo: Path, index_dir: Path, lease_s: float | None) -> DaemonEntry:
    pid = os.getpid()
    return DaemonEntry(
        pid=pid, repo=str(repo), index_dir=str(index_dir),
        started_by=StartedBy.MCP if lease_s else StartedBy.HAND, lease_s=lease_s,
        started_at=process_started_at(pid) or 0.0,
    )


def running_daemons() -> list[DaemonEntry]:
    """Every registered daemon whose process still runs, by repository then pid (entries
    of processes that are gone are removed).

    Raises:
        UnsafeSocketDirectory: The registry directory is not private.
    """
    directory = _registry_dir(create=False)  # a reader leaves nothing behind
    found: list[DaemonEntry] = []
    for path in directory.glob("*.json") if directory is not None else ():
        try:
            entry = _DECODER.decode(path.read_bytes())
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            continue
        if is_running(entry.pid, entry.started_at):
            found.append(entry)
        else:
            path.unlink(missing_ok=True)
    return sorted(found, key=lambda entry: (entry.repo, entry.pid))


def daemon_of(repo: Path) -> DaemonEntry | None:
    """The running daemon registered for `repo`, whatever index directory it uses."""
    return next((entry for entry in running_daemons() if entry.repo == str(repo)), None)


def find_daemon(repo: Path, index_dir: Path) -> DaemonEntry | None:
    """The running daemon registered for `repo` or for the index at `index_dir`."""
    return next((entry for entry in running_daemons()
                 if entry.repo == str(repo) or Path(entry.index_dir) == index_dir), None)


def daemon_holding(path: Path) -> DaemonEntry | None:
    """The running daemon of the repository at `path` or holding it (the innermost one),
    also when that directory no longer exists."""
    holding = [entry for entry in running_daemons()
               if Path(entry.repo) == path or Path(entry.repo) in path.parents]
    return max(holding, key=lambda entry: len(entry.repo), default=None)


def resident_bytes(pid: int) -> int | None:
    """The process's resident memory (RSS); None when it cannot be read."""
    import psutil  # noqa: PLC0415  # here: psutil costs a cold `symfind search` ~10 ms

    try:
        return int(psutil.Process(pid).memory_info().rss)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None
