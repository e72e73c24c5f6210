"""`symfind token create|list|revoke` as users run it, and its file made unsafe for real:
world-readable, a symbolic link, another user's, a group-writable directory, damaged,
on a full disk, the process killed while it writes, and its lock held by a stopped one. Each is one line on stderr and
a documented exit code (2 bad input, 6 the file refused or failing); nothing is lost."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import msgspec
import pytest

from symfind.mcp_server.access import StoreVerifier
from symfind.mcp_server.tokens import MAX_TOKENS, TokenFileError, TokenStore
from tests.integration.conftest import fill
from tests.integration.lock_holder import held_by_a_stopped_process

EXIT_USAGE, EXIT_FILE = 2, 6
TIMEOUT_S = 60
TOKEN = re.compile(r"sfp_[A-Za-z0-9_-]{43}")
NOBODY = 65534


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "config" / "symfind"
    monkeypatch.setenv("SYMFIND_CONFIG_DIR", str(directory))
    return directory


def symfind(*args: str) -> subprocess.CompletedProcess[str]:
    """`symfind token …` through the CLI entry point (which execs the MCP server's)."""
    return subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", "token", *args],
        capture_output=True, text=True, timeout=TIMEOUT_S, check=False, cwd="/",
    )


def one_line(done: subprocess.CompletedProcess[str], code: int, pattern: str) -> None:
    assert (done.returncode, done.stdout) == (code, ""), done.stderr
    assert "Traceback" not in done.stderr
    assert re.fullmatch(f"symfind: {pattern}\n", done.stderr), done.stderr


def create(name: str, *options: str) -> str:
    done = symfind("create", name, *options)
    assert done.returncode == 0, done.stderr
    assert TOKEN.fullmatch(done.stdout.strip()), done.stdout
    return done.stdout.strip()


def test_create_prints_the_token_once_and_keeps_only_its_digest(config: Path, tmp_path: Path) -> None:
    repo = tmp_path / "proj"
    (repo / ".git").mkdir(parents=True)
    done = symfind("create", "alice", "--repo", str(repo / ".git" / ".."), "--expires", "30d")
    token = done.stdout.strip()
    assert (done.returncode, done.stdout) == (0, token + "\n") and TOKEN.fullmatch(token)
    assert re.fullmatch(
        rf"symfind: token 'alice' created for {re.escape(str(repo.resolve()))}, until "
        r"\d{4}-\d\d-\d\d \d\d:\d\d; it is shown only now: keep it somewhere safe\n", done.stderr)
    text = (config / "tokens.json").read_text(encoding="utf-8")
    assert token not in text and token[4:] not in text
    [record] = json.loads(text)["tokens"]
    assert record["sha256"] == hashlib.sha256(token.encode()).hexdigest()
    assert record["repos"] == [str(repo.resolve())]
    assert record["expires_at"] - record["created_at"] == 30 * 86_400
    assert (config / "tokens.json").stat().st_mode & 0o777 == 0o600
    assert config.stat().st_mode & 0o777 == 0o700
    assert create("bob") != token


def test_list_shows_names_scopes_and_dates_never_a_token(config: Path) -> None:
    alice, bob = create("alice", "--expires", "2w"), create("bob")
    done = symfind("list")
    assert done.returncode == 0 and alice not in done.stdout and bob not in done.stdout
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["NAME", "REPOSITORIES", "CREATED", "LAST", "USED", "EXPIRES"]
    assert re.fullmatch(r"alice +all served +\S+ \S+ +never +\S+ \S+", lines[1])
    assert re.fullmatch(r"bob +all served +\S+ \S+ +never +never", lines[2])
    listed = json.loads(symfind("list", "--json").stdout)
    assert [(t["name"], t["repos"], t["last_used_at"], t["expired"]) for t in listed] == [
        ("alice", [], None, False), ("bob", [], None, False)]
    assert "sha256" not in listed[0]


def test_revoke_removes_one_token_and_an_unknown_name_is_exit_2(config: Path) -> None:
    create("alice")
    create("bob")
    done = symfind("revoke", "alice")
    assert (done.returncode, done.stderr) == (0, "symfind: token 'alice' revoked\n")
    assert [t.name for t in TokenStore(config).read()] == ["bob"]
    one_line(symfind("revoke", "alice"), EXIT_USAGE,
             r"no token named 'alice' \(`symfind token list` shows them\)")


