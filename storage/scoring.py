"""Scores and ties that depend only on the tree: the same files give the same ranking,
whether their index was built at once or followed by a daemon through any history.

Imports: tantivy, `extract.records`, `storage` modules.

Tantivy's BM25 reads statistics over every document its segments hold, the deleted ones
included until a merge drops them: document frequencies, the number of documents and the
fields' average lengths. A daemon that followed a checkout through a few branch switches
holds more deleted documents than live ones (requests: 2,921 documents for 842 symbols),
merges are Tantivy's own business (tantivy-py offers no way to ask for one), and so the
same files ranked differently in the daemon's index and in a fresh one. Tantivy also sums
a query's term scores in f32 in an order that follows document addresses: the same
definition scored 30.468805 in one segment and 30.468803 in another. And among equal
scores its top-k keeps the lowest document addresses.

So the channels ask Tantivy for candidates only (more than they keep, `RETRIEVAL_FACTOR`),
and score them here with Tantivy's own BM25 (k1 1.2, b 0.75) computed from what does not
depend on the index's history:

- N, the live documents (`Searcher.num_docs`), and n(t), the live documents holding a
  term, counted (Tantivy's count skips deleted documents), once per commit;
- tf and the field's length, from the candidate's own record analysed as it was indexed
  (`schema.scored_text`): the tokens analysis keeps, rounded down to one of the 256
  lengths Tantivy's field norms can hold (`field_norm`);
- the average length: the sum of the live documents' lengths (each document keeps its
  own, counted as Tantivy counts tokens, `schema.field_length`, in a fast field, which
  Tantivy's aggregation sums over live documents only) over N.

in float64, terms in sorted order. On an index without deleted documents these are
Tantivy's own statistics, so a fresh index ranks as Tantivy's BM25 would. Equal scores
are then told apart by the tree: `tie_key`.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Iterable, Sequence
from typing import Any

import tantivy

from symfind.extract.records import Symbol
from symfind.storage.schema import (
    LENGTH_FIELDS,
    SCORED_FIELDS,
    analyzers,
    name_field_text,
    scored_text,
)

K1 = 1.2
B = 0.75
#: Documents whose analysed field a commit's statistics keep, per field
#: (`Statistics.field_terms`).
FIELD_TERMS_KEPT = 16_384  # per field: as many in all as `_name_terms` and `_record_terms` keep


def _field_norms() -> tuple[int, ...]:
    """The lengths a Tantivy field norm can hold, one byte's worth: every length up to 40,
    then eight steps of 2, eight of 4, eight of 8 and so on."""
    norms, step = list(range(41)), 2
    while len(norms) < 256:
        last = norms[-1]
        norms.extend(last + step * i for i in range(1, 9))
        step *= 2
    return tuple(norms[:256])


FIELD_NORMS = _field_norms()


def field_norm(length: int) -> int:
    """`length` as Tantivy's field norm keeps it: the largest of `FIELD_NORMS` not above it."""
    return length if length <= 40 else FIELD_NORMS[bisect.bisect_right(FIELD_NORMS, length) - 1]


class Statistics:
    """The live documents' statistics of one commit, counted when first asked."""

    def __init__(self, searcher: tantivy.Searcher, schema: tantivy.Schema) -> None:
        self._searcher = searcher
        self._schema = schema
        self.num_docs: int = searcher.num_docs
        self._frequencies: dict[tuple[str, str], int] = {}
        self._average_lengths: dict[str, float] | None = None
        #: `field_terms` kept, per field by document key.
        self.kept_field_terms: dict[str, dict[tuple[int, int], tuple[dict[str, int], int]]] = {
            field: {} for field in SCORED_FIELDS}
        #: Tantivy's own N and average length of a field, whose BM25 (deleted documents
        #: counted) `storage.postings` solves for tf, by field.
        self.indexed_constants: dict[str, tuple[float, float] | None] = {}

    def average_length(self, field: str) -> float:
        """The live documents' average length of a scored field (1 in an empty index)."""
        if self._average_lengths is None:
            sums = self._searcher.aggregate(tantivy.Query.all_query(), {
                field: {"sum": {"field": LENGTH_FIELDS[field]}} for field in SCORED_FIELDS})
            self._average_lengths = {
                field: (sums[field]["value"] or 0.0) / self.num_docs if self.num_docs else 1.0
                for field in SCORED_FIELDS}
        return self._average_lengths[field] or 1.0

    def doc_freq(self, field: str, term: str) -> int:
        """Live documents whose `field` holds `term` (Tantivy's `doc_freq` counts the deleted
        ones too, until a merge drops them)."""
        key = (field, term)
        count = self._frequencies.get(key)
        if count is None:
            if self._searcher.doc_freq(field, term) == 0:
                count = 0  # none at all: no postings to read
            else:
                query = tantivy.Query.term_query(self._schema, field, term)
                count = self._searcher.search(query, 1, count=True).count or 0
            self._frequencies[key] = count
        return count

    def field_terms(
        self, field: str, key: tuple[int, int], symbol: Symbol
    ) -> tuple[dict[str, int], int]:
        """The analysed terms (their counts) and the length of a scored field in the
        record `symbol` of document `key`, kept for the commit (up to `FIELD_TERMS_KEPT`):
        a query's BM25 channels score hundreds of candidates, most of them seen before."""
        kept = self.kept_field_terms[field]
        entry = kept.get(key)
        if entry is None:
            if len(kept) >= FIELD_TERMS_KEPT:
                kept.clear()
            entry = kept[key] = _field_terms(symbol, field)
        return entry

    def idf(self, field: str, term: str) -> float:
        """BM25's inverse document frequency, as Tantivy computes it."""
        frequency = self.doc_freq(field, term)
        return math.log(1.0 + (self.num_docs - frequency + 0.5) / (frequency + 0.5))


