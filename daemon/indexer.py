"""Bring an index up to date with the files on disk: full builds and incremental updates.

Imports: msgspec, `extract`, `storage`, `daemon` modules.

A file is re-extracted only when its size or mtime changed and its content digest
differs from the manifest. Extraction runs in worker processes for large batches
(tree-sitter holds the GIL while parsing); the single writer stays in this process.
A worker that dies (the OOM killer, a crash in a parser, a signal) ends the run at once
with `ExtractionWorkerDied`, every other worker killed; callers decide whether to retry.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import stat
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Generator, Iterable
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnContext

import msgspec

from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.errors import ExtractionWorkerDied
from symfind.daemon.protocol import IndexReport
from symfind.daemon.walk import (
    Exclusion,
    IgnoreRules,
    directory_excluded,
    file_exclusion,
    is_candidate,
    printable_path,
    walk_repository,
)
from symfind.extract import ExtractError, ParseTimeout, Symbol, UnsupportedLanguage, extract_symbols
from symfind.storage import FileState, IndexWriter, Manifest, file_digest

logger = logging.getLogger(__name__)

# Below this many files, starting worker processes costs more than it saves.
PARALLEL_FROM_FILES = 64
# Files per worker task, and tasks in flight per worker: enough to keep workers busy
# while the writer indexes, few enough to bound the outcomes held in memory.
TASK_FILES = 16
TASKS_IN_FLIGHT_PER_WORKER = 4
# Workers are replaced after this many tasks: parsing a large file leaves its memory high
# water mark behind (the Python and tree-sitter heaps rarely shrink), so long-lived workers
# grow with the repository (to ~0.5 GB each over the Linux kernel). A new pool costs a
# process start per worker, once per ~4,000 files.
TASKS_PER_POOL = 256
COMMIT_EVERY_FILES = 5_000
# `symfind index`: Tantivy writes a segment whenever a commit comes or its heap fills, and
# every search walks every segment's term dictionaries; with 128 MB (~250k symbols) and a
# commit per 5,000 files the Linux kernel ended in 11 segments. The heap is taken as
# documents arrive, so a small repository never uses it.
BULK_HEAP_BYTES = 512_000_000
BULK_COMMIT_EVERY_FILES = 20_000
_BINARY_SNIFF_BYTES = 8192
# Files the walk passes over that are listed one by one with the skipped files (the
# others, ignored files and directories, are the manifest's `excluded` record).
FILE_SKIPS = frozenset({Exclusion.SECRET, Exclusion.BAD_NAME})
_PR_SET_PDEATHSIG = 1  # linux/prctl.h

Progress = Callable[[int, int], None]


class FileOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What processing one file produced: symbols, a skip reason, or 'unchanged'."""

    path: str
    state: FileState | None = None
    symbols: list[Symbol] = []
    skip_reason: str = ""
    unchanged: bool = False


_OUTCOMES_ENCODER = msgspec.msgpack.Encoder()
_OUTCOMES_DECODER = msgspec.msgpack.Decoder(list[FileOutcome])


