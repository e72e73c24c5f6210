"""The abbreviation channel on a real index: names as people half-remember them
(camel humps, word prefixes, skeletons, a word forgotten, two swapped), ranked by how
closely the query fits, then product code before tests, then shorter names."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from symfind.extract.records import Symbol, SymbolKind
from symfind.storage import IndexWriter, Searcher, SearchQuery
from symfind.storage.records import FileState
from symfind.storage.router import route

CLASSES = {
    "src/admin/widgets.py": [
        "AdminBigIntegerFieldWidget",
        "AdminBooleanIntegerFieldWidget",  # the same initials, a longer name
        "AdminBigIntegerFieldWidgetMixin",  # one word more
        "AdminFileWidget",
    ],
    "src/io/files.py": ["AllBytesInFileWriter"],  # the same initials, a shorter name
    "tests/test_widgets.py": ["AnyBigIntFieldWidget"],  # the same initials, in tests
    "src/http/client.py": ["parse_header_links", "HttpClient", "join_multicast_v6"],
    "src/term.py": ["LegacyWindowsTerm", "detect_legacy_windows"],
    "tests/test_fields.py": ["test_integer_field_deserialization",
                             "test_fields_must_be_declared_as_instances",
                             "TestI32SDefault", "TestI32SWithDefault", "Float32"],
}


def definition(path: str, line: int, name: str) -> Symbol:
    return Symbol(
        name=name, qualname=name, kind=SymbolKind.CLASS, language="python", path=path,
        line=line, end_line=line, start_line=line, signature=f"class {name}:", doc="",
    )


def indexed(index_dir: Path, classes: dict[str, list[str]]) -> Searcher:
    """A searcher over an index of `classes`, each file's names on lines 1, 2, ..."""
    with IndexWriter(index_dir, repo_root=Path("/repo"), options_hash="h") as writer:
        for path, names in classes.items():
            symbols = [definition(path, line, name) for line, name in enumerate(names, start=1)]
            writer.replace_file(
                path, FileState(size=1, mtime_ns=1, digest=path, language="python"), symbols)
        writer.commit()
    return Searcher(index_dir)


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return indexed(tmp_path_factory.mktemp("abbrev") / "index", CLASSES)


def abbrev_ranking(searcher: Searcher, query: str) -> list[str]:
    """The abbreviation channel's own order for `query`, each with what it matched."""
    plan = msgspec.structs.replace(route(query), weights={"abbrev": 1.0})
    rankings, found, _ = searcher._run(plan, [])
    return [found.matched[key][0] for key in rankings["abbrev"]]


