"""Where an index lives, its manifest, and opening it safely.

Imports: tantivy, msgspec, `storage` modules.

An index directory holds `tantivy/` (the Tantivy index) and `manifest.json`. The manifest
is replaced atomically (write, fsync, rename), so a reader sees the old or the new one.
"""

from __future__ import annotations

import enum
import os
import tempfile
from pathlib import Path

import msgspec
import tantivy

from symfind.storage.errors import IndexMissing, SchemaMismatch
from symfind.storage.records import Manifest
from symfind.storage.schema import SCHEMA_VERSION, build_schema, register_analyzers

MANIFEST_NAME = "manifest.json"
TANTIVY_DIR = "tantivy"
_MANIFEST_DECODER = msgspec.json.Decoder(Manifest)


class IndexState(enum.StrEnum):
    """What is on disk, compared with what this symfind needs."""

    MISSING = "missing"
    CORRUPT = "corrupt"
    VERSION_MISMATCH = "version-mismatch"
    OPTIONS_MISMATCH = "options-mismatch"
    OK = "ok"


def manifest_path(index_dir: Path) -> Path:
    return index_dir / MANIFEST_NAME


def read_manifest(index_dir: Path) -> Manifest | None:
    """Read the manifest, or None when there is none or it does not decode."""
    try:
        return _MANIFEST_DECODER.decode(manifest_path(index_dir).read_bytes())
    except (FileNotFoundError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def write_manifest(index_dir: Path, manifest: Manifest) -> None:
    """Atomically replace the manifest."""
    write_atomically(manifest_path(index_dir), msgspec.json.encode(manifest))


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` so readers see either the old or the new content."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def index_state(index_dir: Path, options_hash: str | None = None) -> IndexState:
    """Classify the index at `index_dir` (does not open Tantivy)."""
    if not manifest_path(index_dir).exists():
        return IndexState.MISSING
    manifest = read_manifest(index_dir)
    if manifest is None or not (index_dir / TANTIVY_DIR / "meta.json").exists():
        return IndexState.CORRUPT
    if manifest.schema_version != SCHEMA_VERSION:
        return IndexState.VERSION_MISMATCH
    if options_hash is not None and manifest.options_hash != options_hash:
        return IndexState.OPTIONS_MISMATCH
    return IndexState.OK


def check_index(index_dir: Path, options_hash: str | None = None) -> Manifest:
    """Return the manifest of a usable index, or raise why it is not usable.

    Raises:
        IndexMissing: Nothing indexed at `index_dir`.
        SchemaMismatch: Built by another schema version or other options, or damaged.
    """
    state = index_state(index_dir, options_hash)
    if state is IndexState.MISSING:
        raise IndexMissing(f"no index at {index_dir} — run `symfind index` first")
    manifest = read_manifest(index_dir)
    if state is IndexState.VERSION_MISMATCH and manifest is not None:
        raise SchemaMismatch(
            f"index schema v{manifest.schema_version}, symfind needs v{SCHEMA_VERSION}"
            " — run `symfind reindex`"
        )
    if state is IndexState.OPTIONS_MISMATCH:
        raise SchemaMismatch("index was built with other indexing options — run `symfind reindex`")
    if state is IndexState.CORRUPT or manifest is None:
        raise SchemaMismatch(f"index at {index_dir} is damaged — run `symfind reindex`")
    return manifest


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
