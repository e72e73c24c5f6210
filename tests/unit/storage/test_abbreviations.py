"""How a name's initials and heads are made, and how an abbreviated query aligns with a
name's words: a table of query, name → what `why.channels` shows (None: no fit)."""

from __future__ import annotations

import pytest

from symfind.storage.abbreviations import (
    Alignment,
    align,
    describe,
    head_chunkings,
    heads,
    hump_initials,
    initials,
    name_words,
    spells_words,
)

NAME = "AdminBigIntegerFieldWidget"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (NAME, ("abifw", ["adm", "big", "int", "fie", "wid"])),
        ("parse_header_links", ("phl", ["par", "hea", "lin"])),
        ("HTTPServerError", ("hse", ["htt", "ser", "err"])),
        ("join_multicast_v6", ("jmv", ["joi", "mul", "v"])),  # numbers are no words here
        ("get_get_value", ("ggv", ["get", "val"])),
        ("send", ("", [])),  # one word: nothing
        ("v6", ("", [])),
        ("привет_мир", ("пм", ["при", "мир"])),
    ],
)
def test_initials_and_heads_of_a_name(name: str, expected: tuple[str, list[str]]) -> None:
    words = name_words(name)
    assert (initials(words), heads(words)) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("admBigIntFW", "abifw"),
        ("AdmnBgIntgr", "abi"),
        ("JMV6", "jmv"),
        ("parse_header", "ph"),
        ("abifw", ""),  # no capital: nothing beyond the query itself
        ("Send", ""),
    ],
)
def test_hump_initials_start_a_word_at_each_capital(query: str, expected: str) -> None:
    assert hump_initials(query) == expected


def fit(query: str, name: str = NAME) -> str | None:
    alignment = align(name_words(query), name_words(name))
    return None if alignment is None else describe(query, name, alignment)


ALIGNMENTS = [
    # camel humps, in any case
    ("ABIFW", NAME, "ABIFW → Admin·Big·Integer·Field·Widget"),
    ("abifw", NAME, "abifw → Admin·Big·Integer·Field·Widget"),
    ("ABIF", NAME, "ABIF → Admin·Big·Integer·Field·[Widget]"),
    ("BIFW", NAME, "BIFW → [Admin]·Big·Integer·Field·Widget"),
    # word prefixes, run together or with humps; a segment cut into several prefixes
    ("admbigintfiewid", NAME, "admbigintfiewid → Admin·Big·Integer·Field·Widget"),
    ("AdmBigIntFieWid", NAME, "AdmBigIntFieWid → Admin·Big·Integer·Field·Widget"),
    ("admBigIntFW", NAME, "admBigIntFW → Admin·Big·Integer·Field·Widget"),
    ("adminbigintegerfieldwidget", NAME,
     "adminbigintegerfieldwidget → Admin·Big·Integer·Field·Widget"),
    # skeletons: the first letter, then letters of the word in order
    ("AdmnBgIntgrFldWdgt", NAME, "AdmnBgIntgrFldWdgt → Admin·Big·Integer·Field·Widget"),
    ("prs_hdr_lnks", "parse_header_links", "prs_hdr_lnks → parse·header·links"),
    # a word forgotten, two swapped
    ("AdminBigFieldWidget", NAME, "AdminBigFieldWidget → Admin·Big·[Integer]·Field·Widget"),
    ("AdminIntegerBigFieldWidget", NAME,
     "AdminIntegerBigFieldWidget → Admin·Big·Integer·Field·Widget (two words swapped)"),
    ("header_parse_links", "parse_header_links",
     "header_parse_links → parse·header·links (two words swapped)"),
    # a number moves with the word before it when two words are swapped
    ("AlmostFloat64EqualS", "AlmostEqualFloat64s",
     "AlmostFloat64EqualS → Almost·Equal·Float·64·s (two words swapped)"),
    ("TestS2I64", "TestI64S2", "TestS2I64 → Test·I·64·S·2 (two words swapped)"),
    # numbers cost nothing when left out
    ("JMV", "join_multicast_v6", "JMV → join·multicast·v·[6]"),
    ("HSE", "HTTPServerError", "HSE → HTTP·Server·Error"),
    # no fit: a typo, a letter no word starts with, three words out of order, more
    # chunks than words
    ("HtppClient", "HttpClient", None),
    ("ABXFW", NAME, None),
    ("WidgetFieldAdmin", NAME, None),
    ("abifwa", NAME, None),
    ("dmnBg", NAME, None),  # a skeleton keeps the word's first letter
]


@pytest.mark.parametrize(("query", "name", "expected"), ALIGNMENTS)
def test_abbreviation_aligns_with_the_words_of_a_name(
    query: str, name: str, expected: str | None
) -> None:
    assert fit(query, name) == expected


