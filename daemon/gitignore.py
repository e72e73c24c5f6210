"""Ignore files read as git reads them: every line git accepts means what it means to git.

Imports: the standard library only.

git's reading (dir.c, wildmatch.c), followed here byte for byte: lines end at `\\n` (a
`\\r` before it is dropped, a UTF-8 byte order mark at the start is skipped), a line ends
at a NUL byte, trailing spaces go unless escaped, `#` starts a comment, `!` negates, a
trailing `/` matches directories only, a pattern without another `/` matches a name at
any depth, `**` spans directories, `[...]` is a set of bytes (ranges, `[:alpha:]`
classes, `\\` escapes; a reversed range such as `[z-a]` adds nothing but its first byte).
A pattern that can never match anything (an unclosed `[`, a trailing backslash, a lone
`!`) is passed over, as git passes it over, with a warning naming its file and line.

Patterns are turned into regular expressions over bytes (file names are bytes to git).
A star followed by more of the pattern and another star matches as little as it can,
atomically: a pattern such as `*a*a*a*a*a*a*a*b` would otherwise backtrack for hours on a
long name (git's own matcher stops early in the same way).
"""

from __future__ import annotations

import functools
import heapq
import logging
import re
import string
from typing import NamedTuple

logger = logging.getLogger(__name__)

# Warnings per ignore file: a binary file read as patterns would print one per line.
MAX_WARNINGS_PER_FILE = 3
_BOM = b"\xef\xbb\xbf"
_WILDCARD = re.compile(rb"[*?\[\\]")
_SLASH, _BACKSLASH, _BANG, _CARET, _DASH, _OPEN, _CLOSE, _COLON, _ASTERISK, _QUESTION, _SPACE = (
    b"/\\!^-[]:*? ")
_ALL_BYTES = frozenset(range(256))
_STAR = b"[^/]*"  # one `*`: any bytes within a name


def _bytes_where(test: object) -> frozenset[int]:
    return frozenset(b for b in range(128) if test(chr(b)))  # type: ignore[operator]


# git's character classes: ASCII only (its own ctype), whatever the locale.
_CLASSES: dict[bytes, frozenset[int]] = {
    b"alnum": _bytes_where(str.isalnum),
    b"alpha": _bytes_where(str.isalpha),
    b"blank": frozenset(b" \t"),
    b"cntrl": frozenset([*range(32), 127]),
    b"digit": _bytes_where(str.isdigit),
    b"graph": frozenset(range(33, 127)),
    b"lower": _bytes_where(str.islower),
    b"print": frozenset(range(32, 127)),
    b"punct": frozenset(string.punctuation.encode()),
    b"space": frozenset(b" \t\n\r\v\f"),
    b"upper": _bytes_where(str.isupper),
    b"xdigit": frozenset(string.hexdigits.encode()),
}


class NeverMatches(ValueError):
    """A pattern that no path can match (git passes it over without a word)."""


class IgnorePattern(NamedTuple):
    """One line of an ignore file, compiled."""

    literal: bytes  # the subject's start up to the first wildcard (all of it: no wildcard)
    wild: bool  # whether there is anything after `literal`, matched by `regex`
    regex: bytes  # the whole pattern as a regular expression (compiled when first needed:
    # most lines of a long ignore file are never candidates); empty when not `wild`
    negative: bool  # `!pattern`: matching paths are not ignored
    directory_only: bool  # `pattern/`
    anywhere: bool  # no `/` but a trailing one: matched against the last name of a path
    where: str  # `dir/.gitignore:12`, for messages


def _trim_trailing_spaces(line: bytes) -> bytes:
    """git's `trim_trailing_spaces`: spaces at the end go, unless a backslash escapes one."""
    if not line.endswith(b" "):
        return line
    last_space = None
    index = 0
    while index < len(line):
        char = line[index]
        if char == _SPACE:
            if last_space is None:
                last_space = index
        elif char == _BACKSLASH:
            index += 1
            if index == len(line):
                return line
            last_space = None
        else:
            last_space = None
        index += 1
    return line if last_space is None else line[:last_space]


