"""`symfind mcp --remote URL`: a stdio MCP server that forwards every call to the server
`symfind serve` runs at URL.

Imports: anyio, httpx2, mcp, `storage`, `mcp_server.stdio`.

For hosts that start their MCP servers as processes and speak only stdio. The token comes
from `$SYMFIND_TOKEN` (not the command line, which `ps` shows to every user). At start it
connects and lists the remote tools: a server that refuses the token, or cannot be
reached, ends it then, with one line on stderr, before the host sends anything. Then it
serves what the remote serves — its tools (as listed at start), name, title, version and
instructions — forwarding each call as is and returning the answer as is. A call the
remote refuses later (the token revoked or expired meanwhile) answers a JSON-RPC error
whose message says why.

A server that stops answering — killed, its machine gone, a network cut — fails the calls
sent to it at once, each with a JSON-RPC error "symfind serve at URL is not answering:
…" (`Answering`, the HTTP transport under the SDK's client: a connection refused, reset or
timed out becomes that error, where the SDK would leave the call without an answer, and
print tracebacks at the end). It connects within CONNECT_TIMEOUT_S and waits CALL_TIMEOUT_S
at most for an answer; the bridge keeps serving, so calls work again once the server is
back. Every call read before the host closes stdin is answered (`mcp_server.stdio`); then
it ends the session (a server gone has no session to end) and exits 0.

Exit codes: 0 when the host closes stdin, 2 no token or a bad URL, 3 the server refused the
token, 6 the server cannot be reached (or its TLS certificate is not trusted), 130 Ctrl-C.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import sys
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INTERNAL_ERROR,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    Tool,
)

from symfind.mcp_server.stdio import serve_stdio
from symfind.storage import escape_line

logger = logging.getLogger(__name__)

EXIT_OK, EXIT_USAGE, EXIT_REFUSED, EXIT_UNREACHABLE = 0, 2, 3, 6
TOKEN_VARIABLE = "SYMFIND_TOKEN"
CONNECT_TIMEOUT_S = 10.0
#: A search or a read answers in well under a second; a server that has not answered a
#: call in this long is not going to.
CALL_TIMEOUT_S = 60.0
#: Ending the session at exit is a courtesy to the server: not worth waiting for long.
END_TIMEOUT_S = 5.0
DESCRIPTION_CHARS = 300


class Refused(Exception):
    """The remote server refused us (or cannot be reached); the message is one line."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def check_url(url: str, *, insecure_http: bool) -> None:
    """Refuse what is not an http(s) URL, and a token sent in clear to another machine.

    Raises:
        Refused: With the line that says what to give.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused(f"--remote wants the server's URL, like https://build-box:8765/mcp; got "
                      f"{escape_line(url)!r}", EXIT_USAGE)
    if parts.scheme == "http" and not insecure_http and not _loopback(parts.hostname):
        raise Refused(f"refusing to send the token in clear to {escape_line(parts.hostname)}: use "
                      "https, or --insecure-http if the network between is yours alone",
                      EXIT_USAGE)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class LastRefusal:
    """The last error response of the remote server (an httpx2 response hook): the SDK's
    client only says "Server returned an error response", the response says why."""

    def __init__(self) -> None:
        self.status = 0
        self.description = ""

    async def __call__(self, response: httpx2.Response) -> None:
        if response.status_code < 400 or response.extensions.get(NOT_ANSWERING):
            return
        await response.aread()
        self.status, self.description = response.status_code, _description(response)

    def line(self, url: str) -> tuple[str, int]:
        """What the last refusal means, and the exit code it ends a start with."""
        said = f" ({self.status}: {self.description})" if self.description else f" ({self.status})"
        if self.status == 401:
            return (
                (f"the server at {url} refused the token in ${TOKEN_VARIABLE}{said}: it is "
                 "wrong, expired or revoked — ask for a new one (`symfind token create` on "
                 "the server)"),
                EXIT_REFUSED,
            )
        if self.status == 403:
            return f"the server at {url} refused the token{said}", EXIT_REFUSED
        if self.status == 429:
            return (f"the server at {url} refuses this address for now{said}", EXIT_REFUSED)
        return f"the server at {url} answered an error{said}", EXIT_REFUSED


#: The extension that marks the answer `Answering` makes up for a server that gave none.
NOT_ANSWERING = "symfind_not_answering"


class Answering(httpx2.AsyncBaseTransport):
    """The forwarder's HTTP transport: `inner`'s, except that a server that cannot be
    reached or stops answering gives an answer all the same, a 503 carrying a JSON-RPC
    error that says so, which the SDK hands to the pending call (see the module docstring).

    Args:
        url: The server's URL, for the error's message.
        inner: The transport that speaks to it.
    """

    def __init__(self, url: str, inner: httpx2.AsyncBaseTransport) -> None:
        self.url = url
        self.inner = inner
        #: The last failure to reach the server, or None.
        self.failure: httpx2.TransportError | None = None

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        timeout = dict(request.extensions.get("timeout") or {})
        if request.method == "GET":
            # The stream of the server's own messages: quiet for as long as there are none.
            request.extensions["timeout"] = {**timeout, "read": None}
        elif request.method == "DELETE":
            request.extensions["timeout"] = {key: END_TIMEOUT_S for key in timeout}
        try:
            response = await self.inner.handle_async_request(request)
            if request.method == "GET" or response.headers.get("content-type", "").startswith(
                    "text/event-stream"):
                return response
            # A JSON answer, read whole here: a server that dies while sending it fails
            # here too, not in the SDK's hands.
            try:
                body = b"".join([chunk async for chunk in response.stream])
            finally:
                await response.aclose()
        except httpx2.TransportError as exc:
            self.failure = exc
            return self._not_answering(request, exc)
        self.failure = None
        return httpx2.Response(response.status_code, headers=response.headers, content=body,
                               extensions=response.extensions)

    def _not_answering(self, request: httpx2.Request, exc: httpx2.TransportError
                       ) -> httpx2.Response:
        if request.method == "DELETE":  # the session ended with the server
            return httpx2.Response(204, extensions={NOT_ANSWERING: True})
        message = f"symfind serve at {self.url} is not answering: {not_answering(exc)}"
        logger.info("%s", message)
        return httpx2.Response(503, json={"jsonrpc": "2.0", "id": None, "error": {
            "code": INTERNAL_ERROR, "message": message}}, extensions={NOT_ANSWERING: True})

    async def aclose(self) -> None:
        await self.inner.aclose()


def not_answering(exc: httpx2.TransportError) -> str:
    """Why a server gave no answer, in a few words."""
    if isinstance(exc, httpx2.ConnectTimeout):
        return f"no connection within {CONNECT_TIMEOUT_S:g} s"
    if isinstance(exc, httpx2.ReadTimeout):
        return f"no answer within {CALL_TIMEOUT_S:g} s"
    return escape_line(str(exc) or type(exc).__name__)


def _description(response: httpx2.Response) -> str:
    """One line from an error response: its OAuth-style description, its JSON-RPC error
    message, or its first line of text."""
    try:
        body: Any = response.json()
    except (ValueError, UnicodeDecodeError):
        body = None
    if isinstance(body, dict):
        error = body.get("error")
        text = body.get("error_description") or (
            error.get("message") if isinstance(error, dict) else error)
    else:
        text = response.text.strip().splitlines()[0] if response.text.strip() else ""
    return escape_line(str(text or ""))[:DESCRIPTION_CHARS]


def forward(url: str, *, insecure_http: bool) -> int:
    """Serve `url`'s tools on stdio until the host closes stdin; returns the exit code."""
    token = os.environ.get(TOKEN_VARIABLE, "").strip()
    try:
        if not token:
            raise Refused(f"set {TOKEN_VARIABLE} to your token for {escape_line(url)} (`symfind "
                          "token create NAME` on the server makes one)", EXIT_USAGE)
        check_url(url, insecure_http=insecure_http)
        anyio.run(_forward, url, token)
    except Refused as exc:
        print(f"symfind: {exc}", file=sys.stderr)
        return exc.code
    return EXIT_OK


