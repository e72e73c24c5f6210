"""Fusing several repositories' answers: by score, equal scores by how well the result
matches the query, then by the order the repositories were given, never reordering a
repository's own list; labels that tell repositories apart."""

from __future__ import annotations

from symfind.extract.records import SymbolKind
from symfind.storage.federation import fuse_answers, repo_labels
from symfind.storage.records import ChannelMatch, Freshness, SearchResponse, SearchResult, Why
from symfind.storage.router import route

ANY = route("Something")


def answer(*results: tuple[str, float], distance: int | None = None) -> SearchResponse:
    channels = {} if distance is None else {
        "fuzzy": ChannelMatch(rank=1, weight=2.0, contribution=0.03, distance=distance),
    }
    return SearchResponse(
        query="q", route="identifier", channels={}, took_ms=0.0,
        freshness=Freshness(generation=1, updated_at=0.0, files=1),
        results=[
            SearchResult(name=name.rsplit(".", 1)[-1], qualname=name, kind=SymbolKind.CLASS,
                         language="python",
                         path=f"{name}.py", line=1, end_line=2, signature="", score=score,
                         why=Why(channels=channels))
            for name, score in results
        ],
    )


def fused(
    answers: list[tuple[str, SearchResponse]], query: str = "Something", limit: int = 10
) -> list[tuple[str, str]]:
    return [(r.repo, r.qualname) for r in fuse_answers(answers, route(query), limit)]


def test_results_interleave_by_score_not_by_repository() -> None:
    big = answer(("Exact", 0.10), ("ExactToo", 0.09), ("Weak", 0.01))
    small = answer(("Partial", 0.02))
    assert fused([("small", small), ("big", big)]) == [
        ("big", "Exact"), ("big", "ExactToo"), ("small", "Partial"), ("big", "Weak"),
    ]


def test_equal_scores_break_by_repository_order_and_keep_each_repositorys_order() -> None:
    a = answer(("A1", 0.05), ("A2", 0.03))
    b = answer(("B1", 0.03))
    c = answer(("C1", 0.05))
    assert fused([("a", a), ("b", b), ("c", c)]) == [
        ("a", "A1"), ("c", "C1"), ("a", "A2"), ("b", "B1"),
    ]
    assert fused([("c", c), ("b", b), ("a", a)]) == [
        ("c", "C1"), ("a", "A1"), ("b", "B1"), ("a", "A2"),
    ]
    # A result never overtakes one its own repository ranked above it.
    unsorted = answer(("U1", 0.01), ("U2", 0.09))
    assert fused([("u", unsorted), ("b", b)]) == [("b", "B1"), ("u", "U1"), ("u", "U2")]


def test_equal_scores_break_by_the_exact_name_then_scope_then_words_covered() -> None:
    exact = answer(("Client.send", 0.09))
    other_scope = answer(("Socket.send", 0.09))
    partial = answer(("Client.send_all", 0.09))
    listed = [("partial", partial), ("other", other_scope), ("exact", exact)]
    assert fused(listed, "Client.send") == [
        ("exact", "Client.send"), ("other", "Socket.send"), ("partial", "Client.send_all"),
    ]
    assert fused(listed, "client send") == [  # both words in two qualnames: listed order
        ("partial", "Client.send_all"), ("exact", "Client.send"), ("other", "Socket.send"),
    ]
    assert fused(listed, "send all things") == [
        ("partial", "Client.send_all"), ("other", "Socket.send"), ("exact", "Client.send"),
    ]


def test_equal_scores_break_by_fuzzy_distance_before_words_covered() -> None:
    far = answer(("set2", 0.04), distance=3)
    near = answer(("_seg_42", 0.04), distance=1)
    unfound = answer(("set_42_all", 0.04))
    listed = [("far", far), ("unfound", unfound), ("near", near)]
    assert fused(listed, "_set_42") == [
        ("near", "_seg_42"), ("far", "set2"), ("unfound", "set_42_all"),
    ]


def test_limit_cuts_the_fused_list_and_results_keep_their_fields() -> None:
    answers = [("a", answer(("A1", 0.05), ("A2", 0.01))), ("b", answer(("B1", 0.04)))]
    results = fuse_answers(answers, ANY, limit=2)
    assert [(r.repo, r.name, r.path, r.score) for r in results] == [
        ("a", "A1", "A1.py", 0.05), ("b", "B1", "B1.py", 0.04),
    ]
    assert fused([]) == []


def test_labels_are_the_directory_name_unless_two_repositories_share_it() -> None:
    assert repo_labels(["/src/app", "/src/lib", "/work/lib", "/x/y/lib/", "relative"]) == [
        "app", "src/lib", "work/lib", "y/lib", "relative",
    ]
    assert repo_labels(["/a/b/lib", "/c/b/lib"]) == ["a/b/lib", "c/b/lib"]
