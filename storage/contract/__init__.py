"""contract: what a repository's daemon and the index's readers (the CLI, MCP servers)
agree on, apart from the index itself: the status file and how a daemon is started
(`contract.daemons`), the leases MCP servers hold on a daemon started for them
(`contract.leases`), and which directory is a repository (`contract.roots`).

Both sides import it (most names through `storage`, which re-exports them); neither imports
the other.
"""

from symfind.storage.contract.daemons import (
    BUSY_STATES,
    FRESH_WAIT_S,
    STATUS_NAME,
    DaemonState,
    DaemonStatus,
    live_daemon_status,
    pid_alive,
    settling,
    spawn_daemon,
)
from symfind.storage.contract.roots import DEFAULT_MAX_FILES, VCS_MARKERS, check_root, find_root

__all__ = [
    "BUSY_STATES",
    "DEFAULT_MAX_FILES",
    "FRESH_WAIT_S",
    "STATUS_NAME",
    "VCS_MARKERS",
    "DaemonState",
    "DaemonStatus",
    "check_root",
    "find_root",
    "live_daemon_status",
    "pid_alive",
    "settling",
    "spawn_daemon",
]