def _is_minified(data: bytes, max_line_chars: int) -> bool:
    if len(data) <= max_line_chars:
        return False
    # A line longer than max_line_chars covers a whole block of half that length, so only
    # a block without a newline calls for the exact check: one short memchr per block
    # instead of splitting every file into lines.
    step = max(1, max_line_chars // 2)
    if all(data.find(b"\n", start, start + step) >= 0
           for start in range(0, len(data) - step + 1, step)):
        return False
    return any(len(line) > max_line_chars for line in data.split(b"\n"))


def process_file(
    root: str, path: str, options: IndexOptions, previous_digest: str | None
) -> FileOutcome:
    """Read, vet and extract one file. Never raises for a bad file: it returns a reason."""
    full = os.path.join(root, path)
    try:
        info = os.lstat(full)
    except FileNotFoundError:
        return FileOutcome(path=path, skip_reason="vanished")
    except OSError:
        return FileOutcome(path=path, skip_reason="unreadable")
    if stat.S_ISLNK(info.st_mode):
        return FileOutcome(path=path, skip_reason="symlink")
    if not stat.S_ISREG(info.st_mode):
        return FileOutcome(path=path, skip_reason="not_regular")
    if info.st_size > options.max_file_bytes:
        return FileOutcome(path=path, skip_reason="too_large")
    try:
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(options.max_file_bytes + 1)
    except FileNotFoundError:
        return FileOutcome(path=path, skip_reason="vanished")
    except OSError:
        return FileOutcome(path=path, skip_reason="unreadable")
    if len(data) > options.max_file_bytes:  # grew between stat and read
        return FileOutcome(path=path, skip_reason="too_large")
    digest = file_digest(data)
    state = FileState(mtime_ns=info.st_mtime_ns, size=len(data), digest=digest)
    if digest == previous_digest:
        return FileOutcome(path=path, state=state, unchanged=True)
    if b"\0" in data[:_BINARY_SNIFF_BYTES]:
        return FileOutcome(path=path, skip_reason="binary")
    if _is_minified(data, options.max_line_chars):
        return FileOutcome(path=path, skip_reason="minified")
    try:
        symbols = extract_symbols(path, data, deadline_s=options.parse_deadline_s)
    except ParseTimeout:
        return FileOutcome(path=path, skip_reason="parse_timeout")
    except UnsupportedLanguage:
        return FileOutcome(path=path, skip_reason="unsupported")
    except ExtractError:
        logger.exception("cannot extract %s", path)
        return FileOutcome(path=path, skip_reason="parse_error")
    language = symbols[0].language if symbols else ""
    return FileOutcome(
        path=path, state=msgspec.structs.replace(state, language=language), symbols=symbols
    )


def _die_with_parent(parent: int) -> None:
    """Worker start: exit when the indexing process dies (even by SIGKILL)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before we could ask to be told
        os._exit(1)


def process_files(
    root: str, paths: list[str], options: IndexOptions, digests: list[str | None]
) -> bytes:
    """Worker task: `process_file` for each path, the outcomes msgpack-encoded (several
    times cheaper to send between processes than pickled Structs)."""
    return _OUTCOMES_ENCODER.encode(
        [process_file(root, path, options, digest) for path, digest in zip(paths, digests)]
    )


def _work(connection: Connection, parent: int) -> None:
    """An extraction worker's life: run the tasks its pipe brings until the pipe closes."""
    _die_with_parent(parent)
    while True:
        try:
            root, paths, options, digests = connection.recv()
        except EOFError:
            return
        connection.send_bytes(process_files(root, paths, options, digests))


class _Worker:
    """One extraction process with a pipe of its own: tasks go in, results come back in
    the same order. Not concurrent.futures' pool: a worker dying while that pool still
    starts others can leave one it starts afterwards running a task whose result nobody
    reads, and the pool's shutdown then waits for it forever. Here nothing is shared
    between workers, and whatever happens every worker is killed."""

    def __init__(self, context: SpawnContext) -> None:
        self.connection, theirs = context.Pipe()
        # daemon: should the pool's generator never be closed, Python's exit kills them
        # instead of waiting for them.
        self.process = context.Process(target=_work, args=(theirs, os.getpid()), daemon=True)
        try:
            self.process.start()
        except BrokenPipeError as exc:  # it died before it read how to start
            raise ExtractionWorkerDied(f"an extraction worker died as it started ({exc})") from exc
        finally:
            theirs.close()  # the worker holds the only other end: its death ends the pipe

    def send(self, task: tuple[object, ...]) -> None:
        try:
            self.connection.send(task)
        except ConnectionError:
            raise self.died() from None

    def died(self) -> ExtractionWorkerDied:
        """The error that says how this worker, known to be dead or dying, ended."""
        self.stop()
        code = self.process.exitcode or 0
        how = (f"was killed by signal {-code} ({signal.strsignal(-code)})" if code < 0
               else f"exited with code {code}")
        return ExtractionWorkerDied(f"extraction worker (pid {self.process.pid}) {how}")

    def stop(self) -> None:
        self.process.kill()  # a no-op for a worker that is gone already
        self.process.join()
        self.connection.close()


def _result(worker: _Worker, workers: list[_Worker]) -> bytes:
    """`worker`'s next result; raises as soon as any worker dies, whichever it is."""
    sentinels = {other.process.sentinel: other for other in workers}
    ready = wait([worker.connection, *sentinels])
    if worker.connection in ready:
        try:
            return worker.connection.recv_bytes()
        except (EOFError, ConnectionError):
            raise worker.died() from None
    raise sentinels[ready[0]].died()


def _outcomes(
    config: Config, paths: list[str], previous: dict[str, FileState]
) -> Generator[FileOutcome, None, None]:
    root = str(config.repo)

    def digest_of(path: str) -> str | None:
        state = previous.get(path)
        return state.digest if state else None

    if config.workers <= 1 or len(paths) < PARALLEL_FROM_FILES:
        for path in paths:
            yield process_file(root, path, config.options, digest_of(path))
        return
    chunks = [paths[i : i + TASK_FILES] for i in range(0, len(paths), TASK_FILES)]
    for start in range(0, len(chunks), TASKS_PER_POOL):
        tasks = [(chunk, [digest_of(p) for p in chunk])
                 for chunk in chunks[start : start + TASKS_PER_POOL]]
        yield from _pool_outcomes(config, tasks)


def _pool_outcomes(
    config: Config, tasks: list[tuple[list[str], list[str | None]]]
) -> Iterable[FileOutcome]:
    """Run tasks (paths and their previous digests) in fresh worker processes, outcomes in
    task order.

    Raises:
        ExtractionWorkerDied: A worker died; every worker is gone when this is raised.
    """
    root = str(config.repo)
    # spawn, not fork: forking a process that runs Tantivy's threads risks deadlocks.
    context = multiprocessing.get_context("spawn")
    workers: list[_Worker] = []
    try:
        for _ in range(min(config.workers, len(tasks))):
            workers.append(_Worker(context))
        # A bounded window of tasks in flight, consumed in order: outcomes the writer has
        # not taken yet never pile up, whatever the repository's size. Tasks go round the
        # workers, so each worker's pipe returns its results in the window's order.
        window: deque[_Worker] = deque()
        for number, (chunk, digests) in enumerate(tasks):
            worker = workers[number % len(workers)]
            worker.send((root, chunk, config.options, digests))
            window.append(worker)
            if len(window) >= len(workers) * TASKS_IN_FLIGHT_PER_WORKER:
                yield from _OUTCOMES_DECODER.decode(_result(window.popleft(), workers))
        while window:
            yield from _OUTCOMES_DECODER.decode(_result(window.popleft(), workers))
    finally:  # done, failed or abandoned: no worker outlives the pool
        for worker in workers:
            worker.stop()


def _needs_processing(root: str, path: str, previous: dict[str, FileState]) -> bool:
    """Cheap pre-check by size and mtime; skipped files are always looked at again."""
    state = previous.get(path)
    if state is None:
        return True
    try:
        info = os.lstat(os.path.join(root, path))
    except OSError:
        return True
    return not (state.mtime_ns == info.st_mtime_ns and state.size == info.st_size)


def apply_outcome(writer: IndexWriter, outcome: FileOutcome) -> None:
    """Stage one file's outcome in the writer."""
    if outcome.unchanged and outcome.state is not None:
        writer.touch_file(outcome.path, outcome.state)
    elif outcome.skip_reason == "vanished":
        writer.delete_file(outcome.path)
    elif outcome.skip_reason:
        writer.skip_file(outcome.path, outcome.skip_reason)
    elif outcome.state is not None:
        writer.replace_file(outcome.path, outcome.state, outcome.symbols)


def update_index(
    config: Config, *, fresh: bool = False, progress: Progress | None = None
) -> IndexReport:
    """Make the index match the repository: add new/changed files, drop deleted ones.

    Args:
        config: Repository, index location and options.
        fresh: Drop everything first (`symfind reindex`).
        progress: Called with (files done, files to process).

    Raises:
        IndexLocked: Another process (a daemon) writes this index.
        StorageError: The index cannot be created or written.
        ExtractionWorkerDied: An extraction worker died (the index keeps its last commit).
    """
    with IndexWriter(
        config.index_dir,
        repo_root=config.repo,
        options_hash=config.options.fingerprint(),
        fresh=fresh,
        heap_bytes=BULK_HEAP_BYTES,
    ) as writer:
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
                f"{exc}; indexing stopped at the last commit: run it again to go on "
                "(with fewer --workers if memory ran short)"
            ) from exc


