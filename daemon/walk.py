"""Which files of a repository are candidates for indexing.

Imports: `extract`, `daemon` modules.

Rules, in order: never follow symlinks; skip version-control, dependency, virtualenv and
build directories; skip credential files whatever the ignore files say; keep only files
of a supported language; skip names that are not UTF-8; honour `.gitignore`, `.ignore`
and `.symfindignore` in every directory (nested files, `!` negations; a deeper file
overrides a shallower one) plus `.git/info/exclude`, every pattern meaning what it means
to git (`daemon.gitignore`). What is passed over is reported
with its reason (`Exclusion`), directories once each, not every file in them.

The same rules judge one changed path (`judge_path`): whether the watcher drops it, the
daemon re-reads ignore rules or re-checks a directory for it, and the indexer indexes it,
lists it with the skipped files or drops it -- as the walk would find it.
"""

from __future__ import annotations

import enum
import logging
import os
import re
from collections.abc import Iterator
from typing import NamedTuple
from pathlib import Path

from symfind.daemon.files import read_regular
from symfind.daemon.gitignore import IgnoreList, IgnorePattern, read_patterns
from symfind.extract import language_for_path

logger = logging.getLogger(__name__)

IGNORE_FILES = (".gitignore", ".ignore", ".symfindignore")
#: Git's own ignore file: inside `.git`, which is never indexed, yet it changes the rules.
GIT_EXCLUDE = ".git/info/exclude"
#: Ignore files are read up to this size (a larger one is read in part).
MAX_IGNORE_FILE_BYTES = 8 * 1024 * 1024

#: Directories never descended into, at any depth.
SKIP_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".bzr", ".jj", ".symfind",
        "node_modules", "bower_components", "jspm_packages",
        "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache",
        ".ruff_cache", ".eggs", "site-packages", ".gradle", ".idea", ".vscode", ".next", ".nuxt",
    }
)
#: Build output directories, skipped only at the repository root: deeper down the same
#: names are often real packages (`src/build/`).
SKIP_ROOT_DIRS = frozenset({"build", "dist", "target", "out", "vendor"})
# A directory holding this file is a Python virtual environment, whatever its name.
_VENV_MARKER = "pyvenv.cfg"
# The extensions a `credentials` file of configuration (not code) carries.
CONFIG_EXTENSIONS = ("json", "ini", "yaml", "yml", "toml", "xml", "csv", "cfg", "conf", "txt")
# os.fsdecode turns bytes that are not UTF-8 into lone surrogates.
_SURROGATE = re.compile("[\udc80-\udcff]")

#: Credential files (case-insensitive), never indexed nor readable through symfind,
#: whatever the ignore files say. Only files that are not source code of a supported
#: language: `credentials.py` and a Go package `credentials/` are code, and indexed.
SECRET_FILE_PATTERNS = (
    ".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.kdbx", "*.keystore",
    "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_rsa.*", "id_dsa.*", "id_ecdsa.*",
    "id_ed25519.*", ".npmrc", ".pypirc", ".netrc", ".git-credentials", ".htpasswd",
    "credentials", *(f"credentials.{ext}" for ext in CONFIG_EXTENSIONS),
)
#: Directories of credentials: every file in them is a secret, whatever its name.
SECRET_DIRS = frozenset({".aws", ".ssh", ".gnupg"})
_SECRET_FILES = IgnoreList(read_patterns("\n".join(SECRET_FILE_PATTERNS).encode(), "secrets"))


class Exclusion(enum.StrEnum):
    """Why the walk passed over a file or directory (recorded in the manifest)."""

    SECRET = "secret"  # a credential file, or a directory of them
    BAD_NAME = "bad_name"  # a file name that is not valid UTF-8
    IGNORED = "ignored"  # .gitignore, .ignore, .symfindignore or .git/info/exclude
    DEFAULT_DIR = "default_dir"  # version control, dependencies, caches, build output
    VIRTUALENV = "virtualenv"  # a directory holding pyvenv.cfg


def is_secret(relative_path: str) -> bool:
    """True for credential files (`.env`, `id_rsa`, `server.pem`, `credentials.json`,
    anything under `.aws/`...); never for source code of a supported language."""
    parts = relative_path.lower().split("/")
    if any(part in SECRET_DIRS for part in parts[:-1]):
        return True
    return language_for_path(parts[-1]) is None and bool(
        _SECRET_FILES.match(os.fsencode(parts[-1]), is_dir=False))


