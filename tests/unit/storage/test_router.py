"""Routing is a table: query → plan, compared as the plan's readable form."""

from __future__ import annotations

import pytest

from symfind.storage.errors import QueryError
from symfind.storage.router import MAX_QUERY_CHARS, route

ROUTES = [
    ("HtppClient", "identifier 'HtppClient' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7 words×0.7"),
    ("send", "identifier 'send' → exact×3 fuzzy≤1×2 abbrev×2 ngram×0.7"),
    ("io", "identifier 'io' → exact×3 ngram×0.7"),
    # Abbreviations run beside the rest (of three characters or more, as fuzzy).
    ("ABIFW", "identifier 'ABIFW' → exact×3 fuzzy≤1×2 abbrev×2 ngram×0.7"),
    ("admbigintfiewid", "identifier 'admbigintfiewid' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7"),
    (
        "AdmnBgIntgrFldWdgt",
        "identifier 'AdmnBgIntgrFldWdgt' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7 words×0.7",
    ),
    ("ab", "identifier 'ab' → exact×3 ngram×0.7"),
    ("parse_header_links", "identifier 'parse_header_links' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7 words×0.7"),
    ("AsyncClient#send", "qualified 'AsyncClient.send' → exact×3 fuzzy≤1×2 abbrev×2 ngram×0.7"),
    ("AsyncClient.send", "qualified 'AsyncClient.send' → exact×3 fuzzy≤1×2 abbrev×2 ngram×0.7"),
    ("AsyncClient::send", "qualified 'AsyncClient.send' → exact×3 fuzzy≤1×2 abbrev×2 ngram×0.7"),
    ("pkg.mod.func", "qualified 'pkg.mod.func' → exact×3 fuzzy≤1×2 abbrev×2 ngram×0.7"),
    ("pkg/mod.Func", "qualified 'pkg.mod.Func' → exact×3 fuzzy≤1×2 abbrev×2 ngram×0.7"),
    ("Runtime::block_on", "qualified 'Runtime.block_on' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7 words×0.7"),
    ("conn->close", "qualified 'conn.close' → exact×3 fuzzy≤1×2 abbrev×2 ngram×0.7"),
    ("App\\Http\\Client", "qualified 'App.Http.Client' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7"),
    ("  http   client ", "words 'http client' → exact×3 words×1.5 text×0.5"),
    ("parse header links", "words 'parse header links' → exact×3 words×1.5 text×0.5"),
    ("HttpClient Builder", "words 'http client builder' → exact×3 words×1.5 text×0.5"),
    # A question is a question however short: what the words are decides, not how many.
    ("where are redirects followed",
     "prose 'where are redirects followed' → exact×3 text×1 vector×1"),
    ("where are redirects followed?", "prose 'where are redirects followed' → text×1 vector×1"),
    ("Where Are Redirects Followed",
     "prose 'where are redirects followed' → exact×3 text×1 vector×1"),
    ("what retries uploads", "prose 'what retries uploads' → exact×3 text×1 vector×1"),
    ("how to retry", "prose 'how to retry' → exact×3 text×1 vector×1"),
    ("how retry", "words 'how retry' → exact×3 words×1.5 text×0.5"),
    ("does it retry", "prose 'does it retry' → exact×3 text×1 vector×1"),
    ("is there a limit", "prose 'is there a limit' → exact×3 text×1 vector×1"),
    # (the exact channel still runs, for a name spelled so: `hasTheKey`)
    ("has the key", "prose 'has the key' → exact×3 text×1 vector×1"),
    # ... and a name typed as words stays a name, whatever word it starts with.
    ("where clause", "words 'where clause' → exact×3 words×1.5 text×0.5"),
    ("when ready", "words 'when ready' → exact×3 words×1.5 text×0.5"),
    ("is empty", "words 'is empty' → exact×3 words×1.5 text×0.5"),
    ("is in range", "words 'is in range' → exact×3 words×1.5 text×0.5"),
    ("can retry upload", "words 'can retry upload' → exact×3 words×1.5 text×0.5"),

    (
        "where do we parse the config file",
        "prose 'where do we parse the config file' → exact×3 text×1 vector×1",
    ),
    ("name:*", "prose 'name' → text×1 vector×1"),
    ("-x", "prose 'x' → text×1 vector×1"),
    ("a AND b OR c~2", "prose 'a and b or c 2' → text×1 vector×1"),
    # Any script: a letter is a letter, a digit a digit.
    ("привет_мир", "identifier 'привет_мир' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7 words×0.7"),
    ("计算总和", "identifier '计算总和' → exact×3 fuzzy≤1×2 abbrev×2 ngram×0.7"),
    ("ｆｕｌｌｗｉｄｔｈ", "identifier 'ｆｕｌｌｗｉｄｔｈ' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7"),
    ("ｆｕｌｌ＿ｗｉｄｔｈ", "identifier 'ｆｕｌｌ＿ｗｉｄｔｈ' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7 words×0.7"),
    ("Модуль::привет_мир", "qualified 'Модуль.привет_мир' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7 words×0.7"),
    ("नमस्ते", "identifier 'नमस्ते' → exact×3 fuzzy≤2×2 abbrev×2 ngram×0.7"),
    ("привет мир", "words 'привет мир' → exact×3 words×1.5 text×0.5"),
    ("привет мир как дела сегодня", "prose 'привет мир как дела сегодня' → exact×3 text×1 vector×1"),
    ("где читается файл настроек ?", "prose 'где читается файл настроек' → text×1 vector×1"),
    ("a—b", "prose 'a b' → text×1 vector×1"),
]


@pytest.mark.parametrize(("query", "plan"), ROUTES)
def test_query_routes_to_plan(query: str, plan: str) -> None:
    assert str(route(query)) == plan


def test_queries_are_taken_composed_and_matched_in_nfkc() -> None:
    decomposed = route("cafe\u0301")  # `e` + COMBINING ACUTE ACCENT
    assert (decomposed.name, decomposed.key) == ("café", "café")
    wide = route("ＰｏｌｌＦｕｔｕｒｅ")
    assert (wide.name, wide.key, wide.words) == ("ＰｏｌｌＦｕｔｕｒｅ", "pollfuture", ("poll", "future"))


def test_qualified_plan_keeps_scope_segments_as_typed() -> None:
    plan = route("tokio::Runtime::blok_on")
    assert (plan.scope, plan.name, plan.key, plan.max_edits) == (
        ("tokio", "Runtime"), "blok_on", "blokon", 2,
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "empty query"),
        ("   \t ", "empty query"),
        ("((((", "nothing searchable"),
        ('"', "nothing searchable"),
        ("*", "nothing searchable"),
        ("«»—✓", "nothing searchable"),
        ("x" * (MAX_QUERY_CHARS + 1), f"the limit is {MAX_QUERY_CHARS}"),
        ("y" * 10_000, f"the limit is {MAX_QUERY_CHARS}"),
    ],
)
def test_unsearchable_queries_raise_a_clear_error(query: str, message: str) -> None:
    with pytest.raises(QueryError, match=message.replace("*", r"\*")):
        route(query)
