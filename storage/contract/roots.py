"""Which directory is the repository: found from a subdirectory, refused when it is not one.

Imports: `storage.location`, `storage.errors`.

Like git, symfind run from `repo/src/pkg` works on `repo`: the nearest directory, from the
one given upwards, that holds a version-control marker (`.git`, `.hg`, `.jj`, `.svn`) or
already has an index. And like a careful neighbour it will not index a tree nobody would
call a repository (`/`, the home directory, or more than `max_files` files with no marker)
unless asked to: a daemon watching `/` reads `/proc` and grows without bound.
"""

from __future__ import annotations

import os
from pathlib import Path

from symfind.storage.errors import NotARepository
from symfind.storage.index import manifest_path
from symfind.storage.location import index_dir_for, positive_setting

#: Entries that mark a repository root (a file too: `.git` is one in a worktree).
VCS_MARKERS = (".git", ".hg", ".jj", ".svn")
#: A tree without a marker holding more files than this is not taken for a repository
#: (`$SYMFIND_MAX_UNMARKED_FILES` overrides it).
DEFAULT_MAX_FILES = 50_000
MAX_FILES_VARIABLE = "SYMFIND_MAX_UNMARKED_FILES"


def has_marker(directory: Path) -> bool:
    """Whether `directory` holds a version-control marker."""
    return any(os.path.lexists(directory / marker) for marker in VCS_MARKERS)


def has_index(directory: Path) -> bool:
    """Whether `directory` has been indexed (its index directory holds a manifest)."""
    return manifest_path(index_dir_for(directory)).exists()


def find_root(start: Path) -> Path:
    """The repository that `start` (resolved, a directory) belongs to: the nearest
    directory from `start` upwards holding a VCS marker or an existing index, else `start`.
    """
    for directory in (start, *start.parents):
        if has_marker(directory) or has_index(directory):
            return directory
    return start


def _more_files_than(root: Path, limit: int) -> bool:
    """Whether the tree under `root` holds more than `limit` files (stops counting there;
    symlinks are not followed, unreadable directories are skipped)."""
    count = 0
    for _dirpath, _dirnames, filenames in os.walk(root):
        count += len(filenames)
        if count > limit:
            return True
    return False


def max_files_allowed() -> int:
    """`$SYMFIND_MAX_UNMARKED_FILES`, else DEFAULT_MAX_FILES.

    Raises:
        NotARepository: The variable is not a positive integer.
    """
    try:
        return int(positive_setting(MAX_FILES_VARIABLE, DEFAULT_MAX_FILES, int))
    except ValueError as exc:
        raise NotARepository(str(exc)) from None


def check_root(root: Path, *, max_files: int | None = None) -> None:
    """Refuse to index `root` (resolved) when it is not a repository-like tree.

    Args:
        root: The repository root, resolved.
        max_files: The most files a tree without a VCS marker may hold (default:
            `max_files_allowed()`).

    Raises:
        NotARepository: `root` is `/`, the home directory, or a tree of more than
            `max_files` files with neither a VCS marker nor an existing index.
    """
    hint = "pass --force to index it anyway"
    # Mostly a command run from there without naming the repository: name it, then.
    name_it = ("name the repository's own directory instead (`symfind index PATH`, "
               f"`symfind mcp --repo PATH`); --force indexes {root} itself")
    if root == Path(root.anchor):
        raise NotARepository(f"refusing to index the filesystem root {root}: {name_it}")
    if root == Path.home().resolve():
        raise NotARepository(f"refusing to index the home directory {root}: {name_it}")
    if has_marker(root) or has_index(root):
        return
    if max_files is None:
        max_files = max_files_allowed()
    if _more_files_than(root, max_files):
        raise NotARepository(
            f"{root} has no {'/'.join(VCS_MARKERS)} and more than {max_files:,} files: "
            f"not a repository? {hint}"
        )
