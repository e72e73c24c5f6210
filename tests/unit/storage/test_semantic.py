"""The embedding model behind the vector channel: loaded from the installed package,
its neighbours and soft matches as the channel uses them."""

from __future__ import annotations

import random
import string
import subprocess
import sys
import textwrap
from collections.abc import Sequence

import numpy as np
import pytest

from symfind.storage import semantic
from symfind.storage.compounds import list_digest, read_word_list
from symfind.storage.neighbour_table import computed_neighbours, vocabulary_units
from symfind.storage.semantic import Model, Vector, load_model, neighbour_table_path
from symfind.storage.words import meaningful_words, question_words


def unit(vector: Vector) -> np.ndarray:
    """A word's unit vector as numpy made it before: float32 over its float32 length."""
    summed = np.asarray(vector.numbers, dtype=np.float32)
    return summed / np.linalg.norm(summed)


def numpys_soft_match(model: Model, question: Sequence[str], rarity: Sequence[float],
                      candidates: Sequence[tuple[str, ...]]) -> list[float]:
    """`soft_match`'s scores as the numpy code it replaced computed them (float32 unit
    vectors, one matrix product, the same threshold and weights)."""
    kept = [(w, r) for w, r in zip(question, rarity) if model.word_vector(w) is not None]
    sizes = np.array([len(words) for words in candidates])
    if not kept or not sizes.sum():
        return [0.0] * len(candidates)
    asked = np.stack([unit(model.word_vector(w)) for w, _ in kept])
    weights = np.array([r for _, r in kept], dtype=np.float32)
    flat = [word for words in candidates for word in words]
    pool = np.stack([unit(v) if v is not None else np.zeros(semantic.MODEL_DIM, np.float32)
                     for v in model.vectors(flat)])
    similarity = asked @ pool.T
    similarity[similarity < semantic.MATCH_MIN_COSINE] = 0.0
    starts = np.concatenate(([0], np.cumsum(sizes[sizes > 0])[:-1]))
    best = np.maximum.reduceat(similarity, starts, axis=1)
    scores = np.zeros(len(candidates), dtype=np.float32)
    scores[sizes > 0] = weights @ best / weights.sum()
    return scores.tolist()


def test_question_words_keep_what_carries_meaning() -> None:
    assert question_words("Where do we retry a failed upload?") == ("retry", "failed", "upload")
    assert question_words("what is the HTTPServerError for") == ("http", "server", "error")


def test_neighbours_are_close_vocabulary_words_closest_first() -> None:
    model = load_model()
    near = model.neighbours(["delete", "mandatory", "qqqzzzxxj", "delete"])
    assert list(near) == ["delete", "mandatory", "qqqzzzxxj"]
    assert [word for word, _ in near["delete"]] == ["deleting", "delet", "remove", "removing"]
    assert [word for word, _ in near["mandatory"]] == ["mand", "required"]
    similarities = [similarity for _, similarity in near["delete"]]
    assert similarities == sorted(similarities, reverse=True)
    assert near["qqqzzzxxj"] == ()
    # Asked again, alone, from what was kept: the same answer.
    assert model.neighbours(["mandatory"]) == {"mandatory": near["mandatory"]}


def test_the_shipped_neighbour_table_is_the_models_own() -> None:
    """The table shipped beside storage/semantic.py was made from the model and word list
    installed (else: `python -m symfind.storage.neighbour_table`), and says what computing
    says, for vocabulary words and for the list's other words."""
    model = semantic._load()  # its own: no neighbours computed and kept by other tests
    with neighbour_table_path().open("rb") as file, np.load(file) as table:
        assert str(table["fingerprint"]) == model.fingerprint()
        assert str(table["word_list"]) == list_digest(read_word_list())
        # What a question reads without numpy is what numpy wrote.
        shipped_table = semantic._read_neighbour_table(model.fingerprint())
        assert shipped_table is not None and shipped_table.listed is not None
        assert list(shipped_table.rows) == table["rows"].ravel().tolist()
        assert list(shipped_table.similarities) == table["similarities"].ravel().tolist()
        ranked_rows, ranked_similarities = table["ranked_rows"], table["ranked_similarities"]
        assert shipped_table.listed.size == len(ranked_rows) == len(read_word_list())
        for rank in (1, 2, 777, 5000, len(ranked_rows)):
            rows, similarities = shipped_table.listed.entry(rank)
            assert list(rows) == ranked_rows[rank - 1].tolist()
            assert list(similarities) == ranked_similarities[rank - 1].tolist()
    rng = random.Random(7)
    vocabulary = set(model.vocabulary)
    listed = [word for word in rng.sample(read_word_list(), 3000) if word not in vocabulary]
    words = [*rng.sample(model.vocabulary, 300), *listed[:300], "delete", "raises", "decoded"]
    assert {"raises", "decoded"}.isdisjoint(vocabulary)
    shipped = model.neighbours(words)
    assert not model._neighbour_cache  # every one read from the table, none computed
    computed = model.compute_neighbours(words)
    assert [[w for w, _ in shipped[word]] for word in words] == [
        [w for w, _ in computed[word]] for word in words]
    assert [s for word in words for _, s in shipped[word]] == pytest.approx(
        [s for word in words for _, s in computed[word]], abs=1e-6)
    assert sum(map(len, shipped.values())) > 400  # most words have neighbours


