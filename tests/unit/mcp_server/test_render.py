"""Escaping of repository text and the shapes of rendered text."""

from __future__ import annotations

import unicodedata

import pytest

from symfind.mcp_server import render


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain\ttext\n", "plain\ttext\n"),
        ("a\u202eb", "a<U+202E>b"),  # right-to-left override
        ("a\u2066b\u2069", "a<U+2066>b<U+2069>"),  # bidi isolates
        ("zero\u200bwidth\u200d\ufeff", "zero<U+200B>width<U+200D><U+FEFF>"),
        ("tag\U000e0041\U000e007f", "tag<U+E0041><U+E007F>"),
        ("\x1b[31mred\x7f\r", "<U+001B>[31mred<U+007F><U+000D>"),
        ("line\u2028sep", "line<U+2028>sep"),
        ("vs\ufe0f\U000e0100", "vs<U+FE0F><U+E0100>"),
        ("naïve café — ok", "naïve café — ok"),
    ],
)
def test_escape_shows_invisible_characters(text: str, shown: str) -> None:
    assert render.escape(text) == shown


def test_escape_covers_every_format_and_control_character() -> None:
    """The escaped set was built from three planes only; check that none was missed."""
    hidden = [
        chr(c) for c in range(0x110000)
        if not 0xD800 <= c <= 0xDFFF
        and unicodedata.category(chr(c)) in ("Cf", "Cc", "Zl", "Zp")
        and chr(c) not in "\t\n"
    ]
    assert all(render.escape(char) == f"<U+{ord(char):04X}>" for char in hidden)


def test_escape_leaves_every_other_character_alone() -> None:
    """The escaped set is written as ranges; check that none reaches too far."""
    shown = "".join(
        chr(c) for c in range(0x110000)
        if not 0xD800 <= c <= 0xDFFF
        and unicodedata.category(chr(c)) not in ("Cf", "Cc", "Zl", "Zp")
        and not (0xFE00 <= c <= 0xFE0F or 0xE0100 <= c <= 0xE01EF)  # variation selectors
    ) + "\t\n"
    assert render.escape(shown) == shown


def test_escape_counted() -> None:
    assert render.escape_counted("a\u200bb\u200b") == ("a<U+200B>b<U+200B>", 2)


def test_cap() -> None:
    assert render.cap("abcdef", 6) == ("abcdef", False)
    assert render.cap("abcdefg", 6) == ("abcde…", True)


def test_fence_cannot_be_closed_by_the_code() -> None:
    assert render.fence("x = 1", "python") == "```python\nx = 1\n```"
    assert render.fence("doc = '''```\n````'''") == "`````\ndoc = '''```\n````'''\n`````"


def test_numbered() -> None:
    assert render.numbered("a\nb", 9) == " 9  a\n10  b"
