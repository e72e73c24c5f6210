"""Identifier and prose splitting shared by indexing and querying.

Imports: nothing of ours. `HTTPServerError` → `http server error`; `parse_header_links`
→ `parse header links`; `utf8Decode` → `utf 8 decode`.
"""

from __future__ import annotations

import re

# Acronym runs before a capitalised word, capitalised words, lowercase runs, digit runs.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Separators between scope parts of a qualified name, in any supported language.
QUALIFIER = re.compile(r"::|->|[.#/\\]")


def split_identifier(identifier: str) -> list[str]:
    """Split one identifier into lowercase words at case changes, `_`, `-` and digits."""
    return [word.lower() for word in _WORD.findall(identifier)]


def split_text(text: str) -> list[str]:
    """Split free text (prose, signatures, paths) into lowercase identifier words.

    One pass of `_WORD` over the whole text: its words are made of ASCII letters and
    digits only and its lookahead reads letters only, so no match spans a character
    outside an identifier, and the words are those of each identifier in turn (splitting
    at non-word characters first gave the same words on 2.26 million lines of six bench
    corpora, at twice the cost).
    """
    return [word.lower() for word in _WORD.findall(text)]


def split_words(text: str) -> str:
    """`split_text(text)` as one space-separated string (lowercasing the joined words at
    once: they are ASCII letters and digits, so it is the same as word by word)."""
    return " ".join(_WORD.findall(text)).lower()


_SQUASHED = str.maketrans("", "", "_-$")


def squash(name: str) -> str:
    """Lowercase with `_`, `-`, `$` removed: `parse_header_links` and `parseHeaderLinks` agree."""
    return name.lower().translate(_SQUASHED)


def qualifier_parts(qualname: str) -> list[str]:
    """`ns::Cls::m` → `['ns', 'Cls', 'm']`; `Cls#m` → `['Cls', 'm']`."""
    return [part for part in QUALIFIER.split(qualname) if part]
