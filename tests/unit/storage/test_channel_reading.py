"""How a channel reads and cuts its matches, cheaper than the plain way and with the same
result: the tie at the cut broken by `closeness` kept once a search, Tantivy's best read
on from what was read of fewer of them, and the last score kept known without breaking
the tie."""

from __future__ import annotations

import itertools
import random

import pytest

from symfind.extract.records import Symbol, SymbolKind
from symfind.storage.channels import (
    SCORED_CHUNK,
    Candidate,
    ChannelContext,
    _best,
    _in_scope,
    _InScope,
    _last_kept,
    _read_while_open,
    closeness,
    new_candidate,
)
from symfind.storage.router import Plan, route


def _context(plan: Plan, candidates: dict[object, Candidate] | None = None) -> ChannelContext:
    """A context with no index: `fetch` gives the candidate of each hit's address."""
    known = candidates or {}
    return ChannelContext(None, None, plan, [],  # type: ignore[arg-type]
                          lambda hits: [known[address] for _, address in hits], {}, None,  # type: ignore[arg-type]
                          {}, {}, {})


def _symbol(name: str = "closeStream", **fields: object) -> Symbol:
    values: dict[object, object] = dict(
        name=name, qualname=f"t.{name}", kind=SymbolKind.FUNCTION, language="go",
        path="a/t.go", line=10, end_line=12, start_line=10, signature="", doc="", body="")
    values.update(fields)
    return Symbol(**values)  # type: ignore[arg-type]


def _tie() -> list[Symbol]:
    """Symbols that `closeness` to `closeStream` tells apart by each of its parts in turn:
    the name ignoring case, as typed, tests, kind, declaration, then every field of
    `scoring.tie_key`; two of each so that the cut falls between equals too."""
    variants = [
        _symbol("CloseStream"), _symbol("closestream"), _symbol("closeStreams"),
        _symbol(path="a/t_test.go"), _symbol(kind=SymbolKind.STRUCT),
        _symbol(kind=SymbolKind.CONSTANT), _symbol(declaration=True), _symbol(path="a/b.go"),
        _symbol(path="z/t.go"), _symbol(line=3), _symbol(line=30),
        _symbol(qualname="s.closeStream"), _symbol(qualname="u.closeStream"),
        _symbol(kind=SymbolKind.METHOD), _symbol(end_line=11), _symbol(end_line=40),
        _symbol(start_line=9), _symbol(start_line=11), _symbol(signature="func a()"),
        _symbol(signature="func z()"), _symbol(doc="a"), _symbol(doc="z"), _symbol(body="a"),
        _symbol(body="z"), _symbol(),
    ]
    return variants * 2


def test_a_tie_at_the_cut_is_broken_by_closeness_as_an_uncached_sort_breaks_it() -> None:
    plan = route("closeStream")
    symbols = _tie()
    for seed in range(5):
        order = list(range(len(symbols)))
        random.Random(seed).shuffle(order)
        found = [new_candidate((0, document), symbols[document], 1.0) for document in order]
        scores = [1.0] * (len(found) - 3) + [3.0, 2.0, 0.5]  # 2 above the tie, 1 below
        ctx = _context(plan)
        for limit in (1, 2, 7, 20, len(found) - 2):
            above = [c.key for c, score in zip(found, scores) if score > 1.0]
            tied = sorted((c for c, score in zip(found, scores) if score == 1.0),
                          key=lambda c: closeness(plan, c.symbol))
            expected = (above + [c.key for c in tied])[:limit]
            # Twice: the second time, every tied candidate's closeness is the one kept.
            assert [c.key for c in _best(ctx, found, scores, limit)] == expected
            assert [c.key for c in _best(ctx, found, scores, limit)] == expected


@pytest.mark.parametrize("query", ["closeStream", "t.closeStream"])
def test_tantivys_best_read_on_from_fewer_of_them_are_read_as_afresh(query: str) -> None:
    # Scores in runs of equal ones, so that some chunks' ends settle the best and others
    # do not; prefixes ending on a chunk's end and within one. Qualified: a third of the
    # candidates in scope (`t`), the rest not.
    plan = route(query)
    rng = random.Random(7)
    for run in (1, 40, 70, 130):
        scores = sorted((float(rng.randrange(0, 300 // run + 2)) for _ in range(300)),
                        reverse=True)
        candidates = {document: new_candidate(
            (0, document), _symbol(line=document, qualname=f"{'tuv'[document % 3]}.closeStream"),
            score) for document, score in enumerate(scores)}
        hits = [(score, document) for document, score in enumerate(scores)]

        def score(found: list[Candidate]) -> list[float]:
            return [c.score for c in found]

        sizes = (100, SCORED_CHUNK * 2, 200, SCORED_CHUNK * 4, 300)
        for fewer, more in itertools.combinations(sizes, 2):
            for limit, ceiling in ((50, 1.0), (5, 1.0), (50, None)):
                afresh = _read_while_open(_context(plan, candidates), hits[:more], score,
                                          limit, ceiling)
                ctx = _context(plan, candidates)
                before = _read_while_open(ctx, hits[:fewer], score, limit, ceiling)
                resumed = _read_while_open(ctx, hits[:more], score, limit, ceiling, before)
                assert ([c.key for c in resumed.found], resumed.scores, resumed.best,
                        resumed.settled) == ([c.key for c in afresh.found], afresh.scores,
                                             afresh.best, afresh.settled), (run, fewer, more)


def test_the_last_score_kept_is_the_last_of_the_best_without_breaking_the_tie() -> None:
    # Ties at the cut whose scores are the same, and ties whose scores round alike but
    # differ (the last kept then depends on the tie-break), in and out of scope.
    symbols = _tie()
    rng = random.Random(3)
    for text in ("closeStream", "t.closeStream", "u.closeStream"):
        plan = route(text)
        for _ in range(30):
            levels = [1.0, 2.0, 3.0, 2.0 + 1e-12]
            scores = [rng.choice(levels) for _ in symbols]
            found = [new_candidate((0, document), symbol, score)
                     for document, (symbol, score) in enumerate(zip(symbols, scores))]
            for limit in (1, 5, 20, len(found), len(found) + 1):
                best = _best(_context(plan), found, scores, limit)
                expected = best[-1].score if len(best) == limit else None
                assert _last_kept(_context(plan), found, scores, limit) == expected


def test_what_is_in_scope_is_counted_once_each_as_a_full_count_counts_it() -> None:
    # A qualified query's reading asks after each chunk how many read are in scope above
    # a bound that falls as it reads: counted on from the last count, the same number.
    plan = route("t.closeStream")
    rng = random.Random(5)
    found = [new_candidate((0, document), _symbol(
        line=document, qualname=f"{rng.choice('tuv')}.closeStream"), 0.0)
        for document in range(500)]
    scores = [float(rng.randrange(0, 40)) for _ in found]
    ctx = _context(plan)
    counted = _InScope()
    # Bounds equal to some scores (which count only above them) and between scores.
    for end, floor in zip(range(0, 501, 37), (n / 2 for n in range(80, 0, -6))):
        assert counted.above(ctx, found[:end], scores[:end], floor) == sum(
            score > floor and _in_scope(ctx, c) for c, score in zip(found[:end], scores[:end]))
