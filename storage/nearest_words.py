"""Which vocabulary words may be near a vector: the candidates for a word's neighbours,
found without numpy.

Imports: msgspec, `storage` modules; numpy only to derive the packed vocabulary (once,
kept in symfind's cache).

A question word that no shipped table holds (`netrc`, `argv`) needs its neighbours
computed: its cosine with each of the vocabulary's 10,429 words. numpy does that in a
millisecond, but importing it costs a command-line question ~0.1 s of CPU, about what a
whole name search costs; 10,429 cosines in Python cost ~40 ms (~150 ms with reading the
float16 rows). So the vocabulary's unit vectors are kept rounded to 8 bits (whole
numbers from -127 to 127, times one scale), one dimension's numbers for every word packed
into one Python int, a 3-byte slot a word (`PackedVocabulary`). A word's unit vector,
rounded the same way, times each of those 256 ints, summed, is one int whose slot j holds
its rounded dot product with vocabulary word j: 256 products of a 31 KB int by a small
one, ~5 ms of CPU in C. The rounding's error has a bound (`candidates`), so every word
whose true cosine can reach the threshold is a candidate, and nothing else much is; their
exact cosines are then computed from the model's rows (storage/semantic.py), as a
question's other cosines are.

The packed vocabulary (2.7 MB) is derived once from the model's vectors and kept in
symfind's cache directory as storage/model_files.py keeps its own file: written
atomically, its digest first, read only intact and made from the same model files.
"""

from __future__ import annotations

import logging
import math
import sys
from array import array
from collections.abc import Sequence
from pathlib import Path

import msgspec

from symfind.storage.cache_files import key_of, read_made_from, write_intact
from symfind.storage.model_files import MODEL_NAME, TokenTable

logger = logging.getLogger(__name__)

#: Bumped whenever `Packed` or the way it is derived changes: older files are then ignored.
FORMAT = 1
#: A rounded number's largest size, and what is added to store it in a byte (1..255).
LEVELS = 127
OFFSET = 128
#: A slot holds one word's sum of up to 256 products of a question number (-127..127)
#: and a stored byte (0..255), plus BIAS: 2**23 ± 256 · 127 · 255 is within 0..2**24.
SLOT_BYTES = 3
BIAS = 1 << 23
#: Added to the rounding's bound: the exact cosines differ from these in the last bits
#: of float32 (~1e-7), and a candidate more costs nothing.
MARGIN = 1e-4


class Packed(msgspec.Struct, frozen=True, kw_only=True):
    """The packed vocabulary as kept in the cache.

    Attributes:
        source: What it was made from (storage/model_files.py `source_key`, and FORMAT).
        words: How many vocabulary words.
        scale: A rounded number is the unit vector's number times this, rounded.
        error: The largest length of a word's rounding error (its unit vector minus its
            rounded numbers over `scale`), rounded up.
        columns: Per dimension, each word's rounded number plus OFFSET, one byte a word.
    """

    source: str
    words: int
    scale: float
    error: float
    columns: bytes


_DECODER = msgspec.msgpack.Decoder(Packed)


class PackedVocabulary:
    """The vocabulary's unit vectors, rounded, one int per dimension (see the module)."""

    def __init__(self, packed: Packed) -> None:
        self.words, self.scale, self.error = packed.words, packed.scale, packed.error
        size = packed.words
        self._bias = int.from_bytes(BIAS.to_bytes(SLOT_BYTES, "little") * size, "little")
        self._columns = []
        for start in range(0, len(packed.columns), size):
            slots = bytearray(SLOT_BYTES * size)  # each byte the low byte of its slot
            slots[::SLOT_BYTES] = packed.columns[start:start + size]
            self._columns.append(int.from_bytes(slots, "little"))

    def candidates(self, unit: Sequence[float], threshold: float) -> list[int]:
        """The vocabulary rows whose cosine with `unit` (a unit vector) may be at least
        `threshold`: every one that is, and those the rounding leaves in doubt.

        With q the unit vector, q̂ its rounded numbers over their scale (error e_q) and
        û_j a word's over `scale` (error e_j, |e_j| ≤ `error`), q·u_j − q̂·û_j =
        q̂·e_j + e_q·u_j, at most (1 + |e_q|)·error + |e_q| in size.
        """
        largest = max(map(abs, unit))
        if not largest:
            return []
        own_scale = LEVELS / largest
        rounded = [round(number * own_scale) for number in unit]
        own_error = math.dist(unit, [number / own_scale for number in rounded])
        bound = (1 + own_error) * self.error + own_error + MARGIN
        # The stored bytes are the numbers plus OFFSET (0..255): a slot sums its word's
        # products, up to 256 · 127 · 255 either way; BIAS in each slot keeps that sum
        # between 0 and 2**24, so that a slot neither borrows from nor carries into the next.
        total = self._bias
        for number, column in zip(rounded, self._columns):
            if number:
                total += number * column
        least = ((threshold - bound) * own_scale * self.scale + OFFSET * sum(rounded)
                 + BIAS)
        return [row for row, slot in enumerate(self._slots(total)) if slot >= least]

    def _slots(self, number: int) -> array:
        """The slots of a sum of columns, as numbers."""
        packed = number.to_bytes(SLOT_BYTES * self.words, "little")
        widened = bytearray(4 * self.words)
        for byte in range(SLOT_BYTES):
            widened[byte::4] = packed[byte::SLOT_BYTES]
        slots = array("I", widened)
        if sys.byteorder == "big":
            slots.byteswap()
        return slots


def cache_path(cache_dir: Path, source: str) -> Path:
    """The packed vocabulary's file for the model files `source` in `cache_dir`."""
    return cache_dir / "model" / f"{MODEL_NAME}-{key_of(_source(source))}-vocabulary.bin"


def _source(source: str) -> str:
    return f"{source}\npacked vocabulary {FORMAT}"


def load(cache_dir: Path, source: str, table: TokenTable,
         vocabulary_ids: Sequence[int]) -> PackedVocabulary:
    """The packed vocabulary of the model files `source` (storage/model_files.py
    `source_key`): read from the cache when it is there and intact, else derived now
    (with numpy) and written to it."""
    path = cache_path(cache_dir, source)
    packed: Packed | None = read_made_from(path, _DECODER, _source(source))
    if packed is None:
        packed = derive(table, vocabulary_ids, _source(source))
        try:
            write_intact(path, msgspec.msgpack.encode(packed))
        except OSError as exc:  # a read-only cache: this process keeps its own
            logger.info("the packed vocabulary stays in memory: %s", exc)
    return PackedVocabulary(packed)


def derive(table: TokenTable, vocabulary_ids: Sequence[int], source: str) -> Packed:
    """Round the vocabulary's unit vectors (float64: exact rows over their lengths)."""
    import numpy as np  # here: once per model and cache directory

    units = np.asarray(table.array()[list(vocabulary_ids)], dtype=np.float64)
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    scale = LEVELS / float(np.abs(units).max())
    rounded = np.rint(units * scale)
    error = float(np.linalg.norm(units - rounded / scale, axis=1).max())
    return Packed(source=source, words=len(vocabulary_ids), scale=scale,
                  error=error * (1 + 1e-9),  # rounded up: a bound, not an estimate
                  columns=(rounded + OFFSET).astype(np.uint8).T.tobytes())
