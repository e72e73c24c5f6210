"""What several commands' arguments share: the options, each declared once (`-v`,
`--force`, and `mcp`'s and `serve`'s `--repo`, `--no-index` and `--tool-prefix`), the
values they take (checked here, so that a bad one is a usage error: one line, exit 2), and
the repository a PATH names.

Imports: `storage`, `daemon` modules, `mcp_server.options`.
"""

from __future__ import annotations

import argparse
import re

from symfind.daemon.config import Config, load_config, require_readable
from symfind.mcp_server.options import MAX_PORT
from symfind.storage import IndexMissing, NotARepository, check_root


def positive_int(text: str, most: int | None = None) -> int:
    """An argument that must be an integer of at least 1 (and at most `most`)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if most is not None and not 1 <= value <= most:
        raise argparse.ArgumentTypeError(f"must be between 1 and {most}, got {value}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def port(text: str) -> int:
    """A TCP port to listen on: 0 (the system picks a free one) to MAX_PORT."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= MAX_PORT:
        raise argparse.ArgumentTypeError(
            f"must be between 0 (any free port) and {MAX_PORT}, got {value}")
    return value


def tool_prefix(text: str) -> str:
    """What goes before every tool name. Tool names are 1-128 of [A-Za-z0-9_-.] (MCP);
    hosts join server and tool names with `__` or `_`, so keep to what every host accepts."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,31}", text):
        raise argparse.ArgumentTypeError(
            f"must be a letter then up to 31 letters, digits, _ or -; got {text!r}")
    return text


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def add_verbose(parser: argparse.ArgumentParser) -> None:
    """`-v` before or after the subcommand (`symfind -v search …`, `symfind search … -vv`):
    each level counts under its own name, `verbosity()` adds them up."""
    dest = "verbose" if parser.prog == "symfind" else "sub_verbose"
    parser.add_argument("-v", "--verbose", dest=dest, action="count", default=0,
                        help="more logs (-vv: debug)")


def add_force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force", action="store_true",
        help="take the repository even if it is /, the home directory, or a huge tree with "
        "no .git",
    )


def add_served_repos(parser: argparse.ArgumentParser) -> None:
    """`mcp` and `serve`: what they serve, and how."""
    parser.add_argument(
        "--repo", action="append", default=[], metavar="PATH",
        help="repository root (default: .); repeat to serve several, searched together",
    )
    parser.add_argument(
        "--no-index", action="store_true",
        help="start no daemon: search each index as it is, and build none that is missing",
    )
    parser.add_argument(
        "--tool-prefix", metavar="PREFIX", type=tool_prefix,
        help="put PREFIX before every tool name (sf_ → sf_codebase_search), for hosts whose "
        "own tools have the same names",
    )
    add_force(parser)


def verbosity(args: argparse.Namespace) -> int:
    """How many `-v` were given, before and after the subcommand."""
    return args.verbose + getattr(args, "sub_verbose", 0)


def config_to_index(args: argparse.Namespace, path: str, **options: int | None) -> Config:
    """The Config of a repository about to be indexed or watched: refused when it is not
    repository-like, unless `--force`.

    Raises:
        RepositoryError: Bad path or settings.
        NotARepository: `/`, the home directory or a huge unmarked tree, without `--force`.
        PermissionError: The repository's root cannot be read.
    """
    config = load_config(path, **options)
    require_readable(config.repo)
    if not args.force:
        check_root(config.repo)
    return config


def named_index_missing(config: Config) -> IndexMissing:
    """"No index" naming the repository symfind looked for (found from the cwd upwards)."""
    try:
        check_root(config.repo)
    except NotARepository:  # `/`, the home directory: not to be indexed, but named
        fix = "name the repository to search (`symfind search QUERY PATH`, or `--repo PATH`)"
    else:
        fix = f"run `symfind index {config.repo}` first"
    return IndexMissing(f"no index of {config.repo} (looked in {config.index_dir}) — {fix}")
