"""Bring an index up to date with the files on disk: full builds and incremental updates.

Imports: msgspec, `storage`, `daemon` modules.

A file is re-extracted only when its size, mtime, ctime or inode changed and its content
digest differs from the manifest. Extraction itself is `daemon.extraction` (one file) and
`daemon.workers` (many, in worker processes); this module decides what to re-check and
stages the outcomes in the single writer, which stays in this process.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable

import msgspec

from symfind.daemon.config import Config
from symfind.daemon.errors import ExtractionWorkerDied
from symfind.daemon.extraction import FileOutcome, SkipReason
from symfind.daemon.protocol import IndexReport
from symfind.daemon.walk import (
    LISTED_EXCLUSIONS,
    Exclusion,
    IgnoreRules,
    Relevance,
    judge_path,
    printable_path,
    walk_repository,
)
from symfind.daemon.workers import outcomes
from symfind.storage import FileState, IndexWriter, ManifestHeader
from symfind.storage.manifest import UNCOUNTED
from symfind.storage.rebuild import Rebuild, settle_rebuilds

COMMIT_EVERY_FILES = 5_000
# `symfind index`: Tantivy writes a segment whenever a commit comes or its heap fills, and
# every search walks every segment's term dictionaries; with 128 MB (~250k symbols) and a
# commit per 5,000 files the Linux kernel ended in 11 segments. The heap is taken as
# documents arrive, so a small repository never uses it.
BULK_HEAP_BYTES = 512_000_000
BULK_COMMIT_EVERY_FILES = 20_000

Progress = Callable[[int, int], None]


def _needs_processing(root: str, path: str, previous: dict[str, FileState]) -> bool:
    """Cheap pre-check by what git compares (size, mtime, ctime, inode: `FileState`);
    skipped files are always looked at again."""
    state = previous.get(path)
    if state is None:
        return True
    try:
        info = os.lstat(os.path.join(root, path))
    except OSError:
        return True
    return (state.size, state.mtime_ns, state.ctime_ns, state.inode) != (
        info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def apply_outcome(writer: IndexWriter, outcome: FileOutcome) -> None:
    """Stage one file's outcome in the writer."""
    if outcome.unchanged and outcome.state is not None:
        writer.touch_file(outcome.path, outcome.state)
    elif outcome.skip_reason is SkipReason.VANISHED:
        writer.delete_file(outcome.path)
    elif outcome.skip_reason:
        writer.skip_file(outcome.path, outcome.skip_reason)
    elif outcome.state is not None:
        writer.replace_file(outcome.path, outcome.state, outcome.symbols,
                            language=outcome.language, uses=outcome.uses)


def update_index(
    config: Config, *, fresh: bool = False, progress: Progress | None = None
) -> IndexReport:
    """Make the index match the repository: add new/changed files, drop deleted ones.

    Args:
        config: Repository, index location and options.
        fresh: Build a new index from nothing (`symfind reindex`), beside the old one,
            which readers search until the new one is complete and swapped in
            (`storage.rebuild`): cut short, the old index is kept.
        progress: Called with (files done, files to process).

    Raises:
        IndexLocked: Another process (a daemon) writes this index.
        StorageError: The index cannot be created or written.
        ExtractionWorkerDied: An extraction worker died (the index keeps its last commit).
    """
    options_hash = config.options.fingerprint()
    if fresh:
        with Rebuild(config.index_dir, repo_root=config.repo, options_hash=options_hash,
                     heap_bytes=BULK_HEAP_BYTES) as rebuild:
            assert rebuild.writer is not None
            report = _sync_all(rebuild.writer, config, progress,
                               "the index was not rebuilt and is as it was")
            header = rebuild.swap_in()
        return msgspec.structs.replace(report, generation=header.generation)
    settle_rebuilds(config.index_dir)
    with IndexWriter(
        config.index_dir,
        repo_root=config.repo,
        options_hash=options_hash,
        heap_bytes=BULK_HEAP_BYTES,
    ) as writer:
        return _sync_all(writer, config, progress,
                         "indexing stopped at the last commit: run it again to go on")


def _sync_all(
    writer: IndexWriter, config: Config, progress: Progress | None, kept: str
) -> IndexReport:
    """`sync_repository` for `symfind index` and `reindex`, saying what a dead worker left
    (`kept`).

    Raises:
        ExtractionWorkerDied: An extraction worker died.
        StorageError: The index cannot be written.
    """
    try:
        return sync_repository(
            writer,
            config,
            IgnoreRules(config.repo),
            progress=progress,
            commit_every=BULK_COMMIT_EVERY_FILES,
        )
    except ExtractionWorkerDied as exc:
        raise ExtractionWorkerDied(
            f"{exc}; {kept} (with fewer --workers if memory ran short)"
        ) from exc


