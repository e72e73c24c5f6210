"""Meaning, not spelling: a static English embedding for questions asked in words.

Imports: `storage` modules (never numpy).

The model is WordLlama's `l2_supercat` at 256 dimensions: a table of one vector per
token of a Llama tokenizer (32,000 x 256, 16 MB of float16), trained so that the mean of
a text's token vectors places texts of similar meaning close together. It ships inside
the `wordllama` wheel, so it loads offline and never from the network; its files are read
by storage/model_files.py (the vectors memory-mapped, the rest derived once and kept in
symfind's cache) and its words encoded by storage/bpe.py, so that a question from the
command line costs about what a name costs (the wordllama package is never imported).
For the same reason a question's arithmetic is done without numpy, whose import alone
costs about what a whole name search does: it is a few thousand cosines between a few
question words and a pool's words, each one C call (`math.dist`), and the numbers are
kept as numpy kept them (float32), so that the scores are numpy's to float32 rounding.
The neighbours of a word outside the shipped table, a product with the whole vocabulary,
are found likewise: the few candidates a packed, rounded vocabulary gives
(storage/nearest_words.py), then their exact cosines.

Two uses, both at query time, so that nothing is added to indexing and no vector can be
out of step with the index (they are computed from what the index stores):

- `neighbours`: words of the model's vocabulary close to a query word (`mandatory` →
  `required`, `delete` → `remove`, `colour` → `color`), to widen the candidates a
  question's BM25 finds;
- `Model.soft_match`: how well a definition's words cover a question's by meaning (each
  question word's closest word, by cosine of word vectors, each word's vector the mean of
  its tokens' (their ids kept)), ranking candidates.
"""

from __future__ import annotations

import ast
import math
import struct
import sys
import threading
import zipfile
from array import array
from collections.abc import Callable, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from operator import add
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

from symfind.storage import compounds, model_files, nearest_words
from symfind.storage.bpe import Encoder
from symfind.storage.location import cache_dir
from symfind.storage.words import STOP_WORDS

if TYPE_CHECKING:
    from symfind.storage.model_files import TokenTable
    from symfind.storage.nearest_words import PackedVocabulary

#: Below this cosine a definition's word is no match for a question's word (0.2–0.5 gave
#: the same R@5 on the hand-written questions; 0.3 the best NDCG).
MATCH_MIN_COSINE = 0.3
#: How close a vocabulary word must be to a query word to widen the search with it.
NEIGHBOUR_MIN_COSINE = 0.5
NEIGHBOURS_PER_WORD = 4
#: Words whose neighbours are kept (a few KB each at most; the cache starts over past it).
NEIGHBOUR_CACHE_WORDS = 16384
#: The neighbours of every vocabulary word, computed once from the model and shipped with
#: symfind (`python -m symfind.storage.neighbour_table` writes it): looking them up costs
#: a question nothing, where finding them among the vocabulary costs ~4 ms per word (and
#: loading the packed vocabulary ~8 ms). Used only while its fingerprint matches the model.
NEIGHBOUR_TABLE = "neighbours.npz"
#: Words whose token ids are kept between questions (~100 bytes each; the cache starts
#: over past it): a long-lived server meets new words with every edit, and a kernel's
#: bodies hold millions. A word's vector is made from its tokens' rows at each question.
WORD_CACHE_WORDS = 32768
MODEL_DIM = 256

_FLOAT32 = struct.Struct("<f")


def float32(number: float) -> float:
    """`number` rounded to the nearest float32, as numpy stores it."""
    return _FLOAT32.unpack(_FLOAT32.pack(number))[0]


#: MATCH_MIN_COSINE as a float32 cosine is compared with it (numpy's rule for a Python
#: number beside a float32 array).
_MATCH_MIN = float32(MATCH_MIN_COSINE)


class Vector(NamedTuple):
    """A word's vector as numpy summed it (its tokens' vectors summed in float32, in
    order: the mean's direction is the sum's), and its length. Kept unnormalised: the
    cosine divides by the lengths (`cosines`), where dividing 256 numbers costs more."""

    numbers: tuple[float, ...]
    length: float


