"""`symfind index`/`reindex` while a daemon runs: the daemon does it and the CLI waits.

A real daemon process (`symfind daemon start`) holds the index's writer lock; the CLI
asks it over the socket, shows its progress, and prints the same report as when it
indexes by itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from symfind.daemon.client import index_via_daemon, request
from symfind.daemon.config import load_config
from symfind.daemon.protocol import IndexRequest, StatusReply, StatusRequest

FIXTURE_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "repo"


def wait_until_idle(repo: Path, timeout_s: float = 120.0) -> None:
    """Poll the detached daemon's socket (nothing else to wait on) until it is idle."""
    index_dir = load_config(repo).index_dir
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        reply = request(index_dir, StatusRequest(), timeout_s=10)
        if isinstance(reply, StatusReply) and reply.status.state == "idle":
            return
        time.sleep(0.05)
    raise AssertionError(f"the daemon of {repo} never became idle")


def symfind(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "symfind.cli", *args],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, **env}, timeout=300)


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, dict[str, str]]]:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE_REPO, repo)
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "indexes"), "SYMFIND_WORKERS": "1"}
    monkeypatch.setenv("SYMFIND_INDEX_DIR", env["SYMFIND_INDEX_DIR"])
    started = symfind("daemon", "start", str(repo), env=env)
    try:
        assert started.returncode == 0, started.stderr
        wait_until_idle(repo)
        yield repo, env
    finally:
        stopped = symfind("daemon", "stop", str(repo), env=env)
        assert stopped.returncode == 0, stopped.stderr


def test_index_while_a_daemon_runs_is_done_by_the_daemon(
    served: tuple[Path, dict[str, str]],
) -> None:
    repo, env = served
    (repo / "httpkit" / "extra.py").write_text("class ExtraClient:\n    pass\n", "utf-8")
    indexed = symfind("index", str(repo), "--json", env=env)
    assert (indexed.returncode, indexed.stderr) == (0, "")
    report = json.loads(indexed.stdout)
    assert (report["files"], report["deleted"], report["skipped"]) == (8, 0, {})
    found = symfind("search", "ExtraClient", "--repo", str(repo), "--json", env=env)
    assert [r["path"] for r in json.loads(found.stdout)["results"]][:1] == ["httpkit/extra.py"]


def test_reindex_while_a_daemon_runs_rebuilds_everything_with_progress(
    served: tuple[Path, dict[str, str]],
) -> None:
    repo, env = served
    before = json.loads(symfind("status", str(repo), "--json", env=env).stdout)
    seen: list[tuple[int, int]] = []
    report = index_via_daemon(load_config(repo).index_dir, IndexRequest(fresh=True),
                              lambda done, total: seen.append((done, total)))
    assert report is not None
    assert (report.files, report.indexed, report.unchanged) == (7, 7, 0)
    assert report.generation > before["generation"]
    assert seen[0] == (0, 7) and seen[-1] == (7, 7)
    assert all(a[0] <= b[0] and a[1] == b[1] == 7 for a, b in zip(seen, seen[1:]))
    text = symfind("reindex", str(repo), env=env)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith(f"indexed {repo}: 7 files, {before['symbols']} symbols "
                                  "(7 extracted, 0 unchanged, 0 removed) in ")
    after = json.loads(symfind("status", str(repo), "--json", env=env).stdout)
    assert (after["files"], after["symbols"], after["daemon"]["pid"]) == (
        7, before["symbols"], before["daemon"]["pid"],
    )


def test_index_with_other_settings_is_refused_naming_the_daemon(
    served: tuple[Path, dict[str, str]],
) -> None:
    repo, env = served
    pid = json.loads(symfind("status", str(repo), "--json", env=env).stdout)["daemon"]["pid"]
    result = symfind("index", str(repo), "--max-file-bytes", "1000", env=env)
    assert (result.returncode, result.stdout, result.stderr) == (
        4, "", f"symfind: a symfind daemon (pid {pid}) serves {repo} with its own "
        "--max-file-bytes; stop it (`symfind daemon stop`) to index with another\n",
    )


def test_a_second_daemon_start_says_one_runs_and_succeeds(
    served: tuple[Path, dict[str, str]],
) -> None:
    repo, env = served
    pid = json.loads(symfind("status", str(repo), "--json", env=env).stdout)["daemon"]["pid"]
    again = symfind("daemon", "start", str(repo), env=env)
    assert (again.returncode, again.stderr) == (0, "")
    assert again.stdout.startswith(f"daemon already running for {repo} (pid {pid}, ")
    run = symfind("daemon", "run", str(repo), env=env)
    assert (run.returncode, run.stdout, run.stderr) == (
        4, "", f"symfind: a symfind daemon (pid {pid}) already serves {repo}\n",
    )
