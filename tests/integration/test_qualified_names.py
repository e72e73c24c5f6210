"""A qualified query whose name is defined many times: the definitions in its scope,
whatever the tree's order (a real index; shaped on django, whose thousands of `Meta`
classes a query such as `Redirect.Meta` names one of)."""

from __future__ import annotations

import pytest

from symfind.storage import Searcher, SearchQuery, channels
from symfind.storage import search as search_module

from tests.integration.conftest import searcher_over

#: More `Meta` classes before the one meant than a channel keeps (`EXACT_CANDIDATES`,
#: `FUZZY_CANDIDATES`).
FILES = {
    "app/models.py": "".join(f"class Model{i}:\n    class Meta:\n        pass\n\n\n"
                             for i in range(250)),
    "zoo/zebra.py": "class Zebre:\n    class Meta:\n        pass\n\n\n"
                    "class Zebra:\n    class Meta:\n        pass\n",
}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return searcher_over(tmp_path_factory, "metas", FILES)


@pytest.mark.parametrize("from_postings", [False, True])
def test_the_name_in_the_scope_typed_comes_first(
    searcher: Searcher, from_postings: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The name channels score their matches from Tantivy's postings in a large index
    # only (`channels.POSTINGS_SCORED_FROM`): here forced too, the same answer.
    if from_postings:
        monkeypatch.setattr(channels, "POSTINGS_SCORED_FROM", 0)
    rankings, found, _ = searcher._run(SearchQuery(text="Zebra.Meta").check(), [])
    assert {channel: [found.symbols[key].qualname for key in keys]
            for channel, keys in rankings.items()} == {
        "exact": ["Zebra.Meta", "Zebre.Meta"], "fuzzy": ["Zebra.Meta", "Zebre.Meta"],
        "abbrev": [], "ngram": ["Zebra.Meta", "Zebre.Meta"]}
    answer = searcher.search(SearchQuery(text="Zebra.Meta", limit=3))
    # Then `Zebre`'s, a scope one edit away; the other `Meta` classes are out of scope.
    assert [(r.qualname, r.path, r.line, sorted(r.why.channels)) for r in answer.results] == [
        ("Zebra.Meta", "zoo/zebra.py", 7, ["exact", "fuzzy", "ngram"]),
        ("Zebre.Meta", "zoo/zebra.py", 2, ["exact", "fuzzy", "ngram"]),
    ]
    assert answer.results[0].why.channels["exact"].rank == 1


@pytest.mark.parametrize("from_postings", [False, True])
@pytest.mark.parametrize("query", ["Zebra.Meta", "Zebra.Metta"])
def test_the_names_out_of_the_scope_typed_are_not_read(
    searcher: Searcher, query: str, from_postings: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 250 `Meta` classes out of scope are more than a channel keeps: each channel
    reads the matches in scope first (the exact and fuzzy channels' lookups, the fuzzy
    channel's pool for a typo, the ngram channel's scored matches), and only those, as
    some are in scope."""
    if from_postings:
        monkeypatch.setattr(channels, "POSTINGS_SCORED_FROM", 0)
    read: list[int] = []
    candidates = search_module._Found.candidates

    def counted(found: object, tantivy_searcher: object, hits: list) -> list:
        read.append(len(hits))
        return candidates(found, tantivy_searcher, hits)

    monkeypatch.setattr(search_module._Found, "candidates", counted)
    searcher.search(SearchQuery(text=query, limit=3))
    assert 0 < sum(read) < 20, read