async def _forward(url: str, token: str) -> None:
    refusal = LastRefusal()
    transport = Answering(url, httpx2.AsyncHTTPTransport())
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, event_hooks={"response": [refusal]},
        timeout=httpx2.Timeout(CALL_TIMEOUT_S, connect=CONNECT_TIMEOUT_S), transport=transport,
    )
    async with http:
        try:
            remote = await Client(streamable_http_client(url, http_client=http)).__aenter__()
        except Exception as exc:  # noqa: BLE001  # any failure to connect: one line, why
            raise _start_failure(url, refusal, transport.failure or exc) from None
        try:
            tools = (await remote.list_tools()).tools
            await _serve(remote, tools, url, refusal)
        finally:
            await remote.__aexit__(None, None, None)


def _start_failure(url: str, refusal: LastRefusal, exc: BaseException) -> Refused:
    if refusal.status:
        return Refused(*refusal.line(url))
    cause = _root_cause(exc)
    if isinstance(cause, httpx2.HTTPError):
        reason = str(cause) or type(cause).__name__
        return Refused(f"cannot reach the server at {url}: {escape_line(reason)}",
                       EXIT_UNREACHABLE)
    return Refused(f"cannot use the server at {url}: {escape_line(str(cause))}", EXIT_UNREACHABLE)


def _root_cause(exc: BaseException) -> BaseException:
    """The first exception of a group (the SDK's task groups wrap them), followed down."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _serve(remote: Client, tools: list[Tool], url: str, refusal: LastRefusal) -> None:
    async def list_tools(_ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
                         ) -> ListToolsResult:
        return ListToolsResult(tools=tools)

    async def call_tool(_ctx: ServerRequestContext[Any], params: CallToolRequestParams
                        ) -> CallToolResult:
        refusal.status = 0
        try:
            return await remote.call_tool(params.name, params.arguments or {})
        except MCPError as exc:
            # The SDK's stand-in for an HTTP error that carried no JSON-RPC error: say why.
            if refusal.status and exc.code == INTERNAL_ERROR:
                raise MCPError(code=INTERNAL_ERROR, message=refusal.line(url)[0]) from None
            raise

    info = remote.server_info
    server: Server[Any] = Server(
        info.name if info else "symfind", version=info.version if info else "",
        title=info.title if info else None, instructions=remote.instructions,
        on_list_tools=list_tools, on_call_tool=call_tool,
    )
    await serve_stdio(server)
