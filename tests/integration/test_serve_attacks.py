"""`symfind serve` under attack, each attack made for real against a real server process:
no token, a wrong one, one revoked while a session is open, an expired one, forged and
cross-server handles, a 100 MB body, a client that never finishes its request, bad
Host/Origin headers, a client that keeps guessing, an unsafe token file, a bind other
machines reach without TLS. Each gets its documented status and one clear line, and the
server's log never holds a token or an Authorization header.

Tests that fail authentication on purpose do it from their own loopback address
(127.0.0.N): the server slows down an address that keeps failing, and only that one.
"""

from __future__ import annotations

import base64
import json
import os
import re
import select
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from symfind.mcp_server.tokens import TokenStore
from tests.integration.mcp_support import error_text, index_repo, make_repo
from tests.integration.serve_support import (
    COMMAND_TIMEOUT_S,
    INITIALIZE,
    Served,
    bearer,
    http_client,
    post,
    serve_command,
    serving,
)

pytestmark = pytest.mark.anyio

REQUEST_TIMEOUT_S = 2
RESPONSE_TIMEOUT_S = 60.0
UNAUTHORIZED = {"error": "invalid_token", "error_description": "Authentication required"}
WWW_AUTHENTICATE = 'Bearer error="invalid_token", error_description="Authentication required"'


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    repo = make_repo(tmp_path_factory.mktemp("attacks") / "proj")
    indexes = tmp_path_factory.mktemp("attacks-index")
    index_repo(repo, indexes)
    env = {"SYMFIND_INDEX_DIR": str(indexes),
           "SYMFIND_CONFIG_DIR": str(tmp_path_factory.mktemp("attacks-config") / "symfind")}
    return {"repo": repo, "env": env, "logs": tmp_path_factory.mktemp("attacks-logs")}


@pytest.fixture(scope="module")
def served(setup: dict[str, Any]) -> Iterator[Served]:
    """The server every attack but the last ones goes at, logging all it can (-vv)."""
    with serving("--repo", str(setup["repo"]), "--no-index", "-vv",
                 "--request-timeout", str(REQUEST_TIMEOUT_S), env=setup["env"],
                 log=setup["logs"] / "served.log") as running:
        yield running


@pytest.fixture(scope="module")
def tokens_given(served: Served) -> list[str]:
    """Every token this module hands out: none may ever show in the server's log."""
    return []


def new_token(served: Served, tokens_given: list[str], name: str, *options: str) -> str:
    token = served.new_token(name, *options)
    tokens_given.append(token)
    return token


