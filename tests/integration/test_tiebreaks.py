"""Ties between names that differ only in case or in the order of their words: the case
and the order the user typed decide (a real index; the wrongly-cased or wrongly-ordered
name sits in the file that path order would put first)."""

from __future__ import annotations

import pytest

from symfind.storage import Searcher, SearchQuery

from tests.integration.conftest import searcher_over

# Each name the query means is the one the other channels like less: a longer qualname
# (ngram and words score the qualname too) and a later path.
FILES = {
    "a_transport.go": "package transport\n\nfunc CloseStream() {}\n\nfunc Register() {}\n",
    "b_http2_client.go": (
        "package transport\n\ntype http2ClientTransport struct{}\n\n"
        "func (t *http2ClientTransport) closeStream() {}\n\nfunc (t *http2ClientTransport) register() {}\n"
    ),
    "a_streams.go": (
        "package t\n\nfunc CloseStreams() {}\n\nfunc CloseStreamNow() {}\n\n"
        "func Registers() {}\n\nfunc RegisterAll() {}\n"
    ),
    "a_Cases.java": (
        "class Cases {\n"
        "  public void testLargeUnary() {}\n"
        "  public void testLargeUnaryCall() {}\n"
        "  public void testLargeUnaries() {}\n"
        "  public void testServerMaxHeaderListSizeClientIntentionalViolation() {}\n"
        "}\n"
    ),
    "b_AbstractInteropTest.java": (
        "class AbstractInteropTest {\n"
        "  public void TestLargeUnary() {}\n"
        "  public void testClientMaxHeaderListSizeServerIntentionalViolation() {}\n"
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return searcher_over(tmp_path_factory, "tiebreaks", FILES)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("closeStrem", ["transport.http2ClientTransport.closeStream", "transport.CloseStream"]),
        ("CloseStrem", ["transport.CloseStream", "transport.http2ClientTransport.closeStream"]),
        ("registr", ["transport.http2ClientTransport.register", "transport.Register"]),
        ("Registr", ["transport.Register", "transport.http2ClientTransport.register"]),
        ("TestLaregUnary", ["AbstractInteropTest.TestLargeUnary", "Cases.testLargeUnary"]),
        ("testLaregUnary", ["Cases.testLargeUnary", "AbstractInteropTest.TestLargeUnary"]),
    ],
)
def test_the_case_typed_breaks_ties_between_names_at_the_same_distance(
    searcher: Searcher, query: str, expected: list[str]
) -> None:
    assert [r.qualname for r in searcher.search(SearchQuery(text=query, limit=2)).results] == expected


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("test client max header list size server intentional violation", "testClient"),
        ("test server max header list size client intentional violation", "testServer"),
    ],
)
def test_the_order_of_words_typed_breaks_ties_between_names_with_the_same_words(
    searcher: Searcher, query: str, first: str
) -> None:
    results = searcher.search(SearchQuery(text=query, limit=2)).results
    other = "testServer" if first == "testClient" else "testClient"
    assert [r.name for r in results] == [
        f"{first}MaxHeaderListSize{other.removeprefix('test')}IntentionalViolation",
        f"{other}MaxHeaderListSize{first.removeprefix('test')}IntentionalViolation",
    ]
