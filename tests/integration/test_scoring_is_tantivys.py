"""On an index without deleted documents, `storage.scoring`'s BM25 is Tantivy's own: the
score symfind computes from a candidate's record and the live statistics equals, to
Tantivy's float32, the score Tantivy gives the same document for the same terms. Field
lengths counted another way (stop words kept, lengths not rounded to a field norm) would
rank a fresh index otherwise than Tantivy's BM25 did before issue 35."""

from __future__ import annotations

import collections
import itertools
import random
from pathlib import Path

import pytest
import tantivy

from symfind.storage.index import open_tantivy
from symfind.storage.schema import (
    LENGTH_FIELDS,
    SCORED_FIELDS,
    analyzers,
    decode_record,
    field_length,
    scored_text,
    scored_texts,
)
from symfind.storage.scoring import BM25, Statistics, _terms, field_norm
from tests.integration.test_same_tree_same_answer import (
    Extractions,
    build,
    corpus_root,
    original_tree,
)

TERMS_PER_FIELD = 40
HITS_PER_QUERY = 200
RELATIVE_TOLERANCE = 2e-6  # Tantivy sums float32; symfind float64


@pytest.fixture(scope="module")
def fresh_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    index_dir = tmp_path_factory.mktemp("scoring") / "index"
    repo = corpus_root("requests")
    build(index_dir, repo, Extractions(), original_tree(repo))
    return index_dir


def sampled_terms(searcher: tantivy.Searcher, field: str, seed: int) -> list[str]:
    """Terms of `field` as the index holds them, from a random sample of its documents."""
    rng = random.Random(seed)
    analyzer = analyzers()[SCORED_FIELDS[field]]
    documents = searcher.search(tantivy.Query.all_query(), searcher.num_docs).hits
    terms: set[str] = set()
    for _score, address in rng.sample(documents, min(300, len(documents))):
        terms.update(analyzer.analyze(scored_text(decode_record(
            searcher.doc(address)["record"][0]), field)))
    return rng.sample(sorted(terms), min(TERMS_PER_FIELD, len(terms)))


def assert_scores_match(searcher: tantivy.Searcher, stats: Statistics, field: str,
                        terms: list[str], query: tantivy.Query) -> int:
    hits = searcher.search(query, HITS_PER_QUERY).hits
    candidates = [((address.segment_ord, address.doc),
                   decode_record(searcher.doc(address)["record"][0])) for _, address in hits]
    ours = BM25(stats, field, terms)(candidates)
    for (theirs, _), score, (_, symbol) in zip(hits, ours, candidates):
        assert score == pytest.approx(theirs, rel=RELATIVE_TOLERANCE), (
            field, terms, symbol.path, symbol.line, symbol.name)
    return len(hits)


@pytest.mark.parametrize("field", sorted(SCORED_FIELDS))
def test_bm25_is_tantivys_on_a_fresh_index(fresh_index: Path, field: str) -> None:
    index = open_tantivy(fresh_index)
    searcher = index.searcher()
    stats = Statistics(searcher, index.schema)
    terms = sampled_terms(searcher, field, seed=len(field))
    compared = 0
    for term in terms:
        query = tantivy.Query.term_query(index.schema, field, term)
        compared += assert_scores_match(searcher, stats, field, [term], query)
    for pair in itertools.islice(itertools.combinations(terms, 2), 0, 40, 4):
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.term_query(index.schema, field, term))
             for term in pair])
        compared += assert_scores_match(searcher, stats, field, list(pair), query)
    assert compared >= TERMS_PER_FIELD


def test_a_fields_length_is_the_tokens_its_analyzer_keeps(fresh_index: Path) -> None:
    """What the writer stores for the average is what analysis keeps, on every document of
    the package (`field_length`), and each file's sum of it (`file_documents`: the lengths
    of a file, on one of its documents); the field norm rounds it as Tantivy does."""
    index = open_tantivy(fresh_index)
    searcher = index.searcher()
    documents = searcher.search(tantivy.Query.all_query(), searcher.num_docs).hits
    assert len(documents) == searcher.num_docs > 500
    analysed: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for _score, address in documents:
        symbol = decode_record(searcher.doc(address)["record"][0])
        for field, text in scored_texts(symbol).items():
            tokens = analyzers()[SCORED_FIELDS[field]].analyze(text) if text else []
            assert field_length(field, text) == len(tokens), (field, text)
            analysed[symbol.path][field] += len(tokens)
    assert len(analysed) > 20
    for path, lengths in analysed.items():
        stored = searcher.aggregate(
            tantivy.Query.term_query(index.schema, "path", path),
            {field: {"sum": {"field": LENGTH_FIELDS[field]}} for field in SCORED_FIELDS})
        assert {field: stored[field]["value"] for field in SCORED_FIELDS} == {
            field: lengths[field] for field in SCORED_FIELDS}, path


def analysed_terms(field: str, text: str) -> tuple[dict[str, int], int]:
    tokens = analyzers()[SCORED_FIELDS[field]].analyze(text) if text else []
    return dict(collections.Counter(tokens)), field_norm(len(tokens))


def test_a_records_terms_are_its_whole_texts_analysis(fresh_index: Path) -> None:
    """Scoring analyses a text of words only a word at a time, each word's analysis kept
    for the next text: every scored field of every document of the package has the terms
    and length that analysing its whole text gives."""
    searcher = open_tantivy(fresh_index).searcher()
    documents = searcher.search(tantivy.Query.all_query(), searcher.num_docs).hits
    compared = 0
    for _score, address in documents:
        for field, text in scored_texts(decode_record(searcher.doc(address)["record"][0])).items():
            assert _terms(field, text) == analysed_terms(field, text), (field, text)
            compared += bool(text)
    assert compared > 1500


@pytest.mark.parametrize("text", [
    "the size of a file", "Read The FILE twice", "x" * 39 + " y " + "x" * 40,
    "utf8 decode 2 retries", "  spaced   out ", "é" * 19 + " é", "a-b c_d", "naïve café",
    "line\nbreak", "",
])
def test_a_texts_terms_are_its_analysis(text: str) -> None:
    """Texts of words only and texts of anything else (analysed whole)."""
    for field in ("text", "body"):
        assert _terms(field, text) == _terms(field, text) == analysed_terms(field, text)


@pytest.mark.parametrize("text, kept", [
    ("the size of a file", 2),                       # stop words dropped
    ("x" * 39 + " y", 2), ("x" * 40 + " y", 1),      # a word of 40 bytes dropped
    ("é" * 19 + " y", 2), ("é" * 20 + " y", 1),      # bytes, not characters
    ("", 0),
])
def test_text_length_counts_as_the_analyzer(text: str, kept: int) -> None:
    assert field_length("text", text) == kept == len(analyzers()["text_en"].analyze(text))


def test_field_norms_round_down_as_tantivys() -> None:
    assert [field_norm(n) for n in (0, 40, 41, 42, 43, 56, 57, 59, 60, 1_047, 1_048)] == [
        0, 40, 40, 42, 42, 56, 56, 56, 60, 984, 1_048]