def sync_repository(
    writer: IndexWriter,
    config: Config,
    rules: IgnoreRules,
    *,
    progress: Progress | None = None,
    commit_every: int = COMMIT_EVERY_FILES,
    commit_every_max: int | None = None,
) -> IndexReport:
    """Reconcile the index held by `writer` with every file on disk, committing as it goes:
    each time `commit_every` files are staged, an interval that doubles after each commit
    up to `commit_every_max` (when given).

    Raises:
        ExtractionWorkerDied: An extraction worker died; what is staged is left staged.
        StorageError: The index cannot be written.
    """
    started = time.monotonic()
    root = str(config.repo)
    # A first build, or a rebuild from scratch (a damaged index dropped): an empty but
    # readable index at once, so that searches work (and say so) while we build, instead
    # of finding no index until the first commit of files.
    first_build = writer.unpublished
    if first_build:
        writer.commit(to_index=UNCOUNTED)
    passed_over: dict[str, Exclusion] = {}
    on_disk = list(walk_repository(config.repo, rules, excluded=passed_over))
    recorded = {path: reason for path, reason in passed_over.items() if reason in LISTED_EXCLUSIONS}
    present = set(on_disk) | recorded.keys()
    previous = dict(writer.files)
    gone = [p for p in [*previous, *writer.skipped] if p not in present]
    for path in gone:
        writer.delete_file(path)
    for path, reason in recorded.items():
        if writer.skipped.get(path) != reason:
            writer.skip_file(path, reason)
    writer.set_excluded({p: r for p, r in passed_over.items() if p not in recorded})
    suspect = writer.suspect
    todo = [path for path in on_disk if path in suspect or _needs_processing(root, path, previous)]
    if suspect:  # a crash mid-commit: re-extract instead of trusting digests
        previous = {p: s for p, s in previous.items() if p not in suspect}
    indexed = unchanged = 0
    if first_build:
        writer.commit(to_index=len(todo))  # readers learn how much is to come
    if progress is not None:
        progress(0, len(todo))
    # closing: a failure here (or a progress callback that stops us) ends the workers now,
    # not when the generator happens to be collected.
    with contextlib.closing(outcomes(config, todo, previous)) as flow:
        for done, outcome in enumerate(flow, start=1):
            apply_outcome(writer, outcome)
            indexed += outcome.state is not None and not outcome.unchanged
            unchanged += outcome.unchanged
            if writer.staged >= commit_every:
                writer.commit(to_index=len(todo) - done)  # what readers are told is left
                commit_every = max(commit_every, min(2 * commit_every, commit_every_max or 0))
            if progress is not None:
                progress(done, len(todo))
    complete = not (writer.staged or writer.excluded_staged or writer.header.to_index)
    header = writer.header if complete else writer.commit(to_index=0)
    return _report(writer, header, indexed, unchanged, len(gone), time.monotonic() - started)


def apply_changes(
    writer: IndexWriter, config: Config, rules: IgnoreRules, paths: Iterable[str],
    ready: Callable[[str, str | None], FileOutcome | None] | None = None,
) -> int:
    """Re-check the given repo-relative paths (files that changed, appeared or vanished);
    many of them are extracted in worker processes, as a full sync would, and a few may
    have been read ahead (`ready`: see `workers.outcomes`).

    Returns the number of paths staged; the caller commits.

    Raises:
        ExtractionWorkerDied: An extraction worker died; what is staged is left staged.
    """
    root = str(config.repo)
    staged = 0
    candidates = []
    for path in sorted(set(paths)):
        key = printable_path(path)
        relevance, reason = judge_path(path, rules=rules)
        if relevance is Relevance.INDEXED:
            candidates.append(path)
        elif relevance is Relevance.LISTED and reason and os.path.lexists(os.path.join(root, path)):
            if writer.skipped.get(key) != reason:
                writer.skip_file(key, reason)
                staged += 1
        elif key in writer.files or key in writer.skipped:
            writer.delete_file(key)
            staged += 1
    with contextlib.closing(outcomes(config, candidates, writer.files, ready)) as flow:
        for outcome in flow:
            known = outcome.path in writer.files or outcome.path in writer.skipped
            if outcome.skip_reason is SkipReason.VANISHED and not known:
                continue
            apply_outcome(writer, outcome)
            staged += 1
    return staged


def _report(
    writer: IndexWriter, header: ManifestHeader, indexed: int, unchanged: int, deleted: int,
    seconds: float,
) -> IndexReport:
    return IndexReport(
        files=header.file_count,
        indexed=indexed,
        unchanged=unchanged,
        deleted=deleted,
        symbols=header.symbol_count,
        skipped=dict(Counter(writer.skipped.values())),
        seconds=round(seconds, 3),
        generation=header.generation,
    )