def _bracket(pattern: bytes, start: int) -> tuple[frozenset[int], int]:
    """The bytes a `[...]` starting at `pattern[start]` matches (never `/`), and where the
    pattern goes on after it: git's wildmatch bracket loop.

    Raises:
        NeverMatches: The bracket does not close, or names an unknown class.
    """
    end = len(pattern)

    def at(index: int) -> int:
        return pattern[index] if index < end else 0

    index = start + 1
    char = at(index)
    negated = char in (_BANG, _CARET)
    if negated:
        index += 1
        char = at(index)
    # The first byte is a member even when it is `]`: a set closes at a later one.
    if pattern.find(b"]", index + 1) < 0:
        raise NeverMatches("a [ that is never closed")
    members: set[int] = set()
    previous = 0
    while True:
        if not char:
            raise NeverMatches("a [ that is never closed")
        if char == _BACKSLASH:  # the next byte as itself
            index += 1
            char = at(index)
            if not char:
                raise NeverMatches("a [ that is never closed")
            members.add(char)
        elif char == _DASH and previous and at(index + 1) not in (0, _CLOSE):
            index += 1
            char = at(index)
            if char == _BACKSLASH:
                index += 1
                char = at(index)
                if not char:
                    raise NeverMatches("a [ that is never closed")
            members.update(range(previous, char + 1))  # empty when reversed (`z-a`)
            char = 0  # a range is no start of another range
        elif char == _OPEN and at(index + 1) == _COLON:
            name_start = index + 2
            close = pattern.find(b"]", name_start)
            if close < 0:
                raise NeverMatches("a [ that is never closed")
            if close - name_start - 1 < 0 or pattern[close - 1] != _COLON:
                members.add(char)  # no `:]`: the `[` is one byte of the set
            else:
                name = pattern[name_start : close - 1]
                if name not in _CLASSES:
                    raise NeverMatches(f"an unknown class [:{name.decode(errors='replace')}:]")
                members.update(_CLASSES[name])
                index = close
                char = 0
        else:
            members.add(char)
        previous = char
        index += 1
        char = at(index)
        if char == _CLOSE:
            break
    matched = (_ALL_BYTES - members if negated else members) - {_SLASH}
    if not matched:
        raise NeverMatches("a [...] that matches no character")
    return frozenset(matched), index + 1


@functools.lru_cache(maxsize=256)
def _byte_set(members: frozenset[int]) -> bytes:
    """A regular expression's class of these bytes, in runs (`[\\x30-\\x39]`)."""
    runs: list[list[int]] = []
    for byte in sorted(members):
        if runs and runs[-1][1] == byte - 1:
            runs[-1][1] = byte
        else:
            runs.append([byte, byte])
    return ("[" + "".join(f"\\x{low:02x}" if low == high else f"\\x{low:02x}-\\x{high:02x}"
                          for low, high in runs) + "]").encode()




def _wildcard_regex(pattern: bytes) -> bytes:
    """git's wildmatch (with WM_PATHNAME) of `pattern` as a regular expression over the
    bytes of a path: `*` and `?` never match `/`; `**` between slashes (or at an end)
    matches across them.

    Raises:
        NeverMatches: No path can match it.
    """
    # Pieces: ("star", regex) for the stars, ("fixed", regex, holds a slash) for the rest.
    pieces: list[tuple[str, bytes, bool]] = []
    end = len(pattern)
    index = 0
    while index < end:
        char = pattern[index]
        if char == _BACKSLASH:
            if index + 1 == end:
                raise NeverMatches("a backslash at its end")
            pieces.append(("fixed", re.escape(pattern[index + 1 : index + 2]),
                           pattern[index + 1] == _SLASH))
            index += 2
        elif char == _QUESTION:
            pieces.append(("fixed", b"[^/]", False))
            index += 1
        elif char == _OPEN:
            members, index = _bracket(pattern, index)
            pieces.append(("fixed", _byte_set(members), False))
        elif char == _ASTERISK:
            run_end = index
            while run_end < end and pattern[run_end] == _ASTERISK:
                run_end += 1
            bounded_before = index == 0 or pattern[index - 1] == _SLASH
            after = pattern[run_end : run_end + 2]
            if run_end - index >= 2 and bounded_before and after[:1] == b"/":
                pieces.append(("star", b"(?:.*/)?", True))  # `**/`: no directory, or any
                run_end += 1
            elif run_end - index >= 2 and bounded_before and (not after or after == b"\\/"):
                pieces.append(("star", b".*", True))
            else:
                pieces.append(("star", _STAR, False))
            index = run_end
        else:  # plain bytes up to the next wildcard, as they are
            wildcard = _WILDCARD.search(pattern, index)
            run_end = wildcard.start() if wildcard else end
            run = pattern[index:run_end]
            pieces.append(("fixed", re.escape(run), b"/" in run))
            index = run_end
    return _joined(pieces)


def _joined(pieces: list[tuple[str, bytes, bool]]) -> bytes:
    """The pieces as one expression. A `*` (within a name) followed by fixed text without
    a slash and then another star takes the shortest text it can, atomically: the next
    star takes over whatever a longer choice would have matched, so nothing is lost, and
    nested stars no longer backtrack into each other."""
    out: list[bytes] = []
    index = 0
    while index < len(pieces):
        kind, regex, _crosses = pieces[index]
        if kind == "star" and regex == _STAR:
            follow = index + 1
            fixed: list[bytes] = []
            while follow < len(pieces) and pieces[follow][0] == "fixed" and not pieces[follow][2]:
                fixed.append(pieces[follow][1])
                follow += 1
            if fixed and follow < len(pieces) and pieces[follow][0] == "star":
                out.append(b"(?>[^/]*?" + b"".join(fixed) + b")")
                index = follow
                continue
        out.append(regex)
        index += 1
    return b"".join(out)


