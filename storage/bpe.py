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

from collections.abc import Mapping, Sequence

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


class Encoder:
    """Words into token ids, from the tokenizer's tables.

    Args:
        characters: Each one-character token's text → its id.
        byte_ids: The ids of the byte tokens `<0x00>` … `<0xFF>`, in order.
        merges: `pair_key(left, right)` → `merge_value(rank, merged id)`.
        whole_words: Words known to encode as one token → its id (`whole_words`): most
            words a question meets, encoded without merging.
    """

    def __init__(self, characters: Mapping[str, int], byte_ids: Sequence[int],
                 merges: Mapping[int, int], whole_words: Mapping[str, int] | None = None) -> None:
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
        while len(symbols) > 1:
            first, at = -1, 0
            for position in range(len(symbols) - 1):
                merge = merges.get(symbols[position] << PAIR_SHIFT | symbols[position + 1])
                if merge is not None and (first < 0 or merge < first):
                    first, at = merge, position
            if first < 0:
                break
            symbols[at:at + 2] = (first & _LOW,)
        return symbols
