"""A name channel's matches scored from Tantivy's postings (`storage.postings`) score as
from their records (`scoring.BM25`), to the bit, in a real index whose Tantivy statistics
count deleted documents; a match holding a term twice is left to its record."""

from __future__ import annotations

import json
from pathlib import Path

from tantivy import Query

from symfind.storage import Searcher
from symfind.storage.channels import ChannelContext, Selection, _in_scope, _maybe_in_scope
from symfind.storage.postings import _explained, narrowed, score_ceiling, scored
from symfind.storage.router import route
from symfind.storage.schema import decode_record
from symfind.storage.scoring import BM25
from symfind.storage.search import _Found
from tests.integration.test_same_tree_same_answer import Extractions, build, open_writer, stage

MODULE = b'''
class Connection:
    def connect(self): pass
    def read_buffer(self): pass
    def close(self): pass

class BufferedReader:
    def read(self): pass
    def read_line(self): pass

def read_config(path): pass
def parse_connection_string(text): pass
def close_all(): pass
'''


def tree(copies: int) -> dict[str, bytes]:
    return {f"pkg/mod_{n}.py": MODULE.replace(b"class Connection", f"class Connection{n}".encode())
            for n in range(copies)}


def live_records(searcher: Searcher) -> dict:
    """Every live document's record, by document key."""
    hits = searcher._searcher.search(Query.all_query(), 10_000, count=False).hits
    return {(a.segment_ord, a.doc): decode_record(searcher._searcher.doc(a)["record"][0])
            for _, a in hits}


def records_scored(searcher: Searcher, records: dict, selection: Selection,
                   scorer: BM25) -> dict:
    """Every live match of `selection` with its BM25 from its record."""
    hits = searcher._searcher.search(selection.query(searcher._schema), 10_000, count=False).hits
    keyed = [(key, records[key]) for key in ((a.segment_ord, a.doc) for _, a in hits)]
    return dict(zip((key for key, _ in keyed), scorer(keyed)))


def with_deleted_documents(tmp_path: Path, added: bytes) -> Searcher:
    """`tree(12)` indexed, then 8 of its files rewritten 3 times (a function `<added>_<n>`
    added each time): deleted documents, so Tantivy's statistics are not the live ones."""
    extractions, repo, index = Extractions(), tmp_path / "repo", tmp_path / "index"
    files = tree(12)
    build(index, repo, extractions, files)
    with open_writer(index, repo) as writer:
        for rewrite in range(3):
            stage(writer, extractions, {path: data + b"\ndef %s_%d(): pass\n" % (added, rewrite)
                                        for path, data in list(files.items())[:8]})
            writer.commit()
    return Searcher(index)


def test_matches_scored_from_postings_score_as_from_their_records(tmp_path: Path) -> None:
    searcher = with_deleted_documents(tmp_path, b"extra")
    stats, records = searcher._stats, live_records(searcher)
    assert searcher._searcher.doc_freq("words", "connect") > stats.doc_freq("words", "connect")
    grams = ("rea", "ead", "adl", "dli", "lin", "ine")
    selections = [
        (Selection("words", ("connect", "read"), 1), ("connect", "read")),
        (Selection("words", ("buffer",), 1, ("read", "close")), ("buffer", "read", "close")),
        (Selection("name_ngram", grams, 3), grams),
    ]
    unsure = set()
    for selection, terms in selections:
        scorer = BM25(stats, selection.field, terms)
        matches = scored(searcher._searcher, searcher._schema, stats, selection, scorer, [],
                         most=10_000)
        expected = records_scored(searcher, records, selection, scorer)
        assert set(matches.addresses) == set(expected)
        assert sorted([*matches.scores, *matches.unsure]) == sorted(expected)
        assert matches.scores == {key: expected[key] for key in matches.scores}
        unsure.update(matches.unsure)
    # `Connection<n>.connect` holds the stem `connect` twice: its record scores it.
    assert sorted(records[key].qualname for key in unsure) == sorted(
        f"Connection{n}.connect" for n in range(12))