def test_no_token_is_401(served: Served) -> None:
    for headers in ({}, {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer"}):
        refused = post(served, INITIALIZE, headers=headers, source="127.0.0.11")
        assert (refused.status_code, refused.json()) == (401, UNAUTHORIZED)
        assert refused.headers["www-authenticate"] == WWW_AUTHENTICATE


def test_a_wrong_token_is_401(served: Served, tokens_given: list[str]) -> None:
    right = new_token(served, tokens_given, "wrong-test")
    for wrong in (right[:-1] + ("A" if right[-1] != "A" else "B"), right[:-1], right + "x",
                  "sfp_" + "A" * 43, right[4:], "sfp_" + "x" * 5000):
        refused = post(served, INITIALIZE, headers=bearer(wrong), source="127.0.0.12")
        assert (refused.status_code, refused.json()) == (401, UNAUTHORIZED), wrong
    assert post(served, INITIALIZE, headers=bearer(right), source="127.0.0.12").status_code == 200


async def test_a_token_revoked_during_a_session_fails_at_the_next_call(
    served: Served, tokens_given: list[str]
) -> None:
    token = new_token(served, tokens_given, "revoke-me")
    async with http_client(served, token, source="127.0.0.13", mode="legacy") as client:
        assert not (await client.call_tool("index_status", {})).is_error
        done = served.token("revoke", "revoke-me")
        assert done.returncode == 0, done.stderr
        with pytest.raises(MCPError, match="Server returned an error response"):
            await client.call_tool("index_status", {})
    refused = post(served, INITIALIZE, headers=bearer(token), source="127.0.0.13")
    assert (refused.status_code, refused.json()) == (401, UNAUTHORIZED)


def test_an_expired_token_is_401(served: Served, setup: dict[str, Any]) -> None:
    store = TokenStore(Path(setup["env"]["SYMFIND_CONFIG_DIR"]))
    now = time.time()
    token = store.create("expired", expires_at=now - 1, now=now - 60)
    listed = served.token("list")
    assert re.search(r"^expired .* \(expired\)$", listed.stdout, re.MULTILINE), listed.stdout
    refused = post(served, INITIALIZE, headers=bearer(token), source="127.0.0.14")
    assert (refused.status_code, refused.json()) == (401, UNAUTHORIZED)
    store.revoke("expired")


def _reforged(handle: str, **changes: Any) -> str:
    """`handle` with fields of its payload changed, its signature kept."""
    version, payload, mac = handle.split(".")
    fields = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    for index, value in changes.items():
        fields[int(index.removeprefix("f"))] = value
    encoded = base64.urlsafe_b64encode(json.dumps(fields).encode()).rstrip(b"=").decode()
    return f"{version}.{encoded}.{mac}"


async def test_forged_and_foreign_handles_read_nothing(
    served: Served, setup: dict[str, Any], tokens_given: list[str], tmp_path: Path
) -> None:
    token = new_token(served, tokens_given, "forger")
    stdio = StdioServerParameters(
        command=sys.executable, env={**os.environ, **setup["env"]},
        args=["-P", "-m", "symfind.cli", "mcp", "--repo", str(setup["repo"]), "--no-index"])
    async with Client(stdio) as local:
        found = await local.call_tool("codebase_search", {"query": "AsyncClient", "limit": 1})
        stdio_handle = found.structured_content["results"][0]["handle"]
    with serving("--repo", str(setup["repo"]), "--no-index", env=setup["env"],
                 log=tmp_path / "other.log") as other:
        async with http_client(other, token) as client:
            found = await client.call_tool("codebase_search", {"query": "AsyncClient", "limit": 1})
            other_handle = found.structured_content["results"][0]["handle"]

    async with http_client(served, token) as client:
        found = await client.call_tool("codebase_search", {"query": "AsyncClient", "limit": 1})
        own = found.structured_content["results"][0]["handle"]
        forged = {
            "another server's handle (same index)": other_handle,
            "a stdio server's handle (same index)": stdio_handle,
            "a path outside the repository": _reforged(own, f0="../../../../etc/passwd"),
            "an absolute path": _reforged(own, f0="/etc/passwd"),
            "another file of the repository": _reforged(own, f0="app/settings.py"),
            "more lines": _reforged(own, f2=10_000),
        }
        for what, handle in forged.items():
            result = await client.call_tool("read_symbol", {"handle": handle})
            assert error_text(result) == (
                "Error executing tool read_symbol: invalid handle: its signature does not match "
                "(edited or forged) — handles are opaque; re-run codebase_search and pass a "
                "result's `handle` unchanged"), what
        garbage = await client.call_tool("read_symbol", {"handle": "s1.not.base64!"})
        assert error_text(garbage).startswith("Error executing tool read_symbol: invalid handle")
        assert not (await client.call_tool("read_symbol", {"handle": own})).is_error


def test_a_100_mb_body_is_refused_413(served: Served, tokens_given: list[str]) -> None:
    token = new_token(served, tokens_given, "big-body")
    declared = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n" \
               "Content-Type: application/json\r\nContent-Length: 104857600\r\n\r\n"
    status, body, sent = _send_until_answered(served, declared.encode(), 100 << 20, chunked=False)
    assert (status, body) == (413, "Request body too large"), body
    chunked = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n" \
              "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    status, body, sent = _send_until_answered(served, chunked.encode(), 100 << 20, chunked=True)
    assert (status, body) == (413, "Request body too large"), body
    assert sent < 100 << 20  # refused long before the end
    no_token = declared.replace(f"Authorization: Bearer {token}\r\n", "")
    status, body, _ = _send_until_answered(served, no_token.encode(), 100 << 20, chunked=False,
                                           source="127.0.0.15")
    assert (status, json.loads(body)) == (401, UNAUTHORIZED)


def _connect(served: Served, source: str = "127.0.0.1") -> socket.socket:
    host, port = served.base.removeprefix("http://").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=RESPONSE_TIMEOUT_S,
                                    source_address=(source, 0))
    return sock


def _send_until_answered(served: Served, head: bytes, size: int, *, chunked: bool,
                         source: str = "127.0.0.1") -> tuple[int, str, int]:
    """Send `head`, then up to `size` bytes of body in 64 KiB pieces until the server
    answers; (status, body, bytes of body sent)."""
    sock = _connect(served, source)
    piece = b"[" * 65536
    sent = 0
    with sock:
        sock.sendall(head)
        while sent < size:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            data = (b"%x\r\n%s\r\n" % (len(piece), piece)) if chunked else piece
            try:
                sock.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(piece)
        return (*_response(sock), sent)


def _response(sock: socket.socket) -> tuple[int, str]:
    """Status and body of the response on `sock` (read until the server closes it or the
    body is complete)."""
    sock.settimeout(RESPONSE_TIMEOUT_S)
    data = b""
    while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < _length(data):
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, body.decode("utf-8", "replace")


def _length(data: bytes) -> int:
    found = re.search(rb"(?im)^content-length: *(\d+)", data.split(b"\r\n\r\n", 1)[0])
    return int(found.group(1)) if found else 1 << 62


async def test_a_client_that_never_finishes_its_request_gets_408_and_others_are_served(
    served: Served, tokens_given: list[str]
) -> None:
    token = new_token(served, tokens_given, "patient")
    line = f"request not received in time: send the whole request within {REQUEST_TIMEOUT_S} s\n"
    # Headers a byte at a time, never the blank line that ends them.
    slow_head = _connect(served)
    slow_head.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    # Whole headers, then a body that never comes whole.
    slow_body = _connect(served)
    slow_body.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}"
                      "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
                      .encode())
    with slow_head, slow_body:
        # Meanwhile the others are served.
        assert httpx2.get(served.base + "/healthz", timeout=30.0).status_code == 200
        async with http_client(served, token) as client:
            assert not (await client.call_tool("index_status", {})).is_error
        deadline = time.monotonic() + RESPONSE_TIMEOUT_S
        while not select.select([slow_head], [], [], 0.2)[0]:
            assert time.monotonic() < deadline, "the slow client was never cut off"
            try:
                slow_head.sendall(b"X")  # it keeps trickling: still not a request
            except (BrokenPipeError, ConnectionResetError):
                break
        assert _response(slow_head) == (408, line)
        assert _response(slow_body) == (408, line)
        assert slow_head.recv(1) == b"" and slow_body.recv(1) == b""  # closed


