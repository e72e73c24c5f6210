"""Write the shipped neighbour table (storage/semantic.py `NEIGHBOUR_TABLE`).

Imports: numpy, `storage.semantic`.

Run after a change of the model, of `NEIGHBOURS_PER_WORD` or `NEIGHBOUR_MIN_COSINE` (the
table's fingerprint then no longer matches, and tests/unit/storage/test_semantic.py says
so): `python -m symfind.storage.neighbour_table`. It computes every vocabulary word's
neighbours exactly as a question would, in blocks, in a few minutes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from symfind.storage.semantic import NEIGHBOURS_PER_WORD, load_model, neighbour_table_path

BLOCK_WORDS = 512


def build() -> dict[str, np.ndarray]:
    """The table's arrays: the model's fingerprint, and per vocabulary word its
    neighbours' vocabulary rows (-1 past the last) and similarities."""
    model = load_model()
    vocabulary = model.vocabulary
    rows = np.full((len(vocabulary), NEIGHBOURS_PER_WORD), -1, dtype=np.int32)
    similarities = np.zeros((len(vocabulary), NEIGHBOURS_PER_WORD), dtype=np.float32)
    where = {word: row for row, word in enumerate(vocabulary)}
    for start in range(0, len(vocabulary), BLOCK_WORDS):
        block = vocabulary[start:start + BLOCK_WORDS]
        found = model.compute_neighbours(block)
        for row, word in enumerate(block, start):
            for column, (near, similarity) in enumerate(found[word]):
                rows[row, column] = where[near]
                similarities[row, column] = similarity
        print(f"{min(start + BLOCK_WORDS, len(vocabulary))}/{len(vocabulary)} words", file=sys.stderr)
    return {"fingerprint": np.array(model.fingerprint()), "rows": rows,
            "similarities": similarities}


def main() -> None:
    target = Path(str(neighbour_table_path()))
    # Stored, not compressed: a question reads it whole, and inflating it cost ~1.5 ms.
    np.savez(target, **build())
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
