"""daemon: repository walking, incremental indexing and the `symfind` CLI.

Imports: `extract` and `storage`. Nothing imports `daemon`.
"""

from typing import TYPE_CHECKING

from symfind.daemon.config import Config, IndexOptions, load_config
from symfind.daemon.errors import DaemonError, RepositoryError

if TYPE_CHECKING:
    from symfind.daemon.indexer import IndexReport, update_index


def __getattr__(name: str) -> object:
    # The indexer pulls in tree-sitter and multiprocessing: loaded when first asked for,
    # so that `symfind search` (which imports this package) starts faster.
    if name in ("IndexReport", "update_index"):
        from symfind.daemon import indexer

        return getattr(indexer, name)
    raise AttributeError(f"module 'daemon' has no attribute {name!r}")

__all__ = [
    "Config",
    "DaemonError",
    "IndexOptions",
    "IndexReport",
    "RepositoryError",
    "load_config",
    "update_index",
]
