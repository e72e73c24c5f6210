"""storage: the versioned Tantivy index of symbols and the search over it.

Imports: `extract.records` only of ours. tantivy is confined to this package.
"""

from symfind.extract.records import Language, SymbolKind
from symfind.storage.escaping import escape, escape_counted, escape_line
from symfind.storage.errors import IndexLocked, IndexMissing, QueryError, SchemaMismatch, StorageError
from symfind.storage.federation import (
    FederatedResponse,
    IndexSource,
    Repo,
    RepoQuery,
    RepoResult,
    RepoSearch,
    RepoState,
    RepoStatus,
    fuse_answers,
    local_repos,
    repo_labels,
    search_repos,
)
from symfind.storage.fusion import RRF_K, fuse
from symfind.storage.location import index_base_dir, index_dir_for
from symfind.storage.index import IndexState, check_index, index_state
from symfind.storage.manifest import ManifestHeader, read_manifest, write_atomically
from symfind.storage.records import (
    ChannelMatch,
    FileState,
    Freshness,
    Manifest,
    SearchResponse,
    SearchResult,
    Why,
    file_digest,
)
from symfind.storage.router import MAX_QUERY_CHARS, WEIGHTS, Channel, Plan, Route, route
from symfind.storage.schema import SCHEMA_VERSION
from symfind.storage.search import MAX_LIMIT, Searcher
from symfind.storage.writer import IndexWriter

__all__ = [
    "escape",
    "escape_counted",
    "escape_line",
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "RRF_K",
    "SCHEMA_VERSION",
    "WEIGHTS",
    "Channel",
    "ChannelMatch",
    "FederatedResponse",
    "FileState",
    "Freshness",
    "IndexLocked",
    "IndexMissing",
    "IndexSource",
    "IndexState",
    "IndexWriter",
    "Manifest",
    "ManifestHeader",
    "Plan",
    "QueryError",
    "Repo",
    "RepoQuery",
    "RepoResult",
    "RepoSearch",
    "RepoState",
    "RepoStatus",
    "Route",
    "SchemaMismatch",
    "SearchResponse",
    "SearchResult",
    "Searcher",
    "StorageError",
    "SymbolKind",
    "Language",
    "Why",
    "check_index",
    "file_digest",
    "fuse",
    "fuse_answers",
    "index_base_dir",
    "index_dir_for",
    "index_state",
    "local_repos",
    "read_manifest",
    "repo_labels",
    "route",
    "search_repos",
    "write_atomically",
]
