"""The installed names are `symfind.extract`, `symfind.storage`, `symfind.daemon`,
`symfind.mcp_server` and `symfind.cli` (python-daemon ships a top-level `daemon`, and PyPI has `storage` and
`mcp-server`): under test they must resolve to this repository's folders."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("package", ["extract", "storage", "daemon", "mcp_server", "cli"])
def test_package_imports_from_this_repository(package: str) -> None:
    module = importlib.import_module(f"symfind.{package}")
    assert Path(module.__file__).resolve() == ROOT / package / "__init__.py"