def test_bad_names_durations_and_repositories_are_exit_2(config: Path, tmp_path: Path) -> None:
    create("alice")
    one_line(symfind("create", "alice"), EXIT_USAGE,
             r"a token named 'alice' exists already: revoke it first \(`symfind token revoke "
             r"alice`\) or pick another name")
    one_line(symfind("create", "two words"), EXIT_USAGE,
             r"bad token name 'two words': 1 to 64 letters, digits, `\.`, `_`, `@` or `-`, "
             "starting with a letter or digit")
    one_line(symfind("create", "x", "--repo", str(tmp_path / "absent")), EXIT_USAGE,
             rf"repository '{re.escape(str(tmp_path / 'absent'))}' is not a directory")
    done = symfind("create", "x", "--expires", "1y")
    assert done.returncode == EXIT_USAGE and "not a duration: '1y'" in done.stderr
    assert [t.name for t in TokenStore(config).read()] == ["alice"]


def test_at_most_50_tokens(config: Path) -> None:
    store = TokenStore(config)
    for i in range(MAX_TOKENS):
        store.create(f"t{i}", expires_at=None, now=0.0)
    one_line(symfind("create", "one-more"), EXIT_USAGE,
             r"there are 50 tokens already, the most there may be: revoke one first "
             r"\(`symfind token list` shows them\)")
    assert len(store.read()) == MAX_TOKENS
    assert symfind("revoke", "t0").returncode == 0
    create("one-more")


def test_a_world_readable_token_file_is_refused(config: Path) -> None:
    create("alice")
    path = config / "tokens.json"
    before = path.read_bytes()
    path.chmod(0o644)
    refusal = (rf"refusing the token file {re.escape(str(path))}: other users may read or "
               rf"write it \(mode 0644\); run `chmod 600 {re.escape(str(path))}`, and revoke "
               "its tokens if someone else may have read them")
    one_line(symfind("list"), EXIT_FILE, refusal)
    one_line(symfind("create", "bob"), EXIT_FILE, refusal)
    path.chmod(0o620)  # group-writable only
    assert symfind("revoke", "alice").returncode == EXIT_FILE
    assert path.read_bytes() == before


def test_a_symlinked_token_file_is_refused(config: Path, tmp_path: Path) -> None:
    create("alice")
    real = tmp_path / "elsewhere.json"
    (config / "tokens.json").rename(real)
    (config / "tokens.json").symlink_to(real)
    before = real.read_bytes()
    refusal = (rf"refusing the token file {re.escape(str(config / 'tokens.json'))}: it is a "
               "symbolic link; replace it with the file itself")
    one_line(symfind("list"), EXIT_FILE, refusal)
    one_line(symfind("create", "bob"), EXIT_FILE, refusal)
    assert real.read_bytes() == before and (config / "tokens.json").is_symlink()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to another user")
def test_another_users_token_file_or_an_open_directory_is_refused(config: Path) -> None:
    create("alice")
    path = config / "tokens.json"
    os.chown(path, NOBODY, -1)
    one_line(symfind("list"), EXIT_FILE,
             rf"refusing the token file {re.escape(str(path))}: it belongs to another user "
             rf"\(uid {NOBODY}\)")
    os.chown(path, os.geteuid(), -1)
    config.chmod(0o777)
    one_line(symfind("create", "bob"), EXIT_FILE,
             rf"refusing the token directory {re.escape(str(config))}: other users may write "
             rf"to it \(mode 0777\); run `chmod 700 {re.escape(str(config))}`")
    config.chmod(0o700)
    assert [t.name for t in TokenStore(config).read()] == ["alice"]


def test_a_damaged_token_file_is_refused_not_overwritten(config: Path) -> None:
    create("alice")
    path = config / "tokens.json"
    path.write_bytes(path.read_bytes()[:40])
    damaged = path.read_bytes()
    done = symfind("create", "bob")
    assert (done.returncode, done.stdout) == (EXIT_FILE, "")
    assert re.fullmatch(rf"symfind: the token file {re.escape(str(path))} is damaged \(.+\); "
                        "fix it, or remove it and create the tokens again\n", done.stderr)
    assert path.read_bytes() == damaged


