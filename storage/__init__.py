"""storage: the versioned Tantivy index of symbols and the search over it, and the
contract between a repository's daemon and the index's readers (`storage.contract`).

tantivy is confined to this package (tests/unit/test_layering.py checks the imports).
"""

from symfind.extract.records import Language, SymbolHead, SymbolKind
from symfind.storage.escaping import EscapingFormatter, escape, escape_counted, escape_line
from symfind.storage.contract.daemons import (
    BUSY_STATES,
    FRESH_WAIT_S,
    STATUS_NAME,
    DaemonState,
    DaemonStatus,
    live_daemon_status,
    pid_alive,
    settling,
    spawn_daemon,
)
from symfind.storage.errors import (
    CursorMismatch,
    IndexDamaged,
    IndexHeld,
    IndexLocked,
    IndexMissing,
    NotARepository,
    QueryError,
    SchemaMismatch,
    StorageError,
)
from symfind.storage.federation import (
    FederatedResponse,
    Repo,
    RepoResult,
    RepoSearch,
    RepoState,
    RepoStatus,
    fuse_answers,
    repo_labels,
    search_repo,
    search_repos,
)
from symfind.storage.freshness import (
    RETRY_BUILDING_S,
    assess as assess_freshness,
    describe as describe_freshness,
    is_partial,
)
from symfind.storage.fusion import RRF_K, fuse
from symfind.storage.location import index_base_dir, index_dir_for
from symfind.storage.index import IndexState, check_index, index_state
from symfind.storage.manifest import ManifestHeader, read_manifest, write_atomically
from symfind.storage.records import (
    ChannelMatch,
    FileState,
    Freshness,
    FreshnessState,
    Manifest,
    SearchResponse,
    SearchResult,
    Why,
    file_digest,
)
from symfind.storage.contract.roots import DEFAULT_MAX_FILES, VCS_MARKERS, check_root, find_root
from symfind.storage.references import (
    ElsewhereGroup,
    PossibleGroup,
    ReferencesAnswer,
    ReferencesQuery,
    Site,
    SiteGroup,
)
from symfind.storage.router import MAX_QUERY_CHARS, WEIGHTS, Channel, Plan, Route, route
from symfind.storage.schema import SCHEMA_VERSION
from symfind.storage.query import MAX_LIMIT, SearchQuery
from symfind.storage.search import Searcher
from symfind.storage.sources import IndexSource
from symfind.storage.version import VERSION
from symfind.storage.reading import read_at_most
from symfind.storage.writer import IndexWriter

__all__ = [
    "VERSION",
    "EscapingFormatter",
    "escape",
    "escape_counted",
    "escape_line",
    "BUSY_STATES",
    "FRESH_WAIT_S",
    "DEFAULT_MAX_FILES",
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "RETRY_BUILDING_S",
    "RRF_K",
    "SCHEMA_VERSION",
    "STATUS_NAME",
    "WEIGHTS",
    "Channel",
    "ChannelMatch",
    "CursorMismatch",
    "DaemonState",
    "DaemonStatus",
    "ElsewhereGroup",
    "FederatedResponse",
    "FileState",
    "Freshness",
    "FreshnessState",
    "IndexDamaged",
    "IndexHeld",
    "IndexLocked",
    "IndexMissing",
    "IndexSource",
    "IndexState",
    "IndexWriter",
    "Manifest",
    "ManifestHeader",
    "NotARepository",
    "Plan",
    "PossibleGroup",
    "QueryError",
    "ReferencesAnswer",
    "ReferencesQuery",
    "Repo",
    "RepoResult",
    "RepoSearch",
    "RepoState",
    "RepoStatus",
    "Route",
    "SchemaMismatch",
    "SearchQuery",
    "SearchResponse",
    "SearchResult",
    "Searcher",
    "Site",
    "SiteGroup",
    "StorageError",
    "SymbolHead",
    "SymbolKind",
    "VCS_MARKERS",
    "Language",
    "Why",
    "check_index",
    "check_root",
    "assess_freshness",
    "describe_freshness",
    "file_digest",
    "find_root",
    "fuse",
    "fuse_answers",
    "index_base_dir",
    "index_dir_for",
    "index_state",
    "is_partial",
    "live_daemon_status",
    "pid_alive",
    "read_at_most",
    "read_manifest",
    "repo_labels",
    "route",
    "search_repo",
    "search_repos",
    "settling",
    "spawn_daemon",
    "write_atomically",
]
