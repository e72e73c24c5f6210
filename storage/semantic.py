"""Meaning, not spelling: a static English embedding for questions asked in words.

Imports: numpy, threadpoolctl, `storage` modules.

The model is WordLlama's `l2_supercat` at 256 dimensions: a table of one vector per
token of a Llama tokenizer (32,000 x 256, 16 MB of float16), trained so that the mean of
a text's token vectors places texts of similar meaning close together. It ships inside
the `wordllama` wheel, so it loads offline and never from the network; its files are read
by storage/model_files.py (the vectors memory-mapped, the rest derived once and kept in
symfind's cache) and its words encoded by storage/bpe.py, so that a question from the
command line costs about what a name costs (the wordllama package is never imported).

Two uses, both at query time, so that nothing is added to indexing and no vector can be
out of step with the index (they are computed from what the index stores):

- `neighbours`: words of the model's vocabulary close to a query word (`mandatory` →
  `required`, `delete` → `remove`, `colour` → `color`), to widen the candidates a
  question's BM25 finds;
- `Model.soft_match`: how well a definition's words cover a question's by meaning (each
  question word's closest word, by cosine of word vectors, each word's vector the mean of
  its tokens', cached), ranking candidates.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import resources
from importlib.resources.abc import Traversable

import numpy as np
from threadpoolctl import threadpool_limits

from symfind.storage import model_files
from symfind.storage.bpe import Encoder
from symfind.storage.location import cache_dir
from symfind.storage.words import STOP_WORDS

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
#: a question nothing, where a product with the vocabulary costs several milliseconds per
#: word. Used only while its fingerprint matches the model loaded.
NEIGHBOUR_TABLE = "neighbours.npz"
#: Word vectors kept between questions (1 KB each; the cache starts over past it): a
#: long-lived server meets new words with every edit, and a kernel's bodies hold millions.
WORD_CACHE_WORDS = 32768
MODEL_DIM = 256


class SoftMatches:
    """`Model.soft_match`'s answer: each candidate's score, and which question words it
    matched with which of its words (`pairs`)."""

    def __init__(self, scores: list[float], asked: tuple[str, ...], words: list[str],
                 similarity: np.ndarray, sizes: np.ndarray) -> None:
        self.scores = scores
        self._asked = asked
        self._words = words  # every candidate's words in turn
        self._similarity = similarity  # question words x `_words`
        self._starts = np.concatenate(([0], np.cumsum(sizes)))

    def pairs(self, candidate: int) -> tuple[str, ...]:
        """`word` (matched as written) or `word→match` for each question word the
        candidate matched."""
        start, end = self._starts[candidate], self._starts[candidate + 1]
        if start == end:
            return ()
        mine = self._similarity[:, start:end]
        pairs = []
        for word, row in zip(self._asked, mine):
            column = int(row.argmax())
            if row[column] > 0:
                match = self._words[start + column]
                pairs.append(word if match == word else f"{word}→{match}")
        return tuple(pairs)


class Model:
    """The token table and encoder; a table of the words seen so far, each with an id and
    its unit vector; the vocabulary's whole words for `neighbours`. Thread-safe: words are
    added under a lock, and readers index arrays that only ever grow by replacement.

    Args:
        table: The token vectors, one row per token id (memory-mapped, any float type).
        encoder: Words into token ids.
        vocabulary: The vocabulary's whole words (storage/model_files.py `derive`).
        vocabulary_ids: Each vocabulary word's token id.
        fingerprint: `model_files.fingerprint` of this vocabulary and its vectors.
    """

    def __init__(self, table: np.ndarray, encoder: Encoder, vocabulary: list[str],
                 vocabulary_ids: Sequence[int], fingerprint: str) -> None:
        self._table = table
        self._encoder = encoder
        self._lock = threading.Lock()
        # The word vectors kept (`vectors`): word → its row of the matrix, which holds
        # each one's unit vector (zeros for a word the tokenizer makes nothing of). One
        # matrix, not an array a word: a question's pool of ~700 words is one gather.
        self._word_rows: dict[str, int] = {}
        self._word_matrix = np.zeros((WORD_CACHE_WORDS, MODEL_DIM), dtype=np.float32)
        self._vocabulary = vocabulary
        self._vocabulary_ids = vocabulary_ids
        # The vocabulary's unit vectors (10 MB), made when a word outside the shipped
        # neighbour table first needs them: most questions never do.
        self._vocabulary_unit: np.ndarray | None = None
        self._fingerprint = fingerprint
        self._neighbour_cache: dict[str, tuple[tuple[str, float], ...]] = {}
        self._vocabulary_rows = {word: row for row, word in enumerate(self._vocabulary)}
        self._shipped = _read_neighbour_table(fingerprint)

    @property
    def vocabulary(self) -> list[str]:
        """The whole words of the model's vocabulary, the candidates for `neighbours`."""
        return self._vocabulary

    def fingerprint(self) -> str:
        """What the neighbours depend on: the vocabulary, its vectors and the thresholds."""
        return self._fingerprint

    def _vocabulary_matrix(self) -> np.ndarray:
        """The vocabulary's unit vectors, one row per word."""
        with self._lock:
            if self._vocabulary_unit is None:
                self._vocabulary_unit = model_files.unit_rows(self._table, self._vocabulary_ids)
            return self._vocabulary_unit

    def vectors(self, words: Sequence[str]) -> np.ndarray:
        """The unit vectors of `words` (lowercase), one row each: the mean of a word's
        tokens' vectors, normalised; zeros for a word the tokenizer makes nothing of.
        Words not met before are encoded together, and kept for the next question."""
        found = np.empty((len(words), MODEL_DIM), dtype=np.float32)
        unseen: dict[str, list[int]] = {}  # word → where it stands in `words`
        with self._lock:  # a gather from one state of the matrix: rows move as it starts over
            places, rows = [], []
            for at, word in enumerate(words):
                row = self._word_rows.get(word)
                if row is None:
                    unseen.setdefault(word, []).append(at)
                else:
                    places.append(at)
                    rows.append(row)
            if rows:
                found[places] = self._word_matrix[rows]
        if unseen:
            encoded = self._encode(list(unseen))
            for vector, places in zip(encoded, unseen.values()):
                found[places] = vector
            self._keep(list(unseen), encoded)
        return found

    def _encode(self, words: list[str]) -> np.ndarray:
        """`vectors` of words not kept, computed (in one batch for the tokenizer)."""
        encodings = [self._encoder.encode(word) for word in words]
        longest = max(map(len, encodings), default=0)
        if longest == 0:
            return np.zeros((len(words), MODEL_DIM), dtype=np.float32)
        # A batch is padded to its longest word (with token 0): the mask says which ids
        # are tokens.
        ids = np.zeros((len(words), longest), dtype=np.int64)
        real = np.zeros((len(words), longest), dtype=np.float32)
        for row, tokens in enumerate(encodings):
            ids[row, :len(tokens)] = tokens
            real[row, :len(tokens)] = 1.0
        vectors = np.asarray(self._table[ids], dtype=np.float32)
        summed = np.einsum("wt,wtd->wd", real, vectors)
        # The mean's direction is the sum's: normalising the sum gives the same unit vector.
        norms = np.linalg.norm(summed, axis=1, keepdims=True)
        return np.divide(summed, norms, out=np.zeros_like(summed), where=norms > 0)

    def _keep(self, words: list[str], encoded: np.ndarray) -> None:
        """Keep newly encoded words' vectors; when the matrix is full, start it over."""
        capacity = min(WORD_CACHE_WORDS, len(self._word_matrix))
        if len(words) > capacity:
            return
        with self._lock:
            words_kept = self._word_rows
            fresh = [(word, vector) for word, vector in zip(words, encoded)
                     if word not in words_kept]
            if len(words_kept) + len(fresh) > capacity:
                words_kept.clear()
            for word, vector in fresh:
                row = len(words_kept)
                self._word_matrix[row] = vector
                words_kept[word] = row

    def word_vector(self, word: str) -> np.ndarray | None:
        """The unit vector of one lowercase word; None for a stop word or a word the
        tokenizer makes nothing of."""
        if word in STOP_WORDS:
            return None
        vector = self.vectors([word])[0]
        return vector if vector.any() else None

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
                in zip(asked, self.vectors([word for word, _ in asked])) if vector.any()]
        sizes = np.array([len(words) for words in candidates], dtype=np.int64)
        if not kept or not sizes.sum():
            return SoftMatches([0.0] * len(candidates), (), [], np.zeros((0, 0)), sizes)
        asked = np.stack([v for _, _, v in kept])
        weights = np.array([r for _, r, _ in kept], dtype=np.float32)
        flat = [word for words in candidates for word in words]
        index: dict[str, int] = {}
        where = np.array([index.setdefault(word, len(index)) for word in flat], dtype=np.int64)
        similarity = asked @ self.vectors(list(index)).T  # question words x the pool's words
        similarity[similarity < MATCH_MIN_COSINE] = 0.0
        per_word = similarity[:, where]  # question words x every candidate's words in turn
        starts = np.concatenate(([0], np.cumsum(sizes[sizes > 0])[:-1]))
        best = np.maximum.reduceat(per_word, starts, axis=1)
        scores = np.zeros(len(candidates), dtype=np.float32)
        scores[sizes > 0] = weights @ best / weights.sum()
        return SoftMatches(scores.tolist(), tuple(w for w, _, _ in kept), flat, per_word, sizes)

    def neighbours(self, words: Sequence[str]) -> dict[str, tuple[tuple[str, float], ...]]:
        """For each of `words`, the vocabulary words within NEIGHBOUR_MIN_COSINE of it,
        closest first (the word itself excluded): from the shipped table for a vocabulary
        word, else computed (words not seen before together: one product with the
        vocabulary for all of them costs about what one word's would) and kept."""
        found: dict[str, tuple[tuple[str, float], ...] | None] = {}
        with self._lock:
            for word in dict.fromkeys(words):
                found[word] = self._neighbour_cache.get(word)
        for word, near in found.items():
            row = self._vocabulary_rows.get(word)
            if near is None and row is not None and self._shipped is not None:
                rows, similarities = self._shipped[0][row], self._shipped[1][row]
                found[word] = tuple((self._vocabulary[r], float(s))
                                    for r, s in zip(rows, similarities) if r >= 0)
        unseen = [word for word, near in found.items() if near is None]
        computed = self.compute_neighbours(unseen)
        with self._lock:
            if len(self._neighbour_cache) > NEIGHBOUR_CACHE_WORDS:
                self._neighbour_cache.clear()
            self._neighbour_cache.update(computed)
        return {word: near if near is not None else computed[word] for word, near in found.items()}

    def compute_neighbours(self, words: Sequence[str]) -> dict[str, tuple[tuple[str, float], ...]]:
        """`neighbours` of `words` from their vectors and the vocabulary's (no table)."""
        found: dict[str, tuple[tuple[str, float], ...]] = {}
        looked_up = []
        for word, vector in zip(words, self.vectors(words)):
            if word in STOP_WORDS or not vector.any():
                found[word] = ()
            else:
                looked_up.append((word, vector))
        if looked_up:
            # The vocabulary's rows times the words' columns: twice as fast as the
            # transposed product with a row-major vocabulary.
            similarities = (self._vocabulary_matrix() @ np.stack([v for _, v in looked_up]).T).T
            best = np.argpartition(-similarities, NEIGHBOURS_PER_WORD + 1, axis=1)[
                :, : NEIGHBOURS_PER_WORD + 1]
            for (word, _), row, columns in zip(looked_up, similarities, best):
                closest = sorted(((self._vocabulary[i], float(row[i])) for i in columns),
                                 key=lambda pair: -pair[1])
                found[word] = tuple((w, s) for w, s in closest
                                    if w != word and s >= NEIGHBOUR_MIN_COSINE)[:NEIGHBOURS_PER_WORD]
        return found


