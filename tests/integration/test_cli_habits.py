"""The habits people bring from rg, fd, git and uv: real `symfind` processes.

`--version`; `search QUERY [PATH]`; the repository found from a subdirectory; `-v` after
the subcommand; `daemon start/stop --json`; Ctrl-C; output the terminal cannot encode;
and the trees symfind refuses to take for a repository.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest

from symfind.storage import index_dir_for
from tests.integration.terminal import as_from_a_terminal
from tests.integration.test_cli import FIXTURE_REPO, ROOT, symfind

DEADLINE_S = 60.0
ROOT_REFUSED = (
    "symfind: refusing to index the filesystem root /: name the repository's own directory "
    "instead (`symfind index PATH`, `symfind mcp --repo PATH`); --force indexes / itself\n"
)


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture repository with a `.git` marker and a file whose names are not ASCII."""
    path = tmp_path_factory.mktemp("habits") / "repo"
    shutil.copytree(FIXTURE_REPO, path)
    (path / ".git").mkdir()
    (path / "httpkit" / "accents.py").write_text(
        "class Élan:\n    pass\n", encoding="utf-8"
    )
    return path.resolve()


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, git_repo: Path) -> dict[str, str]:
    env = {"SYMFIND_INDEX_DIR": str(tmp_path_factory.mktemp("habits-index"))}
    result = symfind("index", str(git_repo), env=env)
    assert result.returncode == 0, result.stderr
    return env


def test_version_is_the_installed_distributions() -> None:
    for flag in ("--version", "-V"):
        result = symfind(flag)
        assert (result.returncode, result.stdout, result.stderr) == (
            0, f"symfind {version('symfind')}\n", "",
        )


def test_json_answers_name_the_version(git_repo: Path, env: dict[str, str]) -> None:
    search = symfind("search", "HttpClient", "--repo", str(git_repo), "--json", env=env)
    status = symfind("status", str(git_repo), "--json", env=env)
    assert json.loads(search.stdout)["symfind_version"] == version("symfind")
    assert json.loads(status.stdout)["symfind_version"] == version("symfind")


def test_repository_as_a_positional_path_anywhere(git_repo: Path, env: dict[str, str]) -> None:
    flagged = symfind("search", "AsyncClinet", "--repo", str(git_repo), "--limit", "3", env=env)
    positional = symfind("search", "AsyncClinet", str(git_repo), "--limit", "3", env=env)
    after_an_option = symfind("search", "AsyncClinet", "--limit", "3", str(git_repo), env=env)
    assert flagged.returncode == 0, flagged.stderr
    # The results, without the last line, which says how long the search took.
    results = flagged.stdout.splitlines()[:-1]
    assert results == positional.stdout.splitlines()[:-1]
    assert results == after_an_option.stdout.splitlines()[:-1]
    assert [line.split()[:4] for line in results] == [
        ["1", "class", "AsyncClient", "httpkit/client.py:24"]]


def test_search_from_a_subdirectory_uses_the_repositorys_index(
    git_repo: Path, env: dict[str, str]
) -> None:
    from_root = symfind("search", "HttpClient", "--json", "--limit", "5", cwd=git_repo, env=env)
    from_sub = symfind(
        "search", "HttpClient", "--json", "--limit", "5", cwd=git_repo / "httpkit", env=env
    )
    named_sub = symfind("search", "HttpClient", "httpkit", "--json", "--limit", "5",
                        cwd=git_repo, env=env)
    rows = [[(r["path"], r["line"]) for r in json.loads(out.stdout)["results"]]
            for out in (from_root, from_sub, named_sub)]
    assert from_sub.returncode == 0, from_sub.stderr
    assert rows[0] == rows[1] == rows[2]
    assert rows[0][0] == ("httpkit/client.py", 10)


