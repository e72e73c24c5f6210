"""How long a daemon started for MCP servers stays: until none has used it for its lease.

Imports: `storage.contract.leases`. A daemon started by hand has no lease and waits to be stopped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from symfind.storage.contract.leases import live_clients

logger = logging.getLogger(__name__)

#: The longest pause between two looks at the clients directory.
MAX_CHECK_EVERY_S = 5.0


def wait_for_stop(
    stop: threading.Event, index_dir: Path, lease_s: float | None, *,
    wake: threading.Event, every_s: float, on_wake: Callable[[], None],
) -> None:
    """Call `on_wake` every `every_s` seconds and whenever `wake` is set, until `stop` is
    set or (with a lease) no MCP server listed as a client of `index_dir` has run for
    `lease_s` seconds in a row."""
    if lease_s:
        every_s = min(every_s, MAX_CHECK_EVERY_S, max(0.1, lease_s / 4))
    last_used = time.monotonic()
    while not stop.is_set():
        wake.wait(every_s)
        wake.clear()
        if stop.is_set():
            return
        on_wake()
        if not lease_s:
            continue
        if live_clients(index_dir):
            last_used = time.monotonic()
        elif time.monotonic() - last_used >= lease_s:
            logger.info("no MCP server has used this daemon for %gs (its lease): stopping",
                        lease_s)
            return
