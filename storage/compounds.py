"""The English words run together in one word of a name (`getbaseline` → `get`, `baseline`).

Imports: msgspec, `storage` modules (wordninja's word list is read as a file, wordninja
never imported).

The split is wordninja's: its list of 126,136 English words by frequency gives each word
the cost `log(rank × log(size of the list))` (Zipf's law), and the split of a string is
the one whose words' costs sum least (a word outside the list costs infinity), found by
dynamic programming over the string's ends; of two splits that cost the same, the one
whose last word is shorter. Importing wordninja builds its table, a dict of 126,136 floats,
which costs ~0.1 s of CPU: as much as a whole name search from the command line, and every
question from the command line splits its candidates' names. So the list is read once into
symfind's cache (storage/cache_files.py, `words/wordninja-<key>.bin`) grouped by each
word's first three letters: a head (`WordTable`: where each group lies, and its CRC), then
the groups' text, mapped in place. A process reads the head (~0.5 ms), decodes a group
when it first looks in it, and finds a word in its group's string, until the group has
been looked in often enough to be worth a dict (`DICT_AFTER_LOOKUPS`). A split looks up
every piece of its word, most of them no word at all, each in another group: making each
group a dict at once made a question's ~90 splits read ~20,000 words into dicts (~10 ms),
where finding them costs a third of it; indexing, which splits a corpus's names, soon has
its groups as dicts. A cost is computed when a word is met, by wordninja's arithmetic, so
every split is wordninja's own (tests/unit/storage/test_compounds.py checks them against it).

Only what symfind splits is handled: one word of ASCII letters (wordninja's handling of
digits and apostrophes is not needed for that).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import itertools
import logging
import math
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import msgspec

logger = logging.getLogger(__name__)

#: Words are grouped by this many first letters (shorter ones are kept apart).
PREFIX_LETTERS = 3
#: Bumped whenever `WordTable` or the way it is made changes.
FORMAT = 4
#: A group is made a dict once a process has looked in it this many times.
DICT_AFTER_LOOKUPS = 64


class WordTable(msgspec.Struct, frozen=True, kw_only=True):
    """wordninja's word list as kept in the cache: this head, then the groups' text
    (`ListedWords`), read in place. A question looks up a few words: it reads the head
    (~80 KB) and the groups it looks in, each checked against its own CRC, where reading
    and checking the whole list cost it ~7 ms.

    Attributes:
        source: The file it was made from (`source_key`).
        digest: `list_digest` of the words (what a table made from them is checked against).
        size: How many words the list holds.
        longest: The longest word's length.
        short: Each word shorter than PREFIX_LETTERS → its rank (from 1).
        prefixes: `|`, then each group's first PREFIX_LETTERS letters and `|`, in the
            groups' order (so that `|abc|` is found where a group's entry starts).
        ends: Where each group's text ends: little-endian unsigned 32-bit offsets.
        checks: Each group's text's CRC-32, likewise.
    """

    source: str
    digest: str
    size: int
    longest: int
    short: dict[str, int]
    prefixes: str
    ends: memoryview
    checks: memoryview


_DECODER = msgspec.msgpack.Decoder(WordTable)


class ListedWords(NamedTuple):
    """The word list as kept: its head, and its groups' text one after another, each
    ` word rank word rank … ` (UTF-8) of the words starting with its letters, a space
    first and last (so that ` word ` finds a word)."""

    table: WordTable
    groups: memoryview


class Ranks:
    """Each listed word's rank, read from the `ListedWords` a group at a time.

    Args:
        listed: The list as kept.
        remake: What makes the list anew when a group is found damaged.
    """

    def __init__(self, listed: ListedWords, remake: Callable[[], ListedWords]) -> None:
        self._remake = remake
        self._load(listed)

    def _load(self, listed: ListedWords) -> None:
        table = listed.table
        self.digest = table.digest
        self.log_size = math.log(table.size)
        self.longest = table.longest
        self._short = table.short
        self._prefixes = table.prefixes
        from symfind.storage.cache_files import little_endian  # as `word_table`'s import

        self._ends, self._checks = little_endian(table.ends, "I"), little_endian(table.checks, "I")
        self._groups = listed.groups
        self._texts: dict[str, str] = {}  # group → its text, once looked in ("": none)
        self._read: dict[str, dict[str, int]] = {}
        self._looked: dict[str, int] = {}  # group → how often looked in (not yet a dict)

    def get(self, word: str) -> int | None:
        """The rank of `word` in the list (1 is the most frequent), or None."""
        if len(word) < PREFIX_LETTERS:
            return self._short.get(word)
        prefix = word[:PREFIX_LETTERS]
        group = self._read.get(prefix)
        if group is not None:
            return group.get(word)
        text = self._text(prefix)
        if text is None:
            return None
        looked = self._looked[prefix] = self._looked.get(prefix, 0) + 1
        if looked >= DICT_AFTER_LOOKUPS:
            items = text.split()
            self._read[prefix] = dict(zip(items[::2], map(int, items[1::2])))
            return self._read[prefix].get(word)
        at = text.find(f" {word} ")
        if at < 0:
            return None
        start = at + len(word) + 2
        return int(text[start:text.index(" ", start)])

    def _text(self, prefix: str) -> str | None:
        """The group of the words starting with `prefix`, None when none does."""
        text = self._texts.get(prefix)
        if text is not None:
            return text or None  # "": no word starts with it, found once
        if "|" in prefix:
            return None
        # A split looks up every piece of its word: most prefixes start no word, and
        # finding that out scans the whole head, so the answer is kept too.
        at = self._prefixes.find(f"|{prefix}|")
        if at < 0:
            self._texts[prefix] = ""
            return None
        number = at // (PREFIX_LETTERS + 1)
        data = self._groups[self._ends[number - 1] if number else 0:self._ends[number]]
        if zlib.crc32(data) != self._checks[number]:
            logger.warning("the cached word list is damaged: making it again")
            self._load(self._remake())
            return self._text(prefix)
        text = self._texts[prefix] = str(data, "utf-8")
        return text


_ranks: Ranks | None = None
_ranks_lock = threading.Lock()


def word_list_path() -> Path:
    """wordninja's word list, found without importing wordninja.

    Raises:
        FileNotFoundError: wordninja is not installed.
    """
    spec = importlib.util.find_spec("wordninja")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("the wordninja package is not installed")
    return Path(spec.origin).parent / "wordninja" / "wordninja_words.txt.gz"


def read_word_list() -> list[str]:
    """wordninja's words, the most frequent first.

    Raises:
        OSError: The list cannot be read.
    """
    with gzip.open(word_list_path()) as file:
        return file.read().decode().split()


def list_digest(words: list[str]) -> str:
    """The SHA-256 of a word list, in its order."""
    return hashlib.sha256("\n".join(words).encode()).hexdigest()


def make_table(words: list[str], source: str) -> ListedWords:
    """The cached form of a word list."""
    from symfind.storage.cache_files import packed_little_endian  # as `word_table`'s import

    # Of a word listed twice, wordninja keeps the later rank, as `dict` does here.
    ranks = dict(zip(words, range(1, len(words) + 1)))
    groups: dict[str, list[str]] = {}
    short = {}
    for word, rank in ranks.items():
        if len(word) < PREFIX_LETTERS:
            short[word] = rank
        else:
            groups.setdefault(word[:PREFIX_LETTERS], []).append(f"{word} {rank}")
    texts = [f" {' '.join(group)} ".encode() for group in groups.values()]
    table = WordTable(source=source, digest=list_digest(words), size=len(words),
                      longest=max(map(len, words)), short=short,
                      prefixes=f"|{'|'.join(groups)}|",
                      ends=packed_little_endian(itertools.accumulate(map(len, texts)), "I"),
                      checks=packed_little_endian(map(zlib.crc32, texts), "I"))
    return ListedWords(table, memoryview(b"".join(texts)))


def load_word_list() -> Ranks:
    """The word list's ranks, read once per process: from symfind's cache when it holds
    them intact, else from wordninja's file (and then written to the cache).

    Raises:
        OSError: The word list cannot be read.
    """
    global _ranks
    with _ranks_lock:
        if _ranks is None:
            _ranks = Ranks(word_table(), word_table_made_again)
        return _ranks


def word_table() -> ListedWords:
    """The word list as cached (`ListedWords`), read from the cache when its head is
    there and intact, else made from wordninja's file and written to the cache.

    Raises:
        OSError: The word list cannot be read.
    """
    # Imported here: this module is imported by every process that splits words, most of
    # which never split a compound.
    from symfind.storage.cache_files import read_made_from_with_tail

    path, source = _cached_path()
    found = read_made_from_with_tail(path, _DECODER, source)
    return ListedWords(*found) if found is not None else word_table_made_again()


def word_table_made_again() -> ListedWords:
    """The word list made from wordninja's file, and written to the cache."""
    from symfind.storage.cache_files import write_intact_with_tail

    path, source = _cached_path()
    listed = make_table(read_word_list(), source)
    try:
        write_intact_with_tail(path, msgspec.msgpack.encode(listed.table), listed.groups)
    except OSError as exc:  # a read-only cache: this process keeps its own
        logger.info("the word list stays in memory: %s", exc)
    return listed