def _simple_length(pattern: bytes) -> int:
    """How many bytes of a pattern come before its first wildcard (git's `simple_length`)."""
    wildcard = _WILDCARD.search(pattern)
    return wildcard.start() if wildcard else len(pattern)


def parse_pattern(line: bytes, where: str) -> IgnorePattern:
    """One line of an ignore file (not blank, not a comment) as git's `add_pattern` reads it.

    Raises:
        NeverMatches: No path can match it.
    """
    negative = line.startswith(b"!")
    pattern = line[1:] if negative else line
    directory_only = pattern.endswith(b"/")
    if directory_only:
        pattern = pattern[:-1]
    anywhere = b"/" not in pattern
    if not pattern:
        raise NeverMatches("nothing to match")
    if not anywhere and pattern.startswith(b"/"):
        pattern = pattern[1:]  # anchored at the ignore file's directory
    # git compares the part before the first wildcard as it is, then wildmatches the rest
    # from there: a `**` right after that part counts as the start of a pattern.
    literal_length = _simple_length(pattern)
    literal, rest = pattern[:literal_length], pattern[literal_length:]
    regex = re.escape(literal) + _wildcard_regex(rest) if rest else b""
    if not anywhere and not rest and not literal:
        raise NeverMatches("nothing to match")
    return IgnorePattern(literal, bool(rest), regex, negative, directory_only, anywhere, where)


def read_patterns(data: bytes, source: str) -> list[IgnorePattern]:
    """The patterns of one ignore file's bytes, in order; lines that can never match are
    passed over with a warning naming `source` and the line.
    """
    data = data.removeprefix(_BOM)
    patterns: list[IgnorePattern] = []
    passed_over: list[str] = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line or line.startswith(b"#"):
            continue
        line = line.removesuffix(b"\r").split(b"\0", 1)[0]
        line = _trim_trailing_spaces(line)
        if not line:
            continue
        where = f"{source}:{number}"
        try:
            patterns.append(parse_pattern(line, where))
        except NeverMatches as exc:
            if len(passed_over) < MAX_WARNINGS_PER_FILE:
                logger.warning("%s: pattern %r passed over: it has %s, and matches nothing "
                               "(git passes it over too)", where, _shown(line), exc)
            passed_over.append(where)
    if len(passed_over) > MAX_WARNINGS_PER_FILE:
        logger.warning("%s: %d more patterns that match nothing passed over", source,
                       len(passed_over) - MAX_WARNINGS_PER_FILE)
    return patterns


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", errors="backslashreplace")
    return text if len(text) <= 80 else text[:77] + "..."


class IgnoreList:
    """The patterns of one directory's ignore files, last one deciding (as in git)."""

    def __init__(self, patterns: list[IgnorePattern]) -> None:
        self.patterns = patterns
        self._compiled: dict[int, re.Pattern[bytes]] = {}
        # Candidates by the literal start of what they match: a path is checked only
        # against the patterns whose literal part it starts with (a thousand-line ignore
        # file costs a few lookups per path, not a thousand matches).
        self._by_name: dict[bytes, list[int]] = {}
        self._by_path: dict[bytes, list[int]] = {}
        for number, pattern in enumerate(patterns):
            table = self._by_name if pattern.anywhere else self._by_path
            table.setdefault(pattern.literal, []).append(number)
        self._name_lengths = sorted({len(key) for key in self._by_name})
        self._path_lengths = sorted({len(key) for key in self._by_path})

    def match(self, path: bytes, *, is_dir: bool) -> bool | None:
        """True when the last pattern matching `path` (relative to this directory)
        ignores it, False when it is a `!` pattern, None when none matches."""
        name = path.rpartition(b"/")[2]
        buckets: list[list[int]] = []
        for length in self._name_lengths:
            if length > len(name):
                break
            buckets.append(self._by_name.get(name[:length], []))
        for length in self._path_lengths:
            if length > len(path):
                break
            buckets.append(self._by_path.get(path[:length], []))
        # Last pattern first, taken lazily: the first that matches decides.
        candidates = buckets[0][::-1] if len(buckets) == 1 else heapq.merge(
            *(reversed(bucket) for bucket in buckets if bucket), reverse=True)
        for number in candidates:
            pattern = self.patterns[number]
            if pattern.directory_only and not is_dir:
                continue
            subject = name if pattern.anywhere else path
            if self._matches(number, pattern, subject):
                return not pattern.negative
        return None

    def _matches(self, number: int, pattern: IgnorePattern, subject: bytes) -> bool:
        if not pattern.wild:
            return subject == pattern.literal
        regex = self._compiled.get(number)
        if regex is None:
            regex = self._compiled[number] = re.compile(pattern.regex, re.DOTALL)
        return regex.fullmatch(subject) is not None
