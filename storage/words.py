"""Identifier and prose splitting shared by indexing and querying.

Imports: `storage.compounds` (wordninja's word list). `HTTPServerError` → `http server
error`; `parse_header_links` → `parse header links`; `utf8Decode` → `utf 8 decode`;
`привет_мир` → `привет мир`.

Names in any script: what is matched is the text's NFKC form (`ｆｕｌｌｗｉｄｔｈ` is
`fullwidth`; `café` is the same name whether its `é` is one code point or `e` and a
combining accent), lowercased. ASCII text, nearly all code, takes the ASCII pattern as
it is; other text is matched through stand-ins of the same length (`shape_of`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

from symfind.storage import compounds

# Acronym runs before a capitalised word, capitalised words, lowercase runs, digit runs;
# written for any upper- and lowercase letter pattern `U`, `L`.
_WORD_RULES = r"{U}+(?={U}{L})|{U}?{L}+|{U}+|\d+"
_WORD = re.compile(_WORD_RULES.format(U="[A-Z]", L="[a-z]"))
# Separators between scope parts of a qualified name, in any supported language.
QUALIFIER = re.compile(r"::|->|[.#/\\]")

#: Stand-ins (`shape_of`) for letters and digits outside ASCII: an upper- or titlecase
#: letter, a lowercase one, a letter of a script without case (`计`, `ユ`, `न`), a
#: character that continues the letter before it (a combining mark such as `े` or the
#: virama `्`, a modifier letter such as `ー` or `ʼ`), a digit. None is ASCII, so no ASCII
#: text holds one, and text whose stand-ins are all ASCII has no letter or digit outside
#: ASCII.
UPPER, LOWER, CASELESS, CONTINUES, DIGIT = "\u00c0", "\u00e0", "\u4e00", "\u0300", "\u0660"
# The same rules over stand-ins: letters of any case...
_WORD_CASED = re.compile(_WORD_RULES.format(U=f"[A-Z{UPPER}]", L=f"[a-z{LOWER}]"))
# ...and, slower, with a letter's continuations kept with it and runs of caseless letters.
_WORD_ANY = re.compile(
    _WORD_RULES.format(U=f"(?:[A-Z{UPPER}]{CONTINUES}*)", L=f"(?:[a-z{LOWER}]{CONTINUES}*)")
    + f"|(?:{CASELESS}{CONTINUES}*)+"
)


def _stand_in(char: str) -> str:
    """What the patterns over stand-ins see for one character: itself when ASCII, its
    stand-in when a letter, mark or digit, `_` for a connector (`＿`), and a NUL, which no
    pattern takes, for anything else."""
    if char.isascii():
        return char
    category = unicodedata.category(char)
    if category in ("Lu", "Lt"):
        return UPPER
    if category == "Ll":
        return LOWER
    if category == "Lo":
        return CASELESS
    if category == "Lm" or category[0] == "M":
        return CONTINUES
    if category == "Nd":
        return DIGIT
    return "_" if category == "Pc" else "\0"


class _StandIns(dict[int, str]):
    """`str.translate` table filled on first sight of each character: a few hundred
    entries in a real repository, against a table of all of Unicode built up front."""

    def __missing__(self, code: int) -> str:
        stand_in = self[code] = _stand_in(chr(code))
        return stand_in


_STAND_INS = _StandIns()


def shape_of(text: str) -> str:
    """`text` with every character replaced by its stand-in (`_stand_in`): the same
    length, so a match's span in the shape is the word's span in `text`."""
    return text if text.isascii() else text.translate(_STAND_INS)


def normal(text: str) -> str:
    """The form names are matched in: NFKC (ASCII text is its own)."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def _words_outside_ascii(text: str) -> list[str]:
    """The words of a text that is not all ASCII, as written (cased), in any script."""
    text = normal(text)
    shape = shape_of(text)
    if shape.isascii():  # no letter or digit outside ASCII (`—`, `’`): the ASCII words
        return _WORD.findall(shape)
    cased_only = CASELESS not in shape and CONTINUES not in shape
    pattern = _WORD_CASED if cased_only else _WORD_ANY
    return [text[m.start():m.end()] for m in pattern.finditer(shape)]


def split_identifier(identifier: str) -> list[str]:
    """Split one identifier into lowercase words at case changes, `_`, `-` and digits."""
    words = _WORD.findall(identifier) if identifier.isascii() else _words_outside_ascii(identifier)
    return [word.lower() for word in words]


def split_text(text: str) -> list[str]:
    """Split free text (prose, signatures, paths) into lowercase identifier words.

    One pass of `_WORD` over the whole text: its words are made of letters and digits
    only and its lookahead reads letters only, so no match spans a character outside an
    identifier, and the words are those of each identifier in turn (splitting at
    non-word characters first gave the same words on 2.26 million lines of six bench
    corpora, at twice the cost). Text outside ASCII costs a normalisation and a
    `str.translate` more.
    """
    words = _WORD.findall(text) if text.isascii() else _words_outside_ascii(text)
    return [word.lower() for word in words]


def split_words(text: str) -> str:
    """`split_text(text)` as one space-separated string (lowercasing the joined words at
    once: each word's letters lowercase as they would alone, a space between them)."""
    words = _WORD.findall(text) if text.isascii() else _words_outside_ascii(text)
    return " ".join(words).lower()