def test_soft_match_scores_each_question_words_best_match_weighted_by_rarity() -> None:
    model = load_model()
    candidates = [meaningful_words(words) for words in
                  (["remove", "the", "bucket", "remove"], ["bucket"], ["nothing", "here"], [])]
    assert candidates == [("remove", "bucket"), ("bucket",), ("nothing",), ()]  # `the`, `here`: stop words
    matches = model.soft_match(["delete", "bucket"], [2.0, 1.0], candidates)
    remove = float(unit(model.word_vector("delete")) @ unit(model.word_vector("remove")))
    assert matches.scores == pytest.approx([(2.0 * remove + 1.0) / 3.0, 1.0 / 3.0, 0.0, 0.0],
                                           rel=1e-5)
    assert [matches.pairs(i) for i in range(4)] == [
        ("delete→remove", "bucket"), ("bucket",), (), ()]


def test_soft_match_scores_are_numpys_to_float32_rounding() -> None:
    """The pure-Python arithmetic gives the scores the numpy code gave, to float32
    rounding, and so the same order: real questions' words against candidates made of
    vocabulary words, other words and words the tokenizer splits."""
    model = semantic._load()
    rng = random.Random(3)
    related = ["redirect", "follow", "following", "retries", "retrying", "failure", "uploads",
               "proxies", "select", "choose", "urls", "colour", "colors", "terminal", "true"]
    words = [*rng.sample(model.vocabulary, 200), *related, "getbaseline", "redirects",
             "kwargs", "", "utf8", "привет", "x" * 40]
    matched = 0
    for question in (("where", "are", "redirects", "followed"), ("retry", "failed", "upload"),
                     ("proxy", "chosen", "url"), ("colorterm", "truecolor", "the")):
        candidates = [tuple(rng.sample(words, rng.randint(0, 30))) for _ in range(80)]
        rarity = [rng.uniform(0.5, 9.0) for _ in question]
        mine = model.soft_match(question, rarity, candidates).scores
        theirs = numpys_soft_match(model, question, rarity, candidates)
        assert mine == pytest.approx(theirs, rel=1e-6, abs=1e-7)
        order = sorted(range(len(mine)), key=lambda i: (-round(mine[i], 6), i))
        assert order == sorted(range(len(theirs)), key=lambda i: (-round(theirs[i], 6), i))
        matched += sum(score > 0 for score in mine)
    assert matched > 60  # the check compares matches, not only zeros


