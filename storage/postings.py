"""BM25 of a name channel's matches from Tantivy's postings, without their records.

Imports: tantivy, `storage` modules.

A name channel (`ngram`, `words`, the fuzzy channel's pool) scores every live match of its
terms, up to `channels.SCORE_ALL_MATCHES`, by `storage.scoring.BM25`, from the tree alone.
From a match's record, that costs reading it (~4 µs at random in a large index) and
analysing its name again (~15 µs: a large repository has more names than any cache
keeps), most of a name search's time on go-stdlib. Two lists from Tantivy tell the same:

- which of the terms each match holds: one query whose term clauses score distinct powers
  of two (`_held`), so that a match's score names the terms it holds;
- Tantivy's own BM25 of each match, `Σ w'·tf / (tf + K'(dl))` over the terms it holds,
  where w' and K' come from Tantivy's statistics (deleted documents included: its N and
  a field's average length, read once a commit from an explanation, and
  `Searcher.doc_freq`).

With the match's field length (a fast field of each document, `schema.NAME_LENGTHS_FIELD`),
BM25 of its terms held once each is known, the same float, to the bit, as from its
record. That it holds each once shows as Tantivy's score being what they give held once:
a term held twice would add far more than Tantivy's f32 rounding (the least it would add
is checked too: a term nearly every document holds adds almost nothing). A match that
does not show it (a name holding a word twice, `Connection.connect`; a length not
Tantivy's) is `unsure`, scored from its record.

`score_ceiling` bounds, for any BM25 channel, how far a match's score can exceed Tantivy's
own score of it, so that a channel scoring every match reads them in Tantivy's order only
while one might still be among its best (`channels._best_of_all`).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from typing import NamedTuple

import tantivy

from symfind.storage.schema import NAME_LENGTHS_FIELD, name_length
from symfind.storage.scoring import B, BM25, K1, Statistics, field_norm

logger = logging.getLogger(__name__)

Occur = tantivy.Occur
Query = tantivy.Query
Key = tuple[int, int]

#: Terms one query tells apart: each scores a document by a power of two of its own,
#: and their sum, exact in Tantivy's f32 up to 2**24, names those the document holds.
MASK_TERMS = 24
#: How far Tantivy's f32 BM25 of a document may be from the one computed here (float64,
#: relative): a few ulps of f32 for the dozens of terms summed.
SCORE_TOLERANCE = 1e-5


class Selection(NamedTuple):
    """Which documents a name channel scores: those holding at least `least` of
    `drivers`; each scored over the BM25's terms, `others` among them counted only for
    the documents the drivers select (a common term adds to a score, never selects)."""

    field: str
    drivers: tuple[str, ...]
    least: int
    others: tuple[str, ...] = ()

    def query(self, schema: tantivy.Schema) -> Query:
        """The Tantivy query of the same documents, scored by Tantivy's BM25."""
        select = Query.boolean_query(
            [(Occur.Should, Query.term_query(schema, self.field, t)) for t in self.drivers],
            minimum_number_should_match=self.least)
        if not self.others:
            return select
        return Query.boolean_query(
            [(Occur.Must, select)]
            + [(Occur.Should, Query.term_query(schema, self.field, t)) for t in self.others])


class Matches(NamedTuple):
    """Every live document a selection holds, with its BM25 and its address; those that
    hold a term more than once (or might) are `unsure`, their scores to be read from
    their records."""

    scores: dict[Key, float]
    addresses: dict[Key, tantivy.DocAddress]
    unsure: list[Key]
    #: Which of the BM25's terms each match holds, as bits (`_held`; none: no match).
    held: dict[Key, int] | None = None


