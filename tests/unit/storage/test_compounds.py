"""Names' run-together words split by storage/compounds.py exactly as wordninja splits them."""

from __future__ import annotations

import random

import wordninja

from symfind.storage.compounds import load_word_list, split_compound
from symfind.storage.words import compound_parts


def test_splits_are_wordninjas() -> None:
    rng = random.Random(5)
    english = sorted(word for word in load_word_list()[0] if word.isalpha())
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
