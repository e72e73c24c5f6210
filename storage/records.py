"""Records of the index (manifest) and of search answers.

Imports: msgspec, `extract.records`. Frozen Structs; new fields always get defaults so
older manifests and wire messages still decode.
"""

from __future__ import annotations

import enum
import hashlib

import msgspec

from symfind.extract.records import SymbolHead


def file_digest(data: bytes) -> str:
    """The content digest recorded in `FileState.digest` (BLAKE2b, 128 bits, hex)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class FileState(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """What the index holds for one file, to tell whether the file changed since.

    Encoded as an array (`array_like`): the manifest's log holds one per file and change,
    and the eleven field names were ~40 % of it.

    A file is read again when any of size, mtime, ctime and inode differ, as git compares
    its index (an edit that keeps size and mtime -- `touch -d`, `cp -p`, `rsync -t`, `tar`
    -- still moves the ctime, which no one can set); then re-extracted only when the
    content digest differs. A ctime of 0 is unknown (a file changed within a clock tick of
    its read: `daemon/extraction.py`), so that the next check reads the file again.
    """

    mtime_ns: int
    size: int
    digest: str
    ctime_ns: int = 0
    inode: int = 0
    symbols: int = 0
    language: str = ""
    #: Regions the parser could not read, and the definitions re-parsing found after them.
    error_regions: int = 0
    recovered: int = 0
    #: A file that defines nothing keeps its uses of names and imports here
    #: (`storage/uses.py`): a document of their own would shift the search's statistics.
    uses: bytes = b""
    #: False when extraction's deadline passed before the file's uses were read: its
    #: definitions are indexed, its uses are not (references say so).
    uses_read: bool = True


class Manifest(msgspec.Struct, frozen=True, kw_only=True):
    """The index's table of contents, written atomically after every commit.

    Attributes:
        schema_version: SCHEMA_VERSION of the code that built the index.
        options_hash: Hash of the indexing options that change content (size caps...).
        repo_root: Absolute path of the indexed repository.
        generation: Incremented by every commit.
        files: Indexed files (repo-relative path → state).
        skipped: Files seen but not indexed (path → reason such as `too_large`).
        excluded: What the last full walk passed over by rule (path → reason such as
            `ignored`): files of a supported language, and directories (path ending in
            `/`) once each, not every file in them.
        pending: Paths of a batch being committed; non-empty after a crash mid-commit,
            telling the next writer to re-check them.
        updated_at: Unix time of the last commit.
        index_id: Random id of this build; a rebuild (`reindex`) draws a new one, which
            invalidates handles (e.g. MCP read handles) signed with the old one.
    """

    schema_version: int
    options_hash: str
    repo_root: str
    generation: int = 0
    files: dict[str, FileState] = {}
    skipped: dict[str, str] = {}
    excluded: dict[str, str] = {}
    pending: list[str] = []
    updated_at: float = 0.0
    index_id: str = ""


class ChannelMatch(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """How one channel ranked one result."""

    rank: int
    weight: float
    contribution: float
    distance: int | None = None
    #: Vector channel: each question word this definition matched by meaning, as
    #: `word` (matched as written) or `word→match` (matched by another word). Abbreviation
    #: channel: how the query fits the name's words (`ABIFW → Admin·Big·Integer·Field·Widget`).
    matched: tuple[str, ...] = ()


class Why(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Why a result ranked where it did: every channel that found it, and what changed
    its fused score besides (`adjusted`: e.g. test code for a question about code)."""

    channels: dict[str, ChannelMatch]
    adjusted: str = ""


class SearchResult(SymbolHead, frozen=True, kw_only=True):
    """One ranked definition: its `SymbolHead` fields, then these."""

    signature: str
    score: float
    why: Why
    start_line: int = 0
    doc: str = ""


class FreshnessState(enum.StrEnum):
    """How far an answer can be trusted to reflect the repository (`storage.freshness`)."""

    CURRENT = "current"  # a daemon watches and nothing is known to be waiting
    BUILDING = "building"  # the index is being built: `files` so far, `pending` to go
    BEHIND = "behind"  # `pending` changed files are not indexed yet
    FAILING = "failing"  # indexing fails: `failing` files not indexed, `error` says why
    INCOMPLETE = "incomplete"  # no daemon; an indexing run under way or cut short
    UNWATCHED = "unwatched"  # no daemon: the index is as of its last commit


class Freshness(msgspec.Struct, frozen=True, kw_only=True):
    """How current the index is, as `storage.freshness.assess` judged it.

    Attributes:
        files: Files the searched commit holds.
        pending: Files known to be changed or still to index, not in it yet.
        state: The verdict; `storage.freshness.describe` says it in words.
        watching: A live daemon keeps the index up to date.
        failing: Files not indexed because indexing fails (`error` says why).
        retry_after_s: When asking again should find more (0: no reason to wait).
    """

    generation: int
    updated_at: float
    files: int
    pending: int = 0
    state: FreshnessState = FreshnessState.UNWATCHED
    watching: bool = False
    failing: int = 0
    error: str = ""
    retry_after_s: float = 0.0


class SearchResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to one query.

    Attributes:
        route: How the query was read (`identifier`, `qualified`, `words`, `prose`).
        channels: Channels run, with their weights.
        empty_reason: Why nothing was found (only when `results` is empty).
        suggestions: Nearest indexed names (only when `results` is empty).
        failures: Channels that failed (name → message); the others still answered.
        plan: The plan the query ran, as `str(Plan)` reads it (route, what it looked for,
            each channel's weight): `identifier 'HtppClient' → exact×3 fuzzy≤2×2 …`.
    """

    query: str
    route: str
    channels: dict[str, float]
    took_ms: float
    results: list[SearchResult]
    freshness: Freshness
    empty_reason: str = ""
    suggestions: list[str] = []
    failures: dict[str, str] = {}
    plan: str = ""