def test_a_stricter_selections_matches_are_the_wider_ones_holding_enough(
        tmp_path: Path) -> None:
    # The ngram channel takes the fuzzy channel's pool (the same grams, fewer of them
    # held) instead of listing its matches again: the same matches, scores, unsure ones
    # and order as listed afresh, whatever share of the grams each selection asks.
    searcher = with_deleted_documents(tmp_path, b"readline")
    stats = searcher._stats
    grams = ("rea", "ead", "adl", "dli", "lin", "ine")
    scorer = BM25(stats, "name_ngram", grams)

    def listed(least: int):
        return scored(searcher._searcher, searcher._schema, stats,
                      Selection("name_ngram", grams, least), scorer, [], most=10_000)

    sizes = set()
    for wider in (1, 2, 3):
        for least in range(wider, len(grams) + 1):
            afresh, taken = listed(least), narrowed(listed(wider), least)
            assert list(taken.scores.items()) == list(afresh.scores.items()), (wider, least)
            assert taken.unsure == afresh.unsure
            assert set(afresh.addresses) <= set(taken.addresses)
            sizes.add(len(afresh.scores))
    assert len(sizes) > 1  # the selections differ: a share of the grams decides


def test_more_matches_than_asked_for_are_left_to_the_records(tmp_path: Path) -> None:
    extractions, repo, index = Extractions(), tmp_path / "repo", tmp_path / "index"
    build(index, repo, extractions, tree(4))
    searcher = Searcher(index)
    selection = Selection("words", ("read",), 1)
    scorer = BM25(searcher._stats, "words", ("read",))
    assert scored(searcher._searcher, searcher._schema, searcher._stats, selection, scorer, [],
                  most=3) is None


def test_a_name_longer_than_its_stored_length_is_left_to_its_record(tmp_path: Path) -> None:
    # 301 words: more than `schema.name_lengths` holds for `words` (255 at most).
    pairs = [a + b for a in "bcdfghjklmnpqrstvwxz" for b in "aeiou"]  # (2-letter words stem alone)
    long_name = "reader_" + "_".join(f"{x}{y}" for x in pairs[:20] for y in pairs[:15])
    files = {"pkg/long.py": f"def {long_name}(): pass\ndef reader_thing(): pass\n".encode()}
    extractions, repo, index = Extractions(), tmp_path / "repo", tmp_path / "index"
    build(index, repo, extractions, files)
    searcher = Searcher(index)
    records = live_records(searcher)
    selection = Selection("words", ("reader",), 1)
    scorer = BM25(searcher._stats, "words", ("reader",))
    matches = scored(searcher._searcher, searcher._schema, searcher._stats, selection, scorer,
                     [], most=10)
    expected = records_scored(searcher, records, selection, scorer)
    assert [records[key].name for key in matches.unsure] == [long_name]
    assert matches.scores == {key: expected[key] for key in expected
                              if records[key].name == "reader_thing"}


def test_a_filter_chooses_the_matches_and_leaves_their_scores(tmp_path: Path) -> None:
    extractions, repo, index = Extractions(), tmp_path / "repo", tmp_path / "index"
    build(index, repo, extractions, tree(6))
    searcher = Searcher(index)
    records = live_records(searcher)
    selection = Selection("words", ("read", "close"), 1)
    scorer = BM25(searcher._stats, "words", ("read", "close"))
    methods = Query.term_query(searcher._schema, "kind", "method")
    matches = scored(searcher._searcher, searcher._schema, searcher._stats, selection, scorer,
                     [methods], most=10_000)
    expected = records_scored(searcher, records, selection, scorer)
    assert matches.unsure == []
    assert matches.scores == {key: score for key, score in expected.items()
                              if records[key].kind == "method"}
    assert sorted(records[key].qualname.split(".")[1] for key in matches.scores) == sorted(
        ["read_buffer", "close", "read", "read_line"] * 6)


def test_a_term_nearly_every_name_holds_twice_is_left_to_the_record(tmp_path: Path) -> None:
    # Every name holds `widget`: its weight is so small that holding it twice (`widgets`
    # and `widget` stem alike) adds less than the tolerance for f32 rounding. Only the least a second `widget` would add
    # (the margin) shows that the score cannot tell.
    files = {f"pkg/mod_{n}.py": "".join(f"def widget_part{n}x{m}(): pass\n"
                                        for m in range(100)).encode() for n in range(60)}
    files["pkg/twice.py"] = b"def widgets_widget_rare(): pass\ndef widget_rare_thing(): pass\n"
    extractions, repo, index = Extractions(), tmp_path / "repo", tmp_path / "index"
    build(index, repo, extractions, files)
    searcher = Searcher(index)
    records = live_records(searcher)
    selection = Selection("words", ("widget", "rare"), 1)
    scorer = BM25(searcher._stats, "words", ("widget", "rare"))
    matches = scored(searcher._searcher, searcher._schema, searcher._stats, selection, scorer,
                     [], most=10_000)
    expected = records_scored(searcher, records, selection, scorer)
    assert len(expected) == 6002
    assert sorted([*matches.scores, *matches.unsure]) == sorted(expected)
    assert matches.scores == {key: expected[key] for key in matches.scores}
    assert "widgets_widget_rare" in {records[key].name for key in matches.unsure}
    twice = next(key for key in expected if records[key].name == "widgets_widget_rare")
    once = next(key for key in expected if records[key].name == "widget_rare_thing")
    assert expected[twice] != expected[once]  # the record tells them apart (same length)