def test_a_directory_its_repository_ignores_is_a_repository_of_its_own(tmp_path: Path) -> None:
    """`symfind index vendor/lib` of a checkout the project's .gitignore leaves out (a
    vendored library, a benchmark's downloaded corpus) indexes that checkout; a directory
    the project does index stays part of the project."""
    project = tmp_path / "project"
    shutil.copytree(FIXTURE_REPO, project / "vendor" / "lib")
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("vendor/\n", encoding="utf-8")
    (project / "app.py").write_text("def main():\n    pass\n", encoding="utf-8")
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "indexes")}
    vendored = symfind("index", "--json", str(project / "vendor" / "lib"), env=env)
    own = symfind("index", "--json", str(project), env=env)
    assert vendored.returncode == own.returncode == 0, vendored.stderr + own.stderr
    alone = tmp_path / "alone"  # the same files as a repository of their own
    shutil.copytree(FIXTURE_REPO, alone)
    (alone / ".git").mkdir()
    fixture = symfind("index", "--json", str(alone), env=env)
    counts = [(r["files"], r["symbols"]) for r in
              (json.loads(out.stdout) for out in (vendored, own, fixture))]
    assert counts[0] == counts[2]  # the vendored copy alone, as the fixture indexed itself
    assert counts[1] == (1, 1)  # the project: app.py only
    status = symfind("status", "--json", str(project / "vendor" / "lib" / "httpkit"), env=env)
    assert json.loads(status.stdout)["repo"] == str((project / "vendor" / "lib").resolve())


def test_no_index_names_the_repository_it_looked_for(
    tmp_path: Path, git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(tmp_path / "empty-indexes"))
    result = symfind("search", "HttpClient", cwd=git_repo / "httpkit")
    assert (result.returncode, result.stdout, result.stderr) == (
        3, "", f"symfind: no index of {git_repo} (looked in {index_dir_for(git_repo)}) — "
        f"run `symfind index {git_repo}` first\n",
    )


def test_verbose_after_the_subcommand(tmp_path: Path, git_repo: Path) -> None:
    quiet = symfind("index", str(git_repo), env={"SYMFIND_INDEX_DIR": str(tmp_path / "a")})
    after = symfind("index", str(git_repo), "-v", env={"SYMFIND_INDEX_DIR": str(tmp_path / "b")})
    before = symfind("-v", "index", str(git_repo), env={"SYMFIND_INDEX_DIR": str(tmp_path / "c")})
    assert (quiet.returncode, after.returncode, before.returncode) == (0, 0, 0)
    assert "INFO" not in quiet.stderr
    info = [line.split(":")[0] for line in after.stderr.splitlines() if line.startswith("INFO")]
    assert info and info == [line.split(":")[0] for line in before.stderr.splitlines()
                             if line.startswith("INFO")]


def test_daemon_start_and_stop_print_json(tmp_path: Path, git_repo: Path) -> None:
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "indexes")}
    started = symfind("daemon", "start", "--json", str(git_repo), env=env)
    try:
        assert started.returncode == 0, started.stderr
        status = json.loads(started.stdout)
        assert (status["repo"], status["symfind_version"]) == (str(git_repo), version("symfind"))
    finally:
        stopped = symfind("daemon", "stop", str(git_repo), "--json", env=env)
    again = symfind("daemon", "stop", str(git_repo), "--json", env=env)
    assert json.loads(stopped.stdout) == {
        "repo": str(git_repo), "stopped": True, "pid": status["pid"], "how": "asked", "why": "",
        "symfind_version": version("symfind"),
    }
    assert json.loads(again.stdout) == {
        "repo": str(git_repo), "stopped": False, "pid": None, "how": None, "why": "",
        "symfind_version": version("symfind"),
    }


def test_unencodable_output_is_escaped(git_repo: Path, env: dict[str, str]) -> None:
    ascii_env = {**env, "PYTHONIOENCODING": "ascii"}
    table = symfind("search", "Elan", str(git_repo), "--limit", "1", env=ascii_env)
    as_json = symfind("search", "Elan", str(git_repo), "--limit", "1", "--json", env=ascii_env)
    assert (table.returncode, as_json.returncode) == (0, 0), table.stderr + as_json.stderr
    assert table.stdout.splitlines()[0].split()[:4] == [
        "1", "class", "\\u00c9lan", "httpkit/accents.py:1",
    ]
    assert json.loads(as_json.stdout)["results"][0]["name"] == "Élan"
    assert as_json.stdout.isascii()


def _blocked_in_read(pid: int) -> bool:
    try:
        # `pipe_read`, `anon_pipe_read` (Linux 6.x) or `pipe_wait`, as kernels name it.
        wchan = Path(f"/proc/{pid}/wchan").read_text(encoding="utf-8")
        return "pipe_read" in wchan or "pipe_wait" in wchan
    except OSError:
        return False


