"""A qualified query with a typo, where the name's grams find another name as close first:
the scope decides among names equally far, so all of them must be found (a real index;
shaped on tokio 1.24.2's `tests/io_poll_aio.rs` and `src/time/clock.rs`)."""

from __future__ import annotations

import pytest

from symfind.storage import Searcher, SearchQuery

from tests.integration.conftest import searcher_over

FILES = {
    "src/clock.rs": "pub fn resume() {}\n\npub fn pause() {}\n",
    "tests/io_poll_aio.rs": (
        "mod aio {\n    async fn reuse() {}\n}\n\n"
        "mod lio {\n    async fn reuse() {}\n\n    async fn submit() {}\n}\n"
    ),
}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return searcher_over(tmp_path_factory, "ties", FILES)


def test_the_scope_picks_among_names_as_far_as_the_first_found(searcher: Searcher) -> None:
    # `resue` is one edit from `resume` (which shares more of its grams) and from `reuse`
    # (a transposition): `lio` says which.
    # Once a name of the scope is found, fuzzy keeps only those; `resume` stays by its grams.
    answer = searcher.search(SearchQuery(text="lio::resue", limit=5))
    assert [(r.qualname, {name: (match.rank, match.distance)
                          for name, match in r.why.channels.items()})
            for r in answer.results] == [
        ("lio::reuse", {"fuzzy": (1, 1)}),
        ("aio::reuse", {"fuzzy": (2, 1)}),
        ("resume", {"ngram": (1, None)}),
    ]
