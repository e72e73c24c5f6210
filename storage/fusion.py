"""Weighted Reciprocal Rank Fusion. Imports: nothing but the standard library.

score(d) = Σ_c w_c / (k + rank_c(d)), ranks start at 1, each id counts once per channel
(its best rank). Ties break by the caller's key (exact name, kind, path, line).
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
