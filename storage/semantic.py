"""Meaning, not spelling: a static English embedding for questions asked in words.

Imports: numpy, wordllama (its model files only), `storage` modules.

The model is WordLlama's `l2_supercat` at 256 dimensions: a table of one vector per
token of a Llama tokenizer (32,000 x 256, 16 MB of float16), trained so that the mean of
a text's token vectors places texts of similar meaning close together. It ships inside
the `wordllama` wheel, so it loads offline, in about 0.2 s, and never from the network
(`load_model` names the package's own folder as the cache and forbids downloads).

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

import functools
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from symfind.storage.words import split_text

#: Words that say nothing about what a definition does: English function words, the
#: way questions are asked, and keywords every language repeats.
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers him his how i if in into is
    it its itself just me more most my no nor not now of off on once only or other our
    out over own same she should so some such than that the their them then there these
    they this those through to too under until up very was we were what when where which
    while who whom why will with within without would you your yours using via also
    code function method class where's whats find finds found thing things way ways
    def fn func pub self cls let var const return returns void int str bool none null nil
    true false new public private protected static final async await impl struct""".split()
)
#: Below this cosine a definition's word is no match for a question's word (0.2–0.5 gave
#: the same R@5 on the hand-written questions; 0.3 the best NDCG).
MATCH_MIN_COSINE = 0.3
#: How close a vocabulary word must be to a query word to widen the search with it.
NEIGHBOUR_MIN_COSINE = 0.5
NEIGHBOURS_PER_WORD = 4
MODEL_DIM = 256


class SoftMatch(NamedTuple):
    """One candidate's `Model.soft_match`: its score, and `word` or `word→match` for each
    question word it matched."""

    score: float
    pairs: tuple[str, ...]


class Model:
    """The token table and tokenizer, with the vocabulary's whole words for `neighbours`."""

    def __init__(self, embedding: np.ndarray, tokenizer: object) -> None:
        self._table = embedding.astype(np.float32)
        self._tokenizer = tokenizer
        self._word_vectors: dict[str, np.ndarray | None] = {}
        self._lock = threading.Lock()
        vocabulary = [
            (token[1:].lower(), index)
            for token, index in tokenizer.get_vocab().items()  # type: ignore[attr-defined]
            # `▁` starts a word in this tokenizer; fragments and short words are no synonyms
            if token.startswith("▁") and token[1:].isascii() and token[1:].isalpha()
            and len(token) > 3
        ]
        unique = dict(vocabulary)
        self._vocabulary = list(unique)
        matrix = self._table[list(unique.values())]
        self._vocabulary_matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)

    def word_vector(self, word: str) -> np.ndarray | None:
        """The unit vector of one lowercase word (the mean of its tokens'); None for a word
        the tokenizer makes nothing of."""
        vector = self._word_vectors.get(word)
        if vector is not None or word in self._word_vectors:
            return vector
        ids = self._tokenizer.encode(word, add_special_tokens=False).ids  # type: ignore[attr-defined]
        if ids:
            mean = self._table[ids].mean(axis=0)
            norm = float(np.linalg.norm(mean))
            vector = mean / norm if norm else None
        with self._lock:
            self._word_vectors[word] = vector
        return vector

    def soft_match(self, question: Sequence[str], rarity: Sequence[float],
                   candidates: Sequence[Sequence[str]]) -> list[SoftMatch]:
        """How well each candidate's words cover the question's, by meaning: for every
        question word, the cosine of the closest candidate word (below MATCH_MIN_COSINE it
        counts 0), averaged with the question words' `rarity` as weights (0..1); and which
        question word each candidate matched with which of its words.

        A mean of each text's word vectors would blur a definition's many words into one
        point; taking each question word's best match keeps `password` → `getpass`
        decisive whatever else the body holds.
        """
        asked = [(w, v, r) for w, r in zip(question, rarity)
                 if (v := self.word_vector(w)) is not None]
        if not asked or not candidates:
            return [SoftMatch(0.0, ()) for _ in candidates]
        index: dict[str, int] = {}
        rows: list[list[int]] = []
        for words in candidates:
            rows.append([index.setdefault(w, len(index)) for w in dict.fromkeys(words)
                         if w not in STOP_WORDS])
        vectors = np.zeros((len(index) + 1, self._table.shape[1]), dtype=np.float32)
        for word, row in index.items():
            vector = self.word_vector(word)
            if vector is not None:
                vectors[row] = vector
        questions = np.stack([v for _, v, _ in asked])
        weights = np.array([r for _, _, r in asked], dtype=np.float32)
        similarity = questions @ vectors.T  # question words x candidates' words
        similarity[similarity < MATCH_MIN_COSINE] = 0.0
        total = float(weights.sum()) or 1.0
        words = list(index)
        matches = []
        for row in rows:
            if not row:
                matches.append(SoftMatch(0.0, ()))
                continue
            mine = similarity[:, row]
            best = mine.argmax(axis=1)
            pairs = tuple(
                asked_word if (match := words[row[column]]) == asked_word
                else f"{asked_word}→{match}"
                for (asked_word, _, _), column, value in zip(asked, best, mine.max(axis=1))
                if value > 0
            )
            matches.append(SoftMatch(float(weights @ mine.max(axis=1)) / total, pairs))
        return matches

    def neighbours(self, word: str) -> list[tuple[str, float]]:
        """Vocabulary words within NEIGHBOUR_MIN_COSINE of `word`, closest first (the word
        itself and its spellings in other cases excluded)."""
        vector = self.word_vector(word)
        if vector is None:
            return []
        similarities = self._vocabulary_matrix @ vector
        best = np.argpartition(-similarities, NEIGHBOURS_PER_WORD + 1)[: NEIGHBOURS_PER_WORD + 1]
        found = sorted(((self._vocabulary[i], float(similarities[i])) for i in best),
                       key=lambda pair: -pair[1])
        return [(w, s) for w, s in found if w != word and s >= NEIGHBOUR_MIN_COSINE][
            :NEIGHBOURS_PER_WORD]


_loaded: Model | None = None
_load_lock = threading.Lock()


def load_model() -> Model:
    """The model, loaded once per process from the wordllama package's own files.

    Raises:
        ModelUnavailable: The package or its files are missing (a broken install).
    """
    global _loaded
    with _load_lock:
        if _loaded is None:
            _loaded = _load()
        return _loaded


class ModelUnavailable(RuntimeError):
    """The embedding model could not be loaded (the install is incomplete)."""


def _load() -> Model:
    try:
        import wordllama  # imported here: only questions in words need it
        from wordllama import WordLlama
    except ImportError as exc:
        raise ModelUnavailable(f"the wordllama package did not import: {exc}") from exc
    # The package's own folder as the "cache": its tokenizer sits in `tokenizers/`, which
    # is where WordLlama looks in a cache (in its own folder it looks in `tokenizer/` and
    # would download), and downloads are off, so a missing file fails here, offline.
    package = Path(wordllama.__file__).parent
    try:
        model = WordLlama.load(config="l2_supercat", dim=MODEL_DIM, cache_dir=package,
                               disable_download=True)
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"the wordllama model did not load: {exc}") from exc
    return Model(model.embedding, model.tokenizer)


@functools.lru_cache(maxsize=4096)
def question_words(text: str) -> tuple[str, ...]:
    """The words of a question that can carry meaning (split, lowercased, stop words out)."""
    return tuple(w for w in dict.fromkeys(split_text(text)) if w not in STOP_WORDS and len(w) > 1)
