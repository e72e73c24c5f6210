"""Where each repository's index lives, and symfind's cache. Imports: platformdirs only.

`$SYMFIND_INDEX_DIR/<repo name>-<hash of its real path>/`, by default under the user
cache directory (`~/.cache/symfind/indexes/` on Linux). Readers (CLI, MCP server) and the
writer (indexer, daemon) agree on it through this one function. What symfind derives once
per installation and reuses in every process (the question model's tables,
storage/model_files.py) goes in `$SYMFIND_CACHE_DIR`, by default the user cache directory
(`~/.cache/symfind/`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import platformdirs


def index_base_dir() -> Path:
    """Where per-repository indexes live: `$SYMFIND_INDEX_DIR` or the user cache dir."""
    override = os.environ.get("SYMFIND_INDEX_DIR")
    if override:
        return Path(override).expanduser().resolve()
    return Path(platformdirs.user_cache_dir("symfind")) / "indexes"


def cache_dir() -> Path:
    """Where symfind keeps what it derives once and reuses: `$SYMFIND_CACHE_DIR` or the
    user cache dir."""
    override = os.environ.get("SYMFIND_CACHE_DIR")
    if override:
        return Path(override).expanduser().resolve()
    return Path(platformdirs.user_cache_dir("symfind"))


def positive_setting(name: str, default: float, kind: type[float] = float) -> float:
    """The `kind` (int or float) in variable `name`, or `default` when it is unset.

    Raises:
        ValueError: The variable is set but not a positive `kind`.
    """
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = 0
    if not value > 0:
        what = "integer" if kind is int else "number"
        raise ValueError(f"{name} must be a positive {what}, got {raw!r}")
    return value


def index_dir_for(repo: Path) -> Path:
    """The index directory of one repository (`repo` must already be resolved)."""
    digest = hashlib.sha256(str(repo).encode("utf-8")).hexdigest()[:12]
    return index_base_dir() / f"{repo.name or 'root'}-{digest}"