def sync_repository(
    writer: IndexWriter,
    config: Config,
    rules: IgnoreRules,
    *,
    progress: Progress | None = None,
    commit_every: int = COMMIT_EVERY_FILES,
) -> IndexReport:
    """Reconcile the index held by `writer` with every file on disk, committing as it goes.

    Raises:
        ExtractionWorkerDied: An extraction worker died; what is staged is left staged.
        StorageError: The index cannot be written.
    """
    started = time.monotonic()
    root = str(config.repo)
    if writer.manifest.generation == 0:
        writer.commit()  # an empty but readable index at once: searches work while we build
    passed_over: dict[str, Exclusion] = {}
    on_disk = list(walk_repository(config.repo, rules, excluded=passed_over))
    recorded = {path: reason for path, reason in passed_over.items() if reason in FILE_SKIPS}
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
    if progress is not None:
        progress(0, len(todo))
    # closing: a failure here (or a progress callback that stops us) ends the workers now,
    # not when the generator happens to be collected.
    with contextlib.closing(_outcomes(config, todo, previous)) as outcomes:
        for done, outcome in enumerate(outcomes, start=1):
            apply_outcome(writer, outcome)
            indexed += outcome.state is not None and not outcome.unchanged
            unchanged += outcome.unchanged
            if writer.staged >= commit_every:
                writer.commit()
            if progress is not None:
                progress(done, len(todo))
    changed = writer.staged or writer.excluded != writer.manifest.excluded
    manifest = writer.commit() if changed else writer.manifest
    return _report(manifest, indexed, unchanged, len(gone), time.monotonic() - started)


