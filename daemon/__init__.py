"""daemon: repository walking, incremental indexing and the `symfind` CLI.

Imports: `extract` and `storage`. Nothing imports `daemon`.
"""

from daemon.config import Config, IndexOptions, load_config
from daemon.errors import DaemonError, RepositoryError
from daemon.indexer import IndexReport, update_index

__all__ = [
    "Config",
    "DaemonError",
    "IndexOptions",
    "IndexReport",
    "RepositoryError",
    "load_config",
    "update_index",
]
