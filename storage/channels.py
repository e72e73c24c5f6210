"""The search channels: each turns a Plan into its own ranked candidate list.

Imports: tantivy, rapidfuzz, `extract.records`, `storage` modules.

Every channel returns a real order. Tantivy scores all fuzzy hits alike, so the fuzzy
channel re-ranks by true edit distance (optimal string alignment: a transposition costs
one). For qualified queries every channel orders first by how well the scope segments
match the symbol's qualname and path (`scope_cost`), so `Server.Serve` prefers the
`Serve` of a `Server`, each segment allowed its own typo.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import tantivy
from rapidfuzz.distance import OSA, DamerauLevenshtein, Levenshtein

from symfind.extract.records import Symbol, SymbolKind
from symfind.storage.abbreviations import (
    HEAD_CHARS,
    Alignment,
    align,
    describe,
    head_chunkings,
    hump_initials,
    name_words,
    spells_words,
    style,
)
from symfind.storage.abbreviations import initials as word_initials
from symfind.storage.postings import Matches, Selection, narrowed, score_ceiling, scored
from symfind.storage.priors import is_test_code, is_test_path
from symfind.storage.router import Channel, Plan, Route, max_edits_for
from symfind.storage.schema import NAME_LENGTHS_FIELD, analyzers, scope_terms
from symfind.storage.scoring import BM25, Statistics, tie_key
from symfind.storage.words import (
    fold,
    meaningful_words,
    qualifier_parts,
    question_words,
    split_identifier,
    split_text,
    squash,
    with_compound_parts,
)

Occur = tantivy.Occur
Query = tantivy.Query

EXACT_CANDIDATES = 100
FUZZY_CANDIDATES = 200  # per edit distance
BM25_CANDIDATES = 50
# A BM25 channel keeps its best candidates by the scores of `storage.scoring`, from what
# Tantivy ranks best by its own (which deleted documents sway): this many times as many,
# and more while the last of them might still tie with or beat the ones kept.
RETRIEVAL_FACTOR = 2
RETRIEVAL_MARGIN = 0.1
#: A BM25 channel with at most this many live matches scores them all (above it, the
#: candidates are Tantivy's best, widened while they might tie with the ones kept).
SCORE_ALL_MATCHES = 2048
#: A searcher keeps the records it decoded for the commit it searches, by document key, up
#: to this many (then it starts again): the BM25 channels read every live match up to
#: `SCORE_ALL_MATCHES`, and one name's matches come back query after query.
#: About a kilobyte a record.
RECORDS_KEPT = 20_000
#: In an index of more documents than a searcher keeps records of, the name channels
#: score their matches from Tantivy's postings (`storage.postings`): their records would
#: be read again and again. In a smaller one, kept records score at least as fast.
POSTINGS_SCORED_FROM = RECORDS_KEPT
# At most this many documents are read for one channel's query: beyond it, candidates that
# Tantivy scores alike (exact and fuzzy names, which it scores the same) are those it
# lists first.
MAX_RETRIEVED = 4096
# Past a budget of postings (documents listed under the query's terms, read by a
# disjunction whatever the limit), the ngram, words and text channels let only the rarest
# terms select candidates (see `_rarest`): what bounds their cost in a large repository.
POSTINGS_BUDGET = 8_000
MAX_QUERY_GRAMS = 8
# A name must contain at least this share of the query's grams: substring recall, not noise.
NGRAM_MIN_SHARE = 0.5
# Candidates for fuzzy matching beyond Tantivy's automata need only this share of grams.
FUZZY_POOL_MIN_SHARE = 0.3
# Cost of a scope segment that matches no part of the symbol's qualname or path.
MISSING_SCOPE_COST = 9  # thirds (see scope_cost): more than any allowed match

#: Definition kinds in tie-break order: types first, then callables, then the rest.
KIND_ORDER: dict[SymbolKind, int] = {
    kind: order
    for order, kind in enumerate(
        (
            SymbolKind.CLASS,
            SymbolKind.STRUCT,
            SymbolKind.INTERFACE,
            SymbolKind.TRAIT,
            SymbolKind.ENUM,
            SymbolKind.TYPE,
            SymbolKind.FUNCTION,
            SymbolKind.METHOD,
            SymbolKind.MACRO,
            SymbolKind.MODULE,
            SymbolKind.CONSTANT,
        )
    )
}


class Candidate(NamedTuple):
    """One symbol a channel found: document key, BM25 score, edit distance if fuzzy."""

    key: tuple[int, int]
    symbol: Symbol
    score: float = 0.0
    distance: int | None = None
    matched: tuple[str, ...] = ()  # vector channel: see `ChannelMatch.matched`


_make_tuple = tuple.__new__


def new_candidate(key: tuple[int, int], symbol: Symbol, score: float = 0.0) -> Candidate:
    """`Candidate(key, symbol, score)`, without the NamedTuple's own `__new__` (Python code,
    0.8 µs a call): a channel makes one for every live match it reads, hundreds a query."""
    return _make_tuple(Candidate, (key, symbol, score, None, ()))


Fetch = Callable[[list[tuple[float, tantivy.DocAddress]]], list[Candidate]]
#: Candidates' scores from the tree alone, in order (`scoring.BM25`): each candidate is its
#: (document key, record) pair.
Score = Callable[[list[Candidate]], list[float]]


class ChannelContext(NamedTuple):
    """What every channel needs to run one plan."""

    searcher: tantivy.Searcher
    schema: tantivy.Schema
    plan: Plan
    filters: list[Query]
    fetch: Fetch
    #: `scope_cost` of the documents seen so far in this search, by document key: the
    #: channels rank many of the same candidates.
    scope_costs: dict[tuple[int, int], int]
    #: The live documents' statistics of the commit searched (`storage.scoring`).
    stats: Statistics
    #: The BM25 scorers made in this search, by field and terms (`_scorer`).
    scorers: dict[tuple[str, tuple[str, ...]], BM25]
    #: `closeness` of the documents ranked so far in this search, by document key
    #: (`_closeness`): a tie at a channel's cut is broken among thousands of matches, read
    #: again as a channel widens its reading, and the channels rank many of the same.
    closeness_keys: dict[tuple[int, int], tuple[object, ...]]
    #: The name channels' matches scored from postings in this search (`_listed`).
    listed: dict[tuple[str, tuple[str, ...]], tuple[Selection, BM25, Matches]]


def kind_rank(symbol: Symbol) -> int:
    return KIND_ORDER.get(symbol.kind, len(KIND_ORDER))


def closeness(plan: Plan, symbol: Symbol) -> tuple[object, ...]:
    """The shared tie-break: the name as typed (ignoring case and width), then exactly
    as typed, then the product's code before its tests, definition kind, a definition
    before its declarations (`@overload` stubs, TypeScript overload signatures), then the
    tree's own order (`scoring.tie_key`: path, line, ...)."""
    return (
        fold(symbol.name) != fold(plan.name),
        symbol.name != plan.name,
        _in_tests(symbol.path),
        kind_rank(symbol),
        symbol.declaration,
        *tie_key(symbol),
    )


def known_closeness(plan: Plan, known: dict[tuple[int, int], tuple[object, ...]],
                    key: tuple[int, int], symbol: Symbol) -> tuple[object, ...]:
    """`closeness(plan, symbol)` of the document `key`, kept in `known` (one search's:
    `ChannelContext.closeness_keys`)."""
    found = known.get(key)
    if found is None:
        found = known[key] = closeness(plan, symbol)
    return found


def _closeness(ctx: ChannelContext, candidate: Candidate) -> tuple[object, ...]:
    """`closeness` of a candidate to the search's plan, computed once a search."""
    found = ctx.closeness_keys.get(candidate.key)
    if found is None:  # (asked of thousands of candidates a search: the call saved)
        found = known_closeness(ctx.plan, ctx.closeness_keys, candidate.key, candidate.symbol)
    return found


#: `priors.is_test_path` of the paths met (a search breaks ties among hundreds of
#: candidates, most in a few files).
_in_tests = functools.lru_cache(maxsize=16384)(is_test_path)