def scored(searcher: tantivy.Searcher, schema: tantivy.Schema, stats: Statistics,
           selection: Selection, scorer: BM25, filters: Sequence[Query],
           most: int) -> Matches | None:
    """The documents `selection` holds under `filters`, each with `scorer`'s BM25; None
    when they are more than `most` (then read as before: `channels._search`).

    Two lists from Tantivy, no record read: the documents with Tantivy's BM25 of the
    selection, and which terms each one holds (`_held`). With its length, a document's
    score is BM25's of those terms each held once; that it holds each once shows as
    Tantivy's score being what those terms held once give under Tantivy's statistics:
    a term held twice adds more than `SCORE_TOLERANCE` allows."""
    field = selection.field
    terms = [term for term, _ in scorer.weights]
    scores: dict[Key, float] = {}
    addresses: dict[Key, tantivy.DocAddress] = {}
    unsure: list[Key] = []
    if not terms:
        return Matches(scores, addresses, unsure)
    if _more_than(stats, selection, filters, most):
        return None
    # Filters decide which documents, never a score.
    unscored = [(Occur.Must, Query.const_score_query(f, 0.0)) for f in filters]
    query = selection.query(schema)
    if unscored:
        query = Query.boolean_query([(Occur.Must, query), *unscored])
    hits = searcher.search(query, max(1, min(scorer.postings, most + 1)), count=False).hits
    if not hits:
        return Matches(scores, addresses, unsure)
    if len(hits) > most:
        return None
    constants = _indexed_constants(searcher, schema, stats, field, terms[0])
    if constants is None:
        return None
    held = _held(searcher, schema, selection, terms, unscored, len(hits))
    listed = [address for _, address in hits]
    keys = [(address.segment_ord, address.doc) for address in listed]
    addresses.update(zip(keys, listed))
    lengths = [name_length(both, field)
               for both in searcher.fast_field_values(NAME_LENGTHS_FIELD, listed)]
    read = _Reading(searcher, field, constants, scorer)
    known, entry_of, held_of = read.known, read.entry, held.get
    # One loop over up to `most` matches a channel, kept tight (a name search runs three).
    for (given, _), key, length in zip(hits, keys, lengths):
        mask = held_of(key, 0)
        entry = known.get((mask, length)) or entry_of(mask, length)
        slack = SCORE_TOLERANCE * given
        if abs(given - entry[0]) <= slack and entry[1] > 4 * slack:
            scores[key] = entry[2]
        else:
            unsure.append(key)
    return Matches(scores, addresses, unsure, held)


def narrowed(wider: Matches, least: int) -> Matches:
    """The matches of a selection holding at least `least` of its terms, from `wider`,
    those of the same selection holding fewer (`Selection.least`), the same BM25 scoring
    them, and no `others`: a match's terms held are its bits in `held`. The fuzzy
    channel's pool and the ngram channel select by the same grams, 30 % and half of them:
    the ngram channel's matches are some of the pool's, not listed again. In `wider`'s
    order (Tantivy's, which both selections score alike); its unsure matches whose
    records have scored them since (in `scores`) are no longer unsure."""
    held = wider.held or {}
    scores = {key: score for key, score in wider.scores.items()
              if held.get(key, 0).bit_count() >= least}
    unsure = [key for key in wider.unsure
              if key not in scores and held.get(key, 0).bit_count() >= least]
    return Matches(scores, wider.addresses, unsure, held)


def score_ceiling(searcher: tantivy.Searcher, schema: tantivy.Schema, stats: Statistics,
                  scorers: Sequence[BM25]) -> float | None:
    """The most a document's score by `scorers` (summed, or scaled as Tantivy's query
    scales their fields) can be, as a multiple of Tantivy's own score of it for a query
    of their terms, each term boosted as its scorer boosts it (and any other clause only
    adding to Tantivy's score); None when Tantivy's statistics are unknown.

    Term by term, the two BM25s differ only by their statistics, live or Tantivy's
    (deleted documents counted): the inverse document frequencies' ratio, and, with the
    same tf and field norm, `(tf + K') / (tf + K)` between their length normalisations,
    at most `max(1, K' / K)`, itself at most the ratio of their length slopes (1 at
    length 0, theirs as the length grows). The largest ratio of any term bounds the sum,
    plus Tantivy's f32 rounding."""
    ceiling = 1.0
    for scorer in scorers:
        terms = [term for term, _ in scorer.weights]
        if not terms:
            continue
        constants = _indexed_constants(searcher, schema, stats, scorer.field, terms[0])
        if constants is None:
            return None
        documents, average = constants
        _, slope = scorer.norm_parts
        lengths = max(1.0, K1 * B / average / slope)
        for term in terms:
            n = searcher.doc_freq(scorer.field, term)
            indexed_idf = math.log(1.0 + (documents - n + 0.5) / (n + 0.5))
            ceiling = max(ceiling, stats.idf(scorer.field, term) / indexed_idf * lengths)
    return ceiling * (1.0 + SCORE_TOLERANCE)


def _more_than(stats: Statistics, selection: Selection, filters: Sequence[Query],
               most: int) -> bool:
    """Whether the selection holds more than `most` live documents for sure, told by the
    terms' live counts alone: with no filter, a selection of any one driver holds at
    least each driver's documents. A name channel past `most` (common words: `new`,
    `reader`) then lists no `most` + 1 matches only to learn it."""
    if filters or selection.least != 1:
        return False
    return any(stats.doc_freq(selection.field, term) > most for term in selection.drivers)