def _wait(predicate: object, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)  # another process: nothing to wait on but its /proc entry


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs Linux /proc wchan")
def test_ctrl_c_exits_130_without_a_traceback(git_repo: Path, env: dict[str, str]) -> None:
    # `--queries-from /dev/stdin` on a pipe nobody writes: the search waits in read().
    with subprocess.Popen(
        [sys.executable, "-m", "symfind.cli", "search", "--queries-from", "/dev/stdin",
         "--repo", str(git_repo)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **env}, cwd=ROOT,
        preexec_fn=as_from_a_terminal,
    ) as process:
        _wait(lambda: _blocked_in_read(process.pid), "the search to read its input")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=DEADLINE_S)
    assert (process.returncode, out, err) == (130, "", "symfind: interrupted\n")


def test_ctrl_c_stops_the_mcp_server_without_a_traceback(
    git_repo: Path, env: dict[str, str]
) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}
    with subprocess.Popen(
        [sys.executable, "-P", "-m", "symfind.cli", "mcp", "--repo", str(git_repo)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **env},
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(initialize) + "\n")
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1  # serving, stdin still open
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=DEADLINE_S)
    assert (process.returncode, err) == (130, "symfind: interrupted\n")


# ---- trees that are not repositories ------------------------------------------------------


@pytest.mark.parametrize(
    "command", [["index"], ["reindex"], ["daemon", "start"], ["mcp", "--repo"]]
)
def test_the_filesystem_root_is_refused(tmp_path: Path, command: list[str]) -> None:
    result = symfind(*command, "/", env={"SYMFIND_INDEX_DIR": str(tmp_path)})
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", ROOT_REFUSED,
    )


def test_a_search_from_the_filesystem_root_asks_for_the_repository(tmp_path: Path) -> None:
    result = symfind("search", "HttpClient", cwd=Path("/"),
                     env={"SYMFIND_INDEX_DIR": str(tmp_path)})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(tmp_path))
        looked_in = index_dir_for(Path("/"))
    assert (result.returncode, result.stdout, result.stderr) == (
        3, "", f"symfind: no index of / (looked in {looked_in}) — name the repository to "
        "search (`symfind search QUERY PATH`, or `--repo PATH`)\n",
    )


def test_the_home_directory_is_refused_even_with_a_git_marker(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)
    (home / "project").mkdir()
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "indexes"), "HOME": str(home)}
    # From a directory below it with no marker of its own, home's .git makes home the root.
    result = symfind("index", cwd=home / "project", env=env)
    assert (result.returncode, result.stderr) == (
        2, f"symfind: refusing to index the home directory {home}: name the repository's own "
        "directory instead (`symfind index PATH`, `symfind mcp --repo PATH`); --force "
        f"indexes {home} itself\n",
    )


def _tree(root: Path, files: int) -> Path:
    for n in range(files):
        (root / f"d{n % 3}").mkdir(parents=True, exist_ok=True)
        (root / f"d{n % 3}" / f"m{n}.py").write_text(f"def f{n}(): pass\n", encoding="utf-8")
    return root


def test_a_large_tree_without_a_marker_is_refused_unless_forced(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "downloads", 6)
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "indexes"), "SYMFIND_MAX_UNMARKED_FILES": "5"}
    refused = symfind("index", str(tree), env=env)
    assert (refused.returncode, refused.stderr) == (
        2, f"symfind: {tree} has no .git/.hg/.jj/.svn and more than 5 files: not a repository? "
        "pass --force to index it anyway\n",
    )
    forced = symfind("index", str(tree), "--force", "--json", env=env)
    assert (forced.returncode, json.loads(forced.stdout)["files"]) == (0, 6)
    # Once indexed, it is a repository: no --force needed to update it.
    again = symfind("index", str(tree), "--json", env=env)
    assert (again.returncode, json.loads(again.stdout)["files"]) == (0, 6), again.stderr


def test_a_small_tree_or_a_marked_one_is_accepted(tmp_path: Path) -> None:
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "indexes"), "SYMFIND_MAX_UNMARKED_FILES": "5"}
    small = _tree(tmp_path / "small", 5)
    marked = _tree(tmp_path / "marked", 6)
    (marked / ".hg").mkdir()
    for tree, files in ((small, 5), (marked, 6)):
        result = symfind("index", str(tree), "--json", env=env)
        assert (result.returncode, json.loads(result.stdout)["files"]) == (0, files), result.stderr
