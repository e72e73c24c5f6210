"""A rebuild cut short keeps what the index had: `symfind reindex` builds the new index
beside the old one and swaps it in (`storage.rebuild`), so Ctrl-C or SIGKILL at any
moment leaves the old index searchable, and the next run clears what the cut left. And
`symfind status` tells an index cut short as a search does (`storage.freshness`)."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index
from symfind.storage import Searcher, index_dir_for, read_manifest
from symfind.storage.manifest import read_header
from symfind.storage.rebuild import REBUILD_PREFIX
from tests.integration.daemon_process import TIMEOUT_S, idle, wait_for_status
from tests.integration.terminal import as_from_a_terminal

EXIT_INTERRUPTED = 130
KILL_ROUNDS = 20


def generate_repo(root: Path, modules: int) -> Path:
    """`modules` Python modules of a few definitions each: enough files that a build is
    still under way when the test acts on it."""
    for number in range(modules):
        package = root / f"pkg{number % 20}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"mod{number}.py").write_text(
            f"class Widget{number}:\n"
            f"    def render_{number}(self, size: int) -> str:\n"
            f"        return str(size)\n\n\n"
            f"def build_widget_{number}() -> Widget{number}:\n"
            f"    return Widget{number}()\n",
            encoding="utf-8",
        )
    return root.resolve()


def start(command: str, repo: Path, base: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-P", "-m", "symfind.cli", command, str(repo), "--workers", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "SYMFIND_INDEX_DIR": str(base)}, preexec_fn=as_from_a_terminal,
    )


def symfind(*args: str, base: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", *args], capture_output=True, text=True,
        check=False, timeout=TIMEOUT_S, cwd="/", env={**os.environ, "SYMFIND_INDEX_DIR": str(base)},
    )


def wait_until(process: subprocess.Popen[str], what: str, condition: object) -> None:
    """Poll `condition` (a callable) while `process` runs; fail if it ends first."""
    deadline = time.monotonic() + TIMEOUT_S
    while not condition():  # type: ignore[operator]
        assert process.poll() is None, f"ended before {what}: {process.communicate()}"
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.005)  # another process: nothing to wait on but its files


def build_header(index_dir: Path):  # noqa: ANN201 - a ManifestHeader or None
    """The header of the build under way beside the index, if it has committed."""
    for build in index_dir.glob(f"{REBUILD_PREFIX}*"):
        header = read_header(build)
        if header is not None:
            return header
    return None


def extracting(index_dir: Path) -> bool:
    """The build has listed its files and is extracting them: mid-build."""
    header = build_header(index_dir)
    return header is not None and header.to_index > 0


def interrupt(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group
        stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    return process.returncode, stdout, stderr


def answer(done: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    """A search's whole answer but for how long it took."""
    return done.returncode, re.sub(r"; [0-9.]+ ms\]", "; … ms]", done.stdout), done.stderr


def entries(index_dir: Path) -> list[str]:
    """What the index directory holds (a log's name stands for any log)."""
    return sorted("files-*.log" if name.startswith("files-") else name
                  for name in os.listdir(index_dir))


def test_ctrl_c_during_reindex_leaves_the_old_index_searchable_with_its_answers(
    tmp_path: Path,
) -> None:
    repo = generate_repo(tmp_path / "repo", 500)
    base = tmp_path / "indexes"
    assert symfind("index", str(repo), base=base).returncode == 0
    # The disk moves on: a complete rebuild would find Gadget and lose Widget0.
    (repo / "pkg0" / "mod0.py").write_text("class Gadget:\n    pass\n", encoding="utf-8")
    before = {query: symfind("search", query, str(repo), "--limit", "3", base=base)
              for query in ("Widget0", "Gadget")}
    index_dir = index_dir_for_base(base, repo)
    listing, header = entries(index_dir), read_header(index_dir)

    rebuilding = start("reindex", repo, base)
    wait_until(rebuilding, "extracting the new index's files", lambda: extracting(index_dir))
    assert interrupt(rebuilding) == (
        EXIT_INTERRUPTED, "",
        "symfind: interrupted; the index keeps its last commit — run `symfind index` to go on\n",
    )

    after = {query: symfind("search", query, str(repo), "--limit", "3", base=base)
             for query in before}
    assert [answer(a) for a in after.values()] == [answer(b) for b in before.values()]
    assert after["Widget0"].stdout.split()[:4] == ["1", "class", "Widget0", "pkg0/mod0.py:1"]
    assert (entries(index_dir), read_header(index_dir)) == (listing, header)  # nothing left