def neighbour_table_path() -> Traversable:
    """Where the shipped neighbour table lives: beside this module."""
    return resources.files(__package__) / NEIGHBOUR_TABLE


def _read_neighbour_table(fingerprint: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The shipped table's rows (vocabulary rows, -1 past the last neighbour) and
    similarities, or None when it is missing or made for another model (a wordllama
    release with other vectors): then every word's neighbours are computed."""
    try:
        with neighbour_table_path().open("rb") as file, np.load(file) as table:
            if str(table["fingerprint"]) != fingerprint:
                return None
            return table["rows"], table["similarities"]
    except (OSError, KeyError, ValueError):
        return None


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
    files = model_files.load(cache_dir(), f"{NEIGHBOURS_PER_WORD} {NEIGHBOUR_MIN_COSINE}\n")
    # A question's products are small (a few words by a pool's thousand words, or by the
    # vocabulary's 10,000): a second BLAS thread spins for as long as the first computes,
    # doubling the CPU a question costs for no shorter wait. numpy is this process's only
    # BLAS user; its other work (name queries, indexing) does not multiply matrices.
    threadpool_limits(limits=1, user_api="blas")
    derived = files.derived
    return Model(files.table, files.encoder, derived.vocabulary, derived.vocabulary_ids,
                 derived.fingerprint)
