"""Fixtures several integration modules share: a full disk, the MCP Inspector CLI, a
searcher over a few files written for the test."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index
from symfind.storage import ReferencesQuery, Searcher

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
INSPECTOR_INSTALL_TIMEOUT_S = 300


def fill(directory: Path, name: str = "filler") -> Path:
    """Write zeros to `directory/name` until its file system is full."""
    path = directory / name
    with open(path, "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"\0" * 4096)
        except OSError:
            pass
    return path


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs, mounted for the test and filled up but for a few KiB."""
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs",
                              str(mount_point)], capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip() or mounted.returncode}")
    try:
        filler = fill(mount_point)
        os.truncate(filler, filler.stat().st_size - 8192)
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


@pytest.fixture(scope="session")
def inspector(pytestconfig: pytest.Config) -> Path:
    """The MCP Inspector CLI, pinned, installed from npm once into pytest's cache directory
    (the checkout's `.pytest_cache`, never the user's own cache)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the MCP Inspector CLI comes from the npm registry")
    assert pytestconfig.cache is not None
    prefix = pytestconfig.cache.mkdir("npm-" + INSPECTOR.replace("/", "+").replace("@", ""))
    binary = prefix / "node_modules" / ".bin" / "mcp-inspector"
    # The suite's worker processes share the cache: one installs, the others wait for it.
    with open(prefix / "install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.exists():
            done = subprocess.run(
                [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                 "--loglevel=error", INSPECTOR],
                capture_output=True, text=True, timeout=INSPECTOR_INSTALL_TIMEOUT_S, check=False,
            )
            assert done.returncode == 0, f"npm install {INSPECTOR} failed:\n{done.stderr}"
    return binary


def searcher_over(tmp_path_factory: pytest.TempPathFactory, name: str,
                  files: dict[str, str]) -> Searcher:
    """A real index of a repository holding `files` (relative path → text), and its searcher."""
    repo = tmp_path_factory.mktemp(name)
    for relative, text in files.items():
        (repo / relative).parent.mkdir(parents=True, exist_ok=True)
        (repo / relative).write_text(text, encoding="utf-8")
    index_dir = tmp_path_factory.mktemp(f"{name}-index")
    update_index(Config(repo=repo, index_dir=index_dir, options=IndexOptions(), workers=1))
    return Searcher(index_dir)


def tiers(searcher: Searcher, path: str, line: int) -> dict:
    """The references to the definition at `path`:`line`, by tier: each resolved site
    with its reason, and the possible and elsewhere groups with their counts."""
    answer = searcher.find_references(ReferencesQuery(path=path, line=line))
    return {
        "resolved": [(g.path, s.line, s.reason) for g in answer.groups for s in g.sites],
        "possible": [(g.receiver, g.reason, g.count) for g in answer.possible_groups],
        "elsewhere": [(g.of, g.reason, g.count) for g in answer.elsewhere_groups],
    }