def test_an_explanation_without_tantivys_statistics_leaves_the_matches_to_their_records(
    tmp_path: Path,
) -> None:
    extractions, repo, index = Extractions(), tmp_path / "repo", tmp_path / "index"
    build(index, repo, extractions, tree(2))
    searcher = Searcher(index)
    query = Query.term_query(searcher._schema, "words", "read")
    address = searcher._searcher.search(query, 1, count=False).hits[0][1]
    explained = json.loads(query.explain(searcher._searcher, address).to_json())
    documents, average = _explained(json.dumps(explained))
    assert documents == searcher._searcher.num_docs and average > 1
    for node in _nodes(explained):  # another Tantivy's words for them
        node["description"] = node["description"].replace("N, ", "docs: ").replace(
            "avgdl, ", "average: ")
    assert _explained(json.dumps(explained)) is None


def _nodes(node: dict) -> list[dict]:
    return [node, *(found for child in node.get("details", ()) for found in _nodes(child))]


def test_no_match_scores_more_than_the_ceiling_times_tantivys_score(tmp_path: Path) -> None:
    # Deleted documents make Tantivy's statistics differ from the live ones: the bound
    # (`score_ceiling`) is above 1 then, and holds for every match of every field scored.
    searcher = with_deleted_documents(tmp_path, b"read_extra")
    stats, records = searcher._stats, live_records(searcher)
    ceilings = []
    for field, terms in (("words", ("connect", "read", "buffer")), ("text", ("read", "close")),
                         ("body", ("pass",)), ("name_ngram", ("rea", "ead", "clo"))):
        scorer = BM25(stats, field, terms)
        ceiling = score_ceiling(searcher._searcher, searcher._schema, stats, [scorer])
        assert ceiling is not None
        ceilings.append(ceiling)
        query = Selection(field, tuple(t for t, _ in scorer.weights), 1).query(searcher._schema)
        hits = searcher._searcher.search(query, 10_000, count=False).hits
        assert hits
        keyed = [(key, records[key]) for key in ((a.segment_ord, a.doc) for _, a in hits)]
        for (given, _), score in zip(hits, scorer(keyed)):
            assert score <= ceiling * given
    assert max(ceilings) > 1.0


def test_tantivy_finds_every_match_in_a_qualified_querys_scope(tmp_path: Path) -> None:
    # `_maybe_in_scope` lets a qualified query's name channels rank a match out of scope
    # without its record: it must find every match `_in_scope` keeps (typo'd segments,
    # transposed letters, path parts), and it leaves the others out.
    extractions, repo, index = Extractions(), tmp_path / "repo", tmp_path / "index"
    build(index, repo, extractions, tree(12))
    searcher = Searcher(index)
    found = _Found({}, {}, False)
    query = Selection("words", ("read", "close", "connect"), 1).query(searcher._schema)
    hits = searcher._searcher.search(query, 10_000, count=False).hits
    for text in ("Connection3.read", "Conection3.read", "Cnonection3.read", "mod_3.read",
                 "BuferedReader.read", "pkg.close", "Elsewhere.read", "Connection3.mod_4.read"):
        plan = route(text)
        ctx = ChannelContext(searcher._searcher, searcher._schema, plan, [],
                             lambda h: found.candidates(searcher._searcher, h), {},
                             searcher._stats, {}, {}, {})
        maybe = _maybe_in_scope(ctx, query, len(hits))
        assert maybe is not None
        in_scope = {c.key for c in ctx.fetch(hits) if _in_scope(ctx, c)}
        assert in_scope <= maybe, text
        assert maybe == in_scope, text  # no more either, here
        if text != "pkg.close":
            assert len(maybe) < len(hits), text