def cosines(one: Vector, others: Sequence[Vector]) -> array:
    """The cosines of one vector with each of `others`, as float32 numbers (numpy's
    product of unit vectors, to float32 rounding). Each is one C call: a·b = (|a|² + |b|²
    − |a − b|²) / 2, exact to ~1e-15 for the cosines that count (≥ MATCH_MIN_COSINE), where
    a Python loop over 256 products costs five times as much."""
    dist = math.dist
    numbers, length = one
    return array("f", [(length * length + other_length * other_length
                        - dist(numbers, other) ** 2) / (2 * length * other_length)
                       for other, other_length in others])


#: `Model._kept_vectors`'s answer for a word it does not hold (None: a word without one).
_NOT_KEPT = Vector((), 0.0)


class SoftMatches:
    """`Model.soft_match`'s answer: each candidate's score, and which question words it
    matched with which of its words (`pairs`)."""

    def __init__(self, scores: list[float], asked: tuple[str, ...], words: list[str],
                 similarity: list[list[float]], starts: list[int]) -> None:
        self.scores = scores
        self._asked = asked
        self._words = words  # every candidate's words in turn
        self._similarity = similarity  # per question word: its cosine with each of `_words`
        self._starts = starts  # where each candidate's words start in `_words`, then the end

    def pairs(self, candidate: int) -> tuple[str, ...]:
        """`word` (matched as written) or `word→match` for each question word the
        candidate matched."""
        start, end = self._starts[candidate], self._starts[candidate + 1]
        if start == end:
            return ()
        pairs = []
        for word, row in zip(self._asked, self._similarity):
            mine = row[start:end]
            best = max(mine)
            if best > 0:
                match = self._words[start + mine.index(best)]  # the first of equals
                pairs.append(word if match == word else f"{word}→{match}")
        return tuple(pairs)


class ListedNeighbours(NamedTuple):
    """Where the shipped table's file holds the neighbours of wordninja's listed words
    that are not vocabulary words (inflections such as `raises`, `decoded`: a question's
    words often are), by the word's rank: NEIGHBOURS_PER_WORD vocabulary rows (int16, -1
    past the last), then as many similarities (float32), each array stored whole in the
    file, so that a word's entry is read where it lies."""

    path: Path
    word_list: str  # storage/compounds.py `list_digest` of the list it was made from
    rows_at: int  # where the rows of rank 1 start in the file
    similarities_at: int
    size: int  # how many ranks

    def entry(self, rank: int) -> tuple[array, array]:
        """The rows and similarities of the word of `rank`."""
        rows, similarities = array("h"), array("f")
        with self.path.open("rb") as file:
            for numbers, at in ((rows, self.rows_at), (similarities, self.similarities_at)):
                width = NEIGHBOURS_PER_WORD * numbers.itemsize
                file.seek(at + (rank - 1) * width)
                numbers.frombytes(file.read(width))
        if sys.byteorder == "big":  # numpy wrote them little-endian
            rows.byteswap()
            similarities.byteswap()
        return rows, similarities


class NeighbourTable(NamedTuple):
    """The shipped table: per vocabulary row, NEIGHBOURS_PER_WORD neighbours' vocabulary
    rows (-1 past the last) and similarities (float32); and the listed words' entries."""

    rows: array
    similarities: array
    listed: ListedNeighbours | None