CHANNEL_RANKINGS = [
    # Same fit: product code first, the shorter name first; tests last.
    ("ABIFW", [
        "ABIFW → All·Bytes·In·File·Writer",
        "ABIFW → Admin·Big·Integer·Field·Widget",
        "ABIFW → Admin·Boolean·Integer·Field·Widget",
        "ABIFW → Any·Big·Int·Field·Widget",
    ]),
    ("abifw", [
        "abifw → All·Bytes·In·File·Writer",
        "abifw → Admin·Big·Integer·Field·Widget",
        "abifw → Admin·Boolean·Integer·Field·Widget",
        "abifw → Any·Big·Int·Field·Widget",
    ]),
    # Only its capitals say where the words begin: `a`, then `BIFW` cut into initials.
    ("aBIFW", [
        "aBIFW → All·Bytes·In·File·Writer",
        "aBIFW → Admin·Big·Integer·Field·Widget",
        "aBIFW → Admin·Boolean·Integer·Field·Widget",
        "aBIFW → Any·Big·Int·Field·Widget",
    ]),
    # Word prefixes: a word left over at the end is a worse fit.
    ("admbigintfiewid", [
        "admbigintfiewid → Admin·Big·Integer·Field·Widget",
        "admbigintfiewid → Admin·Big·Integer·Field·Widget·[Mixin]",
    ]),
    ("AdmBigIntFW", [
        "AdmBigIntFW → Admin·Big·Integer·Field·Widget",
        "AdmBigIntFW → Admin·Big·Integer·Field·Widget·[Mixin]",
    ]),
    ("AdmnBgIntgrFldWdgt", [
        "AdmnBgIntgrFldWdgt → Admin·Big·Integer·Field·Widget",
        "AdmnBgIntgrFldWdgt → Admin·Big·Integer·Field·Widget·[Mixin]",
    ]),
    # A word forgotten: one error; `AdminFileWidget` lacks `big`.
    ("AdminBigFieldWidget", [
        "AdminBigFieldWidget → Admin·Big·[Integer]·Field·Widget",
        "AdminBigFieldWidget → Admin·Big·[Integer]·Field·Widget·[Mixin]",
    ]),
    ("AdminIntegerBigFieldWidget", [
        "AdminIntegerBigFieldWidget → Admin·Big·Integer·Field·Widget (two words swapped)",
        "AdminIntegerBigFieldWidget → Admin·Big·Integer·Field·Widget·[Mixin] "
        "(two words swapped)",
    ]),
    # A lower-case run, cut into the heads names have (`tes`·`int`·`fie`·`des`), a
    # number inside it a word of its own.
    ("tesintfiedes", ["tesintfiedes → test·integer·field·deserialization"]),
    ("tesi32sdef", [
        "tesi32sdef → Test·I·32·S·Default",
        "tesi32sdef → Test·I·32·S·[With]·Default",
    ]),
    ("prs_hdr_lnks", ["prs_hdr_lnks → parse·header·links"]),
    ("JMV", ["JMV → join·multicast·v·[6]"]),
    # Words left out count against the fit; a name it leaves more words of than it
    # matches is not read as abbreviated (`Widget`: the words and ngram channels' finds).
    ("BigIntegerFieldWidget", [
        "BigIntegerFieldWidget → [Admin]·Big·Integer·Field·Widget",
        "BigIntegerFieldWidget → [Admin]·Big·Integer·Field·Widget·[Mixin]",
    ]),
    ("Widget", []),
    # Words typed in a name's style (`_`, capitals): that name first at the same fit.
    ("legacy_windows", [
        "legacy_windows → [detect]·legacy·windows",
        "legacy_windows → Legacy·Windows·[Term]",
    ]),
    ("LegacyWindows", [
        "LegacyWindows → Legacy·Windows·[Term]",
        "LegacyWindows → [detect]·legacy·windows",
    ]),
    # A name typed as it is: that name, which the other channels find (nothing here).
    ("HttpClient", []),
    # No abbreviation of anything: nothing (fuzzy answers typos).
    ("HtppClient", []),
    ("Gadget", []),
]


@pytest.mark.parametrize(("query", "expected"), CHANNEL_RANKINGS)
def test_abbreviation_channel_ranks_by_fit(
    searcher: Searcher, query: str, expected: list[str]
) -> None:
    assert abbrev_ranking(searcher, query) == expected


def first_results(searcher: Searcher, query: str) -> list[tuple[str, tuple[str, ...]]]:
    response = searcher.search(SearchQuery(text=query, limit=3))
    return [(r.name, tuple(r.why.channels["abbrev"].matched) if "abbrev" in r.why.channels
             else ()) for r in response.results]


def test_search_says_which_abbreviation_matched(searcher: Searcher) -> None:
    assert first_results(searcher, "AdmBigIntFieWid") == [
        ("AdminBigIntegerFieldWidget", ("AdmBigIntFieWid → Admin·Big·Integer·Field·Widget",)),
        ("AdminBigIntegerFieldWidgetMixin",
         ("AdmBigIntFieWid → Admin·Big·Integer·Field·Widget·[Mixin]",)),
        ("AnyBigIntFieldWidget", ()),  # its words `big int field widget` (ngram, words)
    ]


def test_a_qualified_abbreviation_keeps_to_its_scope(searcher: Searcher) -> None:
    assert abbrev_ranking(searcher, "widgets.ABIFW") == [
        "ABIFW → Admin·Big·Integer·Field·Widget",
        "ABIFW → Admin·Boolean·Integer·Field·Widget",
    ]


def test_a_qualified_abbreviation_outside_any_scope_reads_nothing(searcher: Searcher) -> None:
    """Other channels fall back to every name when none is in scope; an abbreviation,
    which reads many names, does not."""
    assert abbrev_ranking(searcher, "nowhere.ABIFW") == []


SLIPS = {
    "src/flags.py": ["short_flag", "short_flag_aliases_to", "ShortFlagHelp"],
    "src/join.py": ["try_join", "test_join_set", "join_all"],
    "src/lua.c": ["lua_next", "luaX_next", "luaX_init"],
}


