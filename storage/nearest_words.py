"""Which vocabulary words may be near a vector: the candidates for a word's neighbours,
found without numpy.

Imports: msgspec, `storage` modules; numpy and threadpoolctl only to derive the packed
vocabulary (once, kept in symfind's cache).

A question word that no shipped table holds (`netrc`, `argv`) needs its neighbours
computed: its cosine with each of the vocabulary's 10,429 words. numpy does that in a
millisecond, but importing it costs a command-line question ~0.1 s of CPU, about what a
whole name search costs; 10,429 cosines in Python cost ~40 ms (~150 ms with reading the
float16 rows). So the vocabulary is kept packed (`PackedVocabulary`):

- each unit vector as its coordinates along the vocabulary's DIMENSIONS_KEPT principal
  directions (which hold ~80 % of it), and the length of what is left (the residual);
- those coordinates rounded to 8 bits (whole numbers from -127 to 127, times one scale),
  one direction's numbers for every word packed into one Python int, a 3-byte slot a word.

A word's coordinates, rounded the same way, times each of those ints, summed, is one int
whose slot j holds its rounded dot product with vocabulary word j along the kept
directions: DIMENSIONS_KEPT products of a 31 KB int by a small one, ~2.5 ms of CPU in C.
What the rounding and the residuals can add has a bound (`candidates`), so every word
whose true cosine can reach the threshold is a candidate, and few others are (a few
dozen at most, where the vocabulary holds 10,429); their exact cosines are then
computed from the model's rows (storage/semantic.py), as a question's other cosines are.
Keeping fewer directions makes the ints cheaper to read and the bound looser: 160 of 256
read 40 % less for at most ~60 candidates on words tried (128: up to ~2,000).

The packed vocabulary (1.7 MB) is derived once from the model's vectors and kept in
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

from symfind.storage.cache_files import key_of, little_endian, read_made_from, write_intact
from symfind.storage.model_files import MODEL_NAME, TokenTable

logger = logging.getLogger(__name__)

#: Bumped whenever `Packed` or the way it is derived changes: older files are then ignored.
FORMAT = 2
#: The vocabulary's principal directions a vector is packed along (see the module).
DIMENSIONS_KEPT = 160
#: A rounded number's largest size, and what is added to store it in a byte (1..255).
LEVELS = 127
OFFSET = 128
#: A slot holds one word's sum of up to 256 products of a question number (-127..127)
#: and a stored byte (0..255), plus BIAS: 2**23 ± 256 · 127 · 255 is within 0..2**24.
SLOT_BYTES = 3
BIAS = 1 << 23
#: Added to the bound: the exact cosines differ from these in the last bits of float32
#: (~1e-7), a residual's length computed from the kept coordinates' may be ~1e-7 short,
#: and a candidate more costs nothing.
MARGIN = 1e-4


class Packed(msgspec.Struct, frozen=True, kw_only=True):
    """The packed vocabulary as kept in the cache.

    Attributes:
        source: What it was made from (storage/model_files.py `source_key`, and FORMAT).
        words: How many vocabulary words.
        directions: The principal directions kept, one unit vector each (float64,
            little-endian, one after the other).
        residuals: Each word's residual length: its unit vector minus its coordinates'
            part (float64, little-endian), rounded up.
        scale: A rounded number is a coordinate times this, rounded.
        error: The largest length of a word's rounding error (its coordinates minus its
            rounded numbers over `scale`), rounded up.
        columns: Per direction, each word's rounded number plus OFFSET, one byte a word.
    """

    source: str
    words: int
    directions: memoryview
    residuals: memoryview
    scale: float
    error: float
    columns: memoryview


_DECODER = msgspec.msgpack.Decoder(Packed)


class PackedVocabulary:
    """The vocabulary's unit vectors, packed (see the module)."""

    def __init__(self, packed: Packed) -> None:
        self.words, self.scale, self.error = packed.words, packed.scale, packed.error
        size = packed.words
        directions = little_endian(packed.directions, "d")
        dims = len(directions) // (len(packed.columns) // size)
        self._directions = [tuple(directions[start:start + dims])
                            for start in range(0, len(directions), dims)]
        self._residuals = little_endian(packed.residuals, "d")
        self._largest_residual = max(self._residuals, default=0.0)
        self._bias = int.from_bytes(BIAS.to_bytes(SLOT_BYTES, "little") * size, "little")
        self._bytes = packed.columns
        # The columns as ints, made for each call until a process asks a second time,
        # then kept: a command line asks once, and keeping them (5 MB of fresh memory)
        # cost its question ~3 ms more than making each one where the last one was.
        self._columns: list[int] | None = None
        self._calls = 0

    def candidates(self, unit: Sequence[float], threshold: float) -> list[int]:
        """The vocabulary rows whose cosine with `unit` (a unit vector) may be at least
        `threshold`: every one that is, and those the packing leaves in doubt.

        With q the unit vector, c its coordinates along the kept directions, r its
        residual's length, and for a word u_j its coordinates C_j and residual r_j:
        q·u_j = c·C_j + (the residuals' product), at most r·r_j in size. With ĉ and Ĉ_j
        the rounded coordinates over their scales (errors e, |e| ≤ ε, and e_j, |e_j| ≤
        `error`), c·C_j − ĉ·Ĉ_j = ĉ·e_j + e·C_j, at most (1 + ε)·error + ε in size.
        """
        length = math.hypot(*unit)
        if not length:
            return []
        dist = math.dist
        # Each coordinate one C call: c_k = q·d_k = (|q|² + |d_k|² − |q − d_k|²) / 2.
        kept = [(length * length + 1 - dist(unit, direction) ** 2) / 2
                for direction in self._directions]
        largest = max(map(abs, kept))
        own_scale = LEVELS / largest
        rounded = [round(number * own_scale) for number in kept]
        own_error = dist(kept, [number / own_scale for number in rounded])
        residual = math.sqrt(max(0.0, length * length
                                 - math.fsum(number * number for number in kept)))
        bound = (1 + own_error) * self.error + own_error + MARGIN
        # The stored bytes are the numbers plus OFFSET (0..255): a slot sums its word's
        # products, up to 256 · 127 · 255 either way; BIAS in each slot keeps that sum
        # between 0 and 2**24, so that a slot neither borrows from nor carries into the next.
        widened = bytearray(SLOT_BYTES * self.words)  # this call's own: threads share self
        if self._columns is None and self._calls:
            self._columns = [self._column(direction, widened)
                             for direction in range(len(rounded))]
        self._calls += 1
        total = self._bias
        for direction, number in enumerate(rounded):
            if number:
                total += number * (self._columns[direction] if self._columns is not None
                                   else self._column(direction, widened))
        units = own_scale * self.scale  # a cosine of 1 in a slot
        least = (threshold - bound) * units + OFFSET * sum(rounded) + BIAS
        per_residual = residual * units
        slots = self._slots(total)
        # First against the largest residual (one comparison a word), then each its own.
        loose = least - per_residual * self._largest_residual
        residuals = self._residuals
        return [row for row in [row for row, slot in enumerate(slots) if slot >= loose]
                if slots[row] + per_residual * residuals[row] >= least]

    def _column(self, direction: int, widened: bytearray) -> int:
        """One direction's numbers for every word as one int, a SLOT_BYTES slot a word
        (`widened`: SLOT_BYTES zero bytes a word, of which each slot's low one is set)."""
        widened[::SLOT_BYTES] = self._bytes[direction * self.words:(direction + 1) * self.words]
        return int.from_bytes(widened, "little")

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
    """Pack the vocabulary's unit vectors (float64: exact rows over their lengths) along
    their DIMENSIONS_KEPT principal directions."""
    import numpy as np  # here: once per model and cache directory
    from threadpoolctl import threadpool_limits

    units = np.asarray(table.array()[list(vocabulary_ids)], dtype=np.float64)
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    # One BLAS thread: a second spins for as long as the first computes (a derivation
    # took 4.5 s of CPU for 0.5 s of work on a busy machine).
    with threadpool_limits(limits=1, user_api="blas"):
        # The principal directions: the eigenvectors of the 256 x 256 Gram matrix, the
        # largest eigenvalues first (a tenth of the cost of the vectors' SVD).
        eigenvectors = np.linalg.eigh(units.T @ units)[1]
    directions = eigenvectors[:, ::-1][:, :DIMENSIONS_KEPT].T
    kept = units @ directions.T
    residuals = np.linalg.norm(units - kept @ directions, axis=1)
    scale = LEVELS / float(np.abs(kept).max())
    rounded = np.rint(kept * scale)
    error = float(np.linalg.norm(kept - rounded / scale, axis=1).max())
    # Rounded up: bounds, not estimates.
    return Packed(source=source, words=len(vocabulary_ids),
                  directions=memoryview(directions.astype("<f8").tobytes()),
                  residuals=memoryview((residuals * (1 + 1e-9) + 1e-12).astype("<f8").tobytes()),
                  scale=scale, error=error * (1 + 1e-9),
                  columns=memoryview((rounded + OFFSET).astype(np.uint8).T.tobytes()))