def _held(searcher: tantivy.Searcher, schema: tantivy.Schema, selection: Selection,
          terms: list[str], unscored: list, count: int) -> dict[Key, int]:
    """Which of `terms` each document the selection holds has, as bits (term i: 1 << i):
    queries whose term clauses score powers of two, `MASK_TERMS` terms a query."""
    field = selection.field
    select = Selection(field, selection.drivers, selection.least).query(schema)
    held: dict[Key, int] = {}
    for start in range(0, len(terms), MASK_TERMS):
        chunk = terms[start:start + MASK_TERMS]
        clauses = [(Occur.Should, Query.const_score_query(
            Query.term_query(schema, field, term), float(1 << i))) for i, term in enumerate(chunk)]
        alone = len(chunk) == len(terms) and not selection.others
        if alone:  # the drivers are these terms: the selection needs no clause of its own
            query = Query.boolean_query(clauses + unscored,
                                        minimum_number_should_match=selection.least)
        else:
            query = Query.boolean_query(
                clauses + unscored + [(Occur.Must, Query.const_score_query(select, 0.0))])
        for bits, address in searcher.search(query, count, count=False).hits:
            if bits:
                key = (address.segment_ord, address.doc)
                held[key] = held.get(key, 0) | int(bits) << start
    return held


class _Reading:
    """What a document holding some of a BM25's terms once each scores, by the terms
    held (bits) and its length: under Tantivy's statistics of the commit (its N and
    the field's average length, read from an explanation once a commit and field), the
    least a term held twice would add to that, and BM25's own score."""

    def __init__(self, searcher: tantivy.Searcher, field: str, constants: tuple[float, float],
                 scorer: BM25) -> None:
        documents, average = constants
        self._indexed_weights = [
            math.log(1.0 + (documents - n + 0.5) / (n + 0.5)) * (K1 + 1.0)
            for n in (searcher.doc_freq(field, term) for term, _ in scorer.weights)]
        self._indexed_slope = K1 * B / average
        self._weights = [weight for _, weight in scorer.weights]
        self._base, self._slope = scorer.norm_parts
        self.known: dict[tuple[int, int], tuple[float, float, float]] = {}

    def entry(self, mask: int, length: int) -> tuple[float, float, float]:
        norm_length = field_norm(length)
        indexed_k = K1 * (1.0 - B) + self._indexed_slope * norm_length
        norm = self._base + self._slope * norm_length
        once, twice = 1.0 / (1.0 + indexed_k), 2.0 / (2.0 + indexed_k)
        indexed, margin, score = 0.0, math.inf, 0.0
        for i, weight in enumerate(self._weights):  # in the terms' order, as BM25 sums
            if mask >> i & 1:
                indexed += self._indexed_weights[i] * once
                margin = min(margin, self._indexed_weights[i] * (twice - once))
                score += weight * 1 / (1 + norm)
        entry = self.known[(mask, length)] = (indexed, margin, score)
        return entry


def _indexed_constants(searcher: tantivy.Searcher, schema: tantivy.Schema, stats: Statistics,
                       field: str, term: str) -> tuple[float, float] | None:
    """Tantivy's N and average length of `field` in the commit, from the explanation of a
    term some live document holds (kept for the commit); None, and a warning, when the
    explanation gives neither (not the Tantivy `pyproject.toml` pins)."""
    if field not in stats.indexed_constants:
        query = Query.term_query(schema, field, term)
        address = searcher.search(query, 1, count=False).hits[0][1]
        found = _explained(query.explain(searcher, address).to_json())
        if found is None:
            logger.warning("Tantivy's explanation gives no N and average length: name "
                           "channels read their matches' records")
        stats.indexed_constants[field] = found
    return stats.indexed_constants[field]


def _explained(explanation: str) -> tuple[float, float] | None:
    """N and the average length (`avgdl`) a term query's explanation gives, if it does."""
    found: dict[str, float] = {}

    def walk(node: dict) -> None:
        description = node.get("description", "")
        for name in ("N", "avgdl"):
            if description.startswith(f"{name}, "):
                found[name] = float(node["value"])
        for child in node.get("details", ()):
            walk(child)

    walk(json.loads(explanation))
    return (found["N"], found["avgdl"]) if len(found) == 2 else None
