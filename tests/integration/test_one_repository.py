"""One repository is a list of one: `symfind search` with one `--repo` goes through the same
path as several repositories (`storage.search_repo` over the repository's daemon or its
index), and answers exactly what `Searcher.search` answers on that index — the output
contract of one repository — as a table, as `--json`, and on every line of `--queries-from`,
whether the index is read directly or a running daemon answers.
"""

from __future__ import annotations

import json
import re
import shutil
from importlib.metadata import version
from pathlib import Path

import msgspec
import pytest

from symfind.daemon.config import load_config
from symfind.cli.render import format_response
from symfind.storage import DaemonStatus, QueryError, Searcher, SearchQuery, SearchResponse
from tests.integration.test_cli import FIXTURE_REPO, RESULT_KEYS, symfind
from tests.integration.test_daemon import Running

QUERIES = ["AsyncClinet", "http client", "AsyncClient#send", "Zqxwvut", "send"]
FILTERS: list[dict[str, str]] = [{}, {"kind": "method"}, {"path": "httpkit/**"}]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("one") / "repo"
    shutil.copytree(FIXTURE_REPO, repo)
    env = {"SYMFIND_INDEX_DIR": str(tmp_path_factory.mktemp("one-index"))}
    result = symfind("index", str(repo), env=env)
    assert result.returncode == 0, result.stderr
    return repo, env


def _timeless(response: object) -> object:
    """A response with its timing blanked (the only thing two runs may differ in)."""
    data = msgspec.to_builtins(response)
    data["took_ms"] = 0
    return data


def _as_printed(response: SearchResponse) -> object:
    """What `search --json` prints for `response`: it, with the symfind version that made it."""
    return {**_timeless(response), "symfind_version": version("symfind")}


def _flags(filters: dict[str, str]) -> list[str]:
    return [part for key, value in filters.items() for part in (f"--{key}", value)]


def _expected(
    repo: Path, env: dict[str, str], query: SearchQuery, daemon: DaemonStatus | None = None
) -> SearchResponse:
    """What the index answers, given the status of the daemon keeping it (none by default)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", env["SYMFIND_INDEX_DIR"])
        return Searcher(load_config(str(repo)).index_dir).search(query, daemon=daemon)


@pytest.mark.parametrize("filters", FILTERS, ids=["no filter", "kind", "path"])
@pytest.mark.parametrize("query", QUERIES)
def test_one_repository_answers_what_its_index_answers(
    indexed: tuple[Path, dict[str, str]], query: str, filters: dict[str, str]
) -> None:
    repo, env = indexed
    expected = _expected(repo, env, SearchQuery(text=query, **filters))
    table = symfind("search", query, "--repo", str(repo), *_flags(filters), env=env)
    as_json = symfind("search", query, "--repo", str(repo), "--json", *_flags(filters), env=env)
    assert (table.returncode, table.stderr, as_json.returncode, as_json.stderr) == (0, "", 0, "")
    in_ms = re.compile(r"\d+(\.\d+)? ms\]$", re.MULTILINE)
    assert in_ms.sub("ms]", table.stdout) == in_ms.sub("ms]", format_response(expected) + "\n")
    assert _timeless(json.loads(as_json.stdout)) == _as_printed(expected)


def test_every_line_of_queries_from_answers_what_the_index_answers(
    indexed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, env = indexed
    lines = [*QUERIES, "x" * 600]
    queries = tmp_path / "queries.txt"
    queries.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = symfind("search", "--queries-from", str(queries), "--repo", str(repo),
                     "--limit", "3", "--kind", "method", "--json", env=env)
    assert (result.returncode, result.stderr) == (0, "")
    expected = []
    for text in lines:
        try:
            response = _expected(repo, env, SearchQuery(text=text, limit=3, kind="method"))
        except QueryError as exc:
            expected.append({"query": text, "route": "invalid", "took_ms": 0, "results": [],
                             "error": str(exc), "symfind_version": version("symfind")})
            continue
        results = [{key: value for key, value in result.items() if key in RESULT_KEYS}
                   for result in msgspec.to_builtins(response.results)]
        expected.append({"query": text, "route": response.route, "took_ms": 0,
                         "results": results, "freshness": msgspec.to_builtins(response.freshness),
                         "symfind_version": version("symfind")})
    answered = [{**json.loads(line), "took_ms": 0} for line in result.stdout.splitlines()]
    assert answered == expected


def test_a_running_daemon_answers_what_the_index_answers(
    indexed: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, env = indexed
    monkeypatch.setenv("SYMFIND_INDEX_DIR", env["SYMFIND_INDEX_DIR"])
    running = Running(load_config(str(repo))).start()
    try:
        for query in QUERIES:
            expected = _expected(repo, env, SearchQuery(text=query), running.daemon.status())
            answer = symfind("search", query, "--repo", str(repo), "--json", env=env)
            assert (answer.returncode, answer.stderr) == (0, "")
            assert _timeless(json.loads(answer.stdout)) == _as_printed(expected)
        # White-box: the answers came from the daemon, whose index source opened on the
        # first search request it served.
        assert running.daemon.keeper.source._searcher is not None
    finally:
        running.stop()
