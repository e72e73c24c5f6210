"""Names' run-together words split by storage/compounds.py exactly as wordninja splits them,
from a cached word list that is never used damaged."""

from __future__ import annotations

import random

import msgspec
import pytest
import wordninja

from symfind.storage.cache_files import write_intact_with_tail
from symfind.storage.compounds import (
    Ranks,
    make_table,
    read_word_list,
    split_compound,
    word_table,
    word_table_made_again,
)
from symfind.storage.location import cache_dir
from symfind.storage.words import compound_parts


def test_splits_are_wordninjas() -> None:
    rng = random.Random(5)
    english = sorted({word for word in read_word_list() if word.isalpha()})
    run_together = ["".join(rng.choice(english) for _ in range(rng.randint(2, 4)))
                    for _ in range(3000)]
    noise = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 30)))
             for _ in range(1000)]
    words = [*run_together, *noise, "getbaseline", "shrinkstack", "GetBaseLine", "qqqzzz",
             "a", "x" * 70]
    assert [split_compound(word) for word in words] == [wordninja.split(word) for word in words]


def test_compound_parts_of_names() -> None:
    words = ["getbaseline", "shrinkstack", "readfile", "baseline", "abc", "utf8decode", "qqqzzz"]
    assert [compound_parts(word) for word in words] == [
        ("get", "baseline"), ("shrink", "stack"), ("read", "file"), (), (), (), ()]


@pytest.mark.parametrize("damage", [
    "flipped byte in the head", "flipped byte in a group", "truncated", "another source"])
def test_a_damaged_cached_word_list_is_made_again_never_used(damage: str) -> None:
    words = read_word_list()
    fresh = word_table()  # made now, in this test's own cache directory
    (path,) = (cache_dir() / "words").iterdir()
    intact = path.read_bytes()
    if damage == "flipped byte in the head":  # within the part its digest covers
        data = bytearray(intact)
        data[300] ^= 0x01
        path.write_bytes(bytes(data))
    elif damage == "flipped byte in a group":  # a rank in a group: another split
        data = bytearray(intact)
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
    elif damage == "truncated":  # the head whole, most groups gone
        path.write_bytes(intact[: len(intact) // 3])
    else:
        other = make_table(["get", "baseline"], "another")
        write_intact_with_tail(path, msgspec.msgpack.encode(other.table), other.groups)
    ranks = Ranks(word_table(), word_table_made_again)
    # Of a word listed twice, the later rank.
    assert {word: ranks.get(word) for word in words} == dict(zip(words, range(1, len(words) + 1)))
    assert word_table() == fresh
    assert path.read_bytes() == intact  # written again
