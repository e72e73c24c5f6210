"""`symfind serve` as users run it, for the tests: a real process (uvicorn) on a loopback
port it picks free, reached with the SDK's Streamable HTTP client or plain httpx2 (the HTTP
client the SDK itself uses); tokens made with the real `symfind token` command.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 30.0
COMMAND_TIMEOUT_S = 60.0
SERVING = re.compile(r"symfind: serving .* at (https?://\S+) \(Ctrl-C stops\)")


@dataclass
class Served:
    """A running `symfind serve`."""

    process: subprocess.Popen[bytes]
    url: str  # …/mcp
    log: Path
    env: Mapping[str, str]

    @property
    def base(self) -> str:
        return self.url.removesuffix("/mcp")

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def token(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`symfind token ARGS` against this server's token file."""
        return run_token(self.env, *args)

    def new_token(self, name: str, *options: str) -> str:
        done = self.token("create", name, *options)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()


def run_token(env: Mapping[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "symfind.cli", "token", *args],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S,
        check=False, cwd="/",
    )


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-P", "-m", "symfind.cli", "serve", "--port", "0", *args]


@contextmanager
def serving(*args: str, env: Mapping[str, str], log: Path) -> Iterator[Served]:
    """`symfind serve --port 0 ARGS`, running until the block ends (then Ctrl-C)."""
    with open(log, "wb") as sink:
        process = subprocess.Popen(serve_command(*args), env={**os.environ, **env},
                                   stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, cwd="/")
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while (found := SERVING.search(log.read_text(encoding="utf-8", errors="replace"))) is None:
            assert process.poll() is None, log.read_text(encoding="utf-8", errors="replace")
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield Served(process=process, url=found.group(1), log=log, env=env)
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> int:
    """Ctrl-C, as a terminal sends it; SIGKILL if it does not end."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@asynccontextmanager
async def http_client(served: Served, token: str, *, source: str | None = None,
                      **options: Any) -> AsyncIterator[Client]:
    """The SDK's client over Streamable HTTP with `token`, from the loopback address
    `source` if given (each address has its own count of failed authentications);
    options: `mode=`."""
    transport = httpx2.AsyncHTTPTransport(local_address=source) if source else None
    http = httpx2.AsyncClient(headers=bearer(token), timeout=60.0, transport=transport)
    async with http, Client(streamable_http_client(served.url, http_client=http),
                            **options) as client:
        yield client


def post(served: Served, body: bytes | str, headers: Mapping[str, str] | None = None, *,
         source: str | None = None, **options: Any) -> httpx2.Response:
    """One raw POST to /mcp (JSON content type unless `headers` say otherwise), from the
    loopback address `source` if given."""
    sent = {"content-type": "application/json",
            "accept": "application/json, text/event-stream", **(headers or {})}
    transport = httpx2.HTTPTransport(local_address=source) if source else None
    with httpx2.Client(timeout=60.0, transport=transport, **options) as client:
        return client.post(served.url, content=body, headers=sent)


INITIALIZE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    '"capabilities":{},"clientInfo":{"name":"test","version":"1"}}}'
)