def typed_order(plan: Plan, symbols: Sequence[Symbol]) -> list[int]:
    """Positions of `symbols` (fused, best first) once what was typed has its say.

    For words (`crt sig v 4 auth`), a name made of exactly the query's words in the
    order typed comes first (`CrtSigV4Auth` before `CrtSigV4QueryAuth`, which the text
    channel likes for its signature `class CrtSigV4QueryAuth(CrtSigV4Auth)`): such a
    name is what the words spell, as an exact name is for a name typed.

    Then the names made of the same words are put in order among themselves, in the
    slots they hold: the words' order first (`client max server` → `clientMaxServer`
    before `serverMaxClient`), then, for a name typed as an identifier, the edits
    ignoring case (`pollfuture` → `PollFuture` before `poll_future`: a lower-case query
    is a name typed without its capitals, not without its separators), then the edits
    counting case (`closeStrem` → `closeStream` before `CloseStream`). Other channels
    rank such names by what differs around them (qualname length, path), which says
    nothing about which one was meant. Qualified queries keep their order: the scope
    decides there."""
    order = list(range(len(symbols)))
    if plan.scope:
        return order
    typed_as_name = plan.route in (Route.IDENTIFIER, Route.QUALIFIED)
    words = [split_identifier(symbol.name) for symbol in symbols]
    if not typed_as_name:
        spelled = [p for p in order if words[p] == list(plan.words)]
        order = spelled + [p for p in order if words[p] != list(plan.words)]
    groups: dict[tuple[str, ...], list[int]] = {}
    for slot, position in enumerate(order):
        if words[position]:
            groups.setdefault(tuple(sorted(words[position])), []).append(slot)
    typed = fold(plan.name)
    placed = list(order)
    for slots in groups.values():
        if len(slots) < 2:
            continue
        ranked = sorted((order[slot] for slot in slots), key=lambda p: (
            Levenshtein.distance(plan.words, words[p]),
            OSA.distance(typed, fold(symbols[p].name)) if typed_as_name else 0,
            OSA.distance(plan.name, symbols[p].name) if typed_as_name else 0,
            p,
        ))
        for slot, position in zip(slots, ranked):
            placed[slot] = position
    return placed


def scope_cost(symbol: Symbol, scope: Sequence[str]) -> int:
    """Sum over query scope segments of the edit distance to the closest scope part, in
    thirds: the same distance costs least to the symbol's immediate parent, one more to
    another part of its qualname, two more to a path part only. `Runtime.Initialize`
    prefers class `Runtime`'s method over others in namespace `Python.Runtime`;
    `Progress.stop` prefers class `Progress`'s over another class's in progress.py."""
    if not scope:
        return 0
    return _tiers_cost(_scope_tiers(symbol), tuple(squash(segment) for segment in scope))


@functools.lru_cache(maxsize=65536)  # a class's members, a file's symbols share tiers
def _tiers_cost(tiers: tuple[tuple[str, ...], ...], wanted: tuple[str, ...]) -> int:
    """`scope_cost` of squashed scope segments `wanted` against a symbol's `_scope_tiers`."""
    if all(segment in tiers[1] for segment in wanted):  # the common case, made cheap
        return sum(segment not in tiers[0] for segment in wanted)
    return sum(_segment_cost(segment, tiers) for segment in wanted)


#: `_scope_tiers` by (qualname, path), up to SCOPE_TIERS_KEPT: a class's members share
#: their qualname's scope, a file's symbols their path.
_SCOPE_TIERS: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {}
SCOPE_TIERS_KEPT = 16384


def _scope_tiers(symbol: Symbol) -> tuple[tuple[str, ...], ...]:
    """What `scope_cost` matches a symbol's scope on, in tiers: its parent, its qualname's
    parts, and these with its path's parts (`scope_terms`), squashed."""
    key = (symbol.qualname, symbol.path)
    tiers = _SCOPE_TIERS.get(key)
    if tiers is None:
        if len(_SCOPE_TIERS) >= SCOPE_TIERS_KEPT:
            _SCOPE_TIERS.clear()
        qualified = tuple(squash(part) for part in qualifier_parts(symbol.qualname)[:-1])
        tiers = _SCOPE_TIERS[key] = (qualified[-1:], qualified, tuple(scope_terms(symbol)))
    return tiers


def _segment_cost(wanted: str, tiers: tuple[tuple[str, ...], ...]) -> int:
    for penalty, parts in enumerate(tiers):
        if wanted in parts:  # spelled exactly: any edit costs 3 thirds, more than a tier
            return penalty
    allowed = max_edits_for(wanted)
    # The tiers share their parts: each part's distance once (past `allowed`, any more).
    distances = {part: OSA.distance(wanted, part, score_cutoff=allowed)
                 for parts in tiers for part in parts}
    best = MISSING_SCOPE_COST
    for penalty, parts in enumerate(tiers):
        distance = min((distances[part] for part in parts), default=allowed + 1)
        if distance <= allowed:
            best = min(best, 3 * distance + penalty)
    return best


def _search(
    ctx: ChannelContext, must: Query, limit: int, score: Score | None = None,
    most: int | None = None, ceiling: float | None = None, scored_by: Query | None = None,
    in_scope_first: bool = False,
) -> list[Candidate]:
    """Run `must` under the filters; for qualified queries matching scopes lift a hit so
    that the candidate cap keeps it.

    With `score` (a BM25 of `storage.scoring`, from the tree alone), the best `limit`
    candidates by it, each with it as its score; without, for queries Tantivy scores
    alike (names), the best `limit` by `closeness` of every match (`MAX_RETRIEVED` at most):
    never the ones Tantivy happens to list first. `most`, when known, is at least the
    number of matches (the postings of the terms scored, which every match holds one of):
    at most SCORE_ALL_MATCHES, they are all listed at once, with no count first.
    `ceiling` (`postings.score_ceiling`), when known, is the most a match's `score` can
    be as a multiple of Tantivy's score of it by `must`, or by `scored_by` when given
    (every term `score` counts, for every match: `must` may leave some unscored, see
    `text`): matches are then listed by that score and read only as far as they might
    still be among the best (`_best_of_all`). `in_scope_first`, for a qualified query:
    only the matches in its scope when some are, for a channel that keeps those alone
    when any is (`_ranked`): without `score`, when the matches are more than `limit`
    (`_in_scope_only`); with it, those Tantivy finds may be in scope are scored first."""
    if in_scope_first and score is not None and ctx.plan.scope:
        near = _near_scope(ctx)
        if near is not None:
            scoped_must = Query.boolean_query(
                [(Occur.Must, must), (Occur.Must, Query.const_score_query(near, 0.0))])
            found = [c for c in _search(ctx, scoped_must, limit, score, most, ceiling, scored_by)
                     if _in_scope(ctx, c)]
            if found:
                return found
    clauses = [(Occur.Must, must)] + [(Occur.Must, f) for f in ctx.filters]
    clauses += [(Occur.Should, q) for q in _scope_boosts(ctx)]
    query = Query.boolean_query(clauses) if len(clauses) > 1 else must
    if score is None:
        result = ctx.searcher.search(query, limit, count=True)
        hits = result.hits
        if (result.count or 0) > len(hits):
            scoped = _in_scope_only(ctx, must, limit) if in_scope_first and ctx.plan.scope else []
            if scoped:
                return scoped
            hits = ctx.searcher.search(query, min(result.count, MAX_RETRIEVED), count=False).hits
        found = ctx.fetch(hits)
        if len(found) <= limit:
            return found
        # Scope is most of a candidate's cost: looked at only for those Tantivy finds may
        # be in it, of all the matches (thousands of names, a few in scope).
        if not ctx.plan.scope:  # every rank's first key is 0: the tie-break alone
            return heapq.nsmallest(limit, found, key=lambda c: _closeness(ctx, c))
        maybe = _maybe_in_scope(ctx, must, max(result.count or 0, len(found)))

        def rank(c: Candidate) -> tuple[int, tuple[object, ...]]:
            outside = maybe is not None and c.key not in maybe
            return (1 if outside else _scope_rank(ctx, c), _closeness(ctx, c))

        return heapq.nsmallest(limit, found, key=rank)
    # Every match is scored (at most SCORE_ALL_MATCHES): listed by the query whose
    # score `ceiling` bounds.
    listing = query
    if ceiling is not None and scored_by is not None:
        listing = Query.boolean_query([(Occur.Must, Query.const_score_query(query, 0.0)),
                                       (Occur.Should, scored_by)])
    if most is not None and most <= SCORE_ALL_MATCHES:
        hits = ctx.searcher.search(listing, max(most, 1), count=False).hits
        return _best_of_all(ctx, hits, score, limit, ceiling)
    retrieve = limit * RETRIEVAL_FACTOR
    first = ctx.searcher.search(query, retrieve, count=True)
    if (first.count or 0) <= SCORE_ALL_MATCHES:
        # Few enough to score every live match: the candidates then owe nothing to
        # Tantivy's order, which deleted documents sway.
        listed = (first.count or 0) <= retrieve and listing is query
        hits = first.hits if listed else ctx.searcher.search(
            listing, max(first.count or 0, 1), count=False).hits
        return _best_of_all(ctx, hits, score, limit, ceiling)
    # Tantivy's best, read as far as they might be among the best: `ceiling` bounds
    # the scores of `query` itself only when it scores every term (no `scored_by`).
    bounded = ceiling if scored_by is None else None
    listed: list[tuple[float, tantivy.DocAddress]] = []
    read: _Read | None = None
    while True:
        hits = ctx.searcher.search(query, retrieve, count=False).hits
        # Tantivy's best of more start with its best of fewer (equal scores in the order
        # of the documents): what was read of those is read on from, not read again.
        read = _read_while_open(ctx, hits, score, limit, bounded,
                                read if hits[:len(listed)] == listed else None)
        listed = hits
        found, scores = read.found, read.scores
        last = _last_kept(ctx, found, scores, limit)
        if len(hits) < retrieve or retrieve >= MAX_RETRIEVED or last is None:
            return _best(ctx, found, scores, limit)
        # What Tantivy left out scores below its last ones by its own measure, which
        # deleted documents sway: stop once those are clearly below the ones kept. The
        # last hit (Tantivy's lowest) scoring below that for certain tells without the
        # hits not read; otherwise they are read.
        floor = last * (1.0 - RETRIEVAL_MARGIN)
        if (min(scores) < floor or (bounded is not None and bounded * hits[-1][0] < floor)
                or len(found) < len(hits)
                and min(score(ctx.fetch(hits[len(found):]))) < floor):
            return _best(ctx, found, scores, limit)
        retrieve = min(retrieve * RETRIEVAL_FACTOR, MAX_RETRIEVED)


