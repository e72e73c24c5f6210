"""`symfind token create|list|revoke`: the personal access tokens `symfind serve` accepts,
run with the values the command line parsed (`create_token`, `list_tokens`, `revoke_token`).

Imports: msgspec, `storage`, `mcp_server.tokens`.

`create NAME [--repo PATH ...] [--expires 30d]` prints the token alone on stdout, once
(`TOKEN=$(symfind token create ci)` keeps it); `list` shows name, repositories, created,
last used and expires, never a token; `revoke NAME` removes it: a server refuses it from
its next request on. Exit codes: 0 done, 2 bad input (a bad or taken name, too many
tokens, an unknown name, a bad duration or repository), 6 the token file is refused
(unsafe or damaged: see `mcp_server.tokens`) or cannot be read or written.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

import msgspec

from symfind.mcp_server.tokens import Token, TokenError, TokenFileError, TokenStore
from symfind.storage import escape_line, find_root

EXIT_OK, EXIT_USAGE, EXIT_FILE = 0, 2, 6


def create_token(name: str, repos: Sequence[str], expires_s: float | None,
                 out: TextIO) -> int:
    """`symfind token create`: make the token, print it on `out`, once; returns the exit
    code (errors: one line on stderr)."""
    return _guarded(lambda store: _create(store, name, repos, expires_s, out))


def list_tokens(*, as_json: bool, out: TextIO) -> int:
    """`symfind token list`: the tokens' names, repositories and dates, never a token."""
    return _guarded(lambda store: _list(store.read(), out, as_json=as_json, now=time.time()))


def revoke_token(name: str) -> int:
    """`symfind token revoke`: remove the token; servers refuse it from their next request."""

    def revoke(store: TokenStore) -> int:
        gone = store.revoke(name)
        print(f"symfind: token {gone.name!r} revoked", file=sys.stderr)
        return EXIT_OK

    return _guarded(revoke)


def _guarded(action: Callable[[TokenStore], int]) -> int:
    try:
        return action(TokenStore())
    except TokenFileError as exc:
        return _fail(exc, EXIT_FILE)
    except TokenError as exc:
        return _fail(exc, EXIT_USAGE)


def _fail(exc: Exception, code: int) -> int:
    print(f"symfind: {exc}", file=sys.stderr)
    return code


def _create(store: TokenStore, name: str, repos: Sequence[str], expires_s: float | None,
            out: TextIO) -> int:
    roots = []
    for given in repos:
        path = Path(given).expanduser()
        if not path.is_dir():
            return _fail(TokenError(f"repository {escape_line(given)!r} is not a directory"),
                         EXIT_USAGE)
        roots.append(str(find_root(path.resolve())))
    now = time.time()
    expires_at = now + expires_s if expires_s else None
    token = store.create(name, repos=list(dict.fromkeys(roots)), expires_at=expires_at,
                         now=now)
    out.write(token + "\n")
    out.flush()
    scope = ", ".join(roots) if roots else "every repository the server serves"
    until = f"until {_when(expires_at)}" if expires_at else "with no expiry"
    print(f"symfind: token {name!r} created for {escape_line(scope)}, {until}; it is "
          "shown only now: keep it somewhere safe", file=sys.stderr)
    return EXIT_OK


def _when(seconds: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds)) if seconds else "never"


def _list(tokens: tuple[Token, ...], out: TextIO, *, as_json: bool, now: float) -> int:
    if as_json:
        fields = [{
            "name": t.name, "repos": list(t.repos), "created_at": t.created_at,
            "last_used_at": t.last_used_at, "expires_at": t.expires_at,
            "expired": t.expired(now),
        } for t in tokens]
        out.write(msgspec.json.encode(fields).decode("utf-8") + "\n")
        return EXIT_OK
    if not tokens:
        out.write("no tokens (`symfind token create NAME` makes one)\n")
        return EXIT_OK
    rows = [("NAME", "REPOSITORIES", "CREATED", "LAST USED", "EXPIRES")]
    for t in tokens:
        expires = _when(t.expires_at) + (" (expired)" if t.expired(now) else "")
        rows.append((t.name, escape_line(", ".join(t.repos) or "all served"),
                     _when(t.created_at), _when(t.last_used_at), expires))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        out.write("  ".join([*cells, row[4]]).rstrip() + "\n")
    return EXIT_OK
