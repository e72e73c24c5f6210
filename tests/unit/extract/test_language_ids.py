"""The Language values (the filter's choices everywhere) are the languages extracted."""

from __future__ import annotations

from symfind.extract import LANGUAGES, Language


def test_every_extracted_language_is_a_language_value_and_back() -> None:
    assert sorted(LANGUAGES) == sorted(language.value for language in Language)