#: `_best_of_all` reads and scores matches this many at a time, in Tantivy's order.
SCORED_CHUNK = 64


def _best_of_all(
    ctx: ChannelContext, hits: list[tuple[float, tantivy.DocAddress]], score: Score,
    limit: int, ceiling: float | None,
) -> list[Candidate]:
    """`_best` of every one of `hits` (Tantivy's, best first), as if all were read and
    scored: with a `ceiling`, only as far as the rest might still be among the best.

    No match scores more than `ceiling` times Tantivy's score of it, so once `limit`
    matches read (in scope, for a qualified query) score clearly above that bound for
    the next hit (what rounding cannot tie, `_BELOW_ROUNDING`), no hit after it can be
    among the best or tie with the last of them. A BM25 channel keeps 50 of up to
    `SCORE_ALL_MATCHES` matches, the full text channel reading every one of them (its
    records analysed again, as no cache keeps a large repository's texts) was most of
    a search in words on go-stdlib."""
    read = _read_while_open(ctx, hits, score, limit, ceiling)
    return _best(ctx, read.found, read.scores, limit)


class _InScope:
    """The scores of a qualified query's candidates read that are in its scope, sorted,
    each candidate looked at once (`_settled` asks after each chunk of up to
    MAX_RETRIEVED read: looking at all of them each time was most of a qualified typo's
    search on go-stdlib, `SymType.Strin`)."""

    def __init__(self, before: _InScope | None = None) -> None:
        self.scores: list[float] = [] if before is None else list(before.scores)
        self.looked_at = 0 if before is None else before.looked_at

    def above(self, ctx: ChannelContext, found: list[Candidate], scores: list[float],
              floor: float) -> int:
        """How many of `found` (scored `scores`) are in scope and score above `floor`."""
        for position in range(self.looked_at, len(found)):
            if _in_scope(ctx, found[position]):
                bisect.insort(self.scores, scores[position])
        self.looked_at = len(found)
        return len(self.scores) - bisect.bisect_right(self.scores, floor)


class _Read(NamedTuple):
    """The first of Tantivy's hits read (`_read_while_open`): their candidates and
    scores, the best `limit` of those scores, best first, whether they settle the best
    `limit` of all the hits, and (a qualified query) which are in scope as far as looked."""

    found: list[Candidate]
    scores: list[float]
    best: list[float]
    settled: bool
    in_scope: _InScope