def _cached_path() -> tuple[Path, str]:
    """Where the word list is cached, and what it is made from."""
    from symfind.storage.cache_files import key_of
    from symfind.storage.location import cache_dir

    path = word_list_path()
    status = path.stat()
    source = (f"symfind word list {FORMAT}\n"
              f"{path} {status.st_size} {status.st_mtime_ns} {status.st_ino}")
    return cache_dir() / "words" / f"wordninja-{key_of(source)}.bin", source


def split_compound(word: str) -> list[str]:
    """`word` (ASCII letters) as the English words that cost least together, its letters'
    case kept (the words are looked up lowercase)."""
    ranks = load_word_list()
    log_size, longest = ranks.log_size, ranks.longest
    lowered = word.lower()
    # best[end]: (the least cost of `word[:end]`, the length of its last word)
    best: list[tuple[float, int]] = [(0.0, 0)]
    for end in range(1, len(word) + 1):
        choices = []
        for length in range(1, min(end, longest) + 1):
            rank = ranks.get(lowered[end - length:end])
            cost = math.inf if rank is None else math.log(rank * log_size)
            choices.append((best[end - length][0] + cost, length))
        best.append(min(choices))
    parts = []
    end = len(word)
    while end > 0:
        length = best[end][1]
        parts.append(word[end - length:end])
        end -= length
    return parts[::-1]
