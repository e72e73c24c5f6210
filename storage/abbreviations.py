"""Names as people half-remember them: a name's word initials and word heads (what the
index stores for the abbreviation channel), and the alignment of an abbreviated query
with a name's words.

Imports: `storage.words` only (pure: no index, no Tantivy).

An IDE's symbol finder takes `ABIFW`, `AdmBigIntFieWid`, `admbigintfiewid` or
`AdmnBgIntgrFldWdgt` for `AdminBigIntegerFieldWidget`: it matches each chunk of the query
against the start of a word of the name, in order, skipping words. Here the query is cut
into segments where its case or separators say a word begins (`split_identifier`:
`AdmnBgIntgrFld` → `admn bg intgr fld`); a segment then matches one word, as a prefix
(`adm` of `admin`) or a skeleton (`intgr` of `integer`: the word's first letter, then
letters of the word in order), or is cut into several chunks each a prefix of a word of
its own (`abifw` → `a`·`b`·`i`·`f`·`w`, `admbigint` → `adm`·`big`·`int`). Words may be
skipped (a forgotten word), and two neighbouring segments may be swapped (typed in the
wrong order); each costs one error, as a typo does, and so does a typed word cut short
to start further words with its last letters (`field` as `fiel`·`d`).

The index keeps, per name of two or more words, its initials (`abifw`, one raw term: a
camel-hump query is a single term lookup) and its word heads, each word's first
`HEAD_CHARS` letters (`adm big int fie wid`: the terms a query of word prefixes and whole
words is matched on).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import NamedTuple

from symfind.storage.words import split_identifier, words_as_written

#: A word head is the word's first this many letters (the whole word when shorter).
HEAD_CHARS = 3


def name_words(name: str) -> list[str]:
    """The lowercase words of a name, as the abbreviation channel matches them."""
    return split_identifier(name)


def _lettered(words: Sequence[str]) -> list[str]:
    # A number is no word anyone abbreviates: `join_multicast_v6` is `JMV`.
    return [word for word in words if not word.isdigit()]


def initials(words: Sequence[str]) -> str:
    """The first letter of each word but numbers (`admin big integer` → `abi`), "" for
    fewer than two such words: a one-word name's initial is no abbreviation anyone types."""
    lettered = _lettered(words)
    return "".join(word[0] for word in lettered) if len(lettered) > 1 else ""


def heads(words: Sequence[str]) -> list[str]:
    """Each word's first `HEAD_CHARS` letters, once each, numbers left out; none for fewer
    than two words."""
    lettered = _lettered(words)
    if len(lettered) < 2:
        return []
    return list(dict.fromkeys(word[:HEAD_CHARS] for word in lettered))


#: A chunk of a lower-case run is read as the start of one word up to this many letters.
LONGEST_CHUNK = 16

# A cut of a run so far: (letters past a chunk's head, chunks), and the heads, in order.
_Cut = tuple[tuple[int, int], tuple[str, ...]]


def head_chunkings(run: str, is_head: Callable[[str], bool], limit: int) -> list[tuple[str, ...]]:
    """The word heads of the `limit` best cuts of a lower-case run (`tesintfiedes`) into
    chunks that each start a word some name has, or [] when there is no such cut.

    A chunk of `HEAD_CHARS` letters or more counts when its first `HEAD_CHARS` are a head
    (`is_head`), a shorter one when it is a whole short word's head (`i` of `TestI32S`);
    a number is a chunk of its own, with no head (numbers are no heads). Best: fewest
    letters past a chunk's head (letters no head vouches for: `tes`·`int`·`fie`·`des`
    before `tesint`·`fiedes`, which trusts `int` and `des` blindly), then fewest chunks.
    Cuts with the same heads count once."""
    checked: dict[str, bool] = {}

    def head(chunk: str) -> bool:
        if chunk not in checked:
            checked[chunk] = is_head(chunk)
        return checked[chunk]

    # cuts[i]: the best cuts of run[:i] with distinct heads, best first. Keeping `limit`
    # per position keeps the `limit` best of the whole run: a cut's cost is the sum of
    # its chunks', so the best cuts of the run extend the best cuts of its prefixes.
    cuts: list[list[_Cut]] = [[((0, 0), ())]] + [[] for _ in run]
    for start in range(len(run)):
        if not cuts[start]:
            continue
        if run[start].isdigit():
            end = start
            while end < len(run) and run[end].isdigit():
                end += 1
            steps = [(end, (0, 0), None)]  # the whole number, as one chunk with no head
        else:
            steps = []
            for end in range(start + 1, min(len(run), start + LONGEST_CHUNK) + 1):
                chunk = run[start:end]
                if not chunk[-1].isalpha():
                    break
                key = chunk[:HEAD_CHARS]
                if head(key):
                    steps.append((end, (max(0, len(chunk) - HEAD_CHARS), 1), key))
        for end, (past, chunks), key in steps:
            for (cut_past, cut_chunks), cut_heads in cuts[start]:
                cost = (cut_past + past, cut_chunks + chunks)
                cuts[end].append((cost, cut_heads if key is None else (*cut_heads, key)))
        for end in {end for end, _, _ in steps}:
            distinct: dict[tuple[str, ...], tuple[int, int]] = {}
            for cost, cut_heads in sorted(cuts[end]):
                distinct.setdefault(cut_heads, cost)
            cuts[end] = sorted((cost, cut_heads) for cut_heads, cost in distinct.items())[:limit]
    return [cut_heads for _, cut_heads in cuts[len(run)] if cut_heads]


