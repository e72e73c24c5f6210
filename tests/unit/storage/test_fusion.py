"""Weighted RRF: Σ w/(k+rank), ranks from 1, one count per channel, caller tie-breaks; and
the score blend: Σ share × score / the channel's best."""

from __future__ import annotations

import pytest

from symfind.storage.fusion import RRF_K, blend, contribution, fuse


def by_name(key: str) -> tuple[str]:
    return (key,)


def test_scores_are_weighted_reciprocal_ranks() -> None:
    fused = fuse({"a": ["x", "y"], "b": ["y"]}, {"a": 1.0, "b": 2.0}, tiebreak=by_name)
    assert [(f.key, f.ranks) for f in fused] == [("y", {"a": 2, "b": 1}), ("x", {"a": 1})]
    assert fused[0].score == pytest.approx(1 / 62 + 2 / 61)
    assert fused[1].score == pytest.approx(1 / 61)


def test_an_id_counts_once_per_channel_at_its_best_rank() -> None:
    fused = fuse({"a": ["x", "x", "y"]}, {"a": 1.0}, tiebreak=by_name)
    assert [(f.key, f.ranks, round(f.score, 6)) for f in fused] == [
        ("x", {"a": 1}, round(1 / 61, 6)),
        ("y", {"a": 3}, round(1 / 63, 6)),
    ]


def test_equal_scores_break_by_the_callers_key() -> None:
    fused = fuse({"a": ["b"], "c": ["a"]}, {"a": 1.0, "c": 1.0}, tiebreak=by_name)
    assert [f.key for f in fused] == ["a", "b"]


def test_channel_without_weight_contributes_nothing() -> None:
    fused = fuse({"a": ["x"], "unweighted": ["y"]}, {"a": 1.0}, tiebreak=by_name)
    assert [(f.key, f.score) for f in fused] == [("x", pytest.approx(1 / 61)), ("y", 0.0)]


def test_a_strong_second_channel_overturns_a_single_first_place() -> None:
    fused = fuse({"exact": ["p"], "fuzzy": ["q"], "ngram": ["q"]},
                 {"exact": 1.0, "fuzzy": 1.0, "ngram": 1.0}, tiebreak=by_name)
    assert [f.key for f in fused] == ["q", "p"]


def test_contribution_matches_the_formula() -> None:
    assert contribution(3.0, 1) == pytest.approx(3.0 / (RRF_K + 1))
    assert RRF_K == 60


def test_a_blend_adds_each_channels_scores_over_its_best() -> None:
    # By ranks `x` and `y` would tie (each first once); by score, `y`'s clear lead in full
    # text outweighs `x`'s slight one in meaning.
    blended = blend({"text": {"x": 2.0, "y": 8.0, "z": 4.0}, "vector": {"x": 0.50, "y": 0.45}},
                    {"text": 0.55, "vector": 0.45}, tiebreak=by_name)
    assert blended == [
        ("y", pytest.approx(0.55 + 0.45 * 0.9)),
        ("x", pytest.approx(0.55 * 0.25 + 0.45)),
        ("z", pytest.approx(0.55 * 0.5)),
    ]


def test_a_blend_breaks_ties_by_the_callers_key_and_skips_what_has_no_share() -> None:
    blended = blend({"a": {"q": 1.0, "p": 1.0}, "b": {"r": 5.0}, "c": {}},
                    {"a": 1.0, "c": 1.0}, tiebreak=by_name)
    assert blended == [("p", 1.0), ("q", 1.0)]