def printable_path(relative_path: str) -> str:
    """A path as stored and shown: bytes that are not UTF-8 (surrogate-escaped by
    `os.fsdecode`) written as `\\xff`."""
    return relative_path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def has_bad_name(relative_path: str) -> bool:
    """Whether a path (as `os.fsdecode` gives it) holds bytes that are not UTF-8."""
    return _SURROGATE.search(relative_path) is not None


class IgnoreRules:
    """The ignore files of one repository, loaded lazily per directory and cached.

    Read as git reads them (`daemon.gitignore`). In one directory, `.git/info/exclude`
    (at the root) comes first, then `.gitignore`, `.ignore` and `.symfindignore`: a later
    file's match wins, as a deeper directory's wins over its parents'.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lists: dict[str, IgnoreList | None] = {}

    def _list(self, directory: str) -> IgnoreList | None:
        if directory not in self._lists:
            patterns: list[IgnorePattern] = []
            base = self.root / directory
            names = [GIT_EXCLUDE] if directory == "" else []
            for name in [*names, *IGNORE_FILES]:
                try:  # never blocks on a FIFO, never follows a symlink (as git 2.32+)
                    data, _info = read_regular(base / name, MAX_IGNORE_FILE_BYTES)
                except OSError:
                    continue
                source = printable_path(f"{directory}/{name}" if directory else name)
                patterns += read_patterns(data, source)
            self._lists[directory] = IgnoreList(patterns) if patterns else None
        return self._lists[directory]

    def forget(self, directory: str) -> None:
        """Drop the cached rules of a directory (its ignore file changed)."""
        self._lists.pop(directory, None)

    def is_ignored(self, relative_path: str, *, is_dir: bool = False) -> bool:
        """Apply every ignore file from the root down to the path's directory."""
        parts = os.fsencode(relative_path).split(b"/")
        ignored = False
        for depth in range(len(parts)):
            rules = self._list(os.fsdecode(b"/".join(parts[:depth])))
            if rules is None:
                continue
            verdict = rules.match(b"/".join(parts[depth:]), is_dir=is_dir)
            if verdict is not None:
                ignored = verdict
        return ignored


def skips_directory(relative_dir: str) -> bool:
    """Whether a repo-relative directory is never indexed (VCS, dependencies, builds)."""
    parts = relative_dir.split("/")
    return parts[-1] in SKIP_DIRS or (len(parts) == 1 and parts[0] in SKIP_ROOT_DIRS)


def _directory_exclusion(relative_dir: str, full: str, rules: IgnoreRules) -> Exclusion | None:
    """Why the walk does not enter a directory (its parents entered), or None."""
    if skips_directory(relative_dir):
        return Exclusion.DEFAULT_DIR
    if rules.is_ignored(relative_dir, is_dir=True):
        return Exclusion.IGNORED
    if os.path.exists(os.path.join(full, _VENV_MARKER)):
        return Exclusion.VIRTUALENV
    return None


def _exclusion_above(relative_dir: str, rules: IgnoreRules) -> Exclusion | None:
    """Why the walk never reaches a repo-relative directory (it, or one above it, is not
    entered), or None."""
    parts = relative_dir.split("/")
    for depth in range(1, len(parts) + 1):
        prefix = "/".join(parts[:depth])
        reason = _directory_exclusion(prefix, os.path.join(rules.root, prefix), rules)
        if reason is not None:
            return reason
    return None


def _below_symlink(relative_dir: str, root: Path) -> bool:
    """Whether a repo-relative directory is, or is below, a symlink (the walk follows none:
    it may lead out of the repository)."""
    parts = relative_dir.split("/")
    return any(os.path.islink(os.path.join(root, *parts[:depth]))
               for depth in range(1, len(parts) + 1))


def directory_excluded(relative_dir: str, rules: IgnoreRules) -> bool:
    """Whether a repo-relative directory, or any directory above it, is not indexed."""
    return _exclusion_above(relative_dir, rules) is not None


def file_exclusion(relative_path: str, rules: IgnoreRules) -> Exclusion | None:
    """Why a file the walk sees is passed over, or None when it is a candidate or not
    code at all (its directory is assumed walked)."""
    if is_secret(relative_path):
        return Exclusion.SECRET
    if language_for_path(relative_path) is None:
        return None
    if has_bad_name(relative_path):
        return Exclusion.BAD_NAME
    return Exclusion.IGNORED if rules.is_ignored(relative_path) else None


#: Why a file the walk passes over is still listed with the skipped files (the other
#: reasons, ignored files and directories, are the manifest's `excluded` record).
LISTED_EXCLUSIONS = frozenset({Exclusion.SECRET, Exclusion.BAD_NAME})


