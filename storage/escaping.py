"""Escaping of repository text for display: what a person would not see is shown.

Imports: the standard library only. `EscapingFormatter` does the same for log lines.

Names, paths, signatures and source come from the repository, which may be hostile.
Invisible characters that can hide or reorder text — bidi controls, zero-width and other
format characters, Unicode tag characters, variation selectors, control characters — are
shown as `<U+XXXX>`. On a terminal, control characters are also commands (ESC sequences
retitle the window, clear the screen, move the cursor; a newline forges a row), so the
CLI escapes every such character of repository text with `escape_line`; the MCP server
uses `escape`, which keeps the tabs and newlines of source.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
import unicodedata

_KEEP = frozenset("\t\n")


def _is_hidden(char: str) -> bool:
    if char in _KEEP:
        return False
    code = ord(char)
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:  # variation selectors
        return True
    # Cf: format (bidi, zero-width, tags, BOM...); Cc: control; Zl/Zp: line separators.
    return unicodedata.category(char) in ("Cf", "Cc", "Zl", "Zp")


def _hidden_class() -> str:
    """A regex character class of every hidden character, as ranges.

    Format and control characters live in planes 0, 1 and 14 only; scanning just those is
    8x faster than the whole range (a unit test checks that no character is missed). The
    class is written as ~30 ranges, not ~500 single characters: `re` tests a class item
    by item, and ranges make `escape()` ~30x faster on the text of every search answer.
    """
    planes = itertools.chain(range(0xD800), range(0xE000, 0x20000), range(0xE0000, 0xE1000))
    ranges: list[list[int]] = []
    for code in planes:
        if not _is_hidden(chr(code)):
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "[" + "".join(
        re.escape(chr(first)) + (f"-{re.escape(chr(last))}" if last > first else "")
        for first, last in ranges
    ) + "]"


@functools.cache
def _hidden() -> re.Pattern[str]:
    """Built on first use (about a second of CPU): a CLI command that shows a few
    short lines uses `escape_line` instead and never pays for it."""
    return re.compile(_hidden_class())


def _code(char: str) -> str:
    return f"<U+{ord(char):04X}>"


def escape(text: str) -> str:
    """`text` with every invisible or control character shown as `<U+XXXX>`."""
    return _hidden().sub(lambda m: _code(m.group()), text)


def escape_counted(text: str) -> tuple[str, int]:
    """`escape(text)` and how many characters it escaped."""
    return _hidden().subn(lambda m: _code(m.group()), text)


@functools.lru_cache(maxsize=4096)
def _shown_on_a_line(char: str) -> str:
    return _code(char) if char in _KEEP or _is_hidden(char) else char


def escape_line(text: str) -> str:
    """`escape(text)` with tabs and newlines escaped too: one line of a terminal.

    Character by character (cached): cheap for the few short strings a command prints.
    """
    if text.isascii() and text.isprintable():
        return text
    return "".join(map(_shown_on_a_line, text))


class EscapingFormatter(logging.Formatter):
    """Log lines with control characters escaped: messages quote file names, and the
    log may be a terminal (`daemon run`, `index -v`, an MCP host's console). Tracebacks
    keep their lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        record.message = escape_line(record.message)
        return super().formatMessage(record)
