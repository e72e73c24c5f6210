"""Repo-relative path checks and line slicing (the reading itself is tested through MCP)."""

from __future__ import annotations

import pytest

from symfind.mcp_server.source import SourceError, check_relative, slice_lines, split_lines


@pytest.mark.parametrize("path", ["a.py", "src/pkg/mod.py", "dir.with.dots/x", "%2e%2e", "-x"])
def test_plain_paths_pass(path: str) -> None:
    assert check_relative(path) == path.split("/")


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("", "empty path"),
        ("../x", "`..`"),
        ("a/../../x", "`..`"),
        ("a/./b", "`..`"),
        ("a//b", "`..`"),
        ("a/", "`..`"),
        ("/etc/passwd", "absolute"),
        ("c:/x", "absolute"),
        ("a\\b", "backslashes"),
        ("a\x00b", "NUL"),
    ],
)
def test_other_paths_are_refused(path: str, reason: str) -> None:
    with pytest.raises(SourceError, match=reason):
        check_relative(path)


DATA = split_lines(b"one\ntwo\nthree\nfour\n")


def test_slice_whole_range() -> None:
    lines = slice_lines(DATA, 2, 3, 100)
    assert (lines.text, lines.first_line, lines.last_line, lines.total_bytes, lines.is_truncated) == (
        "two\nthree", 2, 3, 10, False
    )


def test_slice_stops_at_the_last_whole_line_that_fits() -> None:
    lines = slice_lines(DATA, 1, 4, 9)
    assert (lines.text, lines.last_line, lines.total_bytes, lines.is_truncated) == ("one\ntwo", 2, 19, True)


def test_slice_cuts_a_long_first_line_at_a_character_boundary() -> None:
    lines = slice_lines(split_lines("ééé\n".encode()), 1, 1, 3)
    assert (lines.text, lines.is_truncated) == ("é", True)


def test_slice_clamps_lines_past_the_end() -> None:
    lines = slice_lines(DATA, 3, 99, 100)
    assert (lines.text, lines.first_line, lines.last_line) == ("three\nfour", 3, 4)
