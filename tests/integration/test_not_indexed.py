"""Every file accounted for: code named like credentials is indexed, credential files and
names that are not UTF-8 are listed with their reason by `symfind status --skipped`, by
`symfind index` and by a running daemon (real processes, real watchdog events)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

from symfind.daemon.config import load_config
from symfind.extract import extract_file
from symfind.storage import Searcher, read_manifest
from tests.integration.daemon_process import idle, wait_for_status

ROOT = Path(__file__).resolve().parents[2]
BAD_NAME = os.fsdecode(b"bad\xffname.py")
CODE = {
    "credentials/tls.go": "package credentials\n\ntype TLSInfo struct{}\n\nfunc NewTLS() {}\n",
    "credentials/alts/alts.go": "package alts\n\nfunc NewClientCreds() {}\n",
    "credentials.py": "class Credentials:\n    def refresh(self):\n        pass\n",
    "app/main.py": "def main():\n    pass\n",
}
SECRETS = {
    ".env": "API_TOKEN=sk-live-0123456789\n",
    "credentials.json": '{"token": "hunter2"}\n',
    "id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
    "Credentials.ini": "[default]\ntoken = hunter2\n",
    ".aws/credentials": "[default]\naws_secret_access_key = AAAA\n",
}
INDEXED = [  # by path then line
    ("app/main.py", "main"),
    ("credentials.py", "Credentials"),
    ("credentials.py", "Credentials.refresh"),
    ("credentials/alts/alts.go", "alts.NewClientCreds"),
    ("credentials/tls.go", "credentials.TLSInfo"),
    ("credentials/tls.go", "credentials.NewTLS"),
]
NOT_INDEXED = [
    {"path": "bad\\xffname.py", "reason": "bad_name"},
    {"path": "node_modules/", "reason": "default_dir"},
    {"path": "generated/", "reason": "ignored"},
    {"path": ".aws/credentials", "reason": "secret"},
    {"path": ".env", "reason": "secret"},
    {"path": "Credentials.ini", "reason": "secret"},
    {"path": "credentials.json", "reason": "secret"},
    {"path": "id_rsa", "reason": "secret"},
]


def make_repo(root: Path) -> Path:
    files = {
        **CODE, **SECRETS,
        ".gitignore": "generated/\n",
        "generated/out.py": "def out():\n    pass\n",
        "node_modules/dep/index.js": "function dep() {}\n",
    }
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    (root / BAD_NAME).write_text("def unnameable():\n    pass\n", encoding="utf-8")
    return root


def symfind(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", *args],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )


def indexed(repo: Path) -> list[tuple[str, str]]:
    index_dir = load_config(repo).index_dir
    return [(s.path, s.qualname) for s in Searcher(index_dir).all_symbols()]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def test_index_keeps_code_named_like_credentials_and_lists_every_file_it_skips(repo: Path) -> None:
    result = symfind("index", str(repo), "--json")
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout)["skipped"] == {"bad_name": 1, "secret": 5}
    assert indexed(repo) == INDEXED

    listed = symfind("status", str(repo), "--skipped", "--json")
    assert (listed.returncode, listed.stderr) == (0, "")
    assert json.loads(listed.stdout) == {
        "not_indexed": NOT_INDEXED, "parsed_with_errors": [], "symfind_version": version("symfind"),
    }
    text = symfind("status", str(repo), "--skipped")
    assert text.stdout.splitlines() == [f"{e['reason']:<13} {e['path']}" for e in NOT_INDEXED]

    status = json.loads(symfind("status", str(repo), "--json").stdout)
    assert (status["files"], status["skipped"], status["skipped_dirs"]) == (
        4, {"bad_name": 1, "secret": 5}, {"default_dir": 1, "ignored": 1},
    )
    lines = symfind("status", str(repo)).stdout.splitlines()
    assert "files         4 indexed; skipped: 1 bad_name, 5 secret" in lines
    assert "directories   skipped: 1 default_dir, 1 ignored" in lines
    assert "parse errors  none" in lines


def test_code_that_stops_being_ignored_is_indexed_and_no_longer_listed(repo: Path) -> None:
    assert symfind("index", str(repo)).returncode == 0
    (repo / ".gitignore").write_text("", encoding="utf-8")
    (repo / BAD_NAME).unlink()
    assert symfind("index", str(repo)).returncode == 0
    assert indexed(repo) == [*INDEXED, ("generated/out.py", "out")]
    assert read_manifest(load_config(repo).index_dir).excluded == {"node_modules/": "default_dir"}
    listed = json.loads(symfind("status", str(repo), "--skipped", "--json").stdout)
    assert listed["not_indexed"] == [e for e in NOT_INDEXED if e["reason"] in {"secret", "default_dir"}]


def test_files_indexed_with_parse_errors_are_counted_and_listed(tmp_path: Path) -> None:
    # The TypeScript fixture's tail: a grammar gap loses a region that re-parsing recovers.
    # Its second call signature's `<` is moved to column 0, where separate_call_signatures
    # has no indentation to put its `;` in: the gap stays open.
    fixture = (ROOT / "tests" / "fixtures" / "languages" / "typescript" / "sample.ts").read_bytes()
    tail = fixture[fixture.index(b"// tree-sitter-typescript 0.13's grammar loses") :]
    tail = tail.replace(b"  >\n  <\n    Result,", b"  >\n<\n    Result,", 1)
    repo = tmp_path / "repo"
    (repo / "web").mkdir(parents=True)
    (repo / "web" / "tail.ts").write_bytes(tail)
    (repo / "web" / "clean.ts").write_text("export function ok(): number {\n  return 1;\n}\n")
    expected = extract_file("web/tail.ts", tail)
    assert symfind("index", str(repo)).returncode == 0

    status = json.loads(symfind("status", str(repo), "--json").stdout)
    assert status["parse_errors"] == {
        "files": 1, "error_regions": expected.error_regions, "recovered": expected.recovered,
    }
    listed = json.loads(symfind("status", str(repo), "--skipped", "--json").stdout)
    assert listed == {"not_indexed": [], "parsed_with_errors": [
        {"path": "web/tail.ts", "error_regions": expected.error_regions, "recovered": 4},
    ], "symfind_version": version("symfind")}
    text = symfind("status", str(repo), "--skipped").stdout
    assert text == (f"parse_errors  web/tail.ts ({expected.error_regions} regions not parsed, "
                    "4 definitions recovered by re-parsing)\n")


@pytest.fixture
def daemon(repo: Path) -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "symfind.cli", "daemon", "run", str(repo)], cwd=ROOT,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield load_config(repo).index_dir, process
    finally:
        process.terminate()
        process.wait(timeout=60)


def test_the_daemon_skips_names_that_are_not_utf8_and_keeps_indexing(
    repo: Path, daemon: tuple[Path, subprocess.Popen[bytes]]
) -> None:
    index_dir, process = daemon
    wait_for_status(index_dir, process, lambda s: idle(s) and s.files == 4)
    assert indexed(repo) == INDEXED

    # While it watches: another such name, a new credential file, and code after them.
    (repo / os.fsdecode(b"app/caf\xe9.py")).write_text("def cafe():\n    pass\n", encoding="utf-8")
    (repo / "app" / ".env.local").write_text("TOKEN=1\n", encoding="utf-8")
    (repo / "app" / "after.py").write_text("def after():\n    pass\n", encoding="utf-8")
    status = wait_for_status(index_dir, process, lambda s: idle(s) and s.files == 5)
    assert status.skipped == {"bad_name": 2, "secret": 6}
    assert indexed(repo) == [("app/after.py", "after"), *INDEXED]
    assert read_manifest(index_dir).skipped == {
        **{path: "secret" for path in SECRETS}, "app/.env.local": "secret",
        "bad\\xffname.py": "bad_name", "app/caf\\xe9.py": "bad_name",
    }

    (repo / os.fsdecode(b"app/caf\xe9.py")).unlink()
    status = wait_for_status(index_dir, process, lambda s: idle(s) and s.skipped.get("bad_name") == 1)
    assert (status.files, status.skipped) == (5, {"bad_name": 1, "secret": 6})
