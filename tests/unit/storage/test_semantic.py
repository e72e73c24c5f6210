"""The embedding model behind the vector channel: loaded from the installed package,
its neighbours and soft matches as the channel uses them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from symfind.storage import semantic
from symfind.storage.semantic import load_model, neighbour_table_path
from symfind.storage.words import meaningful_words, question_words


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
    """The table shipped beside storage/semantic.py was made from the model installed
    (else: `python -m symfind.storage.neighbour_table`), and says what computing says."""
    model = load_model()
    with neighbour_table_path().open("rb") as file, np.load(file) as table:
        assert str(table["fingerprint"]) == model.fingerprint()
    words = random.Random(7).sample(model.vocabulary, 300) + ["delete", "mandatory"]
    computed = model.compute_neighbours(words)
    shipped = model.neighbours(words)
    assert [[w for w, _ in shipped[word]] for word in words] == [
        [w for w, _ in computed[word]] for word in words]
    assert [s for word in words for _, s in shipped[word]] == pytest.approx(
        [s for word in words for _, s in computed[word]], abs=1e-6)
    assert sum(map(len, shipped.values())) > 300  # most words have neighbours


def test_soft_match_scores_each_question_words_best_match_weighted_by_rarity() -> None:
    model = load_model()
    candidates = [meaningful_words(words) for words in
                  (["remove", "the", "bucket", "remove"], ["bucket"], ["nothing", "here"], [])]
    assert candidates == [("remove", "bucket"), ("bucket",), ("nothing",), ()]  # `the`, `here`: stop words
    matches = model.soft_match(["delete", "bucket"], [2.0, 1.0], candidates)
    remove = float(model.word_vector("delete") @ model.word_vector("remove"))
    assert matches.scores == pytest.approx([(2.0 * remove + 1.0) / 3.0, 1.0 / 3.0, 0.0, 0.0],
                                           rel=1e-5)
    assert [matches.pairs(i) for i in range(4)] == [
        ("delete→remove", "bucket"), ("bucket",), (), ()]


def test_word_vectors_stay_the_same_when_the_bounded_cache_starts_over(
        monkeypatch: pytest.MonkeyPatch) -> None:
    model = semantic._load()  # its own: the process's model holds other tests' words
    words = ["retry", "upload", "", "bucket", "retry"]
    before = model.vectors(words)
    monkeypatch.setattr(semantic, "WORD_CACHE_WORDS", 3)
    model.vectors(["header", "cookie"])  # the cache is past 3 words: it starts over
    assert sorted(model._word_rows) == ["cookie", "header"]
    model.vectors(["parse", "socket", "stream", "buffer"])  # more than it holds: none kept
    assert sorted(model._word_rows) == ["cookie", "header"]
    after = model.vectors(words)
    assert np.array_equal(before, after)
    # Each word's vector is its own, however long the others in its batch (two models
    # loaded afresh: nothing kept from before decides it).
    in_a_batch = semantic._load().vectors(["put", "bidirectional"])[0]
    alone = semantic._load().vectors(["put"])[0]
    assert np.array_equal(in_a_batch, alone)
    assert before.shape == (5, semantic.MODEL_DIM)
    assert not after[2].any()  # nothing to encode: no vector
    assert np.linalg.norm(after[[0, 1, 3]], axis=1) == pytest.approx([1.0, 1.0, 1.0], rel=1e-5)
