"""Write the shipped neighbour table (storage/semantic.py `NEIGHBOUR_TABLE`).

Imports: numpy, threadpoolctl, `storage` modules.

Run after a change of the model, of `NEIGHBOURS_PER_WORD` or `NEIGHBOUR_MIN_COSINE`, or of
wordninja's word list (the table's fingerprints then no longer match, and
tests/unit/storage/test_semantic.py says so): `python -m symfind.storage.neighbour_table`.
It computes the neighbours with numpy, a product of unit vectors with the whole
vocabulary's, in blocks, in a few minutes: of every vocabulary word, and of every other
word of wordninja's list (inflections such as `raises`, `hooks`, `decoded`, which a
question's words often are), so that a question computes neighbours (storage/semantic.py
`Model.compute_neighbours`, without numpy, the same to float32 rounding, which a test
checks against `computed_neighbours`) only for a word in neither. BLAS sums in its own
order, which may differ between machines: the vocabulary's part, made again on another
machine, had the same neighbours, and 6 % of its similarities differed in the last bits
of float32 (the table shipped keeps the part first shipped).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from symfind.storage.compounds import list_digest, read_word_list
from symfind.storage.model_files import unit_rows
from symfind.storage.semantic import (NEIGHBOUR_MIN_COSINE, NEIGHBOURS_PER_WORD, Model,
                                      load_model, neighbour_table_path)
from symfind.storage.words import STOP_WORDS

BLOCK_WORDS = 512


def computed_neighbours(model: Model, words: Sequence[str], vocabulary: np.ndarray
                        ) -> dict[str, tuple[tuple[str, float], ...]]:
    """The neighbours of `words` (storage/semantic.py `Model.neighbours`) by numpy's
    product of their unit vectors with the `vocabulary`'s (`vocabulary_units`)."""
    found: dict[str, tuple[tuple[str, float], ...]] = {}
    looked_up = []
    for word, vector in zip(words, model.vectors(words)):
        if word in STOP_WORDS or vector is None:
            found[word] = ()
        else:
            looked_up.append((word, vector))
    if not looked_up:
        return found
    # The vocabulary's rows times the words' columns: twice as fast as the transposed
    # product with a row-major vocabulary.
    summed = np.array([vector.numbers for _, vector in looked_up], dtype=np.float32)
    # Unit vectors: the float32 sum over its float32 length.
    asked = summed / np.linalg.norm(summed, axis=1, keepdims=True)
    similarities = (vocabulary @ asked.T).T
    best = np.argpartition(-similarities, NEIGHBOURS_PER_WORD + 1, axis=1)[
        :, : NEIGHBOURS_PER_WORD + 1]
    for (word, _), row, columns in zip(looked_up, similarities, best):
        closest = sorted(((model.vocabulary[i], float(row[i])) for i in columns),
                         key=lambda pair: -pair[1])
        found[word] = tuple((w, s) for w, s in closest
                            if w != word and s >= NEIGHBOUR_MIN_COSINE)[:NEIGHBOURS_PER_WORD]
    return found


def vocabulary_units(model: Model) -> np.ndarray:
    """The vocabulary's float32 unit vectors, one row per word."""
    return unit_rows(model.table, model.vocabulary_ids)


def neighbours_of(model: Model, words: Sequence[str], rows: np.ndarray,
                  similarities: np.ndarray, places: Sequence[int]) -> None:
    """Fill `rows` (vocabulary rows, -1 past the last) and `similarities` at `places` with
    the neighbours of `words`, computed a block at a time."""
    where = {word: row for row, word in enumerate(model.vocabulary)}
    vocabulary = vocabulary_units(model)
    for start in range(0, len(words), BLOCK_WORDS):
        block = words[start:start + BLOCK_WORDS]
        found = computed_neighbours(model, block, vocabulary)
        for word, place in zip(block, places[start:start + BLOCK_WORDS]):
            for column, (near, similarity) in enumerate(found[word]):
                rows[place, column] = where[near]
                similarities[place, column] = similarity
        if start // BLOCK_WORDS % 20 == 0:
            print(f"{min(start + BLOCK_WORDS, len(words))}/{len(words)} words", file=sys.stderr)


def build() -> dict[str, np.ndarray]:
    """The table's arrays: the model's fingerprint, and per vocabulary word its
    neighbours' vocabulary rows (-1 past the last) and similarities; the word list's
    digest, and the same per word of the list by rank (`ranked_*`, row rank − 1; empty
    for a vocabulary word and for an earlier copy of a word listed twice)."""
    # One BLAS thread, as the table shipped was made (its sums' order).
    threadpool_limits(limits=1, user_api="blas")
    model = load_model()
    vocabulary = model.vocabulary
    rows = np.full((len(vocabulary), NEIGHBOURS_PER_WORD), -1, dtype=np.int32)
    similarities = np.zeros((len(vocabulary), NEIGHBOURS_PER_WORD), dtype=np.float32)
    neighbours_of(model, vocabulary, rows, similarities, range(len(vocabulary)))
    listed = read_word_list()
    # Of a word listed twice, the later rank counts (storage/compounds.py `make_table`).
    rank_of = dict(zip(listed, range(1, len(listed) + 1)))
    known = set(vocabulary)
    others = [word for word in rank_of if word not in known]
    # int16: the vocabulary's 10,429 rows fit, in half the bytes of the 126,136 words'.
    ranked_rows = np.full((len(listed), NEIGHBOURS_PER_WORD), -1, dtype=np.int16)
    ranked_similarities = np.zeros((len(listed), NEIGHBOURS_PER_WORD), dtype=np.float32)
    neighbours_of(model, others, ranked_rows, ranked_similarities,
                  [rank_of[word] - 1 for word in others])
    return {"fingerprint": np.array(model.fingerprint()), "rows": rows,
            "similarities": similarities, "word_list": np.array(list_digest(listed)),
            "ranked_rows": ranked_rows, "ranked_similarities": ranked_similarities}


def main() -> None:
    target = Path(str(neighbour_table_path()))
    # Stored, not compressed: a question reads the vocabulary's part whole (inflating it
    # cost ~1.5 ms) and a listed word's entry where it lies.
    np.savez(target, **build())
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
