"""How long a daemon started for MCP servers stays: until none has used it for its lease.

Imports: `storage.leases`. A daemon started by hand has no lease and waits to be stopped.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from symfind.storage.leases import live_clients

logger = logging.getLogger(__name__)

#: The longest pause between two looks at the clients directory.
MAX_CHECK_EVERY_S = 5.0


def wait_for_stop(stop: threading.Event, index_dir: Path, lease_s: float | None) -> None:
    """Return when `stop` is set, or (with a lease) once no MCP server listed as a client of
    `index_dir` has run for `lease_s` seconds in a row."""
    if not lease_s:
        stop.wait()
        return
    check_every = min(MAX_CHECK_EVERY_S, max(0.1, lease_s / 4))
    last_used = time.monotonic()
    while not stop.wait(check_every):
        if live_clients(index_dir):
            last_used = time.monotonic()
        elif time.monotonic() - last_used >= lease_s:
            logger.info("no MCP server has used this daemon for %gs (its lease): stopping",
                        lease_s)
            return
