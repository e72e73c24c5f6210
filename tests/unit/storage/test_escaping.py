"""The terminal escaping agrees with the MCP escaping, plus tabs and newlines."""

from __future__ import annotations

from symfind.storage import escape, escape_line


def test_escape_line_escapes_what_escape_does_and_line_breaks() -> None:
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    assert escape_line(every) == escape(every).replace("\t", "<U+0009>").replace(
        "\n", "<U+000A>"
    )


def test_escape_line_leaves_plain_text_alone() -> None:
    assert escape_line("src/naïve café/ok.py:12  fuzzy#1(d1)") == (
        "src/naïve café/ok.py:12  fuzzy#1(d1)"
    )
