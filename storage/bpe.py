"""A word into the question model's token ids, as the model's own tokenizer gives them.

Imports: nothing of ours or of others (the tables come from storage/model_files.py).

The model's tokenizer is a byte-pair encoder (Llama's, 32,000 tokens, 61,249 merges),
which the `tokenizers` package reads from a 1.8 MB JSON file in ~0.1 s of CPU: as much as
everything else a question from the command line loads. symfind encodes single words only
(a question's and its candidates' words: letters and digits, no spaces), which needs three
of the tokenizer's tables, kept small in symfind's cache: the one-character tokens, the
byte tokens (`<0x41>`), and the merges by their order.

Encoding a word: `▁` (the tokenizer's start of a word) and the word, one symbol per
character, its token, else one token per byte of its UTF-8 (byte fallback); then, as long as
two neighbouring symbols have a merge, the pair whose merge comes first in the list (the
leftmost of equal pairs) becomes the merged token. That is the order the `tokenizers`
package applies merges in; tests/unit/storage/test_bpe.py checks the ids against it word by
word. The one difference: the tokenizer's special tokens (`<s>`, `<unk>`) written inside a
word are read as characters, not as special tokens; words of letters and digits never hold
them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Protocol

#: How the tokenizer marks the start of a word (it replaces spaces with it, too).
WORD_START = "\u2581"
#: A pair of token ids, or a merge's rank and result, as one integer key or value.
PAIR_SHIFT = 32
_LOW = (1 << PAIR_SHIFT) - 1


def pair_key(left: int, right: int) -> int:
    """The merge table's key for two neighbouring token ids."""
    return left << PAIR_SHIFT | right


def merge_value(rank: int, merged: int) -> int:
    """The merge table's value: the smallest value is the earliest merge."""
    return rank << PAIR_SHIFT | merged


class MergeTable(Protocol):
    """The merges as `Encoder` reads them: a dict, or `PackedMerges`."""

    def get(self, key: int, /) -> int | None: ...


class PackedMerges(dict[int, "int | None"]):
    """The merges kept as two arrays, `pair_key`s sorted and their `merge_value`s, each
    pair looked up by bisection when first met and kept in this dict (None for a pair
    without a merge). A dict of all 61,249 merges costs ~10 ms to build, and the merges
    of each left token met (thousands for `▁`) ~5 ms a question: more than the ~1,500
    pairs a question meets cost to find. Being the dict itself, not a method in front of
    it, `Encoder` looks a pair up with no Python call but for a pair not met before.

    Args:
        keys: The merges' `pair_key`s, ascending.
        values: Their `merge_value`s, in the same order.
    """

    def __init__(self, keys: Sequence[int], values: Sequence[int]) -> None:
        super().__init__()
        if len(keys) != len(values):
            raise ValueError(f"{len(keys)} merge keys but {len(values)} values")
        self._keys = keys
        self._values = values

    def __missing__(self, key: int) -> int | None:
        if len(self) >= PAIRS_KEPT:  # a long-lived process meets ever more pairs
            self.clear()
        at = bisect_left(self._keys, key)
        merge = self[key] = (self._values[at] if at < len(self._keys) and self._keys[at] == key
                             else None)
        return merge

    def get(self, key: int, default: int | None = None, /) -> int | None:  # type: ignore[override]
        """The merge value of a pair key, None when the pair has no merge."""
        return self[key]


#: Pairs `PackedMerges` keeps before it starts over.
PAIRS_KEPT = 65_536  # ~6 MB at most


class WordTable(Protocol):
    """The whole words as `Encoder` reads them: a dict, or `SortedWords`."""

    def get(self, word: str, /) -> int | None: ...


class SortedWords:
    """Words and their token ids as two lists, the words sorted, looked up by bisection
    (~1 µs): a dict of the model's 16,408 whole words cost ~4 ms to decode from the cache
    at each question's start, the sorted list a tenth of that.

    Args:
        words: The words, ascending.
        ids: Their token ids, in the same order.
    """

    def __init__(self, words: Sequence[str], ids: Sequence[int]) -> None:
        if len(words) != len(ids):
            raise ValueError(f"{len(words)} whole words but {len(ids)} ids")
        self._words = words
        self._ids = ids

    def get(self, word: str, /) -> int | None:
        """The token id of `word`, None when it is not one of the words."""
        at = bisect_left(self._words, word)
        if at < len(self._words) and self._words[at] == word:
            return self._ids[at]
        return None


class Encoder:
    """Words into token ids, from the tokenizer's tables.

    Args:
        characters: Each one-character token's text → its id.
        byte_ids: The ids of the byte tokens `<0x00>` … `<0xFF>`, in order.
        merges: `pair_key(left, right)` → `merge_value(rank, merged id)` (a dict, or
            `PackedMerges`).
        whole_words: Words known to encode as one token → its id (`whole_words`; a dict
            or `SortedWords`): most words a question meets, encoded without merging.
    """

    def __init__(self, characters: Mapping[str, int], byte_ids: Sequence[int],
                 merges: MergeTable, whole_words: WordTable | None = None) -> None:
        if len(byte_ids) != 256:
            raise ValueError(f"expected 256 byte tokens, got {len(byte_ids)}")
        self._characters = characters
        self._byte_ids = tuple(byte_ids)
        self._merges = merges
        self._whole_words = whole_words or {}

    def whole_words(self, vocabulary: Mapping[str, int]) -> dict[str, int]:
        """The words whose encoding is the one token `▁` + the word of `vocabulary`
        (token text → id), found by encoding each."""
        found = {}
        for token, index in vocabulary.items():
            word = token[1:]
            if token.startswith(WORD_START) and word and self.encode(word) == [index]:
                found[word] = index
        return found

    def encode(self, word: str) -> list[int]:
        """The token ids of one word ([] for the empty word)."""
        whole = self._whole_words.get(word)
        if whole is not None:
            return [whole]
        if not word:
            return []
        symbols: list[int] = []
        for character in WORD_START + word.replace(" ", WORD_START):
            token = self._characters.get(character)
            if token is None:
                symbols.extend(self._byte_ids[byte] for byte in character.encode("utf-8"))
            else:
                symbols.append(token)
        merges = self._merges
        # `PackedMerges` answers `[]` itself, with no Python call for a pair met before.
        merge_of = merges.__getitem__ if isinstance(merges, PackedMerges) else merges.get
        while len(symbols) > 1:
            first, at = -1, 0
            for position in range(len(symbols) - 1):
                merge = merge_of(symbols[position] << PAIR_SHIFT | symbols[position + 1])
                if merge is not None and (first < 0 or merge < first):
                    first, at = merge, position
            if first < 0:
                break
            symbols[at:at + 2] = (first & _LOW,)
        return symbols
