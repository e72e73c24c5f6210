"""`extract`, `storage`, `daemon`, `mcp_server` are generic names (python-daemon ships a
`daemon`): they must resolve to this repository, not to something else installed."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("package", ["extract", "storage", "daemon", "mcp_server"])
def test_package_imports_from_this_repository(package: str) -> None:
    module = importlib.import_module(package)
    assert Path(module.__file__).resolve() == ROOT / package / "__init__.py"
