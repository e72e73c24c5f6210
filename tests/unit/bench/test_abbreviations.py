"""bench.abbreviations: the five query shapes made from a name, and the IDE-finder baseline's
scores."""

from __future__ import annotations

import random

import pytest

from bench import abbreviations
from bench.groundtruth import Definition


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("AdminBigIntegerFieldWidget", ["ABIFW", "AdmnBgIntgrFldWdgt", "admbigintfiewid",
                                        "AdminIntegerFieldWidget", "BigAdminIntegerFieldWidget"]),
        ("parse_header_links", ["PHL", "prs_hdr_lnks", "parhealin", "header_links",
                                "header_parse_links"]),
        ("MAX_BUFFER_SIZE", ["MBS", "MX_BFFR_SZ", "maxbufsiz", "BUFFER_SIZE", "BUFFER_MAX_SIZE"]),
        ("getHTTPServerError", ["GHSE", "gtHTTPSrvrErrr", "gethttsererr", "getServerError",
                                "getHTTPErrorServer"]),
        ("join_multicast_v6", ["JMV", "jn_mltcst_v6", "joimulv6", "multicast_v6",
                               "multicast_join_v6"]),
    ],
)
def test_each_shape_of_a_name(name: str, expected: list[str]) -> None:
    rng = random.Random(1)
    assert [abbreviations.query_text(shape, name, rng) for shape in abbreviations.SHAPES] == expected


def test_queries_come_from_unambiguous_names_of_three_words() -> None:
    defs = [Definition(name=name, kind="class", ctags_kind="class", language="python",
                       path="a.py", line=line)
            for line, name in enumerate(["AdminBigIntegerFieldWidget", "AdminIntegerFieldWidget",
                                         "HttpClient", "http_server_error",
                                         "HTTPServerError"], start=1)]
    queries = abbreviations.make_queries(defs, "c", per_shape=5)
    # HttpClient has two words; http_server_error is HTTPServerError (ambiguous). Each
    # shape's names in the order its seed shuffles them.
    assert [(q["shape"], q["query"], q["name"]) for q in queries] == [
        ("humps", "ABIFW", "AdminBigIntegerFieldWidget"),
        ("humps", "AIFW", "AdminIntegerFieldWidget"),
        ("skeleton", "AdmnIntgrFldWdgt", "AdminIntegerFieldWidget"),
        ("skeleton", "AdmnBgIntgrFldWdgt", "AdminBigIntegerFieldWidget"),
        ("prefixes", "admbigintfiewid", "AdminBigIntegerFieldWidget"),
        ("prefixes", "admintfiewid", "AdminIntegerFieldWidget"),
        ("forgotten", "BigIntegerFieldWidget", "AdminBigIntegerFieldWidget"),
        ("forgotten", "IntegerFieldWidget", "AdminIntegerFieldWidget"),
        ("swapped", "AdminIntegerBigFieldWidget", "AdminBigIntegerFieldWidget"),
        ("swapped", "IntegerAdminFieldWidget", "AdminIntegerFieldWidget"),
    ]


def test_ide_finder_scores_word_starts_and_runs() -> None:
    def score(query: str, name: str) -> int | None:
        return abbreviations.ide_score(query, name, abbreviations._starts(name))

    name = "AdminBigIntegerFieldWidget"
    assert [score(q, name) for q in ("ABIFW", "abifw", "admbig", "AdminBigFieldWidget",
                                      "AdminIntegerBigFieldWidget", "zz")] == [
        104, 104, 132, 399, None, None]
    # Initials at word starts beat the same letters scattered inside words.
    assert score("abifw", "abifw_thing") > score("abifw", name) > score(
        "abifw", "AbstractBindingInterfaceForWidgets")


def test_a_forgotten_word_query_counts_the_names_it_fits_and_the_report_their_chance() -> None:
    defs = [Definition(name=name, kind="function", ctags_kind="function", language="python",
                       path="a.py", line=line)
            for line, name in enumerate(["test_get_item_count", "test_put_item_count",
                                         "load_config_file", "item_count_total"], start=1)]
    queries = [q for q in abbreviations.make_queries(defs, "c", per_shape=4)
               if q["shape"] == "forgotten"]
    # `test_item_count` is both tests' names with a word left out, each other query one
    # name's (the word left out is the seed's).
    assert [(q["query"], q["name"], q["fits"]) for q in queries] == [
        ("put_item_count", "test_put_item_count", 1), ("item_total", "item_count_total", 1),
        ("test_item_count", "test_get_item_count", 2), ("load_config", "load_config_file", 1)]
    rows = [{**q, "tool": "symfind", "rank": 1, "took_ms": 1.0} for q in queries]
    assert ("forgotten: the R@1 of a tool that finds every name the query is with one word "
            "left out and picks one of them by chance, mean of corpora: 0.875 (per corpus: 0.88)."
            ) in abbreviations.report(rows)


def test_a_forgotten_word_query_fits_its_target_even_when_its_words_run_together() -> None:
    # `testLANG_1152` without `LANG` is rebuilt as `test1152`: one word to the splitter.
    defs = [Definition(name="testLANG_1152", kind="method", ctags_kind="method",
                       language="java", path="A.java", line=1)]
    assert [(q["query"], q["fits"]) for q in abbreviations.make_queries(defs, "c", per_shape=1)
            if q["shape"] == "forgotten"] == [("test1152", 1)]