def _read_while_open(
    ctx: ChannelContext, hits: list[tuple[float, tantivy.DocAddress]], score: Score,
    limit: int, ceiling: float | None, before: _Read | None = None,
) -> _Read:
    """The first of `hits` read and scored, as many as decide the best `limit` of them
    all (`_best_of_all`): all of them without a `ceiling`.

    `before`: what was read of the first of the same hits (a channel widening its
    reading), read on from: the same chunks, and the same checks after each, as read
    afresh. A channel reading Tantivy's best 100, then 200, ... up to MAX_RETRIEVED read
    each of them up to seven times."""
    if before is not None and before.settled:
        return before  # the same checks settle it at the same hit
    found, scores, best = ([], [], []) if before is None else (
        list(before.found), list(before.scores), before.best)
    in_scope = _InScope(None if before is None else before.in_scope)
    if ceiling is None:
        chunk = ctx.fetch(hits[len(found):])
        return _Read(found + chunk, scores + score(chunk), best, False, in_scope)
    position = len(found)
    while position < len(hits):
        # Checked at each chunk's end that some hit follows (`_settled`).
        if position % SCORED_CHUNK == 0 and position and _settled(
                ctx, found, scores, best, limit, ceiling * hits[position][0], in_scope):
            return _Read(found, scores, best, True, in_scope)
        end = min(len(hits), (position // SCORED_CHUNK + 1) * SCORED_CHUNK)
        chunk = ctx.fetch(hits[position:end])
        found += chunk
        chunk_scores = score(chunk)
        scores += chunk_scores
        best = heapq.nlargest(limit, best + chunk_scores)
        position = end
    return _Read(found, scores, best, False, in_scope)


def _settled(ctx: ChannelContext, found: list[Candidate], scores: list[float],
             best: list[float], limit: int, bound: float, in_scope: _InScope) -> bool:
    """Whether `limit` of the candidates found (in scope, for a qualified query) score
    clearly above `bound`, the most any candidate not yet read can score. `best`: the
    best `limit` of `scores`, best first (asked after each chunk of thousands of
    matches, counting them all each time cost as much as reading them); `in_scope`, the
    scores of those found in scope as far as looked at before."""
    floor = bound + _BELOW_ROUNDING
    if len(best) < limit or (best and best[-1] <= floor):
        return False  # fewer than `limit` above it: scope looked at only when enough are
    if not ctx.plan.scope:
        return True
    return in_scope.above(ctx, found, scores, floor) >= limit


def _search_terms(
    ctx: ChannelContext, selection: Selection, limit: int, scorer: BM25,
    in_scope_first: bool = False,
) -> list[Candidate]:
    """The best `limit` of the documents `selection` holds by `scorer` (a name channel's
    BM25), as `_search` gives them: in a large index, every live match scored from
    Tantivy's postings (`storage.postings`) and only those kept read (and those whose
    scope decides, for a qualified query); otherwise, or past `SCORE_ALL_MATCHES`
    matches, as `_search` reads them. `in_scope_first`: for a channel that keeps only
    the candidates in a qualified query's scope when any is (`_ranked`), those alone,
    either way (`_kept`, `_search`)."""
    matches = (_listed(ctx, selection, scorer) if ctx.stats.num_docs > POSTINGS_SCORED_FROM
               else None)
    if matches is None:
        return _search(ctx, selection.query(ctx.schema), limit, scorer, scorer.postings,
                       _ceiling(ctx, scorer), in_scope_first=in_scope_first)
    if matches.unsure:
        found = ctx.fetch([(0.0, matches.addresses[key]) for key in matches.unsure])
        matches.scores.update(zip((c.key for c in found), scorer(found)))
    return _kept(ctx, matches, limit, selection, in_scope_first)


def _listed(ctx: ChannelContext, selection: Selection, scorer: BM25) -> Matches | None:
    """`postings.scored` of `selection` (None: more than `SCORE_ALL_MATCHES`), or, when
    this search scored the matches of the same terms by the same BM25 holding fewer of
    them (the fuzzy channel's pool, before the ngram channel), those holding enough
    (`postings.narrowed`), without listing them again."""
    key = (selection.field, selection.drivers)
    wider = ctx.listed.get(key)
    if (wider is not None and wider[1] is scorer and not selection.others
            and not wider[0].others and wider[0].least <= selection.least):
        return narrowed(wider[2], selection.least)
    matches = scored(ctx.searcher, ctx.schema, ctx.stats, selection, scorer, ctx.filters,
                     SCORE_ALL_MATCHES)
    if matches is not None:
        ctx.listed[key] = (selection, scorer, matches)
    return matches


def _kept(ctx: ChannelContext, matches: Matches, limit: int,
          selection: Selection, in_scope_first: bool = False) -> list[Candidate]:
    """`_best` of scored matches, reading the records of the ones kept only (and of those
    the tree's order cannot tell apart at the cut without them, or, for a qualified
    query, of those whose scope decides the best in scope: only those Tantivy finds
    may be in scope, `_maybe_in_scope`). `in_scope_first`: the best in scope only, when
    any is (the rest are what `_ranked` drops: django's `Redirect.Meta` broke a tie
    among a thousand `Meta` classes out of scope for the ngram channel's last places)."""
    keys = list(matches.scores)
    scores = list(matches.scores.values())
    if ctx.plan.scope:
        read: dict[int, Candidate] = {}

        def candidate(position: int) -> Candidate:
            found = read.get(position)
            if found is None:
                hit = (scores[position], matches.addresses[keys[position]])
                found = read[position] = ctx.fetch([hit])[0]
            return found

        maybe = _maybe_in_scope(ctx, selection.query(ctx.schema), len(keys))
        outside = None if maybe is None else (lambda position: keys[position] not in maybe)
        order, rank = _scope_order(ctx, candidate, scores, limit, outside)
        if in_scope_first and order and rank(order[0])[0] == 0:  # in scope first
            order = [p for p in order if rank(p)[0] == 0]
        chosen = _cut(order, rank, limit, lambda tied, wanted: heapq.nsmallest(
            wanted, tied, key=lambda p: _closeness(ctx, candidate(p))))
        return [candidate(p) for p in chosen]
    order, rank = _by_score(scores, limit)

    def first_of_tie(tied: list[int], wanted: int) -> list[int]:
        found = ctx.fetch([(scores[p], matches.addresses[keys[p]]) for p in tied])
        by_key = {keys[p]: p for p in tied}
        return [by_key[c.key] for c in heapq.nsmallest(
            wanted, found, key=lambda c: _closeness(ctx, c))]

    chosen = [keys[p] for p in _cut(order, rank, limit, first_of_tie)]
    return ctx.fetch([(matches.scores[key], matches.addresses[key]) for key in chosen])


def _best(
    ctx: ChannelContext, found: list[Candidate], scores: list[float], limit: int
) -> list[Candidate]:
    """The best `limit` of `found` by `scores` (in scope first for a qualified query), each
    with its score, equal scores at the cut told apart by `closeness`: the tree, never
    the order found.

    For a qualified query, scope is looked at only down to where the best `limit` in scope
    are known (its cost, `scope_cost`, is most of a candidate's)."""
    order, rank = _ranks(ctx, found, scores, limit)

    def first_of_tie(tied: list[int], wanted: int) -> list[int]:
        return heapq.nsmallest(wanted, tied, key=lambda p: _closeness(ctx, found[p]))

    # (All of them, or for a qualified query the best `limit` in scope, when no tie.)
    return [new_candidate(found[p].key, found[p].symbol, scores[p])
            for p in _cut(order, rank, limit, first_of_tie)]


def _ranks(
    ctx: ChannelContext, found: list[Candidate], scores: list[float], limit: int
) -> tuple[list[int], Callable[[int], object]]:
    """`_best`'s order of the positions in `found` that can be among the best `limit`, and
    each one's rank, before any tie at the cut is broken."""
    # Each candidate's rank is (0 in scope / 1 not, -score), the score rounded so that
    # float summation order never decides; positions keep the order found among equals.
    if ctx.plan.scope:
        return _scope_order(ctx, found.__getitem__, scores, limit)
    return _by_score(scores, limit)  # the score alone


def _last_kept(
    ctx: ChannelContext, found: list[Candidate], scores: list[float], limit: int
) -> float | None:
    """The score of the last of `_best(ctx, found, scores, limit)`, None when it keeps
    fewer than `limit`: without breaking the tie at the cut when every candidate tied
    there scores the same (a channel widening its reading asks after each widening,
    and breaking a tie of thousands each time was most of its cost)."""
    order, rank = _ranks(ctx, found, scores, limit)
    if len(order) < limit:
        return None
    cut = rank(order[limit - 1])
    tied = {scores[p] for p in order if rank(p) == cut}  # the last kept is one of them
    if len(tied) == 1:
        return tied.pop()
    return _best(ctx, found, scores, limit)[-1].score


def _cut(order: list[int], rank: Callable[[int], object], limit: int,
         first_of_tie: Callable[[list[int], int], list[int]]) -> list[int]:
    """The first `limit` of `order` (positions, best `rank` first); equal ranks across
    the cut are the tree's to decide: `first_of_tie(tied, wanted)` gives the first
    `wanted` of them in its order (never the order found)."""
    if len(order) <= limit:
        return order
    cut = rank(order[limit - 1])
    last = next((i for i in range(limit, len(order)) if rank(order[i]) != cut), len(order))
    if last == limit:
        return order[:limit]
    first = next(i for i, p in enumerate(order) if rank(p) == cut)
    return order[:first] + first_of_tie(order[first:last], limit - first)


#: How far below the `limit`-th best score a score must be to round (to 9 places) below it.
_BELOW_ROUNDING = 1e-6


def _by_score(
    scores: list[float], limit: int
) -> tuple[list[int], Callable[[int], object]]:
    """Positions in `scores` by score rounded to 9 places, best first, equals in the order
    found, and each one's rank (its rounded score, negated), for those that can be among
    the best `limit` or tie with the last of them: at least `limit` scores reach the
    `limit`-th best, so one `_BELOW_ROUNDING` under it rounds below their rounded scores
    and is left out unrounded (a BM25 channel scores hundreds, keeps 50)."""
    positions: Sequence[int] = range(len(scores))
    if len(scores) > limit:
        floor = heapq.nlargest(limit, scores)[-1] - _BELOW_ROUNDING
        positions = [p for p in positions if scores[p] >= floor]
    keys = {p: -round(scores[p], 9) for p in positions}
    return sorted(positions, key=keys.__getitem__), keys.__getitem__


def _scope_order(
    ctx: ChannelContext, candidate: Callable[[int], Candidate], scores: list[float], limit: int,
    outside: Callable[[int], bool] | None = None,
) -> tuple[list[int], Callable[[int], object]]:
    """Positions in `scores` by rank (0 in scope / 1 not, -score rounded to 9 places), and
    each one's rank, for as many candidates as decide the best `limit`: all of those in
    scope down to the `limit`-th and its ties, and, when fewer are in scope, all.
    `candidate(position)` is read in order of score, only as far as that, and never for
    a position `outside` says is out of scope (known without its record)."""
    keys = [-round(score, 9) for score in scores]
    ranks: dict[int, tuple[int, float]] = {}
    in_scope = 0
    for position in sorted(range(len(scores)), key=keys.__getitem__):
        if in_scope >= limit and keys[position] != ranks[last_in][1]:
            break  # the rest score below the last one kept, in scope or not
        if outside is not None and outside(position):
            rank = (1, keys[position])
        else:
            rank = (_scope_rank(ctx, candidate(position)), keys[position])
        ranks[position] = rank
        if rank[0] == 0:
            in_scope += 1
            last_in = position
    return sorted(ranks, key=ranks.__getitem__), ranks.__getitem__


def _scope_rank(ctx: ChannelContext, candidate: Candidate) -> int:
    """A qualified query's candidates that match its scope before the others."""
    return 0 if not ctx.plan.scope or _in_scope(ctx, candidate) else 1


def _maybe_in_scope(ctx: ChannelContext, query: Query, most: int) -> set[tuple[int, int]] | None:
    """The documents of `query` (at most `most`, under the filters) that may be in a
    qualified query's scope, by document key: every one `_in_scope` keeps, found by
    Tantivy without their records; None when Tantivy's matching might miss one.

    A document is in scope when a scope segment, squashed, is within its edits
    (`max_edits_for`, optimal string alignment) of one of its scope terms (`_scope_tiers`:
    its qualname's scope parts and path parts, squashed, the `scope` field's terms). The
    Levenshtein automaton with transpositions finds every term that close (its distance
    is never above that alignment's). Only for segments in ASCII, which the field's
    lower-casing and Python's agree on, and not empty (no term is)."""
    near = _near_scope(ctx)
    if near is None:
        return None
    clauses = [(Occur.Must, Query.const_score_query(query, 0.0)),
               (Occur.Must, Query.const_score_query(near, 0.0))]
    clauses += [(Occur.Must, Query.const_score_query(f, 0.0)) for f in ctx.filters]
    hits = ctx.searcher.search(Query.boolean_query(clauses), max(most, 1), count=False).hits
    return {(address.segment_ord, address.doc) for _, address in hits}


def _near_scope(ctx: ChannelContext) -> Query | None:
    """The documents that may be in a qualified query's scope (`_maybe_in_scope`): any
    scope term within a segment's edits; None when Tantivy's matching might miss one."""
    wanted = [squash(segment) for segment in ctx.plan.scope]
    if not all(term and term.isascii() for term in wanted):
        return None
    near = []
    for term in dict.fromkeys(wanted):
        edits = max_edits_for(term)
        near.append((Occur.Should, Query.fuzzy_term_query(
            ctx.schema, "scope", term, distance=edits, transposition_cost_one=True)
            if edits else Query.term_query(ctx.schema, "scope", term)))
    return Query.boolean_query(near)


def _filtered(ctx: ChannelContext, must: Query) -> Query | None:
    """`must` under the filters and, for a qualified query, among the documents that may
    be in its scope (`_near_scope`); None when Tantivy's matching might miss one of those."""
    clauses = [(Occur.Must, must)] + [(Occur.Must, f) for f in ctx.filters]
    if ctx.plan.scope:
        near = _near_scope(ctx)
        if near is None:
            return None
        clauses.append((Occur.Must, near))
    return Query.boolean_query(clauses) if len(clauses) > 1 else must


def _shortest(ctx: ChannelContext, must: Query, limit: int) -> list[Candidate]:
    """The `limit` matches of `must` (under the filters; for a qualified query, of those
    that may be in its scope) with the shortest names: by `NAME_LENGTHS_FIELD` (the
    name's grams, then its qualified name's words), equal lengths at the cut told apart
    by `closeness`. For a channel that ranks the names it reads by fit, then shorter
    names first (the abbreviation channel: thousands of go-stdlib's names have the head
    `op`), read by Tantivy in that order, not all read (`_search`: up to MAX_RETRIEVED)
    to take the first in the tree's order."""
    query = _filtered(ctx, must)
    if query is None:
        return _search(ctx, must, limit)
    hits = ctx.searcher.search(query, limit, count=False, order_by_field=NAME_LENGTHS_FIELD,
                               order=tantivy.Order.Asc).hits
    if len(hits) < limit:
        return ctx.fetch([(0.0, address) for _, address in hits])
    cut = hits[-1][0]
    shorter = [(0.0, address) for length, address in hits if length < cut]
    at_cut = Query.boolean_query([(Occur.Must, query), (Occur.Must, Query.range_query(
        ctx.schema, NAME_LENGTHS_FIELD, tantivy.FieldType.Unsigned, cut, cut))])
    # (At most MAX_RETRIEVED of them, as `_search` reads: past it, those Tantivy lists first.)
    count = min(ctx.searcher.search(at_cut, 1, count=True).count or 1, MAX_RETRIEVED)
    tied = ctx.fetch([(0.0, address) for _, address in
                      ctx.searcher.search(at_cut, count, count=False).hits])
    return ctx.fetch(shorter) + heapq.nsmallest(limit - len(shorter), tied,
                                                key=lambda c: _closeness(ctx, c))


def _scope_boosts(ctx: ChannelContext) -> list[Query]:
    """A query per scope segment lifting the symbols in that scope. A segment some
    symbol's scope spells exactly lifts those symbols only: its typo'd neighbours would
    rank below them anyway (`scope_cost`), and a fuzzy automaton walks the whole scope
    dictionary once per channel, the costliest part of a qualified query in a large index.
    """
    boosts = []
    for segment in ctx.plan.scope:
        term = squash(segment)
        edits = max_edits_for(term)
        boosts.append(
            Query.fuzzy_term_query(ctx.schema, "scope", term, distance=edits)
            if edits and not ctx.stats.doc_freq("scope", term)
            else Query.term_query(ctx.schema, "scope", term)
        )
    return boosts


def _should_terms(
    field: str, terms: Sequence[str], min_share: float = 0.0
) -> Selection | None:
    """Any of `terms` (at least `min_share` of them), scored by BM25."""
    unique = tuple(dict.fromkeys(terms))
    if not unique:
        return None
    return Selection(field, unique, max(1, math.ceil(min_share * len(unique))))


def _ranked(
    ctx: ChannelContext, found: list[Candidate], key: Callable[[Candidate], tuple[object, ...]]
) -> list[Candidate]:
    """Order candidates: scope match first (qualified queries), then `key`.

    For a qualified query, candidates that match none of the scope segments are dropped
    when some candidate matches one: `Server.Serve` must not return every `Serve`.
    """
    if not ctx.plan.scope:
        return sorted(found, key=key)
    if any(_in_scope(ctx, c) for c in found):
        found = [c for c in found if _in_scope(ctx, c)]
    return sorted(found, key=lambda c: (ctx.scope_costs[c.key], *key(c)))


def exact(ctx: ChannelContext) -> list[Candidate]:
    """Names equal to the query once case, `_`, `-` and `$` are ignored."""
    must = Query.term_query(ctx.schema, "name_exact", ctx.plan.key)
    found = _search(ctx, must, EXACT_CANDIDATES, in_scope_first=True)
    return _ranked(ctx, found, lambda c: _closeness(ctx, c))


def _in_scope_only(ctx: ChannelContext, must: Query, limit: int) -> list[Candidate]:
    """For a qualified query, the best `limit` by `closeness` of the matches of `must` in
    its scope, read from those Tantivy finds may be in it (`_near_scope`); [] when none
    is, or when those are too many to read (then `_search` reads the matches as a whole).

    What the exact channel's `_ranked` keeps of `_search`'s candidates when any is in
    scope, without reading the matches out of it: django's `Redirect.Meta` read every
    one of its thousands of `Meta` classes to find the few in `Redirect`. For the fuzzy
    channel's automaton, its closest tier is then the closest in scope: a name out of
    scope, closer as written, no longer takes the tier for being among the first read
    (no answer of the relevance bench's 8,400 moved). Asked only when the matches are
    more than `limit` (the scope's automaton walks its dictionary)."""
    query = _filtered(ctx, must)
    if query is None:
        return []
    count = ctx.searcher.search(query, 1, count=True).count or 0
    if not count or count > MAX_RETRIEVED:
        return []
    hits = ctx.searcher.search(query, count, count=False).hits
    found = [c for c in ctx.fetch(hits) if _in_scope(ctx, c)]
    return heapq.nsmallest(limit, found, key=lambda c: _closeness(ctx, c))


def fuzzy(ctx: ChannelContext) -> list[Candidate]:
    """Names within `plan.max_edits` edits, ordered by true edit distance; only the
    closest tier is kept.

    Candidates come in rising cost: names equal to the query once squashed (`_`, `-`, `$`
    and case ignored; one term lookup); names sharing enough of the query's rare 2–3-grams
    (bounded by the postings budget, and they hold the answer of any name long enough to
    keep grams intact); last, Tantivy's Levenshtein automata on squashed names, which walk
    the term dictionary of every segment — the costliest step in a large index — and run
    only while nothing that close has been found. The order is the Damerau–Levenshtein
    distance of the lowercased names as written (`_open_fole` prefers `_open_file` to
    `open_file`). Only candidates at the smallest distance found are returned: a name one
    edit away is a different answer from one two edits away, and RRF would otherwise let
    other channels outvote the difference.
    """
    plan = ctx.plan
    typed = fold(plan.name)
    found: dict[tuple[int, int], Candidate] = {}

    def consider(candidates: list[Candidate]) -> None:
        for candidate in candidates:
            if candidate.key in found:
                continue
            if DamerauLevenshtein.distance(plan.key, squash(candidate.symbol.name)) > plan.max_edits:
                continue
            distance = DamerauLevenshtein.distance(typed, fold(candidate.symbol.name))
            found[candidate.key] = candidate._replace(distance=distance)

    consider(_search(ctx, Query.term_query(ctx.schema, "name_fuzzy", plan.key), FUZZY_CANDIDATES,
                     in_scope_first=True))
    if plan.max_edits and not any(c.distance == 0 for c in found.values()):
        grams = rare_grams(ctx, plan.key)
        pool = _should_terms("name_ngram", grams, FUZZY_POOL_MIN_SHARE)
        if pool is not None:
            # For a qualified query, the pool in scope when any of it is (as the automaton
            # reads below): a name out of scope, closer as written, no longer takes the
            # closest tier for being in the pool (`_in_scope_only`).
            consider(_search_terms(ctx, pool, BM25_CANDIDATES,
                                   _scorer(ctx, "name_ngram", grams), in_scope_first=True))
    for edits in range(1, plan.max_edits + 1):
        # Squashing never lengthens a distance, so a name within `edits` squashed edits is
        # at least as far as written: once a name this close is found, the automaton
        # could only add ties to it (and the wider ones nothing closer). Ties matter to a
        # qualified query whose scope none of those found matches: `lio::resue` must find
        # `lio::reuse` even when the grams found `resume` first.
        near = [c for c in found.values() if (c.distance or 0) <= edits]
        if near and not (plan.scope and not any(_in_scope(ctx, c) for c in near)):
            break
        must = Query.fuzzy_term_query(
            ctx.schema, "name_fuzzy", plan.key, distance=edits, transposition_cost_one=True
        )
        consider(_search(ctx, must, FUZZY_CANDIDATES, in_scope_first=True))
    if not found:
        return []
    best = min(c.distance or 0 for c in found.values())
    closest = [c for c in found.values() if (c.distance or 0) <= best]

    def order(c: Candidate) -> tuple[object, ...]:
        name = c.symbol.name
        return (
            c.distance,
            OSA.distance(plan.name, name),  # the same case pattern as typed ranks first
            name[:1].lower() != plan.name[:1].lower(),
            abs(len(name) - len(plan.name)),
            *_closeness(ctx, c)[2:],
        )

    return _ranked(ctx, closest, order)


def _in_scope(ctx: ChannelContext, candidate: Candidate) -> bool:
    """Whether a candidate matches at least one of a qualified query's scope segments
    (its `scope_cost`, kept in `ctx.scope_costs`)."""
    cost = ctx.scope_costs.get(candidate.key)
    if cost is None:
        cost = ctx.scope_costs[candidate.key] = scope_cost(candidate.symbol, ctx.plan.scope)
    return cost < MISSING_SCOPE_COST * len(ctx.plan.scope)


def _bm25(
    ctx: ChannelContext, must: Query | None, score: Score, most: int, ceiling: float | None,
    scored_by: Query | None = None,
) -> list[Candidate]:
    """The best BM25_CANDIDATES of `must` by `score`, whose terms `most` documents list
    (`ceiling`, `scored_by`: see `_search`)."""
    if must is None:
        return []
    found = _search(ctx, must, BM25_CANDIDATES, score, most, ceiling, scored_by)
    return _ranked(ctx, found, lambda c: (-round(c.score, 5), *_closeness(ctx, c)))


def _ceiling(ctx: ChannelContext, *scorers: BM25) -> float | None:
    """`postings.score_ceiling` of a channel's scorers in the commit searched."""
    return score_ceiling(ctx.searcher, ctx.schema, ctx.stats, scorers)


def _scorer(ctx: ChannelContext, field: str, terms: Sequence[str]) -> BM25:
    """A candidate's BM25 for `terms` in `field`, from the tree alone (`storage.scoring`):
    one per search, which keeps the scores it gave."""
    key = (field, tuple(sorted(set(terms))))
    scorer = ctx.scorers.get(key)
    if scorer is None:
        scorer = ctx.scorers[key] = BM25(ctx.stats, field, terms)
    return scorer


def _rarest(terms: Sequence[str], frequency: dict[str, int], limit: int | None = None) -> list[str]:
    """The rarest of `terms` while their postings stay within POSTINGS_BUDGET (one at least),
    at most `limit`: the cheapest to read and the ones that decide BM25, while a common
    term costs time in proportion to the repository and adds almost nothing (idf near 0)."""
    chosen: list[str] = []
    postings = 0
    for term in sorted(terms, key=lambda t: (frequency[t], t))[:limit]:
        if chosen and postings + frequency[term] > POSTINGS_BUDGET:
            break
        chosen.append(term)
        postings += frequency[term]
    return chosen


def rare_grams(ctx: ChannelContext, key: str) -> list[str]:
    """The query's 2–3-grams to match on: all of them while their postings are within the
    budget (any small repository); beyond, the rarest `MAX_QUERY_GRAMS` of its trigrams
    that some name has (bigrams only when it has no such trigram) within the budget."""
    grams = list(dict.fromkeys(analyzers()["ngram23"].analyze(key)))
    frequency = {g: ctx.stats.doc_freq("name_ngram", g) for g in grams}
    if sum(frequency.values()) <= POSTINGS_BUDGET:
        return grams
    present = [g for g in grams if frequency[g]]
    return _rarest([g for g in present if len(g) == 3] or present, frequency, MAX_QUERY_GRAMS)


def _any_terms(ctx: ChannelContext, field: str, terms: Sequence[str]) -> Selection | None:
    """Documents with any of `terms`, BM25 over all of them. Past the postings budget the
    rarest terms select the documents and the others only add to their scores: the
    same order among documents that have a rare term, without reading every posting of
    a common one."""
    unique = list(dict.fromkeys(terms))
    frequency = {t: ctx.stats.doc_freq(field, t) for t in unique}
    if sum(frequency.values()) <= POSTINGS_BUDGET:
        return _should_terms(field, unique)
    drivers = _rarest([t for t in unique if frequency[t]], frequency)
    if not drivers:
        return None
    others = tuple(t for t in unique if frequency[t] and t not in drivers)
    return Selection(field, tuple(drivers), 1, others)


def _every_term(ctx: ChannelContext, field: str, terms: Sequence[str]) -> Selection | None:
    """Documents with every one of `terms`, BM25 over them; None when one of them is in
    no document. Where any of a name's words selected thousands of names (go-stdlib's
    `new`, `reader`), all of them select tens."""
    unique = tuple(dict.fromkeys(terms))
    if not unique or not all(ctx.stats.doc_freq(field, term) for term in unique):
        return None
    return Selection(field, unique, len(unique))


def ngram(ctx: ChannelContext) -> list[Candidate]:
    """Names sharing 2–3-grams with the query: substrings and prefixes (BM25 order)."""
    grams = rare_grams(ctx, ctx.plan.key)
    selection = _should_terms("name_ngram", grams, NGRAM_MIN_SHARE)
    if selection is None:
        return []
    found = _search_terms(ctx, selection, BM25_CANDIDATES, _scorer(ctx, "name_ngram", grams),
                          in_scope_first=True)
    return _ranked(ctx, found, lambda c: (-round(c.score, 5), *_closeness(ctx, c)))


def words(ctx: ChannelContext) -> list[Candidate]:
    """Qualnames made of the query's words (`http client` ↔ `HttpClient`): those holding
    the most of them as typed first, then those whose own name holds the most (the name
    is what a description describes: `test append if missing` is `testAppendIfMissing`,
    not `StringUtils.appendIfMissing`), then BM25 (which also matches word stems).

    For a name typed as one (`Route.IDENTIFIER`, `Route.QUALIFIED`), only the qualnames
    holding every one of its words (`_every_term`): its words swapped or one forgotten
    (`AdminIntegerBigFieldWidget`, `AdminBigFieldWidget`). A name lacking one of them is
    no reading of it the other channels miss: a word typo'd is the fuzzy channel's, a
    word abbreviated the abbreviation channel's."""
    terms = analyzers()["words_en"].analyze(" ".join(ctx.plan.words))
    typed_as_name = ctx.plan.route in (Route.IDENTIFIER, Route.QUALIFIED)
    selection = _every_term(ctx, "words", terms) if typed_as_name else _any_terms(
        ctx, "words", terms)
    if selection is None:
        return []
    wanted = set(split_text(" ".join(ctx.plan.words)))

    def order(c: Candidate) -> tuple[object, ...]:
        symbol = c.symbol
        return (-len(wanted.intersection(_identifier_words(symbol.qualname))),
                -len(wanted.intersection(_identifier_words(symbol.name))),
                -round(c.score, 5), *_closeness(ctx, c))

    found = _search_terms(ctx, selection, BM25_CANDIDATES, _scorer(ctx, "words", terms),
                          in_scope_first=True)
    return _ranked(ctx, found, order)


@functools.lru_cache(maxsize=65536)  # the words channel ranks the same names search after search
def _identifier_words(identifier: str) -> tuple[str, ...]:
    """The words of a name or qualified name (`split_identifier`, which skips scope
    separators too, at a third of `split_text`'s cost). A tuple of strings, which the
    garbage collector stops tracking once it has seen it, where a set it keeps walking."""
    return tuple(split_identifier(identifier))


#: How much a word found in a definition's body (`Symbol.body`) counts against one found
#: in its signature, doc, qualified name or path: the body says what a definition does,
#: the rest what it is called and how its author describes it.
BODY_BOOST = 0.5


def text(ctx: ChannelContext) -> list[Candidate]:
    """BM25 over signatures, docs, qualnames and paths, and at a lower weight over the
    words of bodies and containers' docs: plain-language queries."""
    terms = analyzers()["text_en"].analyze(" ".join(ctx.plan.words))
    described_terms = _any_terms(ctx, "text", terms)
    if described_terms is None:
        return []
    described = described_terms.query(ctx.schema)
    used_terms = _any_terms(ctx, "body", terms)
    if used_terms is None:
        scorer = _scorer(ctx, "text", terms)
        return _bm25(ctx, described, scorer, scorer.postings, _ceiling(ctx, scorer))
    used = used_terms.query(ctx.schema)
    either = [(Occur.Should, described), (Occur.Should, Query.boost_query(used, BODY_BOOST))]

    described_by, used_by = BM25(ctx.stats, "text", terms), BM25(ctx.stats, "body", terms)

    def score(found: list[Candidate]) -> list[float]:
        return [a + BODY_BOOST * b for a, b in zip(described_by(found), used_by(found))]

    # A match one selection finds and the other does not (past the postings budget, a
    # common term only adds to the score of a match a rarer one selects) is scored by
    # Tantivy in one field only, and by `score` in both: `_ceiling` bounds the score of
    # a query that scores every term of every match.
    everything = None
    if described_terms.others or used_terms.others:
        everything = Query.boolean_query(
            [(Occur.Should, Query.term_query(ctx.schema, "text", term))
             for term, _ in described_by.weights]
            + [(Occur.Should, Query.boost_query(Query.term_query(ctx.schema, "body", term),
                                                BODY_BOOST)) for term, _ in used_by.weights])
    return _bm25(ctx, Query.boolean_query(either), score,
                 described_by.postings + used_by.postings,
                 _ceiling(ctx, described_by, used_by), everything)


#: Candidates the vector channel ranks by meaning: what BM25 finds with the question's
#: words and their neighbours in the model. With the hybrid blend, a pool of 75 gave the
#: same measures as 100 and 150 on the docs-blanked, docs-in and hand-written questions (60
#: lost one hand-written first place, 40 more), at three quarters of 100's cost.
VECTOR_POOL = 75
#: The vector channel's best this many say which words they matched (enough for any
#: answer's first page, which is all an answer shows by default).
MATCHED_SHOWN = 50


def vector(ctx: ChannelContext) -> list[Candidate]:
    """Definitions whose words mean what the question's words mean, whatever their
    spelling (storage/semantic.py `Model.soft_match`: each question word's closest word in
    the definition's name, signature, doc and body, by cosine between static embeddings,
    weighted by the question word's rarity). The candidates are what BM25 finds over texts
    and bodies with the question's words and each one's nearest neighbours in the model
    (`mandatory` also finds `required`), so a definition that shares no word with the
    question can still be found."""
    # Imported here: numpy and the model load for questions only, not at every start.
    from symfind.storage.semantic import load_model

    model = load_model()
    words = question_words(" ".join(ctx.plan.words))
    analyze = analyzers()["text_en"].analyze
    wanted: dict[str, float] = {}  # term → how close to the question's words
    neighbours = model.neighbours(words)
    for word in words:
        for term in analyze(word):
            wanted[term] = 1.0
        for neighbour, similarity in neighbours[word]:
            for term in analyze(neighbour):
                wanted.setdefault(term, similarity)
    clauses = [
        (Occur.Should, Query.boost_query(Query.term_query(ctx.schema, field, term), boost))
        for term, closeness_ in wanted.items()
        for field, boost in (("text", closeness_), ("body", closeness_ * BODY_BOOST))
        if ctx.stats.doc_freq(field, term)
    ]
    if not clauses:
        return []
    described_by = BM25(ctx.stats, "text", wanted, wanted)
    used_by = BM25(ctx.stats, "body", wanted, wanted)

    def pooled(found: list[Candidate]) -> list[float]:
        return [a + BODY_BOOST * b for a, b in zip(described_by(found), used_by(found))]

    pool = _search(ctx, Query.boolean_query(clauses), VECTOR_POOL, pooled,
                   described_by.postings + used_by.postings, _ceiling(ctx, described_by, used_by))
    rarity = [_rarity(ctx, analyze(word)) for word in words]
    matches = model.soft_match(words, rarity, [_meaningful_words(c.symbol) for c in pool])
    found = sorted(
        ((c._replace(score=score), i) for i, (c, score) in enumerate(zip(pool, matches.scores))
         if score),
        key=lambda pair: (-round(pair[0].score, 6), *_closeness(ctx, pair[0])))
    # The words matched, for the answer's `why`: only for those that can be shown.
    ranked = [c._replace(matched=matches.pairs(i)) if rank < MATCHED_SHOWN else c
              for rank, (c, i) in enumerate(found)]
    return _ranked(ctx, ranked, lambda c: (-round(c.score, 6), *_closeness(ctx, c)))


def _rarity(ctx: ChannelContext, terms: Sequence[str]) -> float:
    """The inverse document frequency of a word (its rarest stem) over texts and bodies."""
    total = max(ctx.stats.num_docs, 1)
    frequency = min((ctx.stats.doc_freq("text", t) + ctx.stats.doc_freq("body", t)
                     for t in terms), default=0)
    return math.log(1 + total / (frequency + 1))


def _meaningful_words(symbol: Symbol) -> tuple[str, ...]:
    """The words a definition is matched on by meaning: those of its qualified name (and
    the English words its words run together), signature, doc and body. Kept for the next
    question: a long-lived searcher sees the same definitions again and again."""
    return _described_words(symbol.qualname, symbol.signature, symbol.doc, symbol.body)


@functools.lru_cache(maxsize=16384)  # a few hundred bytes a definition
def _described_words(qualname: str, signature: str, doc: str, body: str) -> tuple[str, ...]:
    return meaningful_words(
        with_compound_parts(split_text(qualname)) + split_text(f"{signature} {doc} {body}"))


#: Names the abbreviation channel reads per initials its query may stand for: a camel-hump
#: query's initials belong to one name in two thirds of cases, to ten at most in 95 %.
INITIALS_CANDIDATES = 200
#: Names it reads from word heads (prefixes of words, whole words), best BM25 first.
HEADS_CANDIDATES = 50
#: A query of one lower-case run is read as word prefixes from this length on (`admbig`).
RUN_HEADS_FROM_CHARS = 6
#: Cuts of such a run into word heads the channel reads names for: the best few, as a run
#: cuts in more than one way (`tesintfie`: `tes`·`int`·`fie`, `tesint`·`fie`).
RUN_CHUNKINGS = 3


def abbreviation(ctx: ChannelContext) -> list[Candidate]:
    """Names the query abbreviates as an IDE's symbol finder reads it
    (storage/abbreviations.py): camel humps (`ABIFW`), word prefixes (`admbigintfiewid`,
    `AdmBigIntFieWid`), skeletons (`AdmnBgIntgrFldWdgt`), a word forgotten
    (`AdminBigFieldWidget`) or two swapped (`AdminIntegerBigFieldWidget`), all for
    `AdminBigIntegerFieldWidget`.

    Nothing for a query that spells a name. Candidates: the names whose initials are
    the query's (its segments' first letters, the letters its capitals start, or the
    query itself: a term lookup each), and the names holding the word heads the query's
    segments start with (all of those some name has), or, for one lower-case run, all the
    heads of one of its best cuts into heads (`head_chunkings`; failing those, two of its
    trigrams). Only names the query
    aligns with are kept, ordered by the fit: fewest errors (words skipped, a swap),
    then prefixes before skeletons, fewest chunks (longer stretches of each word); then,
    for a query of several words, the name written in the query's style (`_`, capitals);
    then product code before tests, shorter names, and the shared tie-break (definition
    kind, path, line)."""
    plan = ctx.plan
    segments = [segment for segment in plan.words if segment]
    # (A live count: `doc_freq` counts deleted documents until segments merge.)
    if not segments or ctx.searcher.search(
            Query.term_query(ctx.schema, "name_exact", plan.key), 1, count=True).count:
        # A query that spells a name means it: the names it would abbreviate too are
        # the ngram and words channels' (`HttpClient` → `HttpClientFactory`).
        return []
    guesses = {word_initials(segments), hump_initials(plan.name)}
    if len(segments) == 1:
        guesses.add(segments[0])  # `abifw`, `ABIFW`: the initials themselves
    typed = tuple(segments)
    pool: dict[tuple[int, int], Candidate] = {}
    fits: dict[tuple[int, int], Alignment] = {}

    def consider(candidates: list[Candidate]) -> None:
        for candidate in candidates:
            if candidate.key not in pool:
                pool[candidate.key] = candidate
                fit = _alignment(typed, candidate.symbol.name)
                # A name the query leaves more words of than it matches is no reading of
                # it (`perRun` → `TestSetContextPersistentPreRun`): other channels' finds.
                if fit is not None and fit.errors < sum(fit.matched):
                    fits[candidate.key] = fit

    for guess in sorted(g for g in guesses if len(g) > 1):
        if ctx.searcher.doc_freq("initials", guess):
            must = Query.term_query(ctx.schema, "initials", guess)
            consider(_shortest(ctx, must, INITIALS_CANDIDATES))
    # The heads find the names a query of words or word prefixes fits with words left
    # over, forgotten or swapped, whose initials are not the query's.
    # A lower-case run (`tesintfiedes`, `tesi32sdef`) says nothing of where its words
    # begin: the names read are those holding every head of its best cut into heads that
    # exist; failing those, of the next best cuts; failing all, any two of its trigrams.
    run = plan.name if plan.name.isalnum() and plan.name == plan.name.lower() else ""
    wanted: list[str] = []
    least = 0
    if len(run) >= RUN_HEADS_FROM_CHARS:
        fitted = len(fits)
        for chunking in head_chunkings(run, lambda head: ctx.searcher.doc_freq("heads", head) > 0,
                                       RUN_CHUNKINGS):
            consider(_shortest(ctx, _all_heads_query(ctx, chunking), HEADS_CANDIDATES))
            if len(fits) > fitted:
                break
        if len(fits) == fitted:
            wanted = [run[i:i + HEAD_CHARS] for i in range(len(run) - HEAD_CHARS + 1)]
            least = 2
    elif len(segments) > 1:
        wanted = [segment[:HEAD_CHARS] for segment in segments]
        least = len(wanted)  # of those some name has (`_heads_query`)
    heads_query = _heads_query(ctx, wanted, least) if wanted else None
    by_heads = _shortest(ctx, heads_query, HEADS_CANDIDATES) if heads_query is not None else []
    consider(by_heads)
    # Words typed whole, some forgotten or two swapped: the names holding every one of
    # them, when their heads are shared by more names than were read (`tes`, `val` of
    # `test_validator`: the 50 need not hold `test_function_validator`). Otherwise the
    # names read hold them all already: a name holding a word holds its head.
    spelled_query = (_all_words_query(ctx, segments)
                     if len(segments) > 1 and len(by_heads) >= HEADS_CANDIDATES else None)
    if spelled_query is not None:
        consider(_shortest(ctx, spelled_query, HEADS_CANDIDATES))
    found = [pool[key] for key in fits]
    if plan.scope:  # a qualified abbreviation reads names in its scope only
        found = [c for c in found if _in_scope(ctx, c)]
    # A query of several words is typed in the style of the name meant (`legacy_windows`
    # is `detect_legacy_windows` more than `LegacyWindowsTerm`); initials have none.
    typed_style = style(plan.name) if len(segments) > 1 else None

    def order(c: Candidate) -> tuple[object, ...]:
        return (fits[c.key].cost,
                typed_style is not None and style(c.symbol.name) != typed_style,
                is_test_code(c.symbol), len(c.symbol.name), *_closeness(ctx, c))

    ranked = _ranked(ctx, found, order)
    # `distance`: the fit's errors, which the search weighs against the fuzzy channel's.
    return [c._replace(distance=fits[c.key].errors,
                       matched=(describe(plan.name, c.symbol.name, fits[c.key]),)
                       if rank < MATCHED_SHOWN else ()) for rank, c in enumerate(ranked)]


def farther_slips(plan: Plan, fuzzy_found: Sequence[Candidate],
                  abbreviated: Sequence[Candidate]) -> list[str]:
    """The channels that do not vote: the fuzzy channel when the abbreviation channel
    reads the query, typed with the name's own words, as fewer slips off, else none.

    A word forgotten or two words swapped is one slip, as one edit is: a name the query
    spells with one word left out (`short_flag_to` → `short_flag_aliases_to`) is closer
    than one it spells with a word too many (`short_flag`, two edits), and RRF, which
    sees ranks only, would let the other channels' ranks decide between them. The fuzzy
    channel's edits are counted as its threshold counts them (case and separators
    ignored). At the same count, a typo that only drops letters typed is the farther
    reading (`XLua_Next`: `lua_next`, beside `luaX_next` with two words swapped). A
    query that abbreviates a name with no slip at all (`ABIFW`) is read another way
    than a typo is, not closer: both vote. So is one whose words are not the
    name's own but abbreviate them: `tt_join` is `try_join` with two edits more than it
    is `test_join_set` with `set` forgotten and `test` written `tt`."""
    if not fuzzy_found or not abbreviated:
        return []
    if not min(c.distance or 0 for c in abbreviated):
        return []
    typed = [segment for segment in plan.words if segment]
    spelled = [c.distance or 0 for c in abbreviated
               if spells_words(typed, name_words(c.symbol.name))]
    if not spelled:
        return []
    squashed = {squash(c.symbol.name) for c in fuzzy_found}
    edits = {name: DamerauLevenshtein.distance(plan.key, name) for name in squashed}
    fewest = min(edits.values())
    # At the same count, a typo that drops letters typed (`lua_next` for `XLua_Next`)
    # is farther than the name that keeps every word typed (`luaX_next`, two swapped).
    dropping = all(len(name) < len(plan.key) for name, n in edits.items() if n == fewest)
    closest = min(spelled)
    return [Channel.FUZZY] if closest < fewest or (closest == fewest and dropping) else []


@functools.lru_cache(maxsize=16384)
def _alignment(segments: tuple[str, ...], name: str) -> Alignment | None:
    return align(segments, name_words(name))


def _heads_query(ctx: ChannelContext, terms: Sequence[str], least: int) -> Query | None:
    """Names with at least `least` of the word heads `terms` that some name has (BM25:
    the rarest count most): a head no name has is a typo or a skeleton (`fld`), which
    the initials find. Past the postings budget, only the rarest heads within it select
    names."""
    unique = list(dict.fromkeys(terms))
    frequency = {t: ctx.searcher.doc_freq("heads", t) for t in unique}
    present = [t for t in unique if frequency[t]]
    if sum(frequency[t] for t in present) > POSTINGS_BUDGET:
        present = _rarest(present, frequency)
    if not present:
        return None
    clauses = [(Occur.Should, Query.term_query(ctx.schema, "heads", t)) for t in present]
    return Query.boolean_query(clauses, minimum_number_should_match=min(least, len(present)))


def _all_words_query(ctx: ChannelContext, segments: Sequence[str]) -> Query | None:
    """Names whose qualified names hold every segment as a word (a number too: `3` of
    `mapGet3`), None when a segment is no word any name has (an abbreviation)."""
    terms = [analyzers()["words_en"].analyze(segment) for segment in segments]
    if not all(len(stems) == 1 for stems in terms):
        return None
    selection = _every_term(ctx, "words", [stems[0] for stems in terms])
    return None if selection is None else selection.query(ctx.schema)


def _all_heads_query(ctx: ChannelContext, terms: Sequence[str]) -> Query:
    """Names with every one of the word heads `terms` (BM25: the rarest count most); an
    intersection reads no more than its rarest head's postings take to skip through."""
    return Query.boolean_query([(Occur.Must, Query.term_query(ctx.schema, "heads", t))
                                for t in dict.fromkeys(terms)])


CHANNELS: dict[str, Callable[[ChannelContext], list[Candidate]]] = {
    Channel.EXACT: exact,
    Channel.FUZZY: fuzzy,
    Channel.NGRAM: ngram,
    Channel.WORDS: words,
    Channel.TEXT: text,
    Channel.VECTOR: vector,
    Channel.ABBREV: abbreviation,
}