def test_a_daemon_killed_during_its_reindex_leaves_the_old_index_searchable(
    tmp_path: Path,
) -> None:
    repo = generate_repo(tmp_path / "repo", 500)
    base = tmp_path / "indexes"
    index_dir = index_dir_for_base(base, repo)
    env = {**os.environ, "SYMFIND_INDEX_DIR": str(base), "SYMFIND_WORKERS": "1"}
    daemon = subprocess.Popen([sys.executable, "-P", "-m", "symfind.cli", "daemon", "run",
                               str(repo)], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_status(index_dir, daemon, idle)
        before = [answer(symfind("search", query, str(repo), "--limit", "3", base=base))
                  for query in ("Widget0", "render_7")]
        rebuilding = start("reindex", repo, base)  # through the daemon, which rebuilds
        wait_until(rebuilding, "the daemon extracting the new index's files",
                   lambda: extracting(index_dir))
        os.killpg(daemon.pid, signal.SIGKILL)
        daemon.wait(timeout=TIMEOUT_S)
        rebuilding.communicate(timeout=TIMEOUT_S)
    finally:
        if daemon.poll() is None:
            os.killpg(daemon.pid, signal.SIGKILL)
            daemon.wait()
    after = [answer(symfind("search", query, str(repo), "--limit", "3", base=base))
             for query in ("Widget0", "render_7")]
    assert after == before
    assert before[0][1].split()[:4] == ["1", "class", "Widget0", "pkg0/mod0.py:1"]
    assert [name for name in entries(index_dir) if name.startswith(REBUILD_PREFIX)]
    # The next writer clears what the killed rebuild left.
    assert symfind("index", str(repo), base=base).returncode == 0
    assert [name for name in entries(index_dir) if name.startswith(REBUILD_PREFIX)] == []


def test_sigkill_at_random_points_of_reindex_always_leaves_a_searchable_index(
    tmp_path: Path,
) -> None:
    repo = generate_repo(tmp_path / "repo", 150)
    base = tmp_path / "indexes"
    assert symfind("index", str(repo), base=base).returncode == 0
    index_dir = index_dir_for_base(base, repo)
    expected = Searcher(index_dir).all_symbols()
    assert len(expected) == 450
    rng = random.Random(20261129)
    # Where each kill lands: after the process starts, once the build directory is there,
    # once the build has listed its files, or once the new index has replaced the old; each
    # then after a random delay.
    stages = {
        "started": lambda: True,
        "building": lambda: any(index_dir.glob(f"{REBUILD_PREFIX}*")),
        "extracting": lambda: extracting(index_dir),
        "swapped": lambda: read_header(index_dir).generation > generation,  # type: ignore[union-attr]
    }
    landed = []
    for round_no in range(KILL_ROUNDS):
        generation = read_header(index_dir).generation  # type: ignore[union-attr]
        stage = rng.choice(sorted(stages))
        rebuilding = start("reindex", repo, base)
        try:
            try:
                wait_until(rebuilding, stage, stages[stage])
            except AssertionError:
                if rebuilding.returncode != 0:
                    raise
            time.sleep(rng.uniform(0.0, 0.05))  # the random kill point within the stage
            os.killpg(rebuilding.pid, signal.SIGKILL)  # its extraction workers too
        finally:
            rebuilding.communicate(timeout=TIMEOUT_S)
        landed.append(stage)
        assert Searcher(index_dir).all_symbols() == expected, f"round {round_no} ({stage})"
    assert set(landed) == set(stages)
    # The next run clears what the kills left: no build directory, one log.
    assert symfind("index", str(repo), base=base).returncode == 0
    assert entries(index_dir) == ["files-*.log", "manifest.json", "tantivy"]
    assert len(list(index_dir.glob("files-*.log"))) == 1
    assert Searcher(index_dir).all_symbols() == expected


def test_reindex_replaces_the_index_and_leaves_one_log(tmp_path: Path) -> None:
    repo = generate_repo(tmp_path / "repo", 30)
    config = Config(repo=repo, index_dir=tmp_path / "index", options=IndexOptions(), workers=1)
    first = update_index(config)
    (repo / "pkg0" / "mod0.py").write_text("class Gadget:\n    pass\n", encoding="utf-8")
    again = update_index(config, fresh=True)
    assert again.generation > first.generation  # readers take it as a new commit
    assert (again.files, again.indexed, again.symbols) == (30, 30, 88)
    assert entries(config.index_dir) == ["files-*.log", "manifest.json", "tantivy"]
    assert len(list(config.index_dir.glob("files-*.log"))) == 1
    names = {s.name for s in Searcher(config.index_dir).all_symbols()}
    assert "Gadget" in names and "Widget0" not in names


def test_status_after_an_interrupted_index_says_what_a_search_says(tmp_path: Path) -> None:
    repo = generate_repo(tmp_path / "repo", 500)
    base = tmp_path / "indexes"
    index_dir = index_dir_for_base(base, repo)
    indexing = start("index", repo, base)

    def counted() -> bool:  # its second commit: the files it has to index, counted
        header = read_header(index_dir)
        return header is not None and header.to_index > 0

    wait_until(indexing, "counting the files to index", counted)
    code, _, stderr = interrupt(indexing)
    assert code == EXIT_INTERRUPTED, stderr  # (once in a CI run, 1: what it said tells why)
    header = read_header(index_dir)
    assert header is not None and header.to_index > 0
    searched = symfind("search", "Widget0", str(repo), "--json", base=base)
    status = symfind("status", str(repo), "--json", base=base)
    assert (searched.returncode, status.returncode, status.stderr) == (0, 0, "")
    fresh = json.loads(searched.stdout)["freshness"]
    assert fresh == {"generation": header.generation, "updated_at": header.updated_at,
                     "files": header.file_count, "pending": header.to_index,
                     "state": "incomplete", "watching": False, "failing": 0, "error": "",
                     "retry_after_s": 0.0}
    reported = json.loads(status.stdout)
    assert (reported["freshness"], reported["pending"]) == (fresh, header.to_index)
    text = symfind("status", str(repo), base=base)
    line = next(line for line in text.stdout.splitlines() if line.startswith("freshness"))
    assert line == (
        f"freshness     incomplete, {header.to_index:,} pending — the index is incomplete: "
        f"{header.file_count:,} files indexed, {header.to_index:,} files still to index — an "
        "indexing run is under way, or was cut short (`symfind index` completes it)")
    assert searched.stderr == f"symfind: {line.split(' — ', 1)[1]}\n"
    assert read_manifest(index_dir) is not None


def index_dir_for_base(base: Path, repo: Path) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(base))
        return index_dir_for(repo)
