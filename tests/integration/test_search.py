"""Whole result orders on the fixture repository, one golden per query shape.

Each golden is the full top-5 for the query: rank, qualname, path, line, and every
channel in `why.channels` with its rank (and edit distance for fuzzy). Regenerate with
`pytest tests/integration/test_search.py --update-goldens` and review the diff by eye.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from symfind.daemon.config import Config
from symfind.storage import QueryError, Searcher, SearchQuery
from symfind.storage.router import route

GOLDENS = Path(__file__).resolve().parent / "goldens" / "search.json"

QUERIES = {
    "exact": "HttpClient",
    "lowercase": "httpclient",
    "typo_transposition": "HtppClient",
    "typo_drop": "AsyncClent",
    "typo_two_edits": "parse_haeder_lnks",
    "words": "http client",
    "words_snake": "parse header links",
    "qualified_dot": "AsyncClient.send",
    "qualified_hash": "AsyncClient#send",
    "qualified_go": "Server.Serve",
    "qualified_rust": "Runtime::block_on",
    "qualified_module": "httpkit.client.parse_header_links",
    "qualified_typo_name": "Runtime::blok_on",
    "qualified_typo_scope": "Runtmie::block_on",
    "qualified_cpp": "io::Buffer::flush",
    "prefix": "ListenAnd",
    "prose": "run a future to completion blocking the thread",
    "typescript_const": "createErrorClas",
}


def summarize(searcher: Searcher, query: str) -> list[list[object]]:
    response = searcher.search(SearchQuery(text=query, limit=5))
    rows: list[list[object]] = []
    for rank, result in enumerate(response.results, start=1):
        why = {
            name: [match.rank, match.distance] if match.distance is not None else [match.rank]
            for name, match in result.why.channels.items()
        }
        rows.append([rank, result.qualname, result.path, result.line, why])
    return rows


@pytest.fixture(scope="module")
def searcher(fixture_repo: Config) -> Searcher:
    return Searcher(fixture_repo.index_dir)


@pytest.fixture(scope="module")
def goldens(update_goldens: bool, searcher: Searcher) -> dict[str, object]:
    if update_goldens:
        data = {shape: {"query": q, "top5": summarize(searcher, q)} for shape, q in QUERIES.items()}
        GOLDENS.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return json.loads(GOLDENS.read_text(encoding="utf-8"))


@pytest.mark.parametrize("shape", sorted(QUERIES))
def test_result_order_matches_golden(shape: str, searcher: Searcher, goldens: dict) -> None:
    golden = goldens[shape]
    assert golden["query"] == QUERIES[shape]
    assert json.loads(json.dumps(summarize(searcher, QUERIES[shape]))) == golden["top5"]


def test_response_reports_route_channels_and_freshness(searcher: Searcher) -> None:
    response = searcher.search(SearchQuery(text="AsyncClinet", limit=1))
    assert (response.route, response.channels, response.freshness.files) == (
        "identifier",
        {"exact": 3.0, "fuzzy": 2.0, "abbrev": 2.0, "ngram": 0.7, "words": 0.7},
        len(searcher.manifest.files),
    )
    assert response.took_ms > 0


def test_response_carries_the_plan_that_ran(searcher: Searcher) -> None:
    query = SearchQuery(text="HtppClient", limit=3)
    checked_here = searcher.search(query)
    assert checked_here.plan == (
        "identifier 'HtppClient' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7 words×0.7")
    assert checked_here.plan == str(query.check())
    # A plan the caller checked is the one that runs (the query is not routed again): given
    # another query's plan, the answer is that query's.
    other = SearchQuery(text="Runtime::block_on", limit=3)
    given = searcher.search(query, other.check())
    assert (given.plan, given.route, given.results) == (
        str(other.check()), "qualified", searcher.search(other).results)


def words_ranking(searcher: Searcher, query: str) -> list[str]:
    """The words channel's own order for `query`: qualnames."""
    plan = msgspec.structs.replace(route(query), weights={"words": 1.0})
    rankings, found, _ = searcher._run(plan, [])
    return [found.symbols[key].qualname for key in rankings["words"]]


def test_a_name_typed_reads_the_names_holding_all_its_words(searcher: Searcher) -> None:
    """Typed as a name (`ClientHttp`, its words swapped), the words channel reads the
    names holding every one of its words; typed as words (`client http`), those holding
    any, the most first. A word no name holds (`Htpp`, a typo) leaves it nothing."""
    both = ["HttpClient", "HttpClient.__init__", "HttpClient.send", "HttpClient.close"]
    assert words_ranking(searcher, "ClientHttp") == both
    assert words_ranking(searcher, "client http") == both + [
        "HTTPServerError", "netgo.Handler.ServeHTTP", "AsyncClient", "FetchClient",
        "AsyncClient.send", "AsyncClient.aclose", "FetchClient.constructor",
        "FetchClient.request"]
    assert words_ranking(searcher, "HtppClient") == []


def test_ignored_directory_is_not_indexed(searcher: Searcher) -> None:
    assert searcher.search(SearchQuery(text="IgnoredGeneratedThing", limit=3)).results == [] or all(
        r.path != "ignored/generated.py" for r in searcher.search(SearchQuery(text="IgnoredGeneratedThing")).results
    )


def test_empty_answer_says_why_and_suggests_names(searcher: Searcher) -> None:
    response = searcher.search(SearchQuery(text="Zqxwvut", limit=5))
    assert (response.results, response.empty_reason) == (
        [],
        "no indexed definition matches 'Zqxwvut' closely enough",
    )


def test_filters_that_exclude_everything_explain_it(searcher: Searcher) -> None:
    response = searcher.search(SearchQuery(text="HttpClient", kind="macro"))
    assert response.results == []
    assert response.empty_reason == "nothing matches with these filters; these match without them"
    assert response.suggestions[0] == "HttpClient"


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"kind": "method"}, ["HttpClient.send", "AsyncClient.send"]),
        ({"language": "go"}, ["netgo.Server.ListenAndServe"]),
        ({"path": "httpkit/**"}, ["HttpClient.send", "AsyncClient.send"]),
        ({"path": "web/", "kind": "function"}, []),
    ],
)
def test_filters_restrict_results(searcher: Searcher, filters: dict, expected: list[str]) -> None:
    response = searcher.search(SearchQuery(text="send", limit=2, **filters))
    assert [r.qualname for r in response.results] == expected


@pytest.mark.parametrize("limit", [0, -1, 1001, 10**9])
def test_absurd_limits_are_refused(searcher: Searcher, limit: int) -> None:
    with pytest.raises(QueryError, match="limit must be between 1 and 1000"):
        searcher.search(SearchQuery(text="HttpClient", limit=limit))


@pytest.mark.parametrize(
    ("query", "route"),
    [
        ("name:*", "prose"),
        ("-x", "prose"),
        ("path:.env", "prose"),
        ("name:[* TO *]", "prose"),
        ("+(x)", "prose"),
        ("a~999", "identifier"),  # `~` belongs to C++ destructor names
        ("body:\"x", "prose"),
    ],
)
def test_tantivy_syntax_is_searched_as_plain_text(searcher: Searcher, query: str, route: str) -> None:
    response = searcher.search(SearchQuery(text=query, limit=5))
    assert (response.route, response.failures) == (route, {})


@pytest.mark.parametrize("query", ["((((", '"', "*", "", "q" * 10_000])
def test_unsearchable_queries_raise_query_error(searcher: Searcher, query: str) -> None:
    with pytest.raises(QueryError):
        searcher.search(SearchQuery(text=query))
