"""A long-lived searcher keeps what it read of the commit it searches (decoded records,
analysed fields, live statistics: `storage.search.RECORDS_KEPT`, `scoring.Statistics`):
none of it may outlive its commit, nor change an answer. A searcher that followed a
history commit by commit, asked every query twice at each commit, answers as a searcher
opened on the last commit does, and as a fresh index of the same files does."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from symfind.storage import Searcher, SearchQuery
from tests.integration.test_same_tree_same_answer import (
    QUERIES,
    QUESTIONS,
    Extractions,
    History,
    answers,
    build,
    corpus_root,
    first_difference,
    open_writer,
    original_tree,
    stage,
)

SEEDS = range(3)


def asked(searcher: Searcher, queries: list[str]) -> dict[str, object]:
    return {query: msgspec.to_builtins(searcher.search(SearchQuery(text=query, limit=10)).results)
            for query in queries}


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_a_searcher_that_follows_commits_answers_as_a_new_one(seed: int, tmp_path: Path) -> None:
    original = original_tree(corpus_root("requests"))
    queries = QUERIES["requests"] + [QUESTIONS["requests"]]
    extractions = Extractions()
    repo, kept, fresh = tmp_path / "repo", tmp_path / "kept", tmp_path / "fresh"
    build(kept, repo, extractions, original)
    searcher = Searcher(kept)
    first = asked(searcher, queries)
    assert asked(searcher, queries) == first  # its own records kept: the same answers
    history = History("requests", original, seed)
    with open_writer(kept, repo) as writer:
        for batch in history.batches():
            stage(writer, extractions, batch)
            writer.commit()
            assert searcher.refresh()
            before = asked(searcher, queries)
            assert asked(searcher, queries) == before
    build(fresh, repo, extractions, history.tree)
    followed = asked(searcher, queries)
    assert first_difference(followed, answers(kept, queries)) == ""
    assert first_difference(followed, answers(fresh, queries)) == ""
