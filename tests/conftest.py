"""Shared fixtures: an indexed copy of the fixture repository, golden files."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        help="rewrite golden files from current output (review the diff by eye)",
    )


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture(autouse=True)
def _isolated_index_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes to the real user cache: every index goes under a temp dir."""
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(tmp_path_factory.mktemp("indexes")))


@pytest.fixture(autouse=True)
def _isolated_config_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the user's real token file (`symfind token`, `serve`)."""
    monkeypatch.setenv("SYMFIND_CONFIG_DIR", str(tmp_path_factory.mktemp("config") / "symfind"))


@pytest.fixture(scope="session")
def fixture_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Config]:
    """The fixture repository copied to a temp dir and indexed once per session."""
    repo = tmp_path_factory.mktemp("repo") / "repo"
    shutil.copytree(FIXTURES / "repo", repo)
    config = Config(
        repo=repo.resolve(),
        index_dir=tmp_path_factory.mktemp("fixture-index"),
        options=IndexOptions(),
        workers=1,
    )
    update_index(config)
    yield config