async def test_idle_connections_from_one_address_never_lock_another_out(
    setup: dict[str, Any], tmp_path: Path
) -> None:
    """Twice --max-connections idle connections from 127.0.0.2 (no token, not a byte
    sent): past its share (half) each gets 503 at once and is closed, those within it
    stay open, and a client at 127.0.0.1 searches meanwhile."""
    cap = 16
    env = {**setup["env"], "SYMFIND_CONFIG_DIR": str(tmp_path / "config")}
    with serving("--repo", str(setup["repo"]), "--no-index", "--max-connections", str(cap),
                 "--request-timeout", "600", env=env, log=tmp_path / "crowd.log") as running:
        token = running.new_token("crowded")
        flood = [_connect(running, "127.0.0.2") for _ in range(2 * cap)]
        try:
            line = (f"too many connections from this address: at most {cap // 2} at once; "
                    "close some and retry\n")
            assert [_response(sock) for sock in flood[cap // 2:]] == [(503, line)] * (
                2 * cap - cap // 2)
            async with http_client(running, token) as client:
                found = await client.call_tool("codebase_search", {"query": "AsyncClient",
                                                                   "limit": 1})
                assert found.structured_content["results"][0]["qualname"] == "AsyncClient"
            assert select.select(flood[:cap // 2], [], [], 0)[0] == []  # still open, idle
        finally:
            for sock in flood:
                sock.close()
        warned = [line for line in running.stderr().splitlines() if "share" in line]
        assert warned == [f"WARNING symfind.mcp_server.http: 127.0.0.2 holds {cap // 2} "
                          "connections, its share of --max-connections: more are refused "
                          "until it closes some"]


def test_a_bad_host_is_421_and_a_bad_origin_403(served: Served, tokens_given: list[str]) -> None:
    token = new_token(served, tokens_given, "rebinding")
    host = post(served, INITIALIZE, headers={**bearer(token), "Host": "evil.example"})
    assert (host.status_code, host.text) == (421, "Invalid Host header")
    origin = post(served, INITIALIZE, headers={**bearer(token), "Origin": "http://evil.example"})
    assert (origin.status_code, origin.text) == (403, "Invalid Origin header")
    local = post(served, INITIALIZE, headers={**bearer(token), "Origin": "http://localhost:3000"})
    assert local.status_code == 200
    kind = post(served, INITIALIZE, headers={**bearer(token), "content-type": "text/plain"})
    assert (kind.status_code, kind.text) == (400, "Invalid Content-Type header")


def test_a_client_that_keeps_failing_is_slowed_down_alone(served: Served, tokens_given: list[str]) -> None:
    right = new_token(served, tokens_given, "guessed")
    for i in range(10):
        guess = post(served, INITIALIZE, headers=bearer(f"sfp_guess{i}"), source="127.0.0.20")
        assert guess.status_code == 401
    throttled = post(served, INITIALIZE, headers=bearer("sfp_guess10"), source="127.0.0.20")
    assert throttled.status_code == 429
    assert 1 <= int(throttled.headers["retry-after"]) <= 60
    assert throttled.json() == {"error": "too_many_failed_authentications", "error_description": (
        f"10 failed authentications from this address in the last 60 s: retry in "
        f"{throttled.headers['retry-after']} s")}
    # Not even a right token gets through from there for now ...
    assert post(served, INITIALIZE, headers=bearer(right), source="127.0.0.20").status_code == 429
    # ... while every other address is served as before.
    assert post(served, INITIALIZE, headers=bearer("sfp_x"), source="127.0.0.21").status_code == 401
    assert post(served, INITIALIZE, headers=bearer(right), source="127.0.0.21").status_code == 200
    assert post(served, INITIALIZE, headers=bearer(right)).status_code == 200


async def test_the_log_never_holds_a_token_nor_an_authorization_header(
    served: Served, tokens_given: list[str]
) -> None:
    """Last of the tests on the module's server (-vv: every log line it can write): the
    tokens of every test above, and of a use, a failure and a revocation here."""
    token = new_token(served, tokens_given, "logged")
    async with http_client(served, token) as client:
        assert not (await client.call_tool("codebase_search", {"query": "HttpClient"})).is_error
    assert post(served, INITIALIZE, headers=bearer(token + "x"), source="127.0.0.22"
                ).status_code == 401
    assert served.token("revoke", "logged").returncode == 0
    assert post(served, INITIALIZE, headers=bearer(token), source="127.0.0.22").status_code == 401
    log = served.stderr()
    assert "POST /mcp" in log  # it did log the requests
    leaks = [token for token in tokens_given if token in log or token[4:] in log]
    assert leaks == []
    assert re.search(r"(?i)authorization|bearer sfp|sfp_[A-Za-z0-9_-]{20}", log) is None


# ---- servers that must not start, or stop trusting their tokens ----------------------------


def _start(setup: dict[str, Any], *args: str, env: dict[str, str] | None = None) -> (
        subprocess.CompletedProcess[str]):
    return subprocess.run(serve_command("--repo", str(setup["repo"]), "--no-index", *args),
                          env={**os.environ, **setup["env"], **(env or {})}, capture_output=True,
                          text=True, timeout=COMMAND_TIMEOUT_S, check=False, cwd="/",
                          stdin=subprocess.DEVNULL)


def _one_line(done: subprocess.CompletedProcess[str], code: int, pattern: str) -> None:
    assert (done.returncode, done.stdout) == (code, ""), done.stderr
    assert "Traceback" not in done.stderr
    assert re.fullmatch(f"symfind: {pattern}\n", done.stderr), done.stderr


def test_an_unsafe_token_file_stops_the_server_from_starting(
    setup: dict[str, Any], tmp_path: Path
) -> None:
    config = tmp_path / "config"
    env = {"SYMFIND_CONFIG_DIR": str(config)}
    TokenStore(config).create("someone", expires_at=None, now=0.0)
    path = config / "tokens.json"
    path.chmod(0o644)
    _one_line(_start(setup, env=env), 6,
              rf"refusing the token file {re.escape(str(path))}: other users may read or write "
              rf"it \(mode 0644\); run `chmod 600 {re.escape(str(path))}`, and revoke its tokens "
              "if someone else may have read them")
    path.chmod(0o600)
    path.rename(tmp_path / "real.json")
    path.symlink_to(tmp_path / "real.json")
    _one_line(_start(setup, env=env), 6,
              rf"refusing the token file {re.escape(str(path))}: it is a symbolic link; replace "
              "it with the file itself")


def test_a_damaged_token_file_stops_the_server_from_starting(
    setup: dict[str, Any], tmp_path: Path
) -> None:
    config = tmp_path / "config"
    TokenStore(config).create("someone", expires_at=None, now=0.0)
    path = config / "tokens.json"
    record = json.loads(path.read_bytes())["tokens"][0]
    path.write_text(path.read_text(encoding="utf-8").replace(record["sha256"], "not hex"),
                    encoding="utf-8")
    _one_line(_start(setup, env={"SYMFIND_CONFIG_DIR": str(config)}), 6,
              rf"the token file {re.escape(str(path))} is damaged \(line 6: token 'someone': its "
              r"sha256 is not a SHA-256 digest \(64 hex digits\)\); fix it, or remove it and "
              "create the tokens again")


UNAVAILABLE = {"error": "temporarily_unavailable", "error_description": (
    "this server cannot check tokens now: its token file cannot be used (the server's log "
    "says why); retry once its operator has fixed it")}


def test_a_token_file_made_unsafe_or_damaged_while_serving_refuses_every_token_503(
    setup: dict[str, Any], tmp_path: Path
) -> None:
    """No token is trusted while the file cannot be used (503: the tokens are not at
    fault, and it counts as no failed authentication); one log line says why, no
    traceback; once the file is fixed, its tokens work again."""
    env = {**setup["env"], "SYMFIND_CONFIG_DIR": str(tmp_path / "config")}
    with serving("--repo", str(setup["repo"]), "--no-index", env=env,
                 log=tmp_path / "unsafe.log") as running:
        token = running.new_token("soon-unsafe")
        assert post(running, INITIALIZE, headers=bearer(token)).status_code == 200
        path = tmp_path / "config" / "tokens.json"
        path.chmod(0o604)
        for _ in range(12):  # more than the failures that get an address throttled
            refused = post(running, INITIALIZE, headers=bearer(token))
            assert (refused.status_code, refused.json()) == (503, UNAVAILABLE)
        path.chmod(0o600)
        assert post(running, INITIALIZE, headers=bearer(token)).status_code == 200
        good = path.read_text(encoding="utf-8")
        record = json.loads(good)["tokens"][0]
        path.write_text(good.replace(record["sha256"], record["sha256"][:-1] + "g"),
                        encoding="utf-8")
        for headers in (bearer(token), {}):
            refused = post(running, INITIALIZE, headers=headers)
            assert (refused.status_code, refused.json()) == (503, UNAVAILABLE)
        healthy = httpx2.get(running.base + "/healthz", timeout=30.0)
        assert (healthy.status_code, healthy.json()) == (200, {"status": "ok"})
        path.write_text(good, encoding="utf-8")
        assert post(running, INITIALIZE, headers=bearer(token)).status_code == 200
        log = running.stderr()
        lines = [line for line in log.splitlines() if "refusing every token" in line]
        assert lines == [(
            f"ERROR symfind.mcp_server.access: refusing every token: refusing the token file "
            f"{path}: other users may read or write it (mode 0604); run `chmod 600 {path}`, and "
            "revoke its tokens if someone else may have read them"), (
            f"ERROR symfind.mcp_server.access: refusing every token: the token file {path} is "
            "damaged (line 6: token 'soon-unsafe': its sha256 is not a SHA-256 digest (64 hex "
            "digits)); fix it, or remove it and create the tokens again")]
        assert "Traceback" not in log


def test_a_bind_other_machines_reach_needs_tls(setup: dict[str, Any], tmp_path: Path) -> None:
    for host in ("0.0.0.0", "::", "192.0.2.1", "build-box.example"):
        _one_line(_start(setup, "--host", host), 2,
                  rf"refusing to serve on {re.escape(host)} without TLS: other machines would "
                  "see tokens and code in clear — give --tls-cert and --tls-key, or "
                  "--insecure-http when a proxy on this machine terminates TLS")
    _one_line(_start(setup, "--tls-cert", str(tmp_path / "cert.pem")), 2,
              "--tls-cert and --tls-key go together: give both")
    (tmp_path / "cert.pem").write_text("not a certificate\n", encoding="utf-8")
    done = _start(setup, "--tls-cert", str(tmp_path / "cert.pem"), "--tls-key",
                  str(tmp_path / "cert.pem"))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"symfind: cannot use the TLS certificate {tmp_path}/cert.pem")
    assert len(done.stderr.splitlines()) == 1


def test_a_taken_port_is_one_line_exit_6(setup: dict[str, Any]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            serve_command("--repo", str(setup["repo"]), "--no-index", "--port", str(port)),
            env={**os.environ, **setup["env"]}, capture_output=True, text=True,
            timeout=COMMAND_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
    _one_line(done, 6, f"cannot listen on 127.0.0.1:{port}: address already in use")


async def test_tls_with_the_users_certificate(setup: dict[str, Any], tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key),
         "-out", str(cert)], capture_output=True, text=True, check=False,
        timeout=COMMAND_TIMEOUT_S)
    if made.returncode != 0:
        pytest.skip(f"openssl cannot make a certificate here: {made.stderr.strip()}")
    env = {**setup["env"], "SYMFIND_CONFIG_DIR": str(tmp_path / "config")}
    with serving("--repo", str(setup["repo"]), "--no-index", "--tls-cert", str(cert),
                 "--tls-key", str(key), env=env, log=tmp_path / "tls.log") as running:
        assert running.url.startswith("https://127.0.0.1:")
        token = running.new_token("tls")
        trusted = ssl.create_default_context(cafile=str(cert))
        answer = post(running, INITIALIZE, headers=bearer(token), verify=trusted)
        assert answer.status_code == 200
        with pytest.raises(httpx2.ConnectError):  # a client that does not trust it
            post(running, INITIALIZE, headers=bearer(token))
        with pytest.raises(httpx2.HTTPError):  # plain http to the TLS port
            httpx2.get(running.base.replace("https://", "http://") + "/healthz", timeout=30.0)
