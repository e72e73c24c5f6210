"""The `symfind` command line as a user runs it: real processes, exit codes, output."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from symfind.storage import SCHEMA_VERSION, VERSION, index_dir_for
from symfind.storage.manifest import read_header

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_REPO = ROOT / "tests" / "fixtures" / "repo"
RESULT_KEYS = ["name", "qualname", "kind", "language", "path", "line", "end_line", "signature",
               "score", "why"]


def symfind(*args: str, source: Path = ROOT, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m symfind.cli ARGS` with the packages of `source` first on sys.path."""
    return subprocess.run(
        [sys.executable, "-m", "symfind.cli", *args],
        capture_output=True, text=True, check=False, cwd=cwd or source,
        env={**os.environ, "PYTHONPATH": str(source), **(env or {})},
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "repo"
    shutil.copytree(FIXTURE_REPO, path)
    return path


@pytest.fixture(scope="module")
def index_env(tmp_path_factory: pytest.TempPathFactory, repo: Path) -> dict[str, str]:
    env = {"SYMFIND_INDEX_DIR": str(tmp_path_factory.mktemp("cli-index"))}
    result = symfind("index", str(repo), env=env)
    assert result.returncode == 0, result.stderr
    return env


def index_dir_of(repo: Path, env: dict[str, str]) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", env["SYMFIND_INDEX_DIR"])
        return index_dir_for(repo.resolve())


def test_index_reports_counts_and_prints_nothing_else_when_piped(tmp_path: Path, repo: Path) -> None:
    result = symfind("index", str(repo), "--json", env={"SYMFIND_INDEX_DIR": str(tmp_path)})
    report = json.loads(result.stdout)
    assert (result.returncode, result.stderr) == (0, "")
    assert (report["files"], report["indexed"], report["deleted"], report["skipped"]) == (
        7, 7, 0, {},
    )


def test_search_prints_a_ranked_table(repo: Path, index_env: dict[str, str]) -> None:
    result = symfind("search", "AsyncClinet", "--repo", str(repo), "--limit", "1", env=index_env)
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stderr
    assert lines[0].split() == [
        "1", "class", "AsyncClient", "httpkit/client.py:24", "fuzzy#1(d1)", "ngram#1",
    ]
    assert lines[1].startswith("[identifier; ")


def test_queries_from_file_prints_the_jsonl_contract(
    tmp_path: Path, repo: Path, index_env: dict[str, str]
) -> None:
    queries = tmp_path / "queries.txt"
    queries.write_text("HtppClient\n\nRuntime::blok_on\n((((\n", encoding="utf-8")
    result = symfind("search", "--queries-from", str(queries), "--repo", str(repo),
                     "--limit", "2", "--json", env=index_env)
    assert result.returncode == 0, result.stderr
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(a["query"], a["route"]) for a in answers] == [
        ("HtppClient", "identifier"), ("", "invalid"), ("Runtime::blok_on", "qualified"),
        ("((((", "invalid"),
    ]
    first = answers[0]
    assert list(first) == ["query", "route", "took_ms", "results", "freshness", "symfind_version"]
    assert list(answers[1]) == ["query", "route", "took_ms", "results", "error", "symfind_version"]
    assert {a["symfind_version"] for a in answers} == {VERSION}
    header = read_header(index_dir_of(repo, index_env))
    assert header is not None
    assert first["freshness"] == {  # no daemon runs: the index is as of its last commit
        "generation": header.generation, "updated_at": header.updated_at,
        "files": header.file_count, "pending": 0, "state": "unwatched", "watching": False,
        "failing": 0, "error": "", "retry_after_s": 0.0,
    }
    assert [list(r) for r in first["results"]] == [RESULT_KEYS] * len(first["results"])
    top = first["results"][0]
    assert (top["qualname"], top["path"], top["line"], top["why"]["channels"]["fuzzy"]) == (
        "HttpClient", "httpkit/client.py", 10,
        {"rank": 1, "weight": 2.0, "contribution": round(2.0 / 61, 6), "distance": 1},
    )
    assert answers[1]["error"].startswith("empty query")
    assert answers[3]["error"].startswith("nothing searchable")


@pytest.mark.parametrize("limit", ["0", str(10**9), "-3", "ten"])
def test_absurd_limits_are_usage_errors(repo: Path, index_env: dict[str, str], limit: str) -> None:
    result = symfind("search", "HttpClient", "--repo", str(repo), "--limit", limit, env=index_env)
    assert result.returncode == 2
    assert "--limit" in result.stderr and result.stdout == ""


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["search", "x", "--limit", "0"],
         "argument --limit: must be between 1 and 1000, got 0 — see `symfind search --help`"),
        ([], "the following arguments are required: COMMAND — see `symfind --help`"),
        (["daemon", "frob"], "argument action: invalid choice: 'frob' (choose from 'start', "
         "'stop', 'status', 'run', 'list') — see `symfind daemon --help`"),
        (["index", "--workers", "many"],
         "argument --workers: not an integer: 'many' — see `symfind index --help`"),
        (["status", "--bogus"], "unrecognized arguments: --bogus — see `symfind status --help`"),
    ],
)
def test_a_usage_error_is_one_line(args: list[str], line: str, tmp_path: Path) -> None:
    result = symfind(*args, env={"SYMFIND_INDEX_DIR": str(tmp_path)})
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"symfind: {line}\n")


