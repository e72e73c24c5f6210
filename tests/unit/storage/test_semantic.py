"""The embedding model behind the vector channel: loaded from the installed package,
its neighbours and soft matches as the channel uses them."""

from __future__ import annotations

import pytest

from symfind.storage.semantic import load_model, question_words


def test_question_words_keep_what_carries_meaning() -> None:
    assert question_words("Where do we retry a failed upload?") == ("retry", "failed", "upload")
    assert question_words("what is the HTTPServerError for") == ("http", "server", "error")


def test_neighbours_are_close_vocabulary_words_closest_first() -> None:
    model = load_model()
    assert [word for word, _ in model.neighbours("delete")] == [
        "deleting", "delet", "remove", "removing"]
    assert [word for word, _ in model.neighbours("mandatory")] == ["mand", "required"]
    similarities = [similarity for _, similarity in model.neighbours("delete")]
    assert similarities == sorted(similarities, reverse=True)
    assert model.neighbours("qqqzzzxxj") == []


def test_soft_match_scores_each_question_words_best_match_weighted_by_rarity() -> None:
    model = load_model()
    candidates = [model.word_ids(words) for words in
                  (["remove", "the", "bucket"], ["bucket"], ["nothing", "here"], [])]
    assert [len(ids) for ids in candidates] == [2, 1, 1, 0]  # `the`, `here`: stop words
    matches = model.soft_match(["delete", "bucket"], [2.0, 1.0], candidates)
    remove = float(model.word_vector("delete") @ model.word_vector("remove"))
    assert matches.scores == pytest.approx([(2.0 * remove + 1.0) / 3.0, 1.0 / 3.0, 0.0, 0.0],
                                           rel=1e-5)
    assert [matches.pairs(i) for i in range(4)] == [
        ("delete→remove", "bucket"), ("bucket",), (), ()]
