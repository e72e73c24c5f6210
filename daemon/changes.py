"""What a batch of file events asks the daemon to re-check.

`changed_paths` is a pure function of the events and the repository root, so that it is
tested without a watcher; `files_to_recheck` adds what is below a changed directory, in
the index and on disk.

Whether a path matters, and how, is decided once, by `walk.judge_path`: the watcher
(`daemon.watcher`) turns watchdog's events into `Change`s, leaving out paths where the
index never looks; `changed_paths` sorts the rest into ignore files, directories and
files; the indexer judges each file to re-check by the ignore rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import msgspec

from symfind.daemon.walk import GIT_EXCLUDE, IgnoreRules, Relevance, judge_path, walk_repository


class Change:
    """A path that changed, and whether it is (or was) a directory."""

    __slots__ = ("is_directory", "path")

    def __init__(self, path: str, is_directory: bool) -> None:
        self.path = path
        self.is_directory = is_directory


class ChangedPaths(msgspec.Struct, frozen=True, kw_only=True):
    """Repository-relative POSIX paths a batch of changes touches.

    Attributes:
        files: Files created, modified, moved (both ends) or deleted.
        directories: Directories created, moved (both ends) or deleted: what was and is
            below them must be re-checked.
        ignore_dirs: Directories whose ignore rules changed (an ignore file there was
            written, moved or deleted): their rules must be read again, and the whole
            tree re-checked.
    """

    files: frozenset[str] = frozenset()
    directories: frozenset[str] = frozenset()
    ignore_dirs: frozenset[str] = frozenset()


def changed_paths(changes: Iterable[Change], root: Path) -> ChangedPaths:
    """Sort `changes` (absolute paths) into what they ask to re-check below `root`; a path
    outside `root` (a move out of the repository reports its source too), or where the
    index never looks, is left out."""
    files: set[str] = set()
    directories: set[str] = set()
    ignore_dirs: set[str] = set()
    for change in changes:
        try:
            relative = Path(change.path).relative_to(root).as_posix()
        except ValueError:
            continue
        relevance = judge_path(relative, is_dir=change.is_directory).relevance
        if relevance is Relevance.RULES:  # git's exclude file holds the root's rules
            ignore_dirs.add(relative.rpartition("/")[0] if relative != GIT_EXCLUDE else "")
        elif relevance is Relevance.DIRECTORY:
            directories.add(relative)
        elif relevance is Relevance.FILE:
            files.add(relative)
    return ChangedPaths(files=frozenset(files), directories=frozenset(directories),
                        ignore_dirs=frozenset(ignore_dirs))


def files_to_recheck(
    changed: ChangedPaths, root: Path, rules: IgnoreRules,
    known_below: Callable[[str], Iterable[str]],
) -> set[str]:
    """The files to re-check for `changed`: its files, and below each of its directories
    (created, moved or deleted) what the index holds (`known_below(prefix)`) and what is
    on disk there now."""
    paths = set(changed.files)
    for directory in changed.directories:
        paths.update(known_below(directory + "/"))
        full = root / directory
        if full.is_dir() and not full.is_symlink():
            paths.update(walk_repository(root, rules, start=directory))
    return paths