def test_closer_fits_cost_less() -> None:
    """The order the channel ranks by: errors (a word skipped, a swap, a typed word cut
    short: one each), then cuts short, then a swap after a skip, then skeletons, then
    chunks."""
    queries = ["AdminBigIntegerFieldWidget", "admbigintfiewid", "ABIFW", "AdmnBgIntgrFldWdgt",
               "AdminBigFieldWidget", "AdminIntegerBigFieldWidget", "ABI", "AdminBigIntegerFieldW",
               "AdminBigIntegerField"]
    fits = {q: align(name_words(q), name_words(NAME)) for q in queries}
    costs = {q: alignment.cost for q, alignment in fits.items() if alignment is not None}
    assert costs == {
        "AdminBigIntegerFieldWidget": (0, 0, False, 0, 5),
        "admbigintfiewid": (0, 0, False, 0, 5),
        "ABIFW": (0, 0, False, 0, 5),
        "AdmnBgIntgrFldWdgt": (0, 0, False, 5, 5),
        "AdminBigFieldWidget": (1, 0, False, 0, 4),
        "AdminIntegerBigFieldWidget": (1, 0, True, 0, 5),
        "ABI": (2, 0, False, 0, 3),
        "AdminBigIntegerFieldW": (0, 0, False, 0, 5),
        # `Widget` left out costs one (reading `field` as `fiel`·`d` would cost as much).
        "AdminBigIntegerField": (1, 0, False, 0, 4),
    }


@pytest.mark.parametrize(
    ("query", "name", "expected"),
    [
        # A typed word that a word of the name takes whole, cut so its last letter starts
        # the next word, is one error: no closer than leaving `deserialization` out.
        ("test_dict_field", "test_dict_field_deserialization",
         Alignment(errors=1, cut_short=0, swapped=False, skeletons=0, chunks=3,
                   matched=(True, True, True, False))),
        # A word that takes less than the segment: cut where it must be, no slip.
        ("test_dict_field", "test_dict_fiel_deserialization",
         Alignment(errors=0, cut_short=0, swapped=False, skeletons=0, chunks=4,
                   matched=(True, True, True, True))),
        # Cut short when that costs less than the words it would leave out.
        ("inter", "InterruptTimeoutError",
         Alignment(errors=1, cut_short=1, swapped=False, skeletons=0, chunks=3,
                   matched=(True, True, True))),
        ("test_dict_field", "test_dict_field_serialize",
         Alignment(errors=1, cut_short=0, swapped=False, skeletons=0, chunks=3,
                   matched=(True, True, True, False))),
        # Cut where the word takes no more of it: no slip (`tes`·`tim`, `net`·`s`).
        ("testim", "test_timeout",
         Alignment(errors=0, cut_short=0, swapped=False, skeletons=0, chunks=2,
                   matched=(True, True))),
        ("IPNets", "IPNetSlice",
         Alignment(errors=0, cut_short=0, swapped=False, skeletons=0, chunks=3,
                   matched=(True, True, True))),
        # Segments no longer than a head are initials as often as words: `se` of ServerError.
        ("SE", "ServerError",
         Alignment(errors=0, cut_short=0, swapped=False, skeletons=0, chunks=2,
                   matched=(True, True))),
    ],
)
def test_a_typed_word_cut_short_is_a_slip(query: str, name: str, expected: Alignment) -> None:
    assert align(name_words(query), name_words(name)) == expected


def test_a_number_left_out_costs_nothing() -> None:
    assert align(["jmv"], name_words("join_multicast_v6")) == Alignment(
        errors=0, cut_short=0, swapped=False, skeletons=0, chunks=3, matched=(True, True, True, False))


# The heads of a small repository's names: those of `test_integer_field_deserialization`,
# `TestI32SDefault`, `test_fields_must_be_declared_as_instances`, `not_found_error`.
HEADS = {"tes", "int", "fie", "des", "i", "s", "def", "mus", "be", "dec", "as", "ins",
         "not", "fou", "err"}


@pytest.mark.parametrize(
    ("run", "limit", "expected"),
    [
        # Heads of three letters each vouch for all of a chunk: that cut first; then cuts
        # that trust letters past a head (`fiede`·`s`: 2, `tesint`·`fie`·`des`: 3), fewest
        # such letters first, then fewest chunks, then the heads in order.
        ("tesintfiedes", 3, [("tes", "int", "fie", "des"), ("tes", "int", "fie", "s"),
                             ("tes", "fie", "des")]),
        ("tesintfiedes", 1, [("tes", "int", "fie", "des")]),
        # A number is a chunk of its own, with no head; one-letter words are heads.
        # (`sdef` is no head's: `sde` is none.)
        ("tesi32sdef", 3, [("tes", "i", "s", "def"), ("tes", "s", "def")]),
        ("32", 3, []),  # a number alone: no head to look up
        ("notfouerr", 2, [("not", "fou", "err"), ("not", "err")]),
        ("xyzzyfie", 3, []),  # no head starts it: no cut
        ("tesq", 3, [("tes",)]),
    ],
)
def test_a_lower_case_run_is_cut_into_heads_that_exist(
    run: str, limit: int, expected: list[tuple[str, ...]]
) -> None:
    assert head_chunkings(run, HEADS.__contains__, limit) == expected


def test_each_head_is_looked_up_once() -> None:
    looked_up: list[str] = []

    def is_head(head: str) -> bool:
        looked_up.append(head)
        return head in HEADS

    head_chunkings("tesintfiedes", is_head, 3)
    assert len(looked_up) == len(set(looked_up))


SPELLED = [
    # the name's own words, some left out or in another order
    ("short_flag_to", "short_flag_aliases_to", True),
    ("luaRawlen_B", "luaB_rawlen", True),
    # abbreviated words, or a word used twice
    ("tt_join", "test_join_set", False),
    ("AdmBigIntFW", NAME, False),
    ("test_test", "test_field", False),
]


@pytest.mark.parametrize(("query", "name", "expected"), SPELLED)
def test_a_query_spells_words_of_a_name(
    query: str, name: str, expected: bool
) -> None:
    assert spells_words(name_words(query), name_words(name)) is expected
