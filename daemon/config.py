"""Settings resolved once at an entry point: CLI flag > `SYMFIND_*` variable > default.

Frozen Structs passed down; no globals.
"""

from __future__ import annotations

import enum
import hashlib
import os
from pathlib import Path

import msgspec

from symfind.daemon.errors import RepositoryError
from symfind.storage import find_root, index_dir_for

DEFAULT_MAX_FILE_BYTES = 1_000_000
DEFAULT_MAX_LINE_CHARS = 5_000
#: Lines of code as people write them average well under 100 characters; a minified
#: bundle's average runs to thousands (django's jquery.min.js: 29,932). A file that holds one long
#: literal beside its code averages little more than the code does (go-stdlib's
#: copy_test.go: 202, zod's string.test.ts: 72), and its definitions are wanted.
DEFAULT_MINIFIED_MEAN_LINE_CHARS = 500
DEFAULT_PARSE_DEADLINE_S = 5.0


class WatchMode(enum.StrEnum):
    """How the daemon notices changes (`SYMFIND_WATCH`)."""

    AUTO = "auto"  # native notifications, polling when they cannot start
    POLLING = "polling"


class IndexOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Options that change what the index holds; their hash is stored in the manifest.

    Attributes:
        max_file_bytes: Larger files are skipped (`too_large`).
        max_line_chars: A file with a longer line whose lines average over
            `minified_mean_line_chars` is treated as minified and skipped.
        minified_mean_line_chars: See `max_line_chars`.
        parse_deadline_s: Wall-clock budget to parse one file (`parse_timeout`).
    """

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS
    minified_mean_line_chars: int = DEFAULT_MINIFIED_MEAN_LINE_CHARS
    parse_deadline_s: float = DEFAULT_PARSE_DEADLINE_S

    def fingerprint(self) -> str:
        from symfind.extract import extraction_fingerprint  # tree-sitter: only when indexing

        data = msgspec.json.encode(self) + extraction_fingerprint().encode()
        return hashlib.sha256(data).hexdigest()[:16]


class Config(msgspec.Struct, frozen=True, kw_only=True):
    """Everything an entry point needs to index or search one repository."""

    repo: Path
    index_dir: Path
    options: IndexOptions = IndexOptions()
    workers: int = 1
    watch: WatchMode = WatchMode.AUTO
    #: A daemon started for MCP servers exits once none has used it for this many
    #: seconds (`storage.contract.leases`); None: it stays until stopped (started by hand).
    lease_s: float | None = None


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise RepositoryError(f"{name} must be an integer, got {raw!r}") from exc
    if value < 1:
        raise RepositoryError(f"{name} must be at least 1, got {value}")
    return value


def resolve_repo(path: str | os.PathLike[str] | None) -> Path:
    """The repository root as an absolute, symlink-free path.

    Raises:
        RepositoryError: It does not exist, cannot be reached, or is not a directory.
    """
    repo = Path(path or ".").expanduser()
    try:
        resolved = repo.resolve(strict=True)
    except PermissionError as exc:  # a directory on the way the user may not enter: it exists
        raise RepositoryError(f"repository {str(repo)!r} cannot be reached: permission denied "
                              f"on the way to it") from exc
    except (OSError, RuntimeError) as exc:
        raise RepositoryError(f"repository {str(repo)!r} does not exist") from exc
    if not resolved.is_dir():
        raise RepositoryError(f"repository {str(repo)!r} is not a directory")
    return resolved


def require_readable(repo: Path) -> None:
    """Check that the repository's root can be listed: indexing a root that cannot would
    find nothing and claim an empty repository.

    Raises:
        PermissionError: The root cannot be listed (another user's, mode 0700).
        OSError: The root cannot be listed for another reason.
    """
    with os.scandir(repo):
        pass


def repository_of(start: Path) -> Path:
    """The repository holding `start` (`storage.find_root`), unless that repository does
    not index `start` (ignored, or a `node_modules`-like directory): then `start` is a
    repository of its own -- `symfind index vendor/lib` of an ignored checkout indexes that
    checkout, not the project around it (which would not even hold it)."""
    root = find_root(start)
    if root == start:
        return root
    from symfind.daemon.walk import IgnoreRules, directory_excluded  # tree-sitter: rarely

    ignored = directory_excluded(start.relative_to(root).as_posix(), IgnoreRules(root))
    return start if ignored else root


def load_config(
    repo: str | os.PathLike[str] | None,
    *,
    max_file_bytes: int | None = None,
    workers: int | None = None,
) -> Config:
    """Build the Config for the repository holding `repo` (the nearest directory upwards
    with a VCS marker or an index: `storage.find_root`) from flags, environment and defaults.

    Raises:
        RepositoryError: Bad repository path or a malformed `SYMFIND_*` variable.
    """
    root = repository_of(resolve_repo(repo))
    options = IndexOptions(
        max_file_bytes=max_file_bytes
        or _env_int("SYMFIND_MAX_FILE_BYTES", DEFAULT_MAX_FILE_BYTES),
    )
    watch = os.environ.get("SYMFIND_WATCH", "").strip() or WatchMode.AUTO
    if watch not in WatchMode.__members__.values():
        choices = ", ".join(WatchMode)
        raise RepositoryError(f"SYMFIND_WATCH must be one of {choices}, got {watch!r}")
    return Config(
        repo=root,
        index_dir=index_dir_for(root),
        options=options,
        workers=workers or _env_int("SYMFIND_WORKERS", os.cpu_count() or 1),
        watch=WatchMode(watch),
    )
