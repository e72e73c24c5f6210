"""Which files of a repository are candidates for indexing.

Imports: pathspec, `extract`, `daemon` modules.

Rules, in order: never follow symlinks; skip version-control, dependency, virtualenv and
build directories; skip credential files whatever the ignore files say; honour
`.gitignore`, `.ignore` and `.symfindignore` in every directory (nested files, `!`
negations; a deeper file overrides a shallower one) plus `.git/info/exclude`; keep only
files of a supported language.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pathspec

from symfind.daemon.files import read_regular
from symfind.extract import language_for_path

logger = logging.getLogger(__name__)

IGNORE_FILES = (".gitignore", ".ignore", ".symfindignore")
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

#: Credential files: never indexed, never readable through symfind, whatever else says.
SECRET_PATTERNS = pathspec.GitIgnoreSpec.from_lines(
    [
        ".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "*.kdbx", "*.keystore",
        "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".npmrc", ".pypirc", ".netrc",
        "credentials", "credentials.*", ".aws/", ".ssh/", ".gnupg/",
    ]
)


def is_secret(relative_path: str) -> bool:
    """True for paths that look like credentials (`.env`, `id_rsa`, `*.pem`, ...)."""
    return SECRET_PATTERNS.match_file(relative_path)


class IgnoreRules:
    """The ignore files of one repository, loaded lazily per directory and cached."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}

    def _spec(self, directory: str) -> pathspec.GitIgnoreSpec | None:
        if directory not in self._specs:
            lines: list[str] = []
            base = self.root / directory
            names = list(IGNORE_FILES)
            if directory == "":
                names.append(".git/info/exclude")
            for name in names:
                try:  # never blocks on a FIFO, never follows a symlink (as git 2.32+)
                    data, _info = read_regular(base / name, MAX_IGNORE_FILE_BYTES)
                except OSError:
                    continue
                lines += data.decode("utf-8", errors="replace").splitlines()
            self._specs[directory] = pathspec.GitIgnoreSpec.from_lines(lines) if lines else None
        return self._specs[directory]

    def forget(self, directory: str) -> None:
        """Drop the cached rules of a directory (its ignore file changed)."""
        self._specs.pop(directory, None)

    def is_ignored(self, relative_path: str, *, is_dir: bool = False) -> bool:
        """Apply every ignore file from the root down to the path's directory."""
        parts = relative_path.split("/")
        ignored = False
        for depth in range(len(parts)):
            directory = "/".join(parts[:depth])
            spec = self._spec(directory)
            if spec is None:
                continue
            below = "/".join(parts[depth:]) + ("/" if is_dir else "")
            result = spec.check_file(below)
            if result.include is not None:
                ignored = result.include
        return ignored


def skips_directory(relative_dir: str) -> bool:
    """Whether a repo-relative directory is never indexed (VCS, dependencies, builds)."""
    parts = relative_dir.split("/")
    return parts[-1] in SKIP_DIRS or (len(parts) == 1 and parts[0] in SKIP_ROOT_DIRS)


def directory_excluded(relative_dir: str, rules: IgnoreRules) -> bool:
    """Whether a repo-relative directory, or any directory above it, is not indexed."""
    parts = relative_dir.split("/")
    for depth in range(1, len(parts) + 1):
        prefix = "/".join(parts[:depth])
        if skips_directory(prefix) or is_secret(prefix + "/") or rules.is_ignored(prefix, is_dir=True):
            return True
    return False


def is_candidate(relative_path: str, rules: IgnoreRules) -> bool:
    """Whether a repo-relative file path should be indexed (by name and rules alone)."""
    directory = relative_path.rpartition("/")[0]
    if directory and directory_excluded(directory, rules):
        return False
    if language_for_path(relative_path) is None or is_secret(relative_path):
        return False
    return not rules.is_ignored(relative_path)


def walk_repository(
    root: Path, rules: IgnoreRules | None = None, *, start: str = ""
) -> Iterator[str]:
    """Yield repo-relative, `/`-separated paths of candidate files, sorted per directory.

    Symlinked files and directories are not followed (they could lead out of the repo).

    Args:
        root: The repository root.
        rules: Ignore rules (loaded from `root` when None).
        start: Walk only below this repo-relative directory.
    """
    rules = rules or IgnoreRules(root)
    if start and directory_excluded(start, rules):
        return

    def on_error(error: OSError) -> None:
        logger.warning("cannot list %s: %s", error.filename, error.strerror)

    top = root / start if start else root
    for directory, dirnames, filenames in os.walk(top, onerror=on_error, followlinks=False):
        relative_dir = os.path.relpath(directory, root)
        prefix = "" if relative_dir == "." else relative_dir.replace(os.sep, "/") + "/"
        dirnames[:] = sorted(
            name
            for name in dirnames
            if not skips_directory(prefix + name)
            and not is_secret(prefix + name + "/")
            and not rules.is_ignored(prefix + name, is_dir=True)
            and not os.path.exists(os.path.join(directory, name, _VENV_MARKER))
        )
        for name in sorted(filenames):
            relative = prefix + name
            if language_for_path(relative) is None or is_secret(relative):
                continue
            if not rules.is_ignored(relative):
                yield relative
