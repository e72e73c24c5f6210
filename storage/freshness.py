"""How current an index is, judged from its manifest header and its daemon's status, and
said in one line: what every answer carries (`Freshness`), so that an answer given while
the index is being built, is behind or fails to be updated says so, with the numbers.

Imports: `storage.records`, `storage.manifest`, `storage.contract.daemons`.

The daemon counts what is known to be waiting (`DaemonStatus.pending`: the batch or
catch-up under way and the changes its watcher holds) and what fails (`failing`); without
a daemon only the header speaks: a commit cut short leaves its paths in `pending`, and a
sync (`symfind index`, under way or cut short) the files it had still to index
(`to_index`).
"""

from __future__ import annotations

import time

from symfind.storage.contract.daemons import BUSY_STATES, DaemonState, DaemonStatus
from symfind.storage.manifest import UNCOUNTED, ManifestHeader
from symfind.storage.records import Freshness, FreshnessState

#: Ask again after this long when nothing better is known (a batch being indexed).
RETRY_BEHIND_S = 1.0
RETRY_BUILDING_S = 5.0
#: The longest wait suggested, whatever the estimate.
RETRY_MAX_S = 60.0
#: States in which the daemon builds the index or catches up with the disk.
_STARTING = frozenset({DaemonState.STARTING, DaemonState.CATCHING_UP})


def assess(header: ManifestHeader | None, daemon: DaemonStatus | None, *,
           now: float | None = None) -> Freshness:
    """The freshness of the commit `header` describes, given the live daemon's status
    (None when no daemon runs for the index). `header` None: no commit to read yet, the
    moment a daemon starts building the index (or rebuilding it) before it commits."""
    if header is None:
        header = ManifestHeader(schema_version=0, options_hash="", repo_root="",
                                generation=daemon.generation if daemon else 0)
    base = {"generation": header.generation, "updated_at": header.updated_at,
            "files": header.file_count}
    if daemon is None:
        left = len(header.pending) + max(header.to_index, 0)
        if left or header.to_index == UNCOUNTED:
            return Freshness(**base, pending=left, state=FreshnessState.INCOMPLETE)
        return Freshness(**base, state=FreshnessState.UNWATCHED)
    pending = daemon.pending
    common = {**base, "pending": pending, "watching": True}
    if daemon.failing or daemon.state is DaemonState.ERROR:
        return Freshness(**common, state=FreshnessState.FAILING, failing=daemon.failing,
                         error=daemon.last_error)
    busy = daemon.state in BUSY_STATES
    if busy and (daemon.building or header.file_count == 0):
        return Freshness(**common, state=FreshnessState.BUILDING,
                         retry_after_s=_retry_after(daemon, RETRY_BUILDING_S, now))
    if pending or daemon.state in _STARTING:
        return Freshness(**common, state=FreshnessState.BEHIND,
                         retry_after_s=_retry_after(daemon, RETRY_BEHIND_S, now))
    return Freshness(**common, state=FreshnessState.CURRENT)


def _retry_after(daemon: DaemonStatus, default_s: float, now: float | None) -> float:
    """How long until the work under way is likely done: from the catch-up's pace when it
    has one (files done per second since it started), else `default_s`."""
    done, total = daemon.catch_up_done, daemon.catch_up_total
    elapsed = (time.time() if now is None else now) - daemon.busy_since
    if daemon.state is DaemonState.CATCHING_UP and 0 < done < total and elapsed > 0:
        estimate = (total - done) * elapsed / done
        return round(min(max(estimate, 1.0), RETRY_MAX_S), 1)
    return default_s


def describe(fresh: Freshness) -> str:
    """What an answer from this index may be missing, in one line; "" when the index is
    current."""
    state = fresh.state
    if state is FreshnessState.CURRENT:
        return ""
    if state is FreshnessState.UNWATCHED:
        return (f"no daemon keeps this index up to date: it holds the {fresh.files:,} files "
                "of its last commit, and edits since are not in it — `symfind daemon start` "
                "keeps it fresh")
    if state is FreshnessState.INCOMPLETE:
        left = (f"{fresh.pending:,} files still to index" if fresh.pending
                else "the files to index not counted yet")
        return (f"the index is incomplete: {fresh.files:,} files indexed, {left} — an "
                "indexing run is under way, or was cut short (`symfind index` completes it)")
    if state is FreshnessState.FAILING:
        left = (f"{fresh.failing:,} files are not indexed" if fresh.failing
                else "changes since the last commit may be missing")
        return (f"indexing is failing: {left} ({fresh.error or 'see the daemon log'}); "
                "answers come from the last commit until the cause is fixed")
    retry = f"ask again in {_seconds(fresh.retry_after_s)}"
    if state is FreshnessState.BUILDING:
        to_go = (f"{fresh.pending:,} to go" if fresh.pending
                 else "still listing the repository's files")
        return (f"the index is being built: {fresh.files:,} files indexed so far, {to_go} "
                f"— {retry}")
    if not fresh.pending:
        return f"the daemon is checking which files changed since it last ran — {retry}"
    return f"the index is behind: {fresh.pending:,} changed files are not indexed yet — {retry}"


def is_partial(fresh: Freshness) -> bool:
    """Whether an answer may miss definitions that are on disk now, for a reason known
    (work under way, or failing): what a front end must say alongside the answer."""
    return fresh.state not in (FreshnessState.CURRENT, FreshnessState.UNWATCHED)


def _seconds(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds >= 1.5 else "a second"
