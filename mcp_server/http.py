"""`symfind serve`: the MCP tools over Streamable HTTP, for a team, behind personal access
tokens.

Imports: h11, mcp, starlette, uvicorn, `storage`, `mcp_server` modules.

One process serves one repository or several (`--repo A --repo B`, searched together, as
`symfind mcp` does), each kept fresh by its own daemon, at `/mcp` (the SDK's Streamable
HTTP transport, run by uvicorn), with the same four tools and the same answers as over
stdio. `/healthz` answers `{"status": "ok"}` without a token, for probes.

What guards it, from the outside in:

- the bind: 127.0.0.1 by default; an address other machines reach needs TLS
  (`--tls-cert`/`--tls-key`: the user's certificate) or an explicit `--insecure-http`;
- a deadline on each request (`--request-timeout`, 30 s): a client that has not sent its
  whole request by then gets 408 and its connection closed (a slow client holds nothing
  for long); `--max-connections` caps open connections (503 past it), and one client
  address may hold half of them at most (`DeadlineProtocol`: past its share a new
  connection gets 503 and is closed at once), so that idle connections opened from one
  address never lock the other clients out;
- `access.FailureThrottle`: 429 for an address that keeps presenting bad tokens;
- `access.TokenFileGate`: 503 while the token file, damaged or made unsafe since the
  server started, cannot be used (the server does not start with one it cannot use);
- the SDK's transport security: the Host header must name this server (421 otherwise)
  and a browser's Origin must be one of its own (403 otherwise), against DNS rebinding;
  POST bodies must be JSON, of at most MAX_BODY_BYTES (413 past it);
- the SDK's bearer middleware with `access.StoreVerifier`: 401 and `WWW-Authenticate`
  without a live token; then `access.ScopeGuard` (403 for what the token may not see);
- read handles signed with a key drawn at start: they work on this server only, and
  name only files its repositories' indexes list.

Exit codes: 2 bad arguments (a refused repository or bind, a TLS file that does not load),
6 the token file refused, the port taken, or the server could not start; Ctrl-C and SIGTERM
stop it gracefully (requests in flight answered, last token uses written), then it ends as
the signal asks: 130 and 143 as shells report them.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import secrets
import signal
import socket
import ssl
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import h11
import uvicorn
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from symfind.mcp_server.access import (
    SCOPE,
    FailureThrottle,
    RecordUse,
    ScopeGuard,
    StoreVerifier,
    TokenFileGate,
)
from symfind.mcp_server.launch import Refused, new_server, served_roots
from symfind.mcp_server.options import DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUEST_TIMEOUT_S, ServeOptions
from symfind.mcp_server.server import Guard
from symfind.mcp_server.tokens import TokenError, TokenStore
from symfind.storage import escape_line, repo_labels

logger = logging.getLogger(__name__)

EXIT_OK, EXIT_USAGE, EXIT_FAILED = 0, 2, 6
#: The exit codes shells report for a process that SIGINT or SIGTERM ends.
EXIT_BY_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}
MCP_PATH = "/mcp"
#: An MCP request is a few KiB; the SDK's own default is 4 MiB.
MAX_BODY_BYTES = 1 << 20
LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach `host` (a name other than localhost is not)."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(args: ServeOptions) -> None:
    """Refuse a bind other machines reach without TLS, and half a TLS set-up.

    Raises:
        Refused: With the line that says what to give.
    """
    if (args.tls_cert is None) != (args.tls_key is None):
        raise Refused("--tls-cert and --tls-key go together: give both")
    if args.tls_cert is not None:
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
                args.tls_cert, args.tls_key)
        except (OSError, ssl.SSLError) as exc:
            raise Refused(f"cannot use the TLS certificate {escape_line(str(args.tls_cert))} "
                          f"and key {escape_line(str(args.tls_key))}: {exc}") from None
    elif not is_loopback(args.host) and not args.insecure_http:
        raise Refused(
            f"refusing to serve on {escape_line(args.host)} without TLS: other machines would "
            "see tokens and code in clear — give --tls-cert and --tls-key, or --insecure-http "
            "when a proxy on this machine terminates TLS")


def _host_names(args: ServeOptions) -> list[str]:
    """Names a client may put in the Host header."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    if not is_loopback(args.host):
        bind = [] if args.host in ("0.0.0.0", "::") else [args.host]
        names += [*bind, socket.gethostname(), socket.getfqdn()]
    names += args.allow_host
    return list(dict.fromkeys(f"[{n}]" if ":" in n and not n.startswith("[") else n
                              for n in names if n))


