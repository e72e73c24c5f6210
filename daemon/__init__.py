"""daemon: repository walking, incremental indexing, the index's only writer and its socket.

Imports: `extract` and `storage`. Only the command line (`cli`) imports `daemon`.
"""

from importlib import import_module
from typing import TYPE_CHECKING

from symfind.daemon.errors import DaemonError, RepositoryError

if TYPE_CHECKING:
    from symfind.daemon.config import Config, IndexOptions, load_config
    from symfind.daemon.indexer import IndexReport, update_index

# Loaded when first asked for: the indexer pulls in tree-sitter and multiprocessing (so
# that `symfind search` starts faster), the config Tantivy (so that the entry point, which
# imports this package, catches a Ctrl-C while they load).
_LAZY = {
    "Config": "config", "IndexOptions": "config", "load_config": "config",
    "IndexReport": "indexer", "update_index": "indexer",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(import_module(f"symfind.daemon.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'symfind.daemon' has no attribute {name!r}")


__all__ = [
    "Config",
    "DaemonError",
    "IndexOptions",
    "IndexReport",
    "RepositoryError",
    "load_config",
    "update_index",
]
