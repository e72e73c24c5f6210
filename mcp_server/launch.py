"""What starting an MCP server takes, over stdio or HTTP: the repositories checked, the
server built for one repository or several.

Imports: `storage`, `mcp_server.server`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from symfind.mcp_server.server import Guard, build_roots_server, build_server
from symfind.storage import NotARepository, check_root, escape_line, find_root
from symfind.storage.contract.leases import lease_from_env


class Refused(Exception):
    """The server cannot start as asked; the message is one line."""


def served_roots(paths: Sequence[str] | None, *, force: bool) -> list[Path]:
    """The repository roots of `paths` (default `.`), each once, in order: each taken from
    the repository holding it (`storage.find_root`), and refused (`/`, the home directory,
    a huge tree with no VCS marker) unless `force`.

    Raises:
        Refused: A path is not a directory, or a root is refused.
    """
    repos = [Path(repo).expanduser() for repo in paths or ["."]]
    for repo in repos:
        if not repo.is_dir():
            raise Refused(f"repository {escape_line(str(repo))!r} is not a directory")
    roots = list(dict.fromkeys(find_root(repo.resolve()) for repo in repos))
    try:
        for root in roots if not force else ():
            check_root(root)
    except NotARepository as exc:
        raise Refused(str(exc)) from None
    return roots


def new_server(
    roots: Sequence[Path], *, auto_index: bool, tool_prefix: str, guard: Guard | None = None,
) -> Any:
    """The server of `roots`: one repository's, or several searched together.

    Raises:
        Refused: `$SYMFIND_DAEMON_LEASE` is not a positive number.
    """
    try:
        lease_s = lease_from_env()
    except ValueError as exc:
        raise Refused(str(exc)) from None
    if len(roots) == 1:
        return build_server(roots[0], auto_index=auto_index, daemon_lease_s=lease_s,
                            tool_prefix=tool_prefix, guard=guard)
    return build_roots_server(roots, auto_index=auto_index, daemon_lease_s=lease_s,
                              tool_prefix=tool_prefix, guard=guard)
