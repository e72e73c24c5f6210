"""Fixtures for the extractor's unit tests."""

from __future__ import annotations

import pytest

from symfind.extract import parse


class ParseCount:
    """How many times the extractor has parsed (a first parse or a re-parse)."""

    def __init__(self) -> None:
        self.parses = 0


@pytest.fixture
def parse_count(monkeypatch: pytest.MonkeyPatch) -> ParseCount:
    """Counts the extractor's parses from here on; each is still the real parse."""
    count = ParseCount()
    real_parse = parse._parse_tree

    def counting_parse(*args: object, **kwargs: object) -> object:
        count.parses += 1
        return real_parse(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parse, "_parse_tree", counting_parse)
    return count
