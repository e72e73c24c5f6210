"""`symfind token create|list|revoke`: the personal access tokens `symfind serve` accepts
(kept by `mcp_server.tokens`, run by `mcp_server.token_cli`).

Imports: `mcp_server` modules.
"""

from __future__ import annotations

import argparse
import re
from typing import Any, TextIO

from symfind.mcp_server.token_cli import create_token, list_tokens, revoke_token
from symfind.mcp_server.tokens import MAX_TOKENS

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


def add_parser(commands: argparse._SubParsersAction[Any]) -> None:
    """`token` and its actions, on the `symfind` parser's subcommands."""
    token = commands.add_parser(
        "token", help="create, list or revoke the personal access tokens `serve` accepts",
        description="Personal access tokens for `symfind serve` (at most "
        f"{MAX_TOKENS}). Only their SHA-256 is kept, in tokens.json under the user config "
        "directory ($SYMFIND_CONFIG_DIR overrides it).",
    )
    actions = token.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="make a token and print it, once")
    create.add_argument("name", help="who or what it is for: letters, digits, . _ @ -")
    create.add_argument(
        "--repo", action="append", default=[], metavar="PATH",
        help="the token searches only this repository (repeat for several); "
        "default: every repository the server serves")
    create.add_argument("--expires", type=duration, metavar="DURATION",
                        help="it stops working after this long: 30d, 12h, 2w (default: never)")
    listing = actions.add_parser("list", help="the tokens: name, repositories, dates")
    listing.add_argument("--json", action="store_true", help="JSON output")
    revoke = actions.add_parser("revoke", help="remove a token: servers refuse it at once")
    revoke.add_argument("name", help="the token's name, as `symfind token list` shows it")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run `symfind token ACTION`; returns the exit code (errors: one line on stderr)."""
    if args.action == "create":
        return create_token(args.name, args.repo, args.expires, out)
    if args.action == "revoke":
        return revoke_token(args.name)
    return list_tokens(as_json=args.json, out=out)