def transport_security(args: ServeOptions) -> TransportSecuritySettings:
    """The SDK's Host/Origin checks (DNS rebinding), on whatever the bind address."""
    names = _host_names(args)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[form for name in names for form in (name, f"{name}:*")],
        allowed_origins=[form for name in names for scheme in ("http", "https")
                         for form in (f"{scheme}://{name}", f"{scheme}://{name}:*")],
    )


class DeadlineProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with a deadline for each request to arrive whole
    (uvicorn has none: a client that sends a few bytes now and then keeps its
    connection, and its slot, for ever; past it: 408, and the connection closes), and a
    share of the server's connections for each client address (uvicorn counts them all
    together: one address opening `--max-connections` idle ones got every other client
    503 until the deadline closed them; past its share, a connection gets 503 and is
    closed at once, and the others keep theirs). Behind a proxy on this machine every
    client has the proxy's address: give it a `--max-connections` of twice what the
    proxy opens.

    Each server gets a subclass of its own (`deadline_protocol`), with its settings and
    its count of connections by address."""

    request_timeout_s = DEFAULT_REQUEST_TIMEOUT_S
    #: Connections one client address may hold at once.
    address_share = DEFAULT_MAX_CONNECTIONS // 2
    #: Open connections by client address (the server's connections share it).
    by_address: Counter[str] = Counter()
    #: Addresses refused for holding their share, until one of theirs closes (logged once).
    crowded: set[str] = set()
    _deadline: asyncio.TimerHandle | None = None
    _counted: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else ""
        if self.by_address[address] >= self.address_share:
            self._refuse_crowd(address)
            return
        self.by_address[address] += 1
        self._counted = address
        self._arm()

    def _refuse_crowd(self, address: str) -> None:
        if address not in self.crowded:
            self.crowded.add(address)
            logger.warning("%s holds %d connections, its share of --max-connections: more "
                           "are refused until it closes some", address or "a client",
                           self.address_share)
        body = (f"too many connections from this address: at most {self.address_share} at "
                "once; close some and retry\n").encode("ascii")
        self.transport.write(
            b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        self.transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # the whole request is in (or the connection is ending)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection has its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._counted is not None:
            address, self._counted = self._counted, None
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]
            if self.by_address[address] < self.address_share:
                self.crowded.discard(address)
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started:
            body = (f"request not received in time: send the whole request within "
                    f"{self.request_timeout_s:g} s\n").encode("ascii")
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
                b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        self.logger.info("%s: request not received within %g s: closed",
                         f"{self.client[0]}:{self.client[1]}" if self.client else "a client",
                         self.request_timeout_s)
        self.transport.close()


def deadline_protocol(seconds: float, max_connections: int) -> type[H11Protocol]:
    """The protocol of one server: requests due within `seconds`, and half of
    `max_connections` for one address."""
    share = max(1, max_connections // 2)
    return type("DeadlineProtocol", (DeadlineProtocol,), {
        "request_timeout_s": seconds, "address_share": share, "by_address": Counter(),
        "crowded": set()})


async def healthz(_request: Request) -> Response:
    return JSONResponse({"status": "ok"})


class Announce:
    """Say where the server listens once it is ready (its lifespan has started), and run
    `on_shutdown` when it stops."""

    def __init__(self, app: ASGIApp, line: str,
                 on_shutdown: Callable[[], Awaitable[None]]) -> None:
        self.app = app
        self.line = line
        self.on_shutdown = on_shutdown

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def sent(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete":
                print(self.line, file=sys.stderr, flush=True)
            elif message["type"] == "lifespan.shutdown.complete":
                await self.on_shutdown()
            await send(message)

        await self.app(scope, receive, sent)


class CannotListen(Exception):
    """The address cannot be listened on; the message is one line."""


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so that a taken port is one line, and port 0
    known before the server starts.

    Raises:
        CannotListen: It cannot be bound.
    """
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        if host in LOOPBACK_NAMES:
            host = "127.0.0.1"
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
        sock.setblocking(False)
    except OSError as exc:
        raise CannotListen(f"cannot listen on {escape_line(host)}:{port}: "
                      f"{(exc.strerror or str(exc)).lower()}") from None
    return sock


