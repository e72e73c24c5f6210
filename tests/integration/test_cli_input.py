"""Input the CLI must refuse in one line, or answer line for line, never silently accept."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.integration import test_cli

symfind = test_cli.symfind
repo = test_cli.repo  # the fixture repository, indexed once by `index_env`
index_env = test_cli.index_env

PATH_HELP = ("a path filter is a glob relative to the repository root: `src/**/*.py`, "
             "`tests/`, `*.go` (`*`, `**`, `?` and `[abc]` classes)")


@pytest.mark.parametrize(
    ("glob", "problem"),
    [("../..", "leaves the repository"), ("/etc/*", "is absolute"),
     ("[[", "has an unclosed '['")],
)
@pytest.mark.parametrize("repos", [1, 2])
def test_path_filters_outside_the_repository_are_usage_errors(
    repo: Path, index_env: dict[str, str], glob: str, problem: str, repos: int
) -> None:
    result = symfind("search", "HttpClient", *["--repo", str(repo)] * repos, "--path", glob,
                     env=index_env)
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", f"symfind: path filter {glob!r} {problem}; {PATH_HELP}\n",
    )


def test_a_path_filter_class_selects_paths(repo: Path, index_env: dict[str, str]) -> None:
    every = symfind("search", "HttpClient", "--repo", str(repo), "--json", "--limit", "50",
                    env=index_env)
    kept = symfind("search", "HttpClient", "--repo", str(repo), "--json", "--limit", "50",
                   "--path", "[h]ttpkit/[!s]*.py", env=index_env)
    assert (every.returncode, kept.returncode) == (0, 0), kept.stderr
    paths = [r["path"] for r in json.loads(kept.stdout)["results"]]
    expected = [r["path"] for r in json.loads(every.stdout)["results"]
                if r["path"].startswith("httpkit/") and r["path"].count("/") == 1
                and not r["path"].startswith("httpkit/s")]
    assert paths == expected and paths


def test_queries_from_answers_every_line_blank_ones_included(
    tmp_path: Path, repo: Path, index_env: dict[str, str]
) -> None:
    queries = tmp_path / "queries.txt"
    lines = ["HttpClient", "", "   ", "AsyncClient\r", "\x0cTimeout", "request"]
    queries.write_bytes("\n".join(lines).encode())  # no newline after the last line
    for repos in (1, 2):
        result = symfind("search", "--queries-from", str(queries),
                         *["--repo", str(repo)] * repos, "--json", env=index_env)
        assert result.returncode == 0, result.stderr
        answers = [json.loads(line) for line in result.stdout.splitlines()]
        assert [(a["query"], a["route"] == "invalid") for a in answers] == [
            ("HttpClient", False), ("", True), ("", True), ("AsyncClient", False),
            ("Timeout", False), ("request", False),
        ]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("/dev/zero", "line 1 of /dev/zero is over 65,536 bytes: --queries-from takes one "
         "query per line"),
        ("huge", "{path} is over 16 MiB; --queries-from reads at most that much (split the "
         "file)"),
        ("long-line", "line 3 of {path} is over 65,536 bytes: --queries-from takes one query "
         "per line"),
    ],
)
def test_queries_from_input_is_bounded(
    tmp_path: Path, repo: Path, index_env: dict[str, str], source: str, message: str
) -> None:
    path = Path(source)
    if source == "huge":
        path = tmp_path / "huge.txt"
        path.write_bytes(b"HttpClient\n" * (16 * 2**20 // 11 + 1))
    elif source == "long-line":
        path = tmp_path / "long.txt"
        path.write_bytes(b"a\nb\n" + b"x" * 70_000 + b"\n")
    elif not os.path.exists(source):
        pytest.skip(f"no {source} here")
    result = symfind("search", "--queries-from", str(path), "--repo", str(repo), "--json",
                     env=index_env)
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", f"symfind: {message.format(path=path)}\n",
    )