def hump_initials(name: str) -> str:
    """The initials an IDE reads in a query where every capital starts a word
    (`admBigIntFW` → `abifw`; `AdmnBgIntgr` → `abi`), "" when that says nothing more
    than the query's own segments."""
    starts = []
    previous = ""
    for char in name:
        if char.isalpha() and (char.isupper() or not previous.isalpha()):
            starts.append(char.lower())
        previous = char
    return "".join(starts) if len(starts) > 1 else ""


def style(name: str) -> tuple[bool, bool, bool]:
    """How a name is written: words joined by `_` (or `-`), all capitals, a lower-case
    first letter (`get_text` and `detect_legacy_windows` share theirs; `LegacyWindows`,
    `LEGACY_WINDOWS` and `legacyWindows` each have their own)."""
    core = name.strip("_-$")
    letters = [char for char in core if char.isalpha()]
    return ("_" in core or "-" in core, bool(letters) and all(c.isupper() for c in letters),
            bool(letters) and letters[0].islower())


class Alignment(NamedTuple):
    """How a query's chunks fall on a name's words; smaller `cost` is a closer fit.

    Attributes:
        errors: Words of the name no chunk matched, plus one for a swapped pair, plus
            one for each segment cut short inside a word that would take it whole.
        cut_short: Those cuts (`field` read as `fiel`·`d` of `field_deserialization`).
        swapped: Whether two neighbouring segments had to be swapped.
        skeletons: Chunks matched as a skeleton (letters dropped) rather than a prefix.
        chunks: Chunks the query was cut into (fewer: longer stretches of each word).
        matched: For each word of the name, whether a chunk matched it.
    """

    errors: int
    cut_short: int
    swapped: bool
    skeletons: int
    chunks: int
    matched: tuple[bool, ...]

    @property
    def cost(self) -> tuple[int, int, bool, int, int]:
        return (self.errors, self.cut_short, self.swapped, self.skeletons, self.chunks)


