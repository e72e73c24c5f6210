"""Identifier splitting shared by indexing and querying."""

from __future__ import annotations

import re
import unicodedata

import pytest

from symfind.storage.words import (
    compound_parts,
    qualifier_parts,
    split_identifier,
    split_text,
    split_words,
    squash,
    with_compound_parts,
)


@pytest.mark.parametrize(
    ("identifier", "words"),
    [
        ("HTTPServerError", ["http", "server", "error"]),
        ("parse_header_links", ["parse", "header", "links"]),
        ("utf8Decode", ["utf", "8", "decode"]),
        ("getHTTPResponseCode2", ["get", "http", "response", "code", "2"]),
        ("__init__", ["init"]),
        ("XMLHttpRequest", ["xml", "http", "request"]),
        ("kebab-case-name", ["kebab", "case", "name"]),
        ("", []),
        # Any script: case changes, `_` and digits split as in ASCII.
        ("привет_мир", ["привет", "мир"]),
        ("ПриветМир2", ["привет", "мир", "2"]),
        ("ΟδόςΚαι", ["οδός", "και"]),
        ("ÉtatHTTPÜber", ["état", "http", "über"]),
        # Scripts without case are one word until a separator or a case change.
        ("计算总和", ["计算总和"]),
        ("计算_总和", ["计算", "总和"]),
        ("getユーザー名", ["get", "ユーザー名"]),
        # A combining mark continues its letter (Devanagari's vowel signs and virama).
        ("नमस्ते_दुनिया", ["नमस्ते", "दुनिया"]),
        # NFKC: fullwidth letters, digits and `＿` are their ASCII forms; decomposed
        # accents are composed.
        ("ＨｔｔｐＣｌｉｅｎｔ", ["http", "client"]),
        ("ｕｔｆ８＿ｄｅｃｏｄｅ", ["utf", "8", "decode"]),
        ("Cre\u0300meBru\u0302le\u0301e", ["crème", "brûlée"]),
        ("٣٤five", ["٣٤", "five"]),  # Arabic-Indic digits are digits
    ],
)
def test_split_identifier(identifier: str, words: list[str]) -> None:
    assert split_identifier(identifier) == words


def test_split_text_splits_prose_and_identifiers_inside_it() -> None:
    assert split_text("find the HttpClient in src/net_io.py!") == [
        "find", "the", "http", "client", "in", "src", "net", "io", "py",
    ]


def test_squash_makes_spellings_of_one_name_agree() -> None:
    assert {squash("parse_header_links"), squash("parseHeaderLinks"), squash("PARSE-HEADER-LINKS")} == {
        "parseheaderlinks"
    }


def test_squash_makes_one_name_of_its_unicode_forms() -> None:
    composed = "café_crème"
    spellings = {composed, unicodedata.normalize("NFD", composed), "CAFÉ-CRÈME", "ｃａｆé＿ｃｒèｍｅ"}
    assert {squash(s) for s in spellings} == {"cafécrème"}
    assert squash("ПРИВЕТ_МИР") == squash("приветМир") == "приветмир"


def test_split_words_is_split_text_joined_in_any_script() -> None:
    for text in ["ΟΔΟΣ_ΚΑΙ ΣΑΣ", "def привет_мир(x) -> int", "计算总和 ＨｔｔｐＣｌｉｅｎｔ", "İstanbulŞehir"]:
        assert split_words(text) == " ".join(split_text(text)), text


@pytest.mark.parametrize(
    ("qualname", "parts"),
    [
        ("ns::Cls::m", ["ns", "Cls", "m"]),
        ("Cls#m", ["Cls", "m"]),
        ("App\\Http\\Client::send", ["App", "Http", "Client", "send"]),
        ("pkg/mod.Func", ["pkg", "mod", "Func"]),
        ("conn->close", ["conn", "close"]),
        ("plain", ["plain"]),
    ],
)
def test_qualifier_parts(qualname: str, parts: list[str]) -> None:
    assert qualifier_parts(qualname) == parts


def test_split_text_gives_the_words_of_each_identifier_in_turn() -> None:
    """One pass over the text equals splitting it at non-identifier characters first."""
    texts = [
        "func (c *Client) Do(req *Request) (*Response, error)",
        "template<typename T> std::vector<T> HTTPServer::parse_JSONBody(const T& x) -> int",
        "ÉtatHTTP naïveCase $scope.$apply ns\\Foo\\BarBaz utf8Decode X11Display",
        "public static <T> T[] ArrayUtils.addAll(final T[] array1, final T... array2)",
        "a.b::C#d->eF /usr/lib/ABCDef_ghi-JKL2mno", "", "   ", "__init__ ___",
    ]
    for text in texts:
        by_identifier = [word for chunk in re.split(r"[^\w$]+", text)
                         for word in split_identifier(chunk)]
        assert split_text(text) == by_identifier, text


def test_text_outside_ascii_splits_its_ascii_parts_as_ascii_text_does() -> None:
    """The paths for text outside ASCII (taken by any text with one character outside
    ASCII) give the ASCII path's words for ASCII identifiers: the same rules over
    stand-ins."""
    texts = [
        "func (c *Client) Do(req *Request) (*Response, error)",
        "template<typename T> std::vector<T> HTTPServer::parse_JSONBody(const T& x) -> int",
        "$scope.$apply ns\\Foo\\BarBaz utf8Decode X11Display getHTTPResponseCode2 __init__",
        "public static <T> T[] ArrayUtils.addAll(final T[] array1, final T... array2)",
        "a.b::C#d->eF /usr/lib/ABCDef_ghi-JKL2mno kebab-case-name XMLHttpRequest",
    ]
    for text in texts:
        words = split_text(text)
        # No letter outside ASCII; a cased one; a caseless one and a combining mark.
        assert split_text(f"{text} — ✓") == words, text
        assert split_text(f"{text} é") == [*words, "é"], text
        assert split_text(f"{text} 计 q\u0301") == [*words, "计", "q\u0301"], text
        assert split_identifier(f"{text}—") == split_identifier(text), text


@pytest.mark.parametrize(
    ("word", "parts"),
    [
        ("getbaseline", ("get", "baseline")),
        ("shrinkstack", ("shrink", "stack")),
        ("negatecondition", ("negate", "condition")),
        ("registerlocalvar", ("register", "local", "var")),
        # One English word, too short, not letters only, or a lone letter in the split.
        ("condition", ()),
        ("isnan", ()),
        ("utf8decode", ()),
        ("udatamemoffset", ()),
        ("привет", ()),
    ],
)
def test_compound_parts(word: str, parts: tuple[str, ...]) -> None:
    assert compound_parts(word) == parts


def test_with_compound_parts_keeps_the_words_then_adds_their_parts() -> None:
    assert with_compound_parts(["lua", "getbaseline", "line"]) == [
        "lua", "getbaseline", "line", "get", "baseline"]
