"""Reading C and C++ without a parser, for the macro blanking (c_macros.py, c_conditionals.py).

A token sweep over braces and parentheses that steps over comments, strings, characters
and preprocessor directives; line-start patterns found fast; the code line before an
offset. All of it is linear on any input: the blanking runs before the parse deadline
starts to matter, on whatever bytes a repository holds.

Imports: the standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# How far a scan reads around a match for its context (the line before, what follows).
CONTEXT_BYTES = 4096

# Braces and parentheses, and what to step over whole: comments, strings, characters and
# directives (with their continuation lines; `#define INIT { {`); a conditional directive
# is told apart. (An unclosed comment, string or character ends at the end of the file
# or line.) Every branch starts with one literal byte, so that the regex engine skips
# to the next such byte at C speed (with a class `[{}()]` or a `^` it tried every
# position: the sweep was a fifth of blanking a file's macros). A `#` is a directive only
# at the start of its line (`tokens`): assembly in headers has `#0` mid-line.
_TOKENS = re.compile(
    rb"/\*.*?(?:\*/|\Z)|//[^\n]*"
    rb"|#(?P<conditional>[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b)?(?:[^\n]*\\\r?\n)*[^\n]*"
    rb"|\"(?:[^\"\\\n]|\\.)*(?:\"|$)|'(?:[^'\\\n]|\\.)*(?:'|$)|\{|\}|\(|\)",
    re.S | re.M,
)
_HASH, _OPEN_BRACE, _CLOSE_BRACE, _OPEN_PAREN, _CLOSE_PAREN = b"#{}()"


class LinePattern:
    """A pattern that matches only at the start of a line, found fast: as `^body` with
    `re.M`, but searched for as `\\nbody`, which the regex engine skips to at C speed (a
    `^` is tried at every byte: two to three times slower), then matched again at the
    line's start, so that callers get the same matches as `^body` would give."""

    def __init__(self, body: bytes, flags: int = 0) -> None:
        self.pattern = re.compile(body, flags | re.M)
        self._after_newline = re.compile(b"\\n" + body, flags | re.M)

    def match(self, string: bytes) -> re.Match[bytes] | None:
        return self.pattern.match(string)

    def finditer(self, source: bytes) -> Iterator[re.Match[bytes]]:
        match = self.pattern.match(source)
        pos = 0
        while True:
            if match is not None:
                yield match
                pos = max(match.end(), match.start() + 1) - 1  # its end may start a line
            found = self._after_newline.search(source, pos)
            if found is None:
                return
            match = self.pattern.match(source, found.start() + 1)


# What opens an enum's body: the keyword, a little before the brace.
_ENUM_HEAD = re.compile(rb"\benum\b")
_ENUM_HEAD_BYTES = 256  # `typedef enum /*< flags >*/ {`: the keyword is near the brace
COMMENT = re.compile(rb"/\*.*?(?:\*/|\Z)|//[^\n]*", re.S)


def previous_code_line(before: bytes) -> bytes:
    """The last line of `before` that holds code, comments removed: a complete
    preprocessor directive (`#undef XX`, `#define XX(a) a,` of an X-macro list) or a
    comment (`/* private */`) continues no expression."""
    lines = before.split(b"\n")
    index = len(lines)
    while index > 0:
        index -= 1
        line = lines[index].split(b"//", 1)[0].rstrip()
        if line.endswith(b"*/"):  # drop the block comment, back to where it opens
            while b"/*" not in line and index > 0:
                index -= 1
                line = lines[index].rstrip()
            line = line[: line.rfind(b"/*")].rstrip()
        continued = index > 0 and lines[index - 1].rstrip().endswith(b"\\")
        directive = line.lstrip().startswith(b"#") and not continued and not line.endswith(b"\\")
        if line.strip() and not directive:
            return line
    return b""


def tokens(source: bytes, pos: int = 0, endpos: int | None = None) -> Iterator[re.Match[bytes]]:
    """`_TOKENS`' matches from `pos` to `endpos`, a `#` that does not start its line
    (only spaces before it) passed over as no token."""
    endpos = len(source) if endpos is None else endpos
    while True:
        for token in _TOKENS.finditer(source, pos, endpos):
            start = token.start()
            if source[start] == _HASH and source[source.rfind(b"\n", 0, start) + 1 : start].strip(b" \t"):
                pos = start + 1  # rare: go on from the byte after it
                break
            yield token
        else:
            return


def token_sweep(source: bytes, offsets: list[int]) -> tuple[list[bool], list[tuple[int, int]]]:
    """One sweep over the file's braces and parentheses, not those in comments, strings and
    preprocessor directives (`#define INIT { {`): for each offset (ascending), whether the
    innermost brace open there opens an enum's body; and the spans of conditional
    directives (`#if`...`#endif` lines) inside an open parenthesis. (Whether a brace opens
    an enum is worked out only for the braces an offset asks about: a file has thousands.)"""
    inside: list[bool] = []
    conditionals: list[tuple[int, int]] = []
    stack: list[int] = []  # offsets of the open braces
    enum_brace: dict[int, bool] = {}
    depth = 0
    pending = iter(offsets)
    offset = next(pending, None)

    def innermost_is_enum() -> bool:
        if not stack:
            return False
        index = stack[-1]
        if index not in enum_brace:
            low = max(0, index - _ENUM_HEAD_BYTES)
            head = max(source.rfind(b";", low, index), source.rfind(b"}", low, index),
                       source.rfind(b"{", low, index), low)
            code = COMMENT.sub(b" ", source[head:index])
            enum_brace[index] = _ENUM_HEAD.search(code) is not None
        return enum_brace[index]

    for token in tokens(source):
        index = token.start()
        while offset is not None and offset <= index:
            inside.append(innermost_is_enum())
            offset = next(pending, None)
        first = source[index]  # a token's first byte tells a brace or parenthesis
        if first == _OPEN_BRACE:
            stack.append(index)
        elif first == _CLOSE_BRACE:
            if stack:
                stack.pop()
        elif first == _OPEN_PAREN:
            depth += 1
        elif first == _CLOSE_PAREN:
            depth = max(depth - 1, 0)
        elif depth and token.group("conditional") is not None:
            conditionals.append((source.rfind(b"\n", 0, index) + 1, token.end()))  # its line
    while offset is not None:
        inside.append(innermost_is_enum())
        offset = next(pending, None)
    return inside, conditionals