class Model:
    """The token table and encoder; the tokens of the words seen so far; the
    vocabulary's whole words for `neighbours`. Thread-safe: words are added under a lock.

    Args:
        table: The token vectors (storage/model_files.py `TokenTable`).
        encoder: Words into token ids.
        vocabulary: The vocabulary's whole words (storage/model_files.py `derive`).
        vocabulary_ids: Each vocabulary word's token id.
        fingerprint: `model_files.fingerprint` of this vocabulary and its vectors.
        packed_vocabulary: Loads the vocabulary packed for `compute_neighbours`
            (storage/nearest_words.py), called when it is first needed.
    """

    def __init__(self, table: TokenTable, encoder: Encoder, vocabulary: list[str],
                 vocabulary_ids: Sequence[int], fingerprint: str,
                 packed_vocabulary: Callable[[], PackedVocabulary]) -> None:
        self._table = table
        self._float32_row = struct.Struct(f"<{table.dims}f")
        self._encoder = encoder
        self._lock = threading.Lock()
        # The token ids of the words seen so far (`vectors`).
        self._kept: dict[str, tuple[int, ...]] = {}
        # Their vectors, float32 (exact: a row's float16 numbers and their float32 sums),
        # 1 KB a word, kept once a question has been answered: a command line asks one and
        # would keep them for nothing; a daemon asks many, and making them again from the
        # table's rows costs ~13 ms of CPU a question.
        self._kept_vectors: dict[str, Vector | None] = {}
        self._keeps_vectors = False
        self._vocabulary = vocabulary
        self._vocabulary_ids = vocabulary_ids
        self._load_packed = packed_vocabulary
        self._packed_vocabulary: PackedVocabulary | None = None
        self._fingerprint = fingerprint
        self._neighbour_cache: dict[str, tuple[tuple[str, float], ...]] = {}
        self._shipped = _read_neighbour_table(fingerprint)
        self._listed_ranks: compounds.Ranks | None | bool = False  # False: not looked at

    @property
    def vocabulary(self) -> list[str]:
        """The whole words of the model's vocabulary, the candidates for `neighbours`."""
        return self._vocabulary

    @property
    def vocabulary_ids(self) -> Sequence[int]:
        """Each vocabulary word's token id."""
        return self._vocabulary_ids

    @property
    def table(self) -> TokenTable:
        """The model's token vectors."""
        return self._table

    def fingerprint(self) -> str:
        """What the neighbours depend on: the vocabulary, its vectors and the thresholds."""
        return self._fingerprint

    def vectors(self, words: Sequence[str]) -> list[Vector | None]:
        """The vectors of `words` (lowercase), one each: the sum of a word's tokens'
        vectors; None for a word the tokenizer makes nothing of. Once this model has
        answered a question (`soft_match`), the vectors made are kept for the next ones."""
        if not self._keeps_vectors:
            return [self._vector(tokens) for tokens in self._tokens(words)]
        with self._lock:
            kept = [self._kept_vectors.get(word, _NOT_KEPT) for word in words]
        missing = [word for word, vector in zip(words, kept) if vector is _NOT_KEPT]
        made = dict(zip(missing, map(self._vector, self._tokens(missing))))
        if made and len(made) <= WORD_CACHE_WORDS:  # (more: kept none, as `_tokens`)
            with self._lock:
                if len(self._kept_vectors) + len(made) > WORD_CACHE_WORDS:
                    self._kept_vectors.clear()
                self._kept_vectors.update(
                    (word, vector and Vector(array("f", vector.numbers), vector.length))
                    for word, vector in made.items())
        return [made[word] if vector is _NOT_KEPT
                else vector and Vector(tuple(vector.numbers), vector.length)
                for word, vector in zip(words, kept)]

    def _tokens(self, words: Sequence[str]) -> list[tuple[int, ...]]:
        """The token ids of `words`; those of words not met before are kept for the next
        question (encoding costs more than reading a few rows)."""
        with self._lock:
            found = [self._kept.get(word) for word in words]
        encoded = {word: tuple(self._encoder.encode(word))
                   for word, tokens in zip(words, found) if tokens is None}
        if not encoded:
            return found  # type: ignore[return-value]
        if len(encoded) <= WORD_CACHE_WORDS:  # (more: kept none, the cache left as it is)
            with self._lock:
                if len(self._kept) + len(encoded) > WORD_CACHE_WORDS:
                    self._kept.clear()
                self._kept.update(encoded)
        return [encoded[word] if tokens is None else tokens for word, tokens in zip(words, found)]

    def _vector(self, tokens: tuple[int, ...]) -> Vector | None:
        """The vector of a word's tokens."""
        if not tokens:
            return None
        row = self._table.row
        summed = row(tokens[0])
        for token in tokens[1:]:
            # Each sum rounded to float32 (packed as float32, read back as Python floats).
            summed = self._float32_row.unpack(self._float32_row.pack(*map(add, summed,
                                                                          row(token))))
        length = math.hypot(*summed)
        return Vector(summed, length) if length else None

    def word_vector(self, word: str) -> Vector | None:
        """The vector of one lowercase word; None for a stop word or a word the tokenizer
        makes nothing of."""
        if word in STOP_WORDS:
            return None
        return self.vectors([word])[0]

    def soft_match(self, question: Sequence[str], rarity: Sequence[float],
                   candidates: Sequence[tuple[str, ...]]) -> SoftMatches:
        """How well each candidate's words (`words.meaningful_words`) cover the question's, by
        meaning: for every question word, the cosine of the closest candidate word (below
        MATCH_MIN_COSINE it counts 0), averaged with the question words' `rarity` as
        weights; 0..1.

        A mean of each text's word vectors would blur a definition's many words into one
        point; taking each question word's best match keeps `password` → `getpass`
        decisive whatever else the body holds.
        """
        asked = [(word, weight) for word, weight in zip(question, rarity) if word not in STOP_WORDS]
        kept = [(word, weight, vector) for (word, weight), vector
                in zip(asked, self.vectors([word for word, _ in asked])) if vector is not None]
        starts = [0]
        for words in candidates:
            starts.append(starts[-1] + len(words))
        if not kept or not starts[-1]:
            return SoftMatches([0.0] * len(candidates), (), [], [], starts)
        # Rarities as numpy held them (float32), and their sum.
        weights = array("f", [weight for _, weight, _ in kept])
        total = 0.0
        for weight in weights:
            total = float32(total + weight)
        flat = [word for words in candidates for word in words]
        pool = list(dict.fromkeys(flat))
        others = self.vectors(pool)
        present = [other for other in others if other is not None]
        similarity = []  # question word → its cosine with each of `flat`
        for _, _, vector in kept:
            near = iter(cosines(vector, present))
            by_word = dict(zip(pool, [next(near) if other is not None else 0.0
                                      for other in others]))
            similarity.append([cosine if cosine >= _MATCH_MIN else 0.0
                               for cosine in map(by_word.__getitem__, flat)])
        scores = []
        for start, end in zip(starts, starts[1:]):
            if start == end:
                scores.append(0.0)
                continue
            matched = 0.0
            for weight, row in zip(weights, similarity):
                matched = float32(matched + weight * max(row[start:end]))
            scores.append(float32(matched / total))
        self._keeps_vectors = True
        return SoftMatches(scores, tuple(word for word, _, _ in kept), flat, similarity, starts)

    def neighbours(self, words: Sequence[str]) -> dict[str, tuple[tuple[str, float], ...]]:
        """For each of `words`, the vocabulary words within NEIGHBOUR_MIN_COSINE of it,
        closest first (the word itself excluded): from the shipped table for a vocabulary
        word, else computed (words not seen before together: one product with the
        vocabulary for all of them costs about what one word's would) and kept."""
        found: dict[str, tuple[tuple[str, float], ...] | None] = {}
        with self._lock:
            for word in dict.fromkeys(words):
                found[word] = self._neighbour_cache.get(word)
        shipped = self._shipped
        for word, near in found.items():
            if near is not None or shipped is None:
                continue
            row = self._vocabulary_row(word)
            if row is not None:
                at = slice(row * NEIGHBOURS_PER_WORD, (row + 1) * NEIGHBOURS_PER_WORD)
                found[word] = self._named(shipped.rows[at], shipped.similarities[at])
                continue
            rank = self._listed_rank(word)
            if rank is not None and shipped.listed is not None:
                found[word] = self._named(*shipped.listed.entry(rank))
        unseen = [word for word, near in found.items() if near is None]
        if not unseen:
            return found  # type: ignore[return-value]
        computed = self.compute_neighbours(unseen)
        with self._lock:
            if len(self._neighbour_cache) > NEIGHBOUR_CACHE_WORDS:
                self._neighbour_cache.clear()
            self._neighbour_cache.update(computed)
        return {word: near if near is not None else computed[word] for word, near in found.items()}

    def _named(self, rows: Sequence[int], similarities: Sequence[float]
               ) -> tuple[tuple[str, float], ...]:
        """A table entry as `neighbours` gives it."""
        return tuple((self._vocabulary[r], s) for r, s in zip(rows, similarities) if r >= 0)

    def _listed_rank(self, word: str) -> int | None:
        """The rank of `word` in wordninja's list when the shipped table holds the list's
        words (made from this very list), else None."""
        if self._listed_ranks is False:
            listed = self._shipped.listed if self._shipped is not None else None
            try:
                ranks = compounds.load_word_list() if listed is not None else None
            except OSError:  # wordninja missing: its words' neighbours are computed
                ranks = None
            self._listed_ranks = (ranks if ranks is not None and listed is not None
                                  and ranks.digest == listed.word_list else None)
        ranks = self._listed_ranks
        if not isinstance(ranks, compounds.Ranks):
            return None
        rank = ranks.get(word)
        return rank if rank is not None and rank <= self._shipped.listed.size else None

    def _vocabulary_row(self, word: str) -> int | None:
        """Where `word` stands in the vocabulary, None when it is not a vocabulary word. (A
        scan: a question looks up a few words, and a dict of the vocabulary costs more.)"""
        try:
            return self._vocabulary.index(word)
        except ValueError:
            return None

    def compute_neighbours(self, words: Sequence[str]) -> dict[str, tuple[tuple[str, float], ...]]:
        """`neighbours` of `words` from their vectors and the vocabulary's (no table): the
        exact cosines of the candidates the packed vocabulary gives (storage/nearest_words.py),
        each word's row read from the model's table, as float32 numbers (numpy's product
        of unit vectors did the same, to float32 rounding)."""
        found: dict[str, tuple[tuple[str, float], ...]] = {}
        for word, vector in zip(words, self.vectors(words)):
            if word in STOP_WORDS or vector is None:
                found[word] = ()
                continue
            unit = [number / vector.length for number in vector.numbers]
            rows = self._packed().candidates(unit, NEIGHBOUR_MIN_COSINE)
            near = cosines(vector, [self._vocabulary_vector(row) for row in rows])
            closest = sorted((-similarity, row) for row, similarity in zip(rows, near)
                             if similarity >= NEIGHBOUR_MIN_COSINE)
            found[word] = tuple((self._vocabulary[row], -negated) for negated, row in closest
                                if self._vocabulary[row] != word)[:NEIGHBOURS_PER_WORD]
        return found

    def _packed(self) -> PackedVocabulary:
        """The packed vocabulary, loaded when a word outside the shipped table first needs
        it (most questions never do)."""
        with self._lock:
            if self._packed_vocabulary is None:
                self._packed_vocabulary = self._load_packed()
            return self._packed_vocabulary

    def _vocabulary_vector(self, row: int) -> Vector:
        """The vector of the vocabulary's word at `row` (one token: its row of the table)."""
        numbers = self._table.row(self._vocabulary_ids[row])
        return Vector(numbers, math.hypot(*numbers))