def _field_terms(symbol: Symbol, field: str) -> tuple[dict[str, int], int]:
    """A scored field's analysed terms in one record (their counts), and its length as
    its field norm holds it."""
    if field == "name_ngram":
        return _name_terms(field, symbol.name)
    if field == "words":
        return _name_terms(field, symbol.qualname)
    return _record_terms(symbol, field)


@functools.lru_cache(maxsize=32768)
def _name_terms(field: str, name: str) -> tuple[dict[str, int], int]:
    """`_terms` of a field made of a name (`name_ngram`) or a qualified name (`words`)
    alone, kept by that name: many definitions share one (`String`, `Close`,
    `Reader.Read`), and a name met again costs neither its text nor its analysis."""
    return _terms(field, name_field_text(field, name))


@functools.lru_cache(maxsize=32768)
def _record_terms(symbol: Symbol, field: str) -> tuple[dict[str, int], int]:
    return _terms(field, scored_text(symbol, field))


def _terms(field: str, text: str) -> tuple[dict[str, int], int]:
    # A plain dict, not a Counter: of strings and integers only, it is no work for the
    # garbage collector, whose full passes over the tens of thousands kept (and the
    # tuples holding them) took a fifth of a warm search's time on go-stdlib.
    if SCORED_FIELDS[field] == "text_en" and _words_only(text):
        return _text_terms(text)
    tokens = analyzers()[SCORED_FIELDS[field]].analyze(text) if text else []
    terms = dict.fromkeys(tokens, 1)  # most terms occur once: counted only when not
    if len(terms) < len(tokens):
        terms = dict.fromkeys(tokens, 0)
        for token in tokens:
            terms[token] += 1
    return terms, field_norm(len(tokens))


def _words_only(text: str) -> bool:
    """Whether `text` is ASCII letters and digits between spaces: then Tantivy's simple
    tokenizer (which splits at whatever is not a letter or digit) splits it as
    `str.split` does."""
    return text.isascii() and text.replace(" ", "").isalnum()


#: `text_en`'s analysis of one word: its stem, or None for a word it drops (a stop
#: word, a long one). The text and body of a question's candidates repeat a thousand or
#: so words, and analysing each whole text cost a question from the command line ~10 ms
#: more than looking each word up here.
_STEMS: dict[str, str | None] = {}
STEMS_KEPT = 32_768  # ~5 MB at most


def _text_terms(text: str) -> tuple[dict[str, int], int]:
    """`_terms` of a `text_en` field holding words only (`_words_only`): each word
    analysed alone, as the analyzer's filters treat each token alone."""
    stems, terms, length = _STEMS, {}, 0
    for word in text.split():
        try:
            stem = stems[word]
        except KeyError:
            if len(stems) >= STEMS_KEPT:
                stems.clear()
            analysed = analyzers()["text_en"].analyze(word)
            stem = stems[word] = analysed[0] if analysed else None
        if stem is not None:
            terms[stem] = terms.get(stem, 0) + 1
            length += 1
    return terms, field_norm(length)


class BM25:
    """A query's BM25 in one field, from the tree alone: call it with candidates' records.

    Each term counts once; `boosts` multiplies a term's part (1 for a term it lacks)."""

    def __init__(self, stats: Statistics, field: str, terms: Iterable[str],
                 boosts: dict[str, float] | None = None) -> None:
        self.field = field
        self._stats = stats
        #: Each term some live document holds, in sorted order (the order a score sums
        #: them in), with its weight.
        self.weights = [
            (term, stats.idf(field, term) * (K1 + 1.0) * (boosts.get(term, 1.0) if boosts else 1.0))
            for term in sorted(set(terms)) if stats.doc_freq(field, term)
        ]
        self._norm = K1 * (1.0 - B)
        self._slope = K1 * B / stats.average_length(field)
        #: Live documents listed under its terms: at least as many as hold any of them.
        self.postings = sum(stats.doc_freq(field, term) for term, _ in self.weights)
        #: Scores given, by document key: a search asks twice for the same terms' scores
        #: of many of the same documents (the fuzzy channel's pool and the ngram channel).
        self._given: dict[Any, float] = {}

    def __call__(self, records: Sequence[tuple[Any, ...]]) -> list[float]:
        """The scores of `records` of the commit counted, in order, each a tuple that
        starts with a document key and its record (`channels.Candidate`): one call for a
        channel's candidates, its loop kept tight (hundreds a query)."""
        if not self.weights:
            return [0.0] * len(records)
        field, weights, base, slope = self.field, self.weights, self._norm, self._slope
        kept, field_terms = self._stats.kept_field_terms[field], self._stats.field_terms
        given = self._given
        scores = []
        for record in records:
            key = record[0]
            score = given.get(key)
            if score is None:
                entry = kept.get(key)
                counts, length = entry if entry is not None else field_terms(field, *record[:2])
                norm = base + slope * length
                score = 0.0
                for term, weight in weights:
                    tf = counts.get(term)
                    if tf:
                        score += weight * tf / (tf + norm)
                given[key] = score
            scores.append(score)
        return scores

    @property
    def norm_parts(self) -> tuple[float, float]:
        """A document's length normalisation is `base + slope · length`: (base, slope)."""
        return self._norm, self._slope


def tie_key(symbol: Symbol) -> tuple[object, ...]:
    """The last tie-break: where the definition is and what it is, every field of its
    record that can tell two apart (never where its document happens to sit)."""
    return (symbol.path, symbol.line, symbol.name, symbol.qualname, str(symbol.kind),
            symbol.end_line, symbol.start_line, symbol.signature, symbol.doc, symbol.body)