class Relevance(enum.StrEnum):
    """What a path that changed means to the index (`judge_path`)."""

    NEVER = "never"  # where the index never looks: `.git/`, `node_modules/`, a root `build/`
    RULES = "rules"  # an ignore file: the rules of its directory changed
    DIRECTORY = "directory"  # what was and is below it is to be re-checked
    FILE = "file"  # a file, not judged by the ignore rules (none were given)
    INDEXED = "indexed"  # a candidate: indexed once read (its content is vetted then)
    LISTED = "listed"  # passed over, yet listed with the skipped files (`LISTED_EXCLUSIONS`)
    PASSED_OVER = "passed_over"  # not code, ignored, or below a directory not indexed


class Verdict(NamedTuple):
    """`judge_path`'s answer: what the path is to the index, and the walk's reason to
    pass it over (for `LISTED`, and for `PASSED_OVER` but when the file is no code or
    below a symlinked directory)."""

    relevance: Relevance
    reason: Exclusion | None = None


def judge_path(
    relative_path: str, *, is_dir: bool = False, rules: IgnoreRules | None = None
) -> Verdict:
    """Whether a changed repo-relative path matters to the index, and how: the one
    decision the watcher (which drops `NEVER` at once), the daemon (which re-reads the
    rules for `RULES` and re-checks below a `DIRECTORY`) and the indexer (which indexes
    `INDEXED`, lists `LISTED` and drops the rest) all take, by the walk's own rules.

    Without `rules` (the watcher's thread reads no ignore file, to keep up with a burst
    of events) a file is `FILE`; with them, `INDEXED`, `LISTED` or `PASSED_OVER` exactly
    as `walk_repository` would find it. Only the path is judged: whether the file is a
    symlink, too large or binary is found when it is read (`daemon.extraction`).
    """
    if relative_path == GIT_EXCLUDE:  # inside `.git`, yet it changes the root's rules
        return Verdict(Relevance.RULES)
    parts = relative_path.split("/")
    directories = len(parts) if is_dir else len(parts) - 1
    if any(skips_directory("/".join(parts[:depth])) for depth in range(1, directories + 1)):
        return Verdict(Relevance.NEVER)
    if parts[-1] in IGNORE_FILES:
        return Verdict(Relevance.RULES)
    if is_dir:
        return Verdict(Relevance.DIRECTORY)
    if rules is None:
        return Verdict(Relevance.FILE)
    parent = relative_path.rpartition("/")[0]
    if parent and (above := _exclusion_above(parent, rules)) is not None:
        return Verdict(Relevance.PASSED_OVER, above)
    if parent and _below_symlink(parent, rules.root):
        return Verdict(Relevance.PASSED_OVER)
    reason = file_exclusion(relative_path, rules)
    if reason in LISTED_EXCLUSIONS:
        return Verdict(Relevance.LISTED, reason)
    if reason is not None or language_for_path(relative_path) is None:
        return Verdict(Relevance.PASSED_OVER, reason)
    return Verdict(Relevance.INDEXED)


def walk_repository(
    root: Path,
    rules: IgnoreRules | None = None,
    *,
    start: str = "",
    excluded: dict[str, Exclusion] | None = None,
) -> Iterator[str]:
    """Yield repo-relative, `/`-separated paths of candidate files, sorted per directory.

    Symlinked files and directories are not followed (they could lead out of the repo).

    Args:
        root: The repository root.
        rules: Ignore rules (loaded from `root` when None).
        start: Walk only below this repo-relative directory.
        excluded: When given, filled with what was passed over and why: files of a
            supported language and credential files by path (`printable_path`), and
            directories by path with a trailing `/` (not the files in them).
    """
    rules = rules or IgnoreRules(root)
    if start and directory_excluded(start, rules):
        return
    found = excluded if excluded is not None else {}

    def on_error(error: OSError) -> None:
        logger.warning("cannot list %s: %s", error.filename, error.strerror)

    top = root / start if start else root
    for directory, dirnames, filenames in os.walk(top, onerror=on_error, followlinks=False):
        relative_dir = os.path.relpath(directory, root)
        prefix = "" if relative_dir == "." else relative_dir.replace(os.sep, "/") + "/"
        kept: list[str] = []
        for name in sorted(dirnames):
            reason = _directory_exclusion(prefix + name, os.path.join(directory, name), rules)
            if reason is None:
                kept.append(name)
            else:
                found[printable_path(prefix + name) + "/"] = reason
        dirnames[:] = kept
        for name in sorted(filenames):
            relative = prefix + name
            reason = file_exclusion(relative, rules)
            if reason is not None:
                found[printable_path(relative)] = reason
            elif language_for_path(relative) is not None:
                yield relative
