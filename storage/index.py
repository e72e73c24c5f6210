"""What an index directory holds, whether it is usable, and opening it safely.

Imports: tantivy, `storage` modules.

An index directory holds `tantivy/` (the Tantivy index), `manifest.json` and the log of
file states it names (`storage.manifest`). Telling whether an index is usable reads the
header only: it costs the same for ten files or a hundred thousand.
"""

from __future__ import annotations

import enum
from pathlib import Path

import tantivy

from symfind.storage.errors import IndexMissing, SchemaMismatch
from symfind.storage.manifest import ManifestHeader, log_intact, manifest_path, read_header
from symfind.storage.schema import SCHEMA_VERSION, build_schema, register_analyzers

TANTIVY_DIR = "tantivy"


class IndexState(enum.StrEnum):
    """What is on disk, compared with what this symfind needs."""

    MISSING = "missing"
    CORRUPT = "corrupt"
    VERSION_MISMATCH = "version-mismatch"
    OPTIONS_MISMATCH = "options-mismatch"
    OK = "ok"


def index_state(index_dir: Path, options_hash: str | None = None) -> IndexState:
    """Classify the index at `index_dir` (does not open Tantivy)."""
    if not manifest_path(index_dir).exists():
        return IndexState.MISSING
    header = read_header(index_dir)
    if header is None or not (index_dir / TANTIVY_DIR / "meta.json").exists():
        return IndexState.CORRUPT
    if header.schema_version != SCHEMA_VERSION:
        return IndexState.VERSION_MISMATCH
    if not log_intact(index_dir, header):
        return IndexState.CORRUPT
    if options_hash is not None and header.options_hash != options_hash:
        return IndexState.OPTIONS_MISMATCH
    return IndexState.OK


def check_index(index_dir: Path, options_hash: str | None = None) -> ManifestHeader:
    """Return the manifest header of a usable index, or raise why it is not usable.

    Raises:
        IndexMissing: Nothing indexed at `index_dir`.
        SchemaMismatch: Built by another schema version or other options, or damaged.
    """
    state = index_state(index_dir, options_hash)
    if state is IndexState.MISSING:
        raise IndexMissing(f"no index at {index_dir} — run `symfind index` first")
    header = read_header(index_dir)
    if state is IndexState.VERSION_MISMATCH and header is not None:
        raise SchemaMismatch(
            f"index schema v{header.schema_version}, symfind needs v{SCHEMA_VERSION}"
            " — run `symfind reindex`"
        )
    if state is IndexState.OPTIONS_MISMATCH:
        raise SchemaMismatch("index was built with other indexing options — run `symfind reindex`")
    if state is IndexState.CORRUPT or header is None:
        raise SchemaMismatch(f"index at {index_dir} is damaged — run `symfind reindex`")
    return header


def open_tantivy(index_dir: Path, *, create: bool = False) -> tantivy.Index:
    """Open (or create) the Tantivy index and register the analyzers it needs."""
    directory = index_dir / TANTIVY_DIR
    if create:
        directory.mkdir(parents=True, exist_ok=True)
    elif not (directory / "meta.json").exists():
        raise IndexMissing(f"no index at {index_dir} — run `symfind index` first")
    try:
        index = tantivy.Index(build_schema(), path=str(directory), reuse=True)
    except ValueError as exc:  # unreadable meta.json or segments
        raise SchemaMismatch(f"index at {index_dir} is damaged — run `symfind reindex`") from exc
    register_analyzers(index)
    return index
