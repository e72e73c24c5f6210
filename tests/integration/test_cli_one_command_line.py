"""One command line: every `symfind` command, `mcp`, `serve` and `token` included, is parsed
by the same parsers and run by the process that parsed it. Run as users run it: the
installed `symfind` console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests.integration.mcp_support import make_repo

SYMFIND = str(Path(sys.executable).parent / "symfind")
TIMEOUT_S = 120


def symfind(*args: str, stdin: str | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SYMFIND, *args], input=stdin, capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False, env={**os.environ, **(env or {})},
                          stdin=subprocess.DEVNULL if stdin is None else None)


def _see(command: str) -> str:
    return f" — see `{command} --help`\n"


#: Arguments, and the line that says what is wrong with them (after `symfind: `).
USAGE_ERRORS = [
    (["serve", "--bogus"], "unrecognized arguments: --bogus" + _see("symfind serve")),
    (["mcp", "--bogus"], "unrecognized arguments: --bogus" + _see("symfind mcp")),
    (["token", "create"],
     "the following arguments are required: name" + _see("symfind token create")),
    (["token", "revoke"],
     "the following arguments are required: name" + _see("symfind token revoke")),
    (["token"], "the following arguments are required: ACTION" + _see("symfind token")),
    (["token", "list", "--bogus"], "unrecognized arguments: --bogus" + _see("symfind token list")),
    (["token", "create", "ci", "--expires", "5y"],
     "argument --expires: not a duration: '5y' (a number and a unit, s m h d or w: 30d, 12h; "
     "at most 3650d)" + _see("symfind token create")),
    (["serve", "--port", "70000"],
     "argument --port: must be between 0 (any free port) and 65535, got 70000"
     + _see("symfind serve")),
    (["serve", "--port", "-1"],
     "argument --port: must be between 0 (any free port) and 65535, got -1"
     + _see("symfind serve")),
    (["serve", "--port", "http"], "argument --port: not a port number: 'http'"
     + _see("symfind serve")),
    (["serve", "--max-connections", "0"],
     "argument --max-connections: must be at least 1, got 0" + _see("symfind serve")),
    (["serve", "--max-connections", "-1"],
     "argument --max-connections: must be at least 1, got -1" + _see("symfind serve")),
    (["serve", "--request-timeout", "0"],
     "argument --request-timeout: must be more than 0, got 0" + _see("symfind serve")),
    (["mcp", "--tool-prefix", "1x"],
     "argument --tool-prefix: must be a letter then up to 31 letters, digits, _ or -; got '1x'"
     + _see("symfind mcp")),
    (["search", "Foo", "--bogus"], "unrecognized arguments: --bogus" + _see("symfind search")),
    (["index", "--bogus"], "unrecognized arguments: --bogus" + _see("symfind index")),
    (["reindex", "--bogus"], "unrecognized arguments: --bogus" + _see("symfind reindex")),
    (["status", "--bogus"], "unrecognized arguments: --bogus" + _see("symfind status")),
    (["daemon", "status", "--bogus"], "unrecognized arguments: --bogus" + _see("symfind daemon")),
    ([], "the following arguments are required: COMMAND" + _see("symfind")),
]


@pytest.mark.parametrize(("args", "line"), USAGE_ERRORS,
                         ids=[" ".join(args) or "nothing" for args, _ in USAGE_ERRORS])
def test_a_usage_error_is_one_line_and_exit_2(args: list[str], line: str) -> None:
    done = symfind(*args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "symfind: " + line)


def test_mcp_and_serve_take_the_same_options() -> None:
    """Declared once: the same flags and help texts on both (what differs is theirs)."""
    def options(command: str) -> dict[str, str]:
        text = symfind(command, "--help").stdout
        listed = text.split("options:\n", 1)[1]
        return {flag: " ".join(listed.split(flag, 1)[1].split("\n  -", 1)[0].split())
                for flag in ("--repo", "--no-index", "--tool-prefix", "--force", "--verbose")}

    assert options("mcp") == options("serve")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A repository, and the environment that names its index."""
    place = tmp_path_factory.mktemp("one-command-line")
    repo, env = make_repo(place / "proj"), {"SYMFIND_INDEX_DIR": str(place / "indexes")}
    done = symfind("index", str(repo), env=env)
    assert done.returncode == 0, done.stderr
    return repo, env


def test_queries_from_stdin_answer_as_from_a_file(
    indexed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, env = indexed
    queries = "HtppClient\n\nload settings\n"
    (tmp_path / "queries.txt").write_text(queries, encoding="utf-8")

    def answers(done: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
        return [{key: value for key, value in json.loads(line).items() if key != "took_ms"}
                for line in done.stdout.splitlines()]

    common = ["--repo", str(repo), "--limit", "2"]
    from_stdin = answers(symfind("search", "--queries-from", "-", *common, stdin=queries,
                                 env=env))
    from_file = answers(symfind("search", "--queries-from", str(tmp_path / "queries.txt"),
                                *common, env=env))
    assert from_stdin == from_file
    assert [(a["query"], [r["qualname"] for r in a["results"]]) for a in from_stdin] == [
        ("HtppClient", ["HttpClient", "AsyncClient"]),
        ("", []),
        ("load settings", ["Settings.load_settings", "Settings"]),
    ]


def test_symfind_mcp_serves_in_the_process_that_parsed_it(
    indexed: tuple[Path, dict[str, str]]
) -> None:
    """No second interpreter: the process keeps the command line it was started with, and
    has no child (with --no-index it starts no daemon either)."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}
    repo, env = indexed
    command = [SYMFIND, "mcp", "--repo", str(repo), "--no-index"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env={**os.environ, **env}) as process:
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(initialize) + "\n")
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())
            server = psutil.Process(process.pid)
            seen = (server.cmdline()[1:], [child.cmdline() for child in server.children(True)])
            _out, err = process.communicate(timeout=TIMEOUT_S)  # closes stdin: the end
        finally:
            if process.poll() is None:  # the test failed on the way
                process.kill()
    assert (answer["id"], answer["result"]["serverInfo"]["name"]) == (1, "symfind")
    assert seen == (command, [])
    assert (process.returncode, err) == (0, "")
