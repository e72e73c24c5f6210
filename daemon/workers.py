"""The extraction worker pool: files extracted in worker processes, outcomes in order.

tree-sitter holds the GIL while parsing, so large batches are extracted in processes of
their own; the single writer stays in the calling process. A worker that dies (the OOM
killer, a crash in a parser, a signal) ends the run at once with `ExtractionWorkerDied`,
every other worker killed; callers decide whether to retry.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnContext

import msgspec

from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.errors import ExtractionWorkerDied
from symfind.daemon.extraction import FileOutcome, process_file
from symfind.storage import FileState

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
_PR_SET_PDEATHSIG = 1  # linux/prctl.h

_OUTCOMES_ENCODER = msgspec.msgpack.Encoder()
_OUTCOMES_DECODER = msgspec.msgpack.Decoder(list[FileOutcome])


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
    # Ctrl-C reaches the whole process group; the indexing process alone handles it (and
    # kills us). Started with SIGINT blocked (`_sigint_held`), so none arrives before this.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
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


def outcomes(
    config: Config, paths: list[str], previous: dict[str, FileState],
    ready: Callable[[str, str | None], FileOutcome | None] | None = None,
) -> Generator[FileOutcome, None, None]:
    """Process `paths` (their previous states in `previous`), outcomes in the order of
    `paths`: in this process for few files or `workers=1`, else in worker processes.
    In this process, `ready(path, digest)` may have the outcome already (the daemon's
    `Prefetch.take`: the file read ahead while its batch waited).

    Raises:
        ExtractionWorkerDied: A worker died; every worker is gone when this is raised.
    """
    root = str(config.repo)

    def digest_of(path: str) -> str | None:
        state = previous.get(path)
        return state.digest if state else None

    if config.workers <= 1 or len(paths) < PARALLEL_FROM_FILES:
        for path in paths:
            digest = digest_of(path)
            taken = ready(path, digest) if ready is not None else None
            yield taken if taken is not None else process_file(root, path, config.options,
                                                               digest)
        return
    chunks = [paths[i : i + TASK_FILES] for i in range(0, len(paths), TASK_FILES)]
    for start in range(0, len(chunks), TASKS_PER_POOL):
        tasks = [(chunk, [digest_of(p) for p in chunk])
                 for chunk in chunks[start : start + TASKS_PER_POOL]]
        yield from _pool_outcomes(config, tasks)


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """Ctrl-C held off while worker processes start, then taken as it would have been.

    SIGINT is blocked in this thread, so each worker inherits the mask and cannot die of a
    Ctrl-C before it ignores SIGINT (`_work`). Another thread (the lease's, Tantivy's) may
    still take the signal, and Python then raises KeyboardInterrupt here at once, between
    a worker's start and its listing in the pool, leaving it unkilled with half its start
    data: so in the main thread the handler is held too, and called after, once every
    started worker is in the pool and is killed on the way out. The first process started
    also starts multiprocessing's resource tracker, after which CPython unblocks SIGINT
    whatever the mask was (`resource_tracker.ensure_running`): it is started first.
    """
    resource_tracker.ensure_running()
    caught: list[int] = []
    held = threading.current_thread() is threading.main_thread()
    if held:
        handler = signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # a pending one arrives now
        if held:
            signal.signal(signal.SIGINT, handler)
            if caught and callable(handler):
                handler(signal.SIGINT, None)  # Python's default raises KeyboardInterrupt


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
        with _sigint_held():
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
