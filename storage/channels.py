"""The search channels: each turns a Plan into its own ranked candidate list.

Imports: tantivy, rapidfuzz, `extract.records`, `storage` modules.

Every channel returns a real order. Tantivy scores all fuzzy hits alike, so the fuzzy
channel re-ranks by true edit distance (optimal string alignment: a transposition costs
one). For qualified queries every channel orders first by how well the scope segments
match the symbol's qualname and path (`scope_cost`), so `Server.Serve` prefers the
`Serve` of a `Server`, each segment allowed its own typo.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import tantivy
from rapidfuzz.distance import OSA

from extract.records import Symbol, SymbolKind
from storage.router import Channel, Plan, max_edits_for
from storage.schema import analyzers, scope_terms
from storage.words import squash

Occur = tantivy.Occur
Query = tantivy.Query

EXACT_CANDIDATES = 100
FUZZY_CANDIDATES = 200  # per edit distance
BM25_CANDIDATES = 50
MAX_NGRAMS = 48
# A name must contain at least this share of the query's grams: substring recall, not noise.
NGRAM_MIN_SHARE = 0.5
# Cost of a scope segment that matches no part of the symbol's qualname or path.
MISSING_SCOPE_COST = 3

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
    """One symbol a channel found, with its document key and edit distance if fuzzy."""

    key: tuple[int, int]
    symbol: Symbol
    distance: int | None = None


Fetch = Callable[[list[tuple[float, tantivy.DocAddress]]], list[Candidate]]


class ChannelContext(NamedTuple):
    """What every channel needs to run one plan."""

    searcher: tantivy.Searcher
    schema: tantivy.Schema
    plan: Plan
    filters: list[Query]
    fetch: Fetch


def kind_rank(symbol: Symbol) -> int:
    return KIND_ORDER.get(symbol.kind, len(KIND_ORDER))


def scope_cost(symbol: Symbol, scope: Sequence[str]) -> int:
    """Sum over query scope segments of the edit distance to the closest scope part."""
    if not scope:
        return 0
    parts = scope_terms(symbol)
    cost = 0
    for segment in scope:
        wanted = squash(segment)
        allowed = max_edits_for(wanted)
        best = min((OSA.distance(wanted, part) for part in parts), default=MISSING_SCOPE_COST)
        cost += best if best <= allowed else MISSING_SCOPE_COST
    return cost


def _search(ctx: ChannelContext, must: Query, should: list[Query], limit: int) -> list[Candidate]:
    clauses = [(Occur.Must, must)] + [(Occur.Must, f) for f in ctx.filters]
    clauses += [(Occur.Should, q) for q in should]
    query = Query.boolean_query(clauses) if len(clauses) > 1 else must
    return ctx.fetch(ctx.searcher.search(query, limit, count=False).hits)


def _scope_boosts(ctx: ChannelContext) -> list[Query]:
    """Optional clauses that lift candidates whose scope matches, so caps keep them."""
    boosts = []
    for segment in ctx.plan.scope:
        term = squash(segment)
        edits = max_edits_for(term)
        boosts.append(
            Query.fuzzy_term_query(ctx.schema, "scope", term, distance=edits)
            if edits
            else Query.term_query(ctx.schema, "scope", term)
        )
    return boosts


def _should_terms(
    ctx: ChannelContext, field: str, terms: Sequence[str], min_share: float = 0.0
) -> Query | None:
    """Any of `terms` (at least `min_share` of them), scored by BM25."""
    unique = list(dict.fromkeys(terms))
    if not unique:
        return None
    clauses = [(Occur.Should, Query.term_query(ctx.schema, field, t)) for t in unique]
    at_least = max(1, math.ceil(min_share * len(unique)))
    return Query.boolean_query(clauses, minimum_number_should_match=at_least)


def exact(ctx: ChannelContext) -> list[Candidate]:
    """Names equal to the query once case, `_`, `-` and `$` are ignored."""
    plan = ctx.plan
    must = Query.term_query(ctx.schema, "name_exact", plan.key)
    found = _search(ctx, must, _scope_boosts(ctx), EXACT_CANDIDATES)
    lowered = plan.name.lower()
    return sorted(
        found,
        key=lambda c: (
            scope_cost(c.symbol, plan.scope),
            c.symbol.name != plan.name,
            c.symbol.name.lower() != lowered,
            kind_rank(c.symbol),
            c.symbol.path,
            c.symbol.line,
        ),
    )


def fuzzy(ctx: ChannelContext) -> list[Candidate]:
    """Names within `plan.max_edits` edits, ordered by true edit distance."""
    plan = ctx.plan
    key = plan.key
    found: dict[tuple[int, int], Candidate] = {}
    for edits in range(1, plan.max_edits + 1):
        must = Query.fuzzy_term_query(
            ctx.schema, "name_fuzzy", key, distance=edits, transposition_cost_one=True
        )
        for candidate in _search(ctx, must, _scope_boosts(ctx), FUZZY_CANDIDATES):
            if candidate.key not in found:
                distance = OSA.distance(key, squash(candidate.symbol.name))
                found[candidate.key] = candidate._replace(distance=distance)

    def order(c: Candidate) -> tuple[object, ...]:
        name = c.symbol.name
        return (
            (c.distance or 0) + scope_cost(c.symbol, plan.scope),
            c.distance,
            OSA.distance(plan.name, name),  # same case pattern as typed ranks first
            name[:1].lower() != plan.name[:1].lower(),
            abs(len(name) - len(plan.name)),
            kind_rank(c.symbol),
            c.symbol.path,
            c.symbol.line,
        )

    return sorted(found.values(), key=order)


def ngram(ctx: ChannelContext) -> list[Candidate]:
    """Names sharing 2–3-grams with the query: substrings and prefixes (BM25 order)."""
    grams = analyzers()["ngram23"].analyze(ctx.plan.key)[:MAX_NGRAMS]
    must = _should_terms(ctx, "name_ngram", grams, NGRAM_MIN_SHARE)
    if must is None:
        return []
    return _by_scope(ctx, _search(ctx, must, [], BM25_CANDIDATES))


def words(ctx: ChannelContext) -> list[Candidate]:
    """Names made of the query's words (`http client` ↔ `HttpClient`), BM25 order."""
    terms = analyzers()["words_en"].analyze(" ".join(ctx.plan.words))
    must = _should_terms(ctx, "words", terms)
    if must is None:
        return []
    return _by_scope(ctx, _search(ctx, must, [], BM25_CANDIDATES))


def text(ctx: ChannelContext) -> list[Candidate]:
    """BM25 over signatures, docs, qualnames and paths: plain-language queries."""
    terms = analyzers()["text_en"].analyze(" ".join(ctx.plan.words))
    must = _should_terms(ctx, "text", terms)
    if must is None:
        return []
    return _by_scope(ctx, _search(ctx, must, [], BM25_CANDIDATES))


def _by_scope(ctx: ChannelContext, found: list[Candidate]) -> list[Candidate]:
    if not ctx.plan.scope:
        return found
    return sorted(found, key=lambda c: scope_cost(c.symbol, ctx.plan.scope))  # stable


CHANNELS: dict[str, Callable[[ChannelContext], list[Candidate]]] = {
    Channel.EXACT: exact,
    Channel.FUZZY: fuzzy,
    Channel.NGRAM: ngram,
    Channel.WORDS: words,
    Channel.TEXT: text,
}