def _is_skeleton(segment: str, word: str) -> bool:
    """`segment` is `word`'s first letter, then letters of `word` in order (`intgr`)."""
    if len(segment) < 2 or segment[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(char in rest for char in segment[1:])


# A cost as (errors: skipped words and cuts short, cuts short, skeletons, chunks), and
# which words were matched.
_Cost = tuple[int, int, int, int]
_Best = tuple[_Cost, tuple[int, ...]] | None


def _align_in_order(segments: Sequence[str], words: Sequence[str]) -> _Best:
    """The cheapest alignment of `segments`, in order, with `words`: (cost, the indexes
    of the words matched), None when there is none."""
    n = len(words)
    # Words skipped before position j: numbers cost nothing (`JMV` is `JoinMulticastV6`).
    skips = [0]
    for word in words:
        skips.append(skips[-1] + (not word.isdigit()))
    memo: dict[tuple[int, int, int], _Best] = {}

    def best(i: int, offset: int, j: int) -> _Best:
        if i == len(segments):
            return (skips[n] - skips[j], 0, 0, 0), ()
        key = (i, offset, j)
        if key in memo:
            return memo[key]
        segment = segments[i]
        rest = segment[offset:]
        found: _Best = None
        for target in range(j, n):
            word = words[target]
            if word[0] != rest[0]:
                continue
            skipped = skips[target] - skips[j]
            if found is not None and skipped > found[0][0]:
                break  # every later word skips more than the best found costs in all
            options: list[tuple[_Cost, int, int]] = []  # (cost here, next i, next offset)
            if offset == 0 and not word.startswith(segment) and _is_skeleton(segment, word):
                options.append(((skipped, 0, 1, 1), i + 1, 0))
            common = 0
            limit = min(len(rest), len(word))
            while common < limit and rest[common] == word[common]:
                common += 1
            for length in range(common, 0, -1):  # longest prefix first
                done = offset + length == len(segment)
                # A typed word (a segment longer than a head) that this word would take
                # whole, cut short so its last letters start further words, is a slip:
                # `test_dict_field` is `test_dict_field_serialize` more than
                # `test_dict_field_deserialization`. (Shorter segments are initials as
                # often: `se` of `ServerError`.)
                short = int(not done and offset == 0 and common == len(segment) > HEAD_CHARS)
                options.append(((skipped + short, short, 0, 1), i + 1 if done else i,
                                0 if done else offset + length))
            for (e, u, k, c), next_i, next_offset in options:
                tail = best(next_i, next_offset, target + 1)
                if tail is None:
                    continue
                (te, tu, tk, tc), used = tail
                total = (e + te, u + tu, k + tk, c + tc)
                if found is None or total < found[0]:
                    found = (total, (target, *used))
        memo[key] = found
        return found

    return best(0, 0, 0)


def _may_align(segments: Sequence[str], words: Sequence[str], letters: str) -> bool:
    """What any alignment in order needs, checked in linear time: the query's letters in
    order among the name's, and each segment's first letter starting a word, in order."""
    rest = iter(letters)
    if not all(char in rest for segment in segments for char in segment):
        return False
    starts = iter(word[0] for word in words)
    return all(segment[0] in starts for segment in segments)


def align(segments: Sequence[str], words: Sequence[str]) -> Alignment | None:
    """The closest fit of a query's segments (lowercase, `split_identifier` of the query)
    to a name's words (lowercase), or None when the query is no abbreviation of the name.

    In order first; failing that, with one pair of neighbouring segments swapped (the
    cheapest such fit)."""
    if not segments or not words:
        return None
    letters = "".join(words)
    found = _align_in_order(segments, words) if _may_align(segments, words, letters) else None
    swapped = False
    if found is None and len(segments) > 1:
        for turned in _neighbours_swapped(segments):
            if not _may_align(turned, words, letters):
                continue
            fit = _align_in_order(turned, words)
            if fit is not None and (found is None or fit[0] < found[0]):
                found = fit
        swapped = found is not None
    if found is None:
        return None
    (errors, cut_short, skeletons, chunks), used = found
    matched = tuple(position in used for position in range(len(words)))
    return Alignment(errors=errors + swapped, cut_short=cut_short, swapped=swapped,
                     skeletons=skeletons, chunks=chunks, matched=matched)


def _neighbours_swapped(segments: Sequence[str]) -> list[list[str]]:
    """The segments with one pair of neighbouring segments swapped, then with one pair
    of neighbouring words swapped where a number moves with the word before it: `Float64`
    is one word to whoever swaps it (`AlmostFloat64EqualS` is `AlmostEqualFloat64s`)."""
    units: list[list[str]] = []
    for segment in segments:
        if units and segment.isdigit():
            units[-1].append(segment)
        else:
            units.append([segment])
    turned: dict[tuple[str, ...], None] = {}
    for parts in ([[segment] for segment in segments], units):
        for pair in range(len(parts) - 1):
            order = [*parts[:pair], parts[pair + 1], parts[pair], *parts[pair + 2:]]
            turned.setdefault(tuple(segment for part in order for segment in part), None)
    return [list(order) for order in turned]


def spells_words(segments: Sequence[str], words: Sequence[str]) -> bool:
    """Each segment of the query is a whole word of the name (each word used once): the
    name typed with words left out or in another order, not abbreviated."""
    left = Counter(words)
    left.subtract(segments)
    return all(count >= 0 for count in left.values())


def describe(query: str, name: str, alignment: Alignment) -> str:
    """What `why.channels` shows: `ABIFW → Admin·Big·Integer·Field·Widget`; a word no
    chunk matched in brackets (`Admin·Big·[Integer]·Field·Widget`), and a swap said."""
    written = words_as_written(name)
    if len(written) != len(alignment.matched):  # a name NFKC splits otherwise: plain
        written = name_words(name)
    shown = "·".join(word if hit else f"[{word}]"
                     for word, hit in zip(written, alignment.matched))
    return f"{query} → {shown}" + (" (two words swapped)" if alignment.swapped else "")
