"""Exceptions raised by `storage`. Imports: nothing of ours.

Every message says what to do next; callers show it to people and agents as is.
"""


class StorageError(Exception):
    """Base class for index and query failures."""


class IndexMissing(StorageError):
    """No index exists for the repository yet."""


class SchemaMismatch(StorageError):
    """The index on disk was built by a different schema or different content options."""


class IndexLocked(StorageError):
    """Another process holds the index's single writer lock."""


class IndexHeld(IndexLocked):
    """Another process, stopped or hung, has held for long the lock Tantivy takes for an
    instant while it loads a commit (its meta lock)."""


class QueryError(StorageError):
    """The query cannot be searched (empty, too long, or limits out of range)."""


class CursorMismatch(QueryError):
    """A references cursor of another question: another definition, or another
    repository's index (a server of several asks each; the one it belongs to answers)."""


class IndexDamaged(StorageError):
    """The index's files are damaged (a checksum fails, a file is missing, Tantivy
    cannot read them); `symfind reindex` rebuilds it."""


class NotARepository(StorageError):
    """The directory is not taken for a repository (`/`, the home directory, a huge tree
    with no version-control marker) unless the caller insists."""


class ModelUnavailable(StorageError):
    """The embedding model could not be loaded (the install is incomplete)."""
