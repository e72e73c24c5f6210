"""The English words run together in one word of a name (`getbaseline` → `get`, `baseline`).

Imports: nothing of ours or of others (wordninja's word list is read as a file).

The split is wordninja's: its list of 126,136 English words by frequency gives each word
the cost `log(rank × log(size of the list))` (Zipf's law), and the split of a string is
the one whose words' costs sum least (a word outside the list costs infinity), found by
dynamic programming over the string's ends; of two splits that cost the same, the one
whose last word is shorter. Importing wordninja builds its table as a dict of floats, a
logarithm a word, which costs ~0.1 s of CPU: as much as a whole name search from the
command line, and every question from the command line splits its candidates' names. Here
the table maps each word to its rank (built from the same file in about a third of the
time), and a cost is computed when a word is met, by the same arithmetic, so every split is
wordninja's own (tests/unit/storage/test_compounds.py checks them against it).

Only what symfind splits is handled: one word of ASCII letters (wordninja's
handling of digits and apostrophes is not needed for that).
"""

from __future__ import annotations

import gzip
import importlib.util
import math
import threading
from pathlib import Path

_table: tuple[dict[str, int], float, int] | None = None
_table_lock = threading.Lock()


def word_list_path() -> Path:
    """wordninja's word list, found without importing wordninja.

    Raises:
        FileNotFoundError: wordninja is not installed.
    """
    spec = importlib.util.find_spec("wordninja")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("the wordninja package is not installed")
    return Path(spec.origin).parent / "wordninja" / "wordninja_words.txt.gz"


def load_word_list() -> tuple[dict[str, int], float, int]:
    """Each word's rank (from 1), the logarithm of the list's size, and the longest
    word's length; read once per process.

    Raises:
        OSError: The word list cannot be read.
    """
    global _table
    with _table_lock:
        if _table is None:
            with gzip.open(word_list_path()) as file:
                words = file.read().decode().split()
            ranks = dict(zip(words, range(1, len(words) + 1)))
            # Of a word listed twice, wordninja keeps the later rank, as `dict` does here.
            _table = ranks, math.log(len(words)), max(map(len, words))
        return _table


def split_compound(word: str) -> list[str]:
    """`word` (ASCII letters) as the English words that cost least together, its letters'
    case kept (the words are looked up lowercase)."""
    ranks, log_size, longest = load_word_list()
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
