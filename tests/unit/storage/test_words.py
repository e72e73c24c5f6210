"""Identifier splitting shared by indexing and querying."""

from __future__ import annotations

import re

import pytest

from symfind.storage.words import qualifier_parts, split_identifier, split_text, squash


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