@pytest.fixture(scope="module")
def slips_searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return indexed(tmp_path_factory.mktemp("slips") / "index", SLIPS)


def voters(searcher: Searcher, query: str) -> list[tuple[str, list[str]]]:
    """Each result's name and the channels that voted for it."""
    response = searcher.search(SearchQuery(text=query, limit=10))
    return [(r.name, sorted(r.why.channels)) for r in response.results]


def test_a_word_forgotten_is_closer_than_two_edits(slips_searcher: Searcher) -> None:
    """`short_flag_to` spells `short_flag_aliases_to` with one word forgotten, one slip;
    `short_flag` is two edits away (`to`): the fuzzy channel, farther, does not vote."""
    assert voters(slips_searcher, "short_flag_to") == [
        ("short_flag_aliases_to", ["abbrev", "ngram", "words"]),
        ("short_flag", ["ngram"]),
        ("ShortFlagHelp", ["ngram"]),
    ]


def test_abbreviated_words_with_a_slip_leave_a_typo_its_vote(slips_searcher: Searcher) -> None:
    """`tt_join` is `test_join_set` with `test` abbreviated and `set` forgotten, and
    `try_join` with two edits: no reading is closer, both channels vote (the ngram
    channel then decides: `test_join_set` holds `tjoin`). `tt` is no word: the words
    channel, which reads a name's words all present, has nothing."""
    assert voters(slips_searcher, "tt_join") == [
        ("test_join_set", ["abbrev", "ngram"]),
        ("try_join", ["fuzzy", "ngram"]),
        ("join_all", ["ngram"]),
    ]


def test_two_words_swapped_are_closer_than_letters_typed_for_nothing(
    slips_searcher: Searcher,
) -> None:
    """`XLua_Next` is `luaX_next` with two words swapped and `lua_next` with the `X`
    typed dropped: one slip each, but only the swap keeps every word typed."""
    assert voters(slips_searcher, "XLua_Next") == [
        ("luaX_next", ["abbrev", "ngram", "words"]),
        ("lua_next", ["ngram"]),
    ]


@pytest.fixture(scope="module")
def crowded_searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    """More names with the heads `map` and `get` than the channel reads from heads, the
    name meant last in the tree's order."""
    return indexed(tmp_path_factory.mktemp("crowded") / "index", {
        "src/a.py": [f"getMapEntry{first}{second}"
                     for first in "ABCDEF" for second in "abcdefghij"],
        "src/m.py": ["mapGet"],
        "src/z.py": ["testMapGet3"],
    })


def test_words_typed_whole_find_the_name_among_many_sharing_their_heads(
    crowded_searcher: Searcher,
) -> None:
    """`mapGet3`: `testMapGet3` with `test` forgotten, read from the names holding every
    word typed (`map`, `get`, `3`), not only from the first 50 holding their heads."""
    assert abbrev_ranking(crowded_searcher, "mapGet3") == ["mapGet3 → [test]·Map·Get·3"]
    assert voters(crowded_searcher, "mapGet3")[:2] == [
        ("testMapGet3", ["abbrev", "ngram", "words"]),
        ("mapGet", ["ngram"]),
    ]


@pytest.fixture(scope="module")
def shared_initials_searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    """More names with the initials `gme` than the channel reads (`INITIALS_CANDIDATES`),
    all of one length but the shortest, last in the tree's order."""
    return indexed(tmp_path_factory.mktemp("initials") / "index", {
        "src/a.py": [f"getMapping{number:03d}Entries" for number in range(240)],
        "src/z.py": ["getMapEntry"],
    })


def test_initials_shared_by_many_names_read_the_shortest_first(
    shared_initials_searcher: Searcher,
) -> None:
    """The channel reads the 200 names with the shortest names of those holding the
    initials (the order it ranks equal fits in), not the first 200 in the tree: the
    shortest, in the tree's last file, is read and first. Of the 240 of one length, the
    199 read are the tree's first (the tie at the cut broken by path and line)."""
    plan = msgspec.structs.replace(route("GME"), weights={"abbrev": 1.0})
    rankings, found, _ = shared_initials_searcher._run(plan, [])
    assert [found.symbols[key].name for key in rankings["abbrev"]] == (
        ["getMapEntry"] + [f"getMapping{number:03d}Entries" for number in range(199)])
