"""Path filters: globs relative to the repository root, checked and turned into the
regex Tantivy matches against whole repo-relative paths.

Imports: `storage.errors`.
"""

from __future__ import annotations

import re

from symfind.storage.errors import QueryError

PATH_FILTER_HELP = (
    "a path filter is a glob relative to the repository root: `src/**/*.py`, `tests/`, "
    "`*.go` (`*`, `**`, `?` and `[abc]` classes)"
)


def check_path_filter(glob: str) -> str:
    """The path filter without its leading `./`, once checked.

    Raises:
        QueryError: It is absolute, climbs out of the repository (`..`), or has an
            unclosed `[`.
    """
    text = glob.strip()
    while text.startswith("./"):
        text = text[2:]
    if text.startswith(("/", "~", "\\")) or re.match(r"[A-Za-z]:[\\/]", text):
        raise QueryError(f"path filter {glob!r} is absolute; {PATH_FILTER_HELP}")
    if ".." in re.split(r"[/\\]", text):
        raise QueryError(f"path filter {glob!r} leaves the repository; {PATH_FILTER_HELP}")
    glob_to_regex(text)  # raises on an unclosed class
    return text


def glob_to_regex(glob: str) -> str:
    """Translate a path glob to the regex Tantivy matches against whole paths.

    `*` stays within a directory, `**` crosses directories, `?` is one character, `[abc]`,
    `[a-z]` and `[!abc]` one character of a class (never `/`; `[[]` is a literal `[`); a
    glob without `/` matches the file name in any directory, a glob ending in `/` (or
    naming a directory) matches everything below it.

    Raises:
        QueryError: A `[` is never closed.
    """
    glob = glob.strip()
    while glob.startswith("./"):
        glob = glob[2:]
    out = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**/", i):
            out.append("(.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "[":
            regex, i = _glob_class(glob, i)
            out.append(regex)
            continue
        out.append({"*": "[^/]*", "?": "[^/]"}.get(char) or re.escape(char))
        i += 1
    pattern = "".join(out)
    if "/" not in glob.rstrip("/"):
        pattern = "(.*/)?" + pattern
    if glob.endswith("/"):
        return pattern + ".*"
    return pattern + "(/.*)?"


def _glob_class(glob: str, start: int) -> tuple[str, int]:
    """The regex of the class `glob[start:]` opens (`glob[start] == "["`), and the index
    just after its `]` (a `]` right after `[` or `[!` is a member, as in shells).

    Raises:
        QueryError: The class is never closed.
    """
    i = start + 1
    negated = glob.startswith(("!", "^"), i)
    i += negated
    first = i
    if glob.startswith("]", i):
        i += 1
    end = glob.find("]", i)
    if end < 0:
        raise QueryError(f"path filter {glob!r} has an unclosed '['; {PATH_FILTER_HELP}")
    members = glob[first:end].replace("/", "")
    if not members:
        raise QueryError(f"path filter {glob!r} has a class of '/' only; {PATH_FILTER_HELP}")
    body = "".join(
        "-" if char == "-" and 0 < k < len(members) - 1 else re.escape(char)
        for k, char in enumerate(members)
    )
    return ("[^/" + body + "]" if negated else "[" + body + "]"), end + 1
