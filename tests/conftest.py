"""Shared fixtures: an indexed copy of the fixture repository, golden files, and the
user's own state kept out of reach (indexes, the daemon registry)."""

from __future__ import annotations

import os
import shutil
import signal
import time
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


#: Daemons started for the tests' MCP servers leave this long after their server ends.
TEST_DAEMON_LEASE_S = "3"
_STOP_TIMEOUT_S = 30.0


@pytest.fixture(scope="session", autouse=True)
def _private_daemon_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The daemons the tests start are listed in a registry of the session's own, never
    in the user's `symfind daemon list`; those started for MCP servers leave soon after
    their server (`SYMFIND_DAEMON_LEASE`); any still running when the session ends is
    stopped (SIGTERM, as `daemon stop` does)."""
    from symfind.daemon.registry import RUNTIME_VARIABLE, running_daemons
    from symfind.storage.contract.leases import LEASE_VARIABLE

    values = {RUNTIME_VARIABLE: str(tmp_path_factory.mktemp("runtime")),
              LEASE_VARIABLE: TEST_DAEMON_LEASE_S}
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
        left = running_daemons()
        for entry in left:
            os.kill(entry.pid, signal.SIGTERM)
        deadline = time.monotonic() + _STOP_TIMEOUT_S
        while running_daemons() and time.monotonic() < deadline:
            time.sleep(0.05)  # other processes: nothing to wait on but the registry
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


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
