"""Shared set-up of the MCP server tests: fixture repositories indexed by the real indexer.

Indexes are built by running `python -m symfind.cli index` (the process the server itself
starts), with SYMFIND_INDEX_DIR pointing at a temp dir.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp.types import CallToolResult, TextContent

from symfind.storage import index_dir_for

FIXTURE_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "repo"
INDEX_TIMEOUT_S = 120


def make_repo(root: Path) -> Path:
    """A small Python repository: the fixture's httpkit package plus an app module."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(FIXTURE_REPO / "httpkit", root / "httpkit")
    (root / "app").mkdir()
    (root / "app" / "settings.py").write_text(
        '"""Settings of the app."""\n\n\n'
        "class Settings:\n"
        '    """Where the app reads its configuration."""\n\n'
        "    def load_settings(self, path: str) -> dict[str, str]:\n"
        "        return {}\n",
        encoding="utf-8",
    )
    return root.resolve()


@contextmanager
def index_env(base: Path) -> Iterator[None]:
    """SYMFIND_INDEX_DIR=base for the block (for module-scoped fixtures)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(base))
        yield


def kept_private() -> dict[str, str]:
    """The variables the conftest sets so that the daemons tests start stay out of the
    user's `daemon list` and leave soon: what a server started with an environment of
    its own (an MCP client's minimal one) must be given too."""
    from symfind.daemon.registry import RUNTIME_VARIABLE
    from symfind.storage.contract.leases import LEASE_VARIABLE

    return {name: os.environ[name] for name in (RUNTIME_VARIABLE, LEASE_VARIABLE)}


def run_symfind(command: str, repo: Path, base: Path) -> None:
    """Run `python -m symfind.cli COMMAND REPO` (`index`, `reindex`, `daemon stop`) with the
    index base `base`."""
    env = {**os.environ, "SYMFIND_INDEX_DIR": str(base), "SYMFIND_WORKERS": "1"}
    done = subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", *command.split(), str(repo)],
        env=env, capture_output=True, text=True, timeout=INDEX_TIMEOUT_S, check=False,
    )
    assert done.returncode == 0, done.stderr


def index_repo(repo: Path, base: Path) -> Path:
    """Index `repo` under `base`; returns its index directory."""
    run_symfind("index", repo, base)
    with index_env(base):
        return index_dir_for(repo)


def assert_valid(result: CallToolResult, schema: dict[str, Any] | None) -> dict[str, Any]:
    """A successful tool result: structuredContent valid against the tool's outputSchema,
    and a text block too. Returns the structured content."""
    assert not result.is_error, text_of(result)
    assert schema is not None and isinstance(result.structured_content, dict)
    jsonschema.validate(result.structured_content, schema)
    assert text_of(result)
    return result.structured_content


def text_of(result: CallToolResult) -> str:
    """The text block every answer of ours starts with."""
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def error_text(result: CallToolResult) -> str:
    """The message of an isError answer (which carries no structured content)."""
    assert result.is_error, json.dumps(result.structured_content)[:500]
    assert result.structured_content is None
    return text_of(result)
