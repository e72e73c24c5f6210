"""`symfind token create|list|revoke`: the personal access tokens `symfind serve` accepts.

Imports: msgspec, `storage`, `mcp_server.tokens`.

`create NAME [--repo PATH ...] [--expires 30d]` prints the token alone on stdout, once
(`TOKEN=$(symfind token create ci)` keeps it); `list` shows name, repositories, created,
last used and expires, never a token; `revoke NAME` removes it: a server refuses it from
its next request on. Exit codes: 0 done, 2 bad input (a bad or taken name, too many
tokens, an unknown name, a bad duration or repository), 6 the token file is refused
(unsafe or damaged: see `mcp_server.tokens`) or cannot be read or written.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import TextIO

import msgspec

from symfind.mcp_server.tokens import MAX_TOKENS, Token, TokenError, TokenFileError, TokenStore
from symfind.storage import escape_line, find_root

EXIT_OK, EXIT_USAGE, EXIT_FILE = 0, 2, 6
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}
#: Ten years: longer is a typo (or "never", which is the default).
MAX_DURATION_S = 3650 * 86_400


def duration(text: str) -> float:
    """`30d`, `12h`, `90m`, `2w`, `3600s` as seconds."""
    found = re.fullmatch(r"\s*(\d{1,7})\s*([smhdw])\s*", text)
    seconds = int(found.group(1)) * _UNITS[found.group(2)] if found else 0
    if not 0 < seconds <= MAX_DURATION_S:
        raise argparse.ArgumentTypeError(
            f"not a duration: {text!r} (a number and a unit, s m h d or w: 30d, 12h; at most "
            "3650d)")
    return float(seconds)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="symfind token",
        description="Personal access tokens for `symfind serve` (at most "
        f"{MAX_TOKENS}). Only their SHA-256 is kept, in tokens.json under the user config "
        "directory ($SYMFIND_CONFIG_DIR overrides it).",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="make a token and print it, once")
    create.add_argument("name", help="who or what it is for: letters, digits, . _ @ -")
    create.add_argument(
        "--repo", action="append", metavar="PATH",
        help="the token searches only this repository (repeat for several); "
        "default: every repository the server serves")
    create.add_argument("--expires", type=duration, metavar="DURATION",
                        help="it stops working after this long: 30d, 12h, 2w (default: never)")
    listing = actions.add_parser("list", help="the tokens: name, repositories, dates")
    listing.add_argument("--json", action="store_true", help="JSON output")
    revoke = actions.add_parser("revoke", help="remove a token: servers refuse it at once")
    revoke.add_argument("name")
    return parser


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run a parsed `symfind token` command; returns the exit code."""
    out = out or sys.stdout
    store = TokenStore()
    try:
        if args.action == "create":
            return _create(store, args, out)
        if args.action == "revoke":
            gone = store.revoke(args.name)
            print(f"symfind: token {gone.name!r} revoked", file=sys.stderr)
            return EXIT_OK
        _list(store.read(), out, as_json=args.json, now=time.time())
        return EXIT_OK
    except TokenFileError as exc:
        return _fail(exc, EXIT_FILE)
    except TokenError as exc:
        return _fail(exc, EXIT_USAGE)


def _fail(exc: Exception, code: int) -> int:
    print(f"symfind: {exc}", file=sys.stderr)
    return code


def _create(store: TokenStore, args: argparse.Namespace, out: TextIO) -> int:
    roots = []
    for given in args.repo or ():
        path = Path(given).expanduser()
        if not path.is_dir():
            return _fail(TokenError(f"repository {escape_line(given)!r} is not a directory"),
                         EXIT_USAGE)
        roots.append(str(find_root(path.resolve())))
    now = time.time()
    expires_at = now + args.expires if args.expires else None
    token = store.create(args.name, repos=list(dict.fromkeys(roots)), expires_at=expires_at,
                         now=now)
    out.write(token + "\n")
    out.flush()
    scope = ", ".join(roots) if roots else "every repository the server serves"
    until = f"until {_when(expires_at)}" if expires_at else "with no expiry"
    print(f"symfind: token {args.name!r} created for {escape_line(scope)}, {until}; it is "
          "shown only now: keep it somewhere safe", file=sys.stderr)
    return EXIT_OK


def _when(seconds: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds)) if seconds else "never"


def _list(tokens: tuple[Token, ...], out: TextIO, *, as_json: bool, now: float) -> None:
    if as_json:
        fields = [{
            "name": t.name, "repos": list(t.repos), "created_at": t.created_at,
            "last_used_at": t.last_used_at, "expires_at": t.expires_at,
            "expired": t.expired(now),
        } for t in tokens]
        out.write(msgspec.json.encode(fields).decode("utf-8") + "\n")
        return
    if not tokens:
        out.write("no tokens (`symfind token create NAME` makes one)\n")
        return
    rows = [("NAME", "REPOSITORIES", "CREATED", "LAST USED", "EXPIRES")]
    for t in tokens:
        expires = _when(t.expires_at) + (" (expired)" if t.expired(now) else "")
        rows.append((t.name, escape_line(", ".join(t.repos) or "all served"),
                     _when(t.created_at), _when(t.last_used_at), expires))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        out.write("  ".join([*cells, row[4]]).rstrip() + "\n")
