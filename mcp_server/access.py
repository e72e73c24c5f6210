"""Who may use a server reached over HTTP: its tokens, the repositories each may see, and
clients that keep failing.

Imports: anyio, mcp, pydantic_core, starlette, `storage`, `mcp_server` modules.

- `StoreVerifier` is the SDK's `TokenVerifier` over the token file (`mcp_server.tokens`):
  the SDK's bearer middleware asks it for every request, and answers 401 with
  `WWW-Authenticate: Bearer error="invalid_token"` when it finds no live token. It re-reads
  the file whenever the file changed, so a revoked token fails from the next request on,
  in an open session too. What it hands on carries the token's digest, never the token.
- `TokenFileGate` runs before the bearer middleware: while the token file cannot be used
  (damaged, or made unsafe, after the server started) every request but /healthz gets
  503 `temporarily_unavailable`, and the log says why in one line. No token is trusted
  meanwhile, not even the last good copy: the change may have been a revocation, edited
  by hand and left half-done. 503, not 401: the client's token is not at fault, and
  `FailureThrottle` must not count it; the server answers again once the file is fixed.
- `RecordUse` runs after it: a token's last use is noted when the server answers its
  request with success (status below 400; a 403 for a repository the token may not see is
  no use), kept in memory and written at most once a minute (`StoreVerifier.flush_uses`).
- `ScopeGuard` runs after it: a token limited to repositories none of which this server
  serves gets 403 `insufficient_scope` on every request; on a server with several
  repositories, a `read_symbol` or `find_references` whose handle names a repository the
  token may not see gets 403 with a JSON-RPC error (SDK clients show its message). It reads the body with the
  SDK's own JSON parser (`pydantic_core.from_json`, depth-limited), so that it sees what
  the SDK would; a body it cannot parse (a nesting too deep among others) gets the SDK's
  400 parse error at once, never passed on unchecked. `visible_roots` tells the tools
  which repositories a request may see: searches, statuses and help show only those.
- `FailureThrottle` runs before everything: a client address whose requests failed
  authentication MAX_FAILURES times within FAILURE_WINDOW_S gets 429 with `Retry-After`
  until the oldest of those failures is that old; other addresses are not affected.
  Requests that present no token are not counted (a host probing without one is not
  guessing).

Nothing here logs a token or an `Authorization` header.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections import OrderedDict, deque
from collections.abc import Collection, Mapping
from typing import Any

import anyio.to_thread
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import RequestBodyLimitMiddleware
from mcp.types import INVALID_PARAMS, PARSE_ERROR
from pydantic_core import from_json
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from symfind.mcp_server import handles
from symfind.mcp_server.tokens import PREFIX, Token, TokenError, TokenStore, match
from symfind.storage import escape_line

logger = logging.getLogger(__name__)

#: The one scope every token of ours carries (the SDK's middleware requires it).
SCOPE = "symfind"
#: Longer than any token of ours: not hashed, not compared.
MAX_TOKEN_CHARS = 200
#: Last uses are written to the token file at most this often.
USE_FLUSH_S = 60.0
MAX_FAILURES = 10
FAILURE_WINDOW_S = 60.0
#: Client addresses whose failures are remembered at once (the oldest are forgotten first).
MAX_TRACKED_CLIENTS = 10_000
#: Paths that take no token (the throttle leaves them alone).
OPEN_PATHS = ("/healthz",)
#: Characters of a repository label quoted back from a handle.
LABEL_CHARS = 80


class StoreVerifier:
    """The SDK's TokenVerifier over a TokenStore.

    Args:
        store: The token file.
    """

    def __init__(self, store: TokenStore) -> None:
        self.store = store
        self._file_key: tuple[int, ...] | None | object = object()  # never read yet
        self._tokens: tuple[Token, ...] = ()
        self._refusal = ""
        self._uses: dict[str, float] = {}
        self._flushed_at = time.monotonic()

    def refusal(self) -> str:
        """Why the token file cannot be used now ("" when it can), read again if it
        changed."""
        self.tokens()
        return self._refusal

    def tokens(self) -> tuple[Token, ...]:
        """The tokens of the file as it is now (re-read only when it changed). A file
        that cannot be used holds no token: every request is refused, and the server's
        log says why, once."""
        try:
            key = self.store.file_key()
            if key != self._file_key:
                self._tokens, self._file_key = self.store.read(), key
                self._refusal = ""
        except TokenError as exc:
            if str(exc) != self._refusal:
                logger.error("refusing every token: %s", exc)
                self._refusal = str(exc)
            self._tokens, self._file_key = (), object()
        return self._tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        if not token.startswith(PREFIX) or len(token) > MAX_TOKEN_CHARS:
            return None
        found = match(self.tokens(), token)
        now = time.time()
        if found is None or found.expired(now):
            return None
        return AccessToken(
            token=found.sha256, client_id=found.name, scopes=[SCOPE],
            expires_at=math.floor(found.expires_at) if found.expires_at else None,
            claims={"repos": list(found.repos)},
        )

    async def note_use(self, sha256: str, now: float) -> None:
        """Note a successful use of the token whose digest is `sha256` (`RecordUse`)."""
        self._uses[sha256] = now
        if time.monotonic() - self._flushed_at >= USE_FLUSH_S:
            await self.flush_uses()

    async def flush_uses(self) -> None:
        """Write the last uses noted since the last write (also called at shutdown)."""
        uses, self._uses, self._flushed_at = self._uses, {}, time.monotonic()
        if not uses:
            return
        try:
            await anyio.to_thread.run_sync(self.store.record_use, uses)
        except TokenError as exc:
            logger.warning("last uses of %d token(s) not recorded yet: %s", len(uses), exc)
            for sha256, when in uses.items():  # kept for the next write, the later use winning
                self._uses[sha256] = max(when, self._uses.get(sha256, when))


def visible_roots(request: object) -> frozenset[str] | None:
    """The repository roots the request's token may see (the request is the Starlette
    request a tool's context carries); None for every one: a token with no `--repo`, or
    no token at all (stdio)."""
    scope = getattr(request, "scope", None)
    return _granted(scope.get("user") if isinstance(scope, Mapping) else None)


def _granted(user: object) -> frozenset[str] | None:
    if not isinstance(user, AuthenticatedUser):
        return None
    repos = (user.access_token.claims or {}).get("repos")
    return frozenset(repos) if repos else None


def _refusal(status: int, *, headers: Mapping[str, str], body: dict[str, Any]) -> ASGIApp:
    data = json.dumps(body).encode("utf-8")

    async def respond(_scope: Scope, _receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
            *((name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()),
        ]})
        await send({"type": "http.response.body", "body": data})

    return respond


def _insufficient_scope(description: str) -> dict[str, str]:
    # A header is ASCII (RFC 9110): the dash goes, and anything else not ASCII is escaped.
    ascii_text = description.replace("\u2014", "-").encode("ascii", "backslashreplace").decode()
    quoted = ascii_text.replace("\\", "\\\\").replace('"', '\\"')
    return {"www-authenticate": f'Bearer error="insufficient_scope", error_description="{quoted}"'}


class TokenFileGate:
    """503 for every request but /healthz while the token file cannot be used (see the
    module docstring).

    Args:
        app: The application behind it (the SDK's bearer middleware first).
        verifier: The server's token verifier, which says whether the file can be used.
    """

    def __init__(self, app: ASGIApp, *, verifier: StoreVerifier) -> None:
        self.app = app
        self.verifier = verifier

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS or not self.verifier.refusal():
            await self.app(scope, receive, send)
            return
        await _refusal(503, headers={}, body={
            "error": "temporarily_unavailable",
            "error_description": "this server cannot check tokens now: its token file cannot "
                                 "be used (the server's log says why); retry once its operator "
                                 "has fixed it",
        })(scope, receive, send)


class RecordUse:
    """Note a token's use when its request is answered with success (status below 400).

    Args:
        app: What runs after the SDK's authentication (`ScopeGuard` first).
        verifier: Keeps the last uses and writes them.
    """

    def __init__(self, app: ASGIApp, *, verifier: StoreVerifier) -> None:
        self.app = app
        self.verifier = verifier

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if scope["type"] != "http" or not isinstance(user, AuthenticatedUser):
            await self.app(scope, receive, send)
            return

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                await self.verifier.note_use(user.access_token.token, time.time())
            await send(message)

        await self.app(scope, receive, watch)


class ScopeGuard:
    """Refuse (403) what a request's token may not see.

    Args:
        app: The MCP endpoint, behind the SDK's RequireAuthMiddleware.
        served: Label of each served repository by its root ("" on a one-repository server).
        handle_tools: The names of the tools that take a `handle` (`read_symbol`,
            `find_references`), as served (`--tool-prefix` included).
        max_body_bytes: The request body limit (the SDK's, enforced here too when the body is
            read to look for handles).
    """

    def __init__(self, app: ASGIApp, *, served: Mapping[str, str],
                 handle_tools: Collection[str], max_body_bytes: int) -> None:
        self.app = app
        self.served = dict(served)
        self.handle_tools = frozenset(handle_tools)
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        open_path = scope["type"] != "http" or scope["path"] in OPEN_PATHS
        granted = None if open_path else _granted(user)
        if granted is None or not isinstance(user, AuthenticatedUser):
            await self.app(scope, receive, send)
            return
        labels = {self.served[root] for root in granted if root in self.served}
        if not labels:
            line = (f"token {user.access_token.client_id!r} is for none of the repositories "
                    "this server serves")
            await _refusal(403, headers=_insufficient_scope(line), body={
                "error": "insufficient_scope", "error_description": line,
            })(scope, receive, send)
            return
        if len(labels) == len(self.served) or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return

        async def check_handles(scope: Scope, receive: Receive, send: Send) -> None:
            # The SDK's limit hands the body over as one message (partial if the client left).
            first = await receive()
            whole = first["type"] == "http.request" and not first.get("more_body", False)
            try:
                refused = self._foreign_handle(first.get("body", b""), labels) if whole else None
            except ValueError as exc:
                # The SDK's own words for a body its parser refuses (see the docstring).
                await _refusal(400, headers={}, body={
                    "jsonrpc": "2.0", "id": None,
                    "error": {"code": PARSE_ERROR, "message": f"Parse error: {exc}"},
                })(scope, receive, send)
                return
            if refused is None:
                await self.app(scope, _replay(first, receive), send)
                return
            request_id, label = refused
            shown = escape_line(label)[:LABEL_CHARS]  # the handle's own text: untrusted
            line = (f"refused: token {user.access_token.client_id!r} may not read repository "
                    f"{shown!r}, which this handle names — read only the handles of your own "
                    "searches")
            await _refusal(403, headers=_insufficient_scope(line), body={
                "jsonrpc": "2.0", "id": request_id,
                "error": {"code": INVALID_PARAMS, "message": line},
            })(scope, receive, send)

        # The SDK's own limit reads the body (413 past it) and hands it over whole.
        await RequestBodyLimitMiddleware(check_handles, self.max_body_bytes)(scope, receive, send)

    def _foreign_handle(self, body: bytes, labels: Collection[str]) -> tuple[Any, str] | None:
        """(request id, repository label) of the first call that gives a handle naming a
        repository outside `labels`; None when there is none.

        Raises:
            ValueError: The body is not JSON the SDK would parse (too deep, among others).
        """
        parsed = from_json(body)
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if not isinstance(message, dict) or message.get("method") != "tools/call":
                continue
            params = message.get("params")
            if not isinstance(params, dict) or params.get("name") not in self.handle_tools:
                continue
            arguments = params.get("arguments")
            handle = arguments.get("handle") if isinstance(arguments, dict) else None
            if not isinstance(handle, str):
                continue
            try:
                label = handles.repo_of(handle)
            except handles.HandleError:
                continue  # the tool says what is wrong with it
            if label not in labels:
                return message.get("id"), label
        return None


def _replay(first: Message, receive: Receive) -> Receive:
    """`receive` that gives `first` again, then what follows it."""
    pending: list[Message] = [first]

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()

    return replayed


class FailureThrottle:
    """429 for a client address after MAX_FAILURES failed authentications in
    FAILURE_WINDOW_S (see the module docstring).

    Args:
        app: The whole application.
        max_failures: Failures allowed in a window.
        window_s: The window.
    """

    def __init__(self, app: ASGIApp, *, max_failures: int = MAX_FAILURES,
                 window_s: float = FAILURE_WINDOW_S) -> None:
        self.app = app
        self.max_failures = max_failures
        self.window_s = window_s
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        client = str((scope.get("client") or ("unknown",))[0])
        now = time.monotonic()
        recent = self._recent(client, now)
        if len(recent) >= self.max_failures:
            wait_s = max(1, math.ceil(recent[0] + self.window_s - now))
            line = (f"{len(recent)} failed authentications from this address in the last "
                    f"{self.window_s:.0f} s: retry in {wait_s} s")
            logger.warning("client %s throttled: %s", client, line)
            await _refusal(429, headers={"retry-after": str(wait_s)}, body={
                "error": "too_many_failed_authentications", "error_description": line,
            })(scope, receive, send)
            return
        presented = any(name == b"authorization" for name, _ in scope["headers"])

        async def watch(message: Message) -> None:
            if presented and message["type"] == "http.response.start" and message["status"] == 401:
                self._fail(client, time.monotonic())
            await send(message)

        await self.app(scope, receive, watch)

    def _recent(self, client: str, now: float) -> deque[float]:
        failures = self._failures.get(client)
        if failures is None:
            return deque()
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        if not failures:
            del self._failures[client]
        return failures

    def _fail(self, client: str, now: float) -> None:
        failures = self._failures.pop(client, None) or deque(maxlen=self.max_failures)
        failures.append(now)
        self._failures[client] = failures  # the most recently failing last
        while len(self._failures) > MAX_TRACKED_CLIENTS:
            self._failures.popitem(last=False)
