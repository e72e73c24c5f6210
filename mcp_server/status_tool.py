"""The index_status tool, and the index's freshness every answer reports.

Imports: mcp, msgspec, `storage`, `mcp_server` modules.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated

import msgspec
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from symfind.mcp_server import render
from symfind.mcp_server.calls import answer, repository, roots
from symfind.mcp_server.models import (
    Freshness,
    IndexStatus,
    IndexStatusName,
    RepoIndexStatus,
    ReposIndexStatus,
    StatusName,
)
from symfind.mcp_server.state import Activity, IndexBuilding, Repository
from symfind.storage import Freshness as IndexFreshness
from symfind.storage import Manifest, StorageError, describe_freshness


def index_status(ctx: Context) -> Annotated[CallToolResult, IndexStatus]:
    """Use when searches say the index is building or stale, or before relying on results
    after big changes: reports whether the index exists, how many files and symbols it holds
    (by language), what was skipped and why, pending changes, and whether a daemon keeps it
    up to date as files change.
    """
    out = status_of(repository(ctx))
    return answer(out, render.status_text(out))


def index_status_repos(ctx: Context) -> Annotated[CallToolResult, ReposIndexStatus]:
    """index_status on a server with several repositories (its description is
    index_status's plus `tools.SEVERAL_STATUS`): one status per repository."""
    out = ReposIndexStatus(repos=[
        RepoIndexStatus(label=label, **dict(status_of(repo)))
        for label, repo in roots(ctx).repos.items()
    ])
    return answer(out, render.repos_status_text(out))


def freshness(fresh: IndexFreshness, activity: Activity) -> Freshness:
    """How current the index is (`storage.freshness`'s verdict on the commit an answer
    came from), given what is changing it now."""
    fields = msgspec.structs.asdict(fresh)
    del fields["error"]  # said in the message
    return Freshness(status=StatusName.INDEXING if activity.indexing else StatusName.READY,
                     message=describe_freshness(fresh), **fields)


def status_of(repo: Repository) -> IndexStatus:
    """The repository's index status; never raises for an index that is not usable."""
    activity = repo.activity()
    try:
        with repo.reader() as searcher:
            manifest = searcher.manifest
            symbols = searcher.num_symbols
            fresh = freshness(searcher.freshness(activity.daemon), activity)
    except IndexBuilding as exc:
        state = StatusName.INDEXING if activity.indexing else StatusName.MISSING
        return _empty_status(repo, state, str(exc))
    except StorageError as exc:
        return _empty_status(repo, StatusName.UNUSABLE, str(exc))
    message = fresh.message or (
        "index is being updated now" if fresh.status == StatusName.INDEXING
        else "index is ready; a daemon keeps it up to date as files change"
    )
    return IndexStatus(
        repo=str(repo.root),
        status=fresh.status,
        message=message,
        generation=manifest.generation,
        files=len(manifest.files),
        symbols=symbols,
        skipped=dict(sorted(Counter(manifest.skipped.values()).items())),
        languages=_languages(manifest),
        pending=fresh.pending,
        watching=activity.watching,
        indexing=activity.indexing,
        updated_at=manifest.updated_at,
        state=fresh.state,
        failing=fresh.failing,
    )


def _empty_status(repo: Repository, status: IndexStatusName, message: str) -> IndexStatus:
    activity = repo.activity()
    return IndexStatus(
        repo=str(repo.root), status=status, message=message, generation=0, files=0, symbols=0,
        skipped={}, languages={}, pending=activity.pending, watching=activity.watching,
        indexing=activity.indexing, updated_at=0.0, state=None, failing=0,
    )


def _languages(manifest: Manifest) -> dict[str, int]:
    counts = Counter(state.language for state in manifest.files.values() if state.language)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