@pytest.mark.parametrize(
    ("query", "message"),
    [("", "symfind: empty query"), ("x" * 10_000, "symfind: query is 10000 characters")],
)
def test_bad_queries_get_a_clear_message(
    repo: Path, index_env: dict[str, str], query: str, message: str
) -> None:
    result = symfind("search", query, "--repo", str(repo), env=index_env)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(message)


def test_repository_paths_that_do_not_work(tmp_path: Path) -> None:
    missing = symfind("index", str(tmp_path / "nope"), env={"SYMFIND_INDEX_DIR": str(tmp_path)})
    a_file = tmp_path / "file.py"
    a_file.write_text("x = 1\n", encoding="utf-8")
    not_dir = symfind("index", str(a_file), env={"SYMFIND_INDEX_DIR": str(tmp_path)})
    assert (missing.returncode, missing.stderr) == (
        2, f"symfind: repository {str(tmp_path / 'nope')!r} does not exist\n",
    )
    assert (not_dir.returncode, not_dir.stderr) == (
        2, f"symfind: repository {str(a_file)!r} is not a directory\n",
    )


def test_search_without_an_index_says_how_to_make_one(tmp_path: Path, repo: Path) -> None:
    result = symfind("search", "x", "--repo", str(repo), env={"SYMFIND_INDEX_DIR": str(tmp_path)})
    assert result.returncode == 3
    assert result.stderr.startswith(f"symfind: no index of {repo} (looked in {tmp_path}/")
    assert result.stderr.endswith(f"run `symfind index {repo}` first\n")


def test_status_reports_what_the_index_holds(repo: Path, index_env: dict[str, str]) -> None:
    result = symfind("status", str(repo), "--json", env=index_env)
    status = json.loads(result.stdout)
    assert result.returncode == 0, result.stderr
    assert {k: status[k] for k in ("repo", "schema_version", "files", "skipped", "pending")} == {
        "repo": str(repo.resolve()), "schema_version": SCHEMA_VERSION, "files": 7, "skipped": {}, "pending": 0,
    }
    assert status["symbols"] > 0 and status["index_bytes"] > 0


def copy_of_symfind(into: Path) -> Path:
    """A copy of this checkout's packages under `into/symfind`, to edit (an upgrade) and
    run with `source=into`."""
    for package in ("extract", "storage", "daemon", "mcp_server", "cli"):
        shutil.copytree(ROOT / package, into / "symfind" / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    # A regular package on PYTHONPATH wins over the editable install's namespace.
    (into / "symfind" / "__init__.py").write_text("", encoding="utf-8")
    return into


def test_status_says_when_the_index_was_extracted_otherwise_until_index_runs(
        tmp_path: Path, repo: Path) -> None:
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "indexes")}
    assert symfind("index", str(repo), env=env).returncode == 0
    # A copy of symfind whose extraction version is one higher, as after an upgrade.
    newer = copy_of_symfind(tmp_path / "newer")
    version_file = newer / "symfind" / "extract" / "version.py"
    text = version_file.read_text(encoding="utf-8")
    version = int(re.search(r"^EXTRACTION_VERSION = (\d+)$", text, re.M)[1])
    version_file.write_text(text.replace(f"EXTRACTION_VERSION = {version}",
                                         f"EXTRACTION_VERSION = {version + 1}"), encoding="utf-8")

    def extraction() -> tuple[bool, str]:
        status = symfind("status", str(repo), "--json", source=newer, env=env)
        text = symfind("status", str(repo), source=newer, env=env).stdout
        line = next(line for line in text.splitlines() if line.startswith("extraction"))
        return json.loads(status.stdout)["extraction_current"], line

    assert extraction() == (False, (
        "extraction    by another version of symfind or other indexing options: answers come "
        "from it as it is until `symfind index` re-reads every file (a daemon does when it "
        "starts)"))
    assert symfind("index", str(repo), source=newer, env=env).returncode == 0
    assert extraction() == (True, "extraction    as this symfind extracts")


def test_schema_mismatch_is_reported_then_fixed_by_reindex(tmp_path: Path, repo: Path) -> None:
    env = {"SYMFIND_INDEX_DIR": str(tmp_path / "indexes")}
    assert symfind("index", str(repo), env=env).returncode == 0
    # A copy of symfind whose schema version is one higher, as after an upgrade.
    newer = copy_of_symfind(tmp_path / "newer")
    version = int((ROOT / "schema_version.txt").read_text(encoding="utf-8"))
    (newer / "symfind" / "storage" / "schema_version.txt").write_text(
        f"{version + 1}\n", encoding="utf-8")

    stale = symfind("search", "HttpClient", "--repo", str(repo), source=newer, env=env)
    assert (stale.returncode, stale.stderr) == (
        3, f"symfind: index schema v{version}, symfind needs v{version + 1} — run `symfind reindex`\n",
    )
    assert symfind("reindex", str(repo), source=newer, env=env).returncode == 0
    fixed = symfind("search", "HttpClient", "--repo", str(repo), "--limit", "1", source=newer,
                    env=env)
    assert (fixed.returncode, fixed.stdout.split()[:4]) == (
        0, ["1", "class", "HttpClient", "httpkit/client.py:10"],
    )
