"""storage: the versioned Tantivy index of symbols and the search over it.

Imports: `extract.records` only of ours. tantivy is confined to this package.
"""

from extract.records import SymbolKind
from storage.errors import IndexLocked, IndexMissing, QueryError, SchemaMismatch, StorageError
from storage.fusion import RRF_K, fuse
from storage.location import index_base_dir, index_dir_for
from storage.index import IndexState, check_index, index_state, read_manifest, write_atomically
from storage.records import (
    ChannelMatch,
    FileState,
    Freshness,
    Manifest,
    SearchResponse,
    SearchResult,
    Why,
    file_digest,
)
from storage.router import MAX_QUERY_CHARS, WEIGHTS, Channel, Plan, Route, route
from storage.schema import SCHEMA_VERSION
from storage.search import MAX_LIMIT, Searcher
from storage.writer import IndexWriter

__all__ = [
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "RRF_K",
    "SCHEMA_VERSION",
    "WEIGHTS",
    "Channel",
    "ChannelMatch",
    "FileState",
    "Freshness",
    "IndexLocked",
    "IndexMissing",
    "IndexState",
    "IndexWriter",
    "Manifest",
    "Plan",
    "QueryError",
    "Route",
    "SchemaMismatch",
    "SearchResponse",
    "SearchResult",
    "Searcher",
    "StorageError",
    "SymbolKind",
    "Why",
    "check_index",
    "file_digest",
    "fuse",
    "index_base_dir",
    "index_dir_for",
    "index_state",
    "read_manifest",
    "route",
    "write_atomically",
]