def neighbour_table_path() -> Traversable:
    """Where the shipped neighbour table lives: beside this module."""
    return resources.files(__package__) / NEIGHBOUR_TABLE


def _read_neighbour_table(fingerprint: str) -> NeighbourTable | None:
    """The shipped table, or None when it is missing or made for another model (a
    wordllama release with other vectors): then every word's neighbours are computed."""
    path = Path(str(neighbour_table_path()))
    try:
        with path.open("rb") as file, zipfile.ZipFile(file) as table:
            if _read_npy(table, "fingerprint", "<U64").decode("utf-32-le") != fingerprint:
                return None
            rows = array("i", _read_npy(table, "rows", "<i4"))
            similarities = array("f", _read_npy(table, "similarities", "<f4"))
            listed = _listed_neighbours(path, file, table)
    except (OSError, KeyError, ValueError, SyntaxError, zipfile.BadZipFile):
        return None
    if sys.byteorder == "big":  # numpy wrote them little-endian
        rows.byteswap()
        similarities.byteswap()
    if len(rows) != len(similarities) or rows.itemsize != 4:
        return None
    return NeighbourTable(rows, similarities, listed)


def _listed_neighbours(path: Path, file: BinaryIO, table: zipfile.ZipFile
                       ) -> ListedNeighbours | None:
    """Where the listed words' entries lie in the table's file (None: a table without
    them, or with them compressed)."""
    if "word_list.npy" not in table.namelist():
        return None
    word_list = _read_npy(table, "word_list", "<U64").decode("utf-32-le")
    rows_at, rows_shape = _npy_in_place(file, table, "ranked_rows", "<i2")
    similarities_at, shape = _npy_in_place(file, table, "ranked_similarities", "<f4")
    if rows_shape != shape or len(shape) != 2 or shape[1] != NEIGHBOURS_PER_WORD:
        return None
    return ListedNeighbours(path, word_list, rows_at, similarities_at, shape[0])