def apply_changes(
    writer: IndexWriter, config: Config, rules: IgnoreRules, paths: Iterable[str]
) -> int:
    """Re-check the given repo-relative paths (files that changed, appeared or vanished).

    Returns the number of paths staged; the caller commits.
    """
    root = str(config.repo)
    staged = 0
    for path in sorted(set(paths)):
        key = printable_path(path)
        known = key in writer.files or key in writer.skipped
        if is_candidate(path, rules):
            state = writer.files.get(path)
            outcome = process_file(root, path, config.options, state.digest if state else None)
            if outcome.skip_reason == "vanished" and not known:
                continue
            apply_outcome(writer, outcome)
            staged += 1
        elif (reason := _recorded_skip(path, rules)) and os.path.lexists(os.path.join(root, path)):
            if writer.skipped.get(key) != reason:
                writer.skip_file(key, reason)
                staged += 1
        elif known:
            writer.delete_file(key)
            staged += 1
    return staged


def _recorded_skip(path: str, rules: IgnoreRules) -> Exclusion | None:
    """The reason a file the walk would pass over is listed with the skipped files, if
    it is (a credential file, a name that is not UTF-8)."""
    directory = path.rpartition("/")[0]
    if directory and directory_excluded(directory, rules):
        return None
    reason = file_exclusion(path, rules)
    return reason if reason in FILE_SKIPS else None


def _report(
    manifest: Manifest, indexed: int, unchanged: int, deleted: int, seconds: float
) -> IndexReport:
    return IndexReport(
        files=len(manifest.files),
        indexed=indexed,
        unchanged=unchanged,
        deleted=deleted,
        symbols=sum(state.symbols for state in manifest.files.values()),
        skipped=dict(Counter(manifest.skipped.values())),
        seconds=round(seconds, 3),
        generation=manifest.generation,
    )