def test_a_question_never_needs_numpy() -> None:
    """numpy's import costs about what a whole name search does: a question never imports
    it, whether the shipped neighbour table holds its words (the vocabulary's, wordninja's
    list's) or not (a process of its own)."""
    model = semantic._load()  # derives what this test's cache directory keeps (with numpy: once)
    model.neighbours(["colorterm"])
    probe = textwrap.dedent("""
        import sys
        from symfind.storage.semantic import load_model
        model = load_model()
        near = model.neighbours(["delete", "remove", "proxy", "raises"])
        matches = model.soft_match(["delete", "proxy"], [1.0, 2.0],
                                   [("remove", "getbaseline"), ("proxies",)])
        assert near["delete"] and matches.scores[0] > 0, (near, matches.scores)
        print("numpy" in sys.modules, "threadpoolctl" in sys.modules)
        # A word outside the table: its neighbours found among the packed vocabulary.
        assert model.neighbours(["colorterm"])["colorterm"]
        print("numpy" in sys.modules, "threadpoolctl" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["False", "False", "False", "False"]


def test_computed_neighbours_are_numpys_to_float32_rounding() -> None:
    """Neighbours computed without numpy (the packed vocabulary's candidates, then their
    cosines) are those numpy's product with the whole vocabulary gives, in the same order,
    for words no table holds: real ones from questions, numbers, made-up strings, and
    vocabulary and listed words too."""
    model = semantic._load()
    rng = random.Random(11)
    made_up = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 10)))
               for _ in range(150)]
    words = list(dict.fromkeys([
        "netrc", "argv", "stderr", "yaml", "lexer", "excepthook", "colorterm", "multipart",
        "serialised", "kwargs", "utf8", "42", "1024", "getbaseline", "x" * 40, "the", "",
        *made_up, *rng.sample(model.vocabulary, 100), *rng.sample(read_word_list(), 100)]))
    mine = model.compute_neighbours(words)
    numpys = computed_neighbours(model, words, vocabulary_units(model))
    assert sorted(mine) == sorted(numpys) == sorted(words)
    assert [[w for w, _ in mine[word]] for word in words] == [
        [w for w, _ in numpys[word]] for word in words]
    assert [s for word in words for _, s in mine[word]] == pytest.approx(
        [s for word in words for _, s in numpys[word]], abs=1e-6)
    assert sum(bool(mine[word]) for word in made_up) > 10  # not only empty answers
    assert sum(map(len, mine.values())) > 200


def test_word_vectors_stay_the_same_when_the_bounded_cache_starts_over(
        monkeypatch: pytest.MonkeyPatch) -> None:
    model = semantic._load()  # its own: the process's model holds other tests' words
    words = ["retry", "upload", "", "bucket", "retry"]
    before = [unit(v) if v is not None else None for v in model.vectors(words)]
    monkeypatch.setattr(semantic, "WORD_CACHE_WORDS", 3)
    model.vectors(["header", "cookie"])  # the cache is past 3 words: it starts over
    assert sorted(model._kept) == ["cookie", "header"]
    model.vectors(["parse", "socket", "stream", "buffer"])  # more than it holds: none kept
    assert sorted(model._kept) == ["cookie", "header"]
    after = [unit(v) if v is not None else None for v in model.vectors(words)]
    assert [None if v is None else v.tolist() for v in before] == [
        None if v is None else v.tolist() for v in after]
    # Each word's vector is its own, whatever else is encoded with it (two models loaded
    # afresh: nothing kept from before decides it), kept or just made.
    in_a_batch = semantic._load().vectors(["put", "bidirectional"])[0]
    alone = semantic._load().vectors(["put"])[0]
    assert list(in_a_batch.numbers) == list(alone.numbers)
    kept = model.vectors(["retry"])[0]
    assert list(kept.numbers) == list(semantic._load().vectors(["retry"])[0].numbers)
    assert after[2] is None  # nothing to encode: no vector
    assert [float(np.linalg.norm(after[i])) for i in (0, 1, 3)] == pytest.approx([1.0] * 3,
                                                                                 rel=1e-5)


def test_word_vectors_are_kept_once_a_question_is_answered_and_stay_the_same() -> None:
    """A daemon keeps the vectors it makes (float32), from its second question on; kept or
    made, a word's vector is the same numbers."""
    model = semantic._load()
    words = ["retry", "upload", "", "getbaseline", "redirects"]

    def numbers(vectors: list[Vector | None]) -> list[object]:
        return [None if v is None else (list(v.numbers), v.length) for v in vectors]

    made = model.vectors(words)
    assert not model._kept_vectors  # a command line's one question keeps none
    model.soft_match(["retry"], [1.0], [("upload",)])
    assert numbers(model.vectors(words)) == numbers(made)  # made again, and kept
    assert sorted(model._kept_vectors) == sorted(words)
    assert numbers(model.vectors(words)) == numbers(made)  # read back from what was kept
    assert all(isinstance(v.numbers, tuple) for v in model.vectors(words) if v is not None)
    assert model.soft_match(["retry"], [1.0], [("upload",)]).scores == \
        semantic._load().soft_match(["retry"], [1.0], [("upload",)]).scores
