"""The rule every rewrite keeps: the same length, and every newline where it was.

The parser reads rewritten bytes, but symbols point into the file as written: a name's
line, a definition's lines, its signature and doc are read at the parse tree's offsets
from the source (parse.py). So a rewrite may change bytes, never move them: it blanks a
span (every byte but a newline becomes a space) or lays a shorter text over one, padded
with spaces, the span's newlines kept. `Edits` is the one way the rewrites change a
source; `blanked` and `blanked_outside` make the inputs of re-parses.

Imports: the standard library only.
"""

from __future__ import annotations

import re

_NOT_NEWLINE = re.compile(rb"[^\n]")
_NEWLINE = 10


def blanked(text: bytes) -> bytes:
    """`text` with every byte but a newline made a space."""
    if b"\n" not in text:
        return b" " * len(text)
    return _NOT_NEWLINE.sub(b" ", text)


def blanked_outside(source: bytes, start: int, end: int) -> bytes:
    """`source` with every byte outside `start:end` but a newline made a space."""
    return blanked(source[:start]) + source[start:end] + blanked(source[end:])


class Edits:
    """Edits of one source at its own offsets, made on a copy taken at the first edit.

    Each edit reads the source as given, and later edits are laid over earlier ones, so
    that blanking a span twice, or replacing text in a blanked span, is well defined.
    """

    __slots__ = ("source", "_copy")

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._copy: bytearray | None = None

    def _buffer(self) -> bytearray:
        if self._copy is None:
            self._copy = bytearray(self.source)
        return self._copy

    def blank(self, start: int, end: int) -> None:
        """Make every byte of `start:end` but a newline a space."""
        self._buffer()[start:end] = blanked(self.source[start:end])

    def replace(self, start: int, end: int, text: bytes) -> None:
        """Lay `text` over `start:end`, padded with spaces to the span's length; a newline
        of the span stays where it was (over the byte of `text` that falls there).

        Raises:
            ValueError: `text` is longer than the span, or holds a newline.
        """
        if len(text) > end - start or b"\n" in text:
            raise ValueError(f"{text!r} does not fit {end - start} bytes on one line")
        laid = bytearray(text.ljust(end - start))
        newline = self.source.find(b"\n", start, end)
        while newline >= 0:
            laid[newline - start] = _NEWLINE
            newline = self.source.find(b"\n", newline + 1, end)
        self._buffer()[start:end] = laid

    def result(self) -> bytes:
        """The edited source; the source itself (the same object) when nothing was edited."""
        return self.source if self._copy is None else bytes(self._copy)