def test_a_token_with_a_damaged_digest_is_refused_naming_its_line(config: Path) -> None:
    """One digest that is not hex (an edit by hand): every command refuses the whole file
    in one line naming the file, the line and the token, as the server does, and writes
    nothing."""
    create("alice")
    create("bob")
    path = config / "tokens.json"
    records = json.loads(path.read_bytes())["tokens"]
    path.write_text(path.read_text(encoding="utf-8").replace(records[1]["sha256"], "z" * 64),
                    encoding="utf-8")
    damaged = path.read_bytes()
    line = damaged.split(b"\n").index(b'      "sha256": "' + b"z" * 64 + b'",') + 1
    refusal = (rf"the token file {re.escape(str(path))} is damaged \(line {line}: token 'bob': "
               r"its sha256 is not a SHA-256 digest \(64 hex digits\)\); fix it, or remove it "
               "and create the tokens again")
    for command in (["list"], ["list", "--json"], ["create", "carol"], ["revoke", "alice"]):
        one_line(symfind(*command), EXIT_FILE, refusal)
    assert path.read_bytes() == damaged


def test_a_full_disk_while_creating_loses_no_token(full_disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = full_disk / "symfind"
    monkeypatch.setenv("SYMFIND_CONFIG_DIR", str(config))
    create("alice")
    before = (config / "tokens.json").read_bytes()
    fill(full_disk, "more")
    one_line(symfind("create", "bob"), EXIT_FILE,
             rf"cannot use the token file {re.escape(str(config / 'tokens.json'))}: no space "
             "left on device")
    assert (config / "tokens.json").read_bytes() == before
    assert sorted(p.name for p in config.iterdir()) == ["tokens.json", "tokens.lock"]


def test_killing_create_at_any_moment_keeps_the_file_whole(config: Path) -> None:
    """SIGKILL after 0, 10, 20 … ms: whenever it lands (starting up, under the lock, between
    the temporary file and the rename), the file decodes and holds every token created."""
    create("keep")
    created = {"keep"}
    landed = set()  # killed after its file was in place: its token stays, never shown
    for i in range(24):
        process = subprocess.Popen(
            [sys.executable, "-P", "-m", "symfind.cli", "token", "create", f"t{i}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/",
        )
        try:
            process.wait(timeout=i * 0.01)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
        out, _ = process.communicate(timeout=TIMEOUT_S)
        if process.returncode == 0:
            assert TOKEN.fullmatch(out.decode().strip())
            created.add(f"t{i}")
        names = {t.name for t in TokenStore(config).read()}
        assert created <= names <= created | landed | {f"t{i}"}
        landed |= names - created
    assert len(created) < 25, "no create was ever killed: the test proved nothing"


def test_concurrent_creates_all_land(config: Path) -> None:
    processes = [
        subprocess.Popen([sys.executable, "-P", "-m", "symfind.cli", "token", "create",
                          f"c{i}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/")
        for i in range(8)
    ]
    assert [p.wait(timeout=TIMEOUT_S) for p in processes] == [0] * 8
    for p in processes:
        p.communicate()
    assert sorted(t.name for t in TokenStore(config).read()) == sorted(f"c{i}" for i in range(8))


def test_a_lock_a_stopped_process_holds_is_reported_and_loses_nothing(config: Path) -> None:
    create("kept")
    (kept,) = TokenStore(config).read()
    why = (f"another process has held the lock of the token file {config / 'tokens.json'} "
           "for 10 s \\(a stopped `symfind token`\\?\\) — resume or stop it, then try again")
    with held_by_a_stopped_process(config / "tokens.lock"):
        one_line(symfind("create", "other"), EXIT_FILE, why)
        # The server records the last uses of tokens under the same lock.
        with pytest.raises(TokenFileError, match=why):
            TokenStore(config).record_use({kept.sha256: 1.0})
    assert TokenStore(config).read() == (kept,)
    create("other")
    assert [t.name for t in TokenStore(config).read()] == ["kept", "other"]


def test_the_servers_last_uses_wait_out_a_held_lock_and_are_written_after(
    config: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    create("kept")
    (kept,) = TokenStore(config).read()
    verifier = StoreVerifier(TokenStore(config))
    with held_by_a_stopped_process(config / "tokens.lock"):
        anyio.run(verifier.note_use, kept.sha256, 1234.0)
        anyio.run(verifier.flush_uses)
    assert TokenStore(config).read() == (kept,)  # nothing written, nothing lost
    assert [r.getMessage().split(":")[0] for r in caplog.records if r.levelname == "WARNING"] == [
        "last uses of 1 token(s) not recorded yet"]
    anyio.run(verifier.flush_uses)
    (used,) = TokenStore(config).read()
    assert used == msgspec.structs.replace(kept, last_used_at=1234.0)