def url_of(host: str, port: int, tls: bool) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{shown}:{port}{MCP_PATH}"


def build_app(args: ServeOptions, roots: Sequence[Path], verifier: StoreVerifier,
              base_url: str) -> ASGIApp:
    """The whole application: the MCP endpoint and /healthz, behind every guard above."""
    prefix = args.tool_prefix or ""
    guard = Guard(
        verifier=verifier,
        # resource_server_url None: no OAuth metadata is published, since no
        # authorization server exists; tokens are only ever created with `symfind token`.
        auth=AuthSettings(issuer_url=base_url, resource_server_url=None,
                          required_scopes=[SCOPE]),
        handle_key=secrets.token_bytes(32),
    )
    server = new_server(roots, auto_index=not args.no_index, tool_prefix=prefix, guard=guard)
    server.custom_route("/healthz", methods=["GET"])(healthz)
    # JSON answers rather than an SSE stream per request: none of our tools sends progress
    # (what SSE would carry), and a stream per call costs the server more than the search
    # (bench/serve_bench.py: 11 -> 18 calls/s with 50 clients).
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, host=args.host, json_response=True,
        transport_security=transport_security(args), max_request_body_size=MAX_BODY_BYTES,
    )
    labels = [""] if len(roots) == 1 else repo_labels(roots)
    # After the SDK's authentication middleware (it runs the middleware in list order).
    app.user_middleware.append(Middleware(RecordUse, verifier=verifier))
    app.user_middleware.append(Middleware(
        ScopeGuard, served={str(root): label for root, label in zip(roots, labels, strict=True)},
        handle_tools=[prefix + "read_symbol", prefix + "find_references"],
        max_body_bytes=MAX_BODY_BYTES,
    ))
    return FailureThrottle(TokenFileGate(app, verifier=verifier))


def run(args: ServeOptions) -> int:
    """Serve until Ctrl-C (or SIGTERM)."""
    try:
        check_bind(args)
        roots = served_roots(args.repo, force=args.force)
        store = TokenStore()
        tokens = store.read()
        sock = listen(args.host, args.port)
    except Refused as exc:
        return _fail(exc, EXIT_USAGE)
    except (CannotListen, TokenError) as exc:
        return _fail(exc, EXIT_FAILED)
    host, port = sock.getsockname()[:2]
    tls = args.tls_cert is not None
    url = url_of(args.host if args.host in LOOPBACK_NAMES else host, port, tls)
    verifier = StoreVerifier(store)
    try:
        app = build_app(args, roots, verifier, url.removesuffix(MCP_PATH))
    except Refused as exc:
        sock.close()
        return _fail(exc, EXIT_USAGE)
    if not tokens:
        print(f"symfind: no tokens yet: every request will be refused until `symfind token "
              f"create NAME` makes one ({escape_line(str(store.path))})", file=sys.stderr)
    line = (f"symfind: serving {escape_line(', '.join(map(str, roots)))} at {url} "
            "(Ctrl-C stops)")
    config = uvicorn.Config(
        Announce(app, line, verifier.flush_uses),
        http=deadline_protocol(args.request_timeout, args.max_connections),
        lifespan="on", log_config=None, access_log=args.verbose >= 1,
        proxy_headers=False, server_header=False, limit_concurrency=args.max_connections,
        ssl_certfile=args.tls_cert, ssl_keyfile=args.tls_key,
    )
    server = _Server(config)
    try:
        server.run(sockets=[sock])
    except SystemExit:  # uvicorn's way out when the server cannot start (its log says why)
        return _fail(Refused("the server could not start (see the lines above)"), EXIT_FAILED)
    return EXIT_BY_SIGNAL.get(server.stopped_by, EXIT_OK)


class _Server(uvicorn.Server):
    """uvicorn's server, remembering the signal that stopped it. After a graceful stop
    uvicorn raises the signal again so that the process ends as the signal asks; under
    load a Ctrl-C'd server was seen to end with 0 all the same (the raised signal did not
    end it), so the exit code does not hang on that: `run` says it."""

    stopped_by: int | None = None

    def handle_exit(self, sig: int, frame: object) -> None:
        if self.stopped_by is None:
            self.stopped_by = sig
        super().handle_exit(sig, frame)  # type: ignore[arg-type]


def _fail(exc: Exception, code: int) -> int:
    print(f"symfind: {exc}", file=sys.stderr)
    return code

