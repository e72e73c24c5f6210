"""The one helper by which rewrites change bytes keeps every offset and every newline."""

from __future__ import annotations

import pytest

from symfind.extract.rewrite.offsets import Edits, blanked, blanked_outside

SOURCE = b"ab\ncd\r\nef"


def test_blanking_keeps_newlines_and_length() -> None:
    assert blanked(SOURCE) == b"  \n   \n  "
    assert blanked(b"abc") == b"   "
    assert blanked(b"") == b""


def test_blanked_outside_keeps_the_span_as_written() -> None:
    assert blanked_outside(SOURCE, 3, 5) == b"  \ncd \n  "
    assert blanked_outside(SOURCE, 0, len(SOURCE)) == SOURCE
    assert blanked_outside(SOURCE, 4, len(SOURCE)) == b"  \n d\r\nef"


def test_edits_are_laid_over_each_other_in_order() -> None:
    edits = Edits(b"JSON_TRY {\nA_B C_D\n}")
    edits.blank(11, 18)
    edits.replace(0, 8, b"try")
    edits.replace(11, 14, b"x")
    assert edits.result() == b"try      {\nx      \n}"


def test_a_replacement_keeps_the_newlines_of_its_span() -> None:
    """An escape `\\` then a newline made `__` keeps its newline: `_` then `\\n`."""
    edits = Edits(b"`a\\\nb`")
    edits.replace(2, 4, b"__")
    assert edits.result() == b"`a_\nb`"


@pytest.mark.parametrize("text", [b"toolong", b"a\nb"])
def test_a_replacement_that_would_move_bytes_is_refused(text: bytes) -> None:
    edits = Edits(b"abc def")
    with pytest.raises(ValueError):
        edits.replace(0, 3, text)
    assert edits.result() == b"abc def"


def test_no_edit_gives_the_source_itself() -> None:
    source = b"int x;\n"
    assert Edits(source).result() is source