#: Words that say nothing about what a definition does: English function words, the
#: way questions are asked, and keywords every language repeats.
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers him his how i if in into is
    it its itself just me more most my no nor not now of off on once only or other our
    out over own same she should so some such than that the their them then there these
    they this those through to too under until up very was we were what when where which
    while who whom why will with within without would you your yours using via also
    code function method class where's whats find finds found thing things way ways
    def fn func pub self cls let var const return returns void int str bool none null nil
    true false new public private protected static final async await impl struct""".split()
)


def meaningful_words(words: Iterable[str]) -> tuple[str, ...]:
    """The distinct `words` that can carry meaning (stop words left out), in order."""
    return tuple(word for word in dict.fromkeys(words) if word not in STOP_WORDS)


@functools.lru_cache(maxsize=4096)
def question_words(text: str) -> tuple[str, ...]:
    """The words of a question that can carry meaning (split, lowercased, stop words out)."""
    return tuple(w for w in dict.fromkeys(split_text(text)) if w not in STOP_WORDS and len(w) > 1)


#: A name's word shorter than this is left whole: a split of a short word is more often a
#: guess than a find.
COMPOUND_MIN_LETTERS = 6


#: Splits an index stored (`learn_stored_splits`), by word: a search scores its
#: candidates' texts with their words' splits, which would otherwise cost a question from
#: the command line the word list's loading and a split of each word, a fifth of its CPU.
_STORED_SPLITS: dict[str, tuple[str, ...]] = {}
#: The most words kept: past it, the stored splits are forgotten and read again.
STORED_SPLITS_KEPT = 65536


@functools.lru_cache(maxsize=65536)  # ~100 µs a split; indexing meets each word many times
def compound_parts(word: str) -> tuple[str, ...]:
    """The English words run together in one lowercase word of a name (`getbaseline` →
    `get`, `baseline`; `shrinkstack` → `shrink`, `stack`), by wordninja's unigram
    frequencies (storage/compounds.py); () when it is one word, too short, or splits into a
    lone letter."""
    if not _splittable(word):
        return ()
    stored = _STORED_SPLITS.get(word)
    if stored is not None:
        return stored
    # The word list is read at the first split (~0.04 s), which only indexing and
    # questions in words need, not a name search's start.
    parts = compounds.split_compound(word)
    if len(parts) < 2 or any(len(part) < 2 for part in parts):
        return ()
    return tuple(parts)


def _splittable(word: str) -> bool:
    return len(word) >= COMPOUND_MIN_LETTERS and word.isascii() and word.isalpha()


def stored_splits(words: Iterable[str]) -> str:
    """How `compound_parts` splits those of a qualified name's `words` it splits, for an
    index to store with them and `learn_stored_splits` to read back: `word=part+part`,
    space-separated; "" when it splits none (most names)."""
    return " ".join(f"{word}={'+'.join(parts)}" for word in dict.fromkeys(words)
                    if (parts := compound_parts(word)))


def learn_stored_splits(qualname: str, stored: str) -> None:
    """Keep for `compound_parts` how the words of a stored definition's `qualname` split:
    as `stored` (`stored_splits`) says, and not at all for the others."""
    if len(_STORED_SPLITS) >= STORED_SPLITS_KEPT:
        _STORED_SPLITS.clear()
    for word in split_text(qualname):
        if _splittable(word):
            _STORED_SPLITS[word] = ()
    for entry in stored.split(" ") if stored else ():
        word, _, parts = entry.partition("=")
        _STORED_SPLITS[word] = tuple(parts.split("+"))


def load_word_list() -> None:
    """Load the word list `compound_parts` splits with now (~0.04 s), not at the first
    name a daemon meets (daemon/warm_up.py)."""
    compounds.load_word_list()


def with_compound_parts(words: list[str]) -> list[str]:
    """`words`, then the `compound_parts` of each."""
    return words + [part for word in words for part in compound_parts(word)]


def fold(name: str) -> str:
    """A name as compared ignoring case: NFKC, lowercased (`ＰｏｌｌＦｕｔｕｒｅ` → `pollfuture`)."""
    return (name if name.isascii() else unicodedata.normalize("NFKC", name)).lower()


_SQUASHED = str.maketrans("", "", "_-$")


def squash(name: str) -> str:
    """Lowercase with `_`, `-`, `$` removed: `parse_header_links` and `parseHeaderLinks`
    agree; NFKC first, so `ｐａｒｓｅ` and `parse` do too."""
    if name.isascii():
        return name.lower().translate(_SQUASHED)
    return unicodedata.normalize("NFKC", name).lower().translate(_SQUASHED)


def qualifier_parts(qualname: str) -> list[str]:
    """`ns::Cls::m` → `['ns', 'Cls', 'm']`; `Cls#m` → `['Cls', 'm']`."""
    return [part for part in QUALIFIER.split(qualname) if part]


def words_as_written(identifier: str) -> list[str]:
    """The words of one identifier with their case (`HTTPServerError` → `HTTP`, `Server`,
    `Error`): `split_identifier` before lowercasing, for showing a name's words."""
    return _WORD.findall(identifier) if identifier.isascii() else _words_outside_ascii(identifier)