def _npy_header(data: bytes, name: str, dtype: str) -> tuple[int, tuple[int, ...]]:
    """Where an .npy file's data starts (numpy's format 1.0–3.0) and its shape, after
    checking that its element type is `dtype`.

    Raises:
        ValueError: It is not an .npy file of that type, in C order.
        SyntaxError: Its header does not parse.
    """
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{name}.npy is not an .npy file")
    size_format = "<H" if data[6] == 1 else "<I"
    (header_size,) = struct.unpack_from(size_format, data, 8)
    start = 8 + struct.calcsize(size_format)
    header = ast.literal_eval(data[start:start + header_size].decode("latin-1"))
    if header.get("descr") != dtype or header.get("fortran_order"):
        raise ValueError(f"{name}.npy holds {header.get('descr')}, not {dtype}")
    return start + header_size, tuple(header["shape"])


def _read_npy(archive: zipfile.ZipFile, name: str, dtype: str) -> bytes:
    """The data of one array of an .npz archive, read without numpy (`_npy_header`).

    Raises:
        KeyError: The archive holds no such array.
        ValueError, SyntaxError: As `_npy_header`.
    """
    data = archive.read(f"{name}.npy")
    start, _ = _npy_header(data, name, dtype)
    return data[start:]


def _npy_in_place(file: BinaryIO, archive: zipfile.ZipFile, name: str, dtype: str
                  ) -> tuple[int, tuple[int, ...]]:
    """Where one stored (uncompressed) array of an .npz archive starts in its file, and
    its shape, read without its data.

    Raises:
        KeyError: The archive holds no such array.
        ValueError: It is compressed, or as `_npy_header`.
    """
    info = archive.getinfo(f"{name}.npy")
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"{name}.npy is compressed")
    file.seek(info.header_offset)
    local = file.read(30)  # a zip local file header, then the member's name and extra field
    if local[:4] != b"PK\x03\x04":
        raise ValueError(f"{name}.npy has no local header")
    name_size, extra_size = struct.unpack_from("<HH", local, 26)
    member = info.header_offset + 30 + name_size + extra_size
    file.seek(member)
    start, shape = _npy_header(file.read(4096), name, dtype)
    return member + start, shape


_loaded: Model | None = None
_load_lock = threading.Lock()


def load_model() -> Model:
    """The model, loaded once per process from the wordllama package's own files (and
    what symfind's cache keeps of them: storage/model_files.py).

    Raises:
        ModelUnavailable: The package or its files are missing (a broken install).
    """
    global _loaded
    with _load_lock:
        if _loaded is None:
            _loaded = _load()
        return _loaded


def _load() -> Model:
    cache = cache_dir()
    return model_of(model_files.load(cache, f"{NEIGHBOURS_PER_WORD} {NEIGHBOUR_MIN_COSINE}\n"),
                    cache)


def model_of(files: model_files.ModelFiles, cache: Path) -> Model:
    """The model made of its loaded files; its packed vocabulary kept in `cache` (symfind's
    cache directory) when it is first needed."""
    derived = files.derived

    def packed_vocabulary() -> PackedVocabulary:
        return nearest_words.load(cache, derived.source, files.table, derived.vocabulary_ids)

    return Model(files.table, files.encoder, derived.vocabulary, derived.vocabulary_ids,
                 derived.fingerprint, packed_vocabulary)
