"""What a daemon loads once it is ready, so that neither its first search nor its first
save waits for it: the index opened for searching (its files' checksums verified), the
grammars and tag queries of the repository's languages, and the word list names are
split with.

Each is paid once per process and otherwise lands on whoever comes first: opening the
kernel's index took 0.45 s; compiling C++'s tag query 0.7 s, TypeScript's 0.1 s; the
word list 0.2 s (bench/history/daemon-and-freshness.md, "A daemon's first search and first
save"). The model for questions in words is not loaded
here: it holds ~130 MB, which a daemon never asked a question should not carry.

Imports: `storage` and `extract` modules.
"""

from __future__ import annotations

import logging
import threading

from symfind.extract import ExtractError
from symfind.storage import IndexSource, StorageError, read_manifest
from symfind.storage.words import load_word_list

logger = logging.getLogger(__name__)


def start_warm_up(source: IndexSource, work_lock: threading.Lock) -> None:
    """Load, in a background thread, what the first search and the first save need."""
    threading.Thread(target=warm_up, args=(source, work_lock), name="symfind-warm-up",
                     daemon=True).start()


def warm_up(source: IndexSource, work_lock: threading.Lock) -> None:
    """Open `source` for searching and load what extracting its files needs, loading only
    under `work_lock` (`WriterSlot.lock`, held by a batch or a re-check while it extracts;
    a file read ahead, `daemon.prefetch`, may be parsed meanwhile: loading a grammar
    makes its own parser and query and touches none in use).
    A failure is logged and left for the search or save that meets it again to report."""
    try:
        with source.reader():
            pass
    except StorageError as exc:
        logger.warning("warm-up: the index was not opened: %s", exc)
    try:
        manifest = read_manifest(source.index_dir)
    except OSError as exc:
        logger.warning("warm-up: the index's file table was not read: %s", exc)
        manifest = None
    languages = sorted({state.language for state in manifest.files.values()
                        if state.language}) if manifest is not None else []
    # Imported here: tree-sitter and the grammars load with it (extract/__init__.py).
    from symfind.extract import load_language

    for language in languages:
        # Under the lock: a save being applied may be loading or parsing meanwhile.
        try:
            with work_lock:
                load_language(language)
        except ExtractError as exc:  # a language this version no longer has: nothing to load
            logger.info("warm-up: %s not loaded: %s", language, exc)
    load_word_list()
    logger.info("warmed up: languages loaded: %s", ", ".join(languages) or "none")
