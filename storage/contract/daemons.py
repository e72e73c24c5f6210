"""What a repository's daemon and the index's readers agree on, in one place.

`daemon/` writes the status file and answers status requests with `DaemonStatus`;
`mcp_server/` (which may import only `storage`) reads that file to learn whether a live
daemon keeps the index fresh, and starts one when none runs. Both start a daemon the same
way, by process (`python -P -m symfind.cli ...`), never by import: `spawn_daemon`.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    import subprocess

#: The daemon rewrites this file in the index directory, atomically, after every batch.
STATUS_NAME = "status.json"


class DaemonState(enum.StrEnum):
    """What a daemon is doing."""

    STARTING = "starting"
    CATCHING_UP = "catching_up"  # the initial sync with what changed while none ran
    IDLE = "idle"
    INDEXING = "indexing"
    STOPPING = "stopping"
    #: The index cannot be brought up to date; searches still work (on the last commit).
    ERROR = "error"


#: A search waits at most this long for changes the daemon has already seen (a file just
#: saved) to be committed, so that its answer holds them; past it, the answer says what
#: is pending (`storage.freshness`). Only for a few files (`settling`): a branch switch or
#: a catch-up takes longer, and every search would pay the wait.
FRESH_WAIT_S = 1.0
FRESH_WAIT_MAX_FILES = 200

#: States in which a batch may be running.
BUSY_STATES = frozenset({DaemonState.STARTING, DaemonState.CATCHING_UP, DaemonState.INDEXING})
_SETTLING_STATES = frozenset({DaemonState.IDLE, DaemonState.INDEXING})


class DaemonStatus(msgspec.Struct, frozen=True, kw_only=True):
    """What a running daemon reports (also written to `STATUS_NAME` after each batch).

    Attributes:
        state: See `DaemonState`.
        pending: Changed files known but not committed yet: those of the batch or
            catch-up under way, and those the watcher holds for the next batch.
        watch: How changes are noticed: the native observer (`inotify`, `fsevents`, ...)
            or `polling` (native notifications unavailable or their limits reached).
        errors: Indexing failures the daemon recovered from (or not: see `state`).
        last_error: The latest of them, with what was being done.
        failing: Files known to be left out of the index because indexing fails (the
            last attempt's; 0 once one succeeds).
        building: The work under way builds the index (a first build, a rebuild), rather
            than bringing a complete one up to date.
        busy_since: Unix time the work under way started (0 when idle).
    """

    pid: int
    repo: str
    state: DaemonState
    pending: int = 0
    files: int = 0
    symbols: int = 0
    skipped: dict[str, int] = {}
    generation: int = 0
    updated_at: float = 0.0
    started_at: float = 0.0
    schema_version: int = 0
    catch_up_done: int = 0
    catch_up_total: int = 0
    watch: str = ""
    errors: int = 0
    last_error: str = ""
    failing: int = 0
    building: bool = False
    busy_since: float = 0.0


_STATUS_DECODER = msgspec.json.Decoder(DaemonStatus)


def settling(status: DaemonStatus) -> bool:
    """Whether a search should wait (FRESH_WAIT_S at most) for the daemon's pending
    changes: a few files being indexed after an edit — not a build, a catch-up, a branch
    switch or a failure, whose answers say what they miss instead."""
    return (0 < status.pending <= FRESH_WAIT_MAX_FILES and not status.building
            and not status.failing and status.state in _SETTLING_STATES)


def live_daemon_status(index_dir: Path) -> DaemonStatus | None:
    """The last status of the daemon serving the index in `index_dir`; None when none
    runs (no status file, one that cannot be read, a daemon stopping or gone)."""
    try:
        status = _STATUS_DECODER.decode((index_dir / STATUS_NAME).read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if status.state is DaemonState.STOPPING or not pid_alive(status.pid):
        return None
    return status


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (another user's counts)."""
    if pid <= 0:  # 0 and negative pids would name process groups
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def spawn_daemon(action: str, repo: Path, log_path: Path, *, verbose: bool = False,
                 options: Sequence[str] = ()) -> subprocess.Popen[bytes]:
    """Run `symfind daemon ACTION [OPTIONS] REPO` as a detached process, its output
    appended to `log_path`.

    It gets its own session, so that a Ctrl-C meant for its parent (a shell, an MCP host)
    does not stop it in the middle of a commit.

    Raises:
        OSError: The log cannot be opened or the process cannot be started.
    """
    import subprocess  # noqa: PLC0415  # here: a cold `symfind search` never spawns

    # -P: a directory named like our packages in the cwd must not shadow them.
    command = [sys.executable, "-P", "-m", "symfind.cli", *(["-v"] if verbose else []),
               "daemon", action, *options, str(repo)]
    with open(log_path, "ab") as log:
        return subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            start_new_session=True, close_fds=True,
        )
