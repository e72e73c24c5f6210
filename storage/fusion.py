"""Weighted Reciprocal Rank Fusion, and the score blend that goes before it for questions.
Imports: nothing but the standard library.

score(d) = Σ_c w_c / (k + rank_c(d)), ranks start at 1, each id counts once per channel
(its best rank). Ties break by the caller's key (`channels.closeness`: the name, the
product's code before its tests, kind, a definition before its declarations, the tree).
`blend` adds channels' scores instead of their ranks (each over its channel's best), for
channels whose scores say how much better one result is than the next.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Generic, TypeVar

RRF_K = 60

K = TypeVar("K", bound=Hashable)


class Fused(Generic[K]):
    """One fused item: its key, total score and rank in each channel that found it."""

    __slots__ = ("key", "ranks", "score")

    def __init__(self, key: K) -> None:
        self.key = key
        self.score = 0.0
        self.ranks: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"Fused({self.key!r}, score={self.score:.5f}, ranks={self.ranks})"


def fuse(
    rankings: Mapping[str, Sequence[K]],
    weights: Mapping[str, float],
    *,
    tiebreak: Callable[[K], tuple[object, ...]],
    k: int = RRF_K,
    top: int | None = None,
) -> list[Fused[K]]:
    """Merge per-channel rankings into one list, best first.

    Args:
        rankings: channel → keys in that channel's order (best first).
        weights: channel → weight; a channel without a weight counts 0.
        tiebreak: Sort key among equal scores (smaller first).
        k: The RRF constant.
        top: Return only the best `top` items (all when None).
    """
    fused: dict[K, Fused[K]] = {}
    for channel, keys in rankings.items():
        weight = weights.get(channel, 0.0)
        for rank, key in enumerate(keys, start=1):
            item = fused.get(key)
            if item is None:
                item = fused[key] = Fused(key)
            if channel in item.ranks:  # an id counts once per channel, at its best rank
                continue
            item.ranks[channel] = rank
            item.score += weight / (k + rank)
    # Rounded so that float summation order never decides a tie.
    def order(item: Fused[K]) -> tuple[object, ...]:
        return (-round(item.score, 12), tiebreak(item.key))

    items = sorted(fused.values(), key=lambda item: -item.score)
    if top is not None and len(items) > top:
        # Only items tied with the last one kept need the (costlier) tie-break key.
        cutoff = round(items[top - 1].score, 12)
        items = [item for item in items if round(item.score, 12) >= cutoff]
    return sorted(items, key=order)[:top]


def contribution(weight: float, rank: int, k: int = RRF_K) -> float:
    """What one channel's rank adds to a fused score."""
    return weight / (k + rank)


def blend(
    scores: Mapping[str, Mapping[K, float]],
    shares: Mapping[str, float],
    *,
    tiebreak: Callable[[K], tuple[object, ...]],
) -> list[tuple[K, float]]:
    """Score fusion: each channel's scores divided by its best, times its share, summed
    per item; (item, blended score) best first.

    Ranks keep only the order; a question's full text and vector channels also say by how
    much one definition beats the next, which their fusion should keep.

    Args:
        scores: channel → item → score (> 0: what the channel found).
        shares: channel → its share of the blend; a channel without one counts 0.
        tiebreak: Sort key among equal blended scores (smaller first).
    """
    total: dict[K, float] = {}
    for channel, found in scores.items():
        best = max(found.values(), default=0.0)
        share = shares.get(channel, 0.0)
        if best <= 0 or not share:
            continue
        for key, score in found.items():
            total[key] = total.get(key, 0.0) + share * score / best
    # Rounded so that float summation order never decides a tie.
    return sorted(total.items(), key=lambda item: (-round(item[1], 12), tiebreak(item[0])))
