"""The question model's words encoded by storage/bpe.py, word for word as the model's own
tokenizer (the `tokenizers` package reading wordllama's file) encodes them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from symfind.storage import bpe, model_files
from symfind.storage.bpe import Encoder, SortedWords, merge_value, pair_key
from symfind.storage.compounds import read_word_list
from symfind.storage.words import split_text

FIXTURE_REPO = Path(__file__).resolve().parents[2] / "fixtures" / "repo"


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    return Tokenizer.from_file(str(model_files.package_dir().joinpath(*model_files.TOKENIZER_FILE)))


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> Encoder:
    return model_files.load(tmp_path_factory.mktemp("cache"), "salt\n").encoder


def words_to_check() -> list[str]:
    """Words as symfind meets them: a repository's (names, docs, bodies), English words,
    the tokenizer's own pieces, other scripts, digits, and random letters."""
    rng = random.Random(11)
    words = sorted({word for path in sorted(FIXTURE_REPO.rglob("*")) if path.is_file()
                    for word in split_text(path.read_text(encoding="utf-8", errors="replace"))})
    english = sorted(set(read_word_list()))
    letters = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
               "éüßøñпривет中文字日本語한국어αβγ🙂عربي")
    made_up = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 24))) for _ in range(3000)]
    return [*words, *rng.sample(english, 5000), *made_up,
            "", "a", "7", "2024", "getbaseline", "HTTPServerError", "привет", "计算总和",
            "ｆｕｌｌｗｉｄｔｈ", "café", "cafe\u0301", "x" * 200]


def test_words_encode_as_the_models_tokenizer_encodes_them(tokenizer: Tokenizer,
                                                          encoder: Encoder) -> None:
    words = words_to_check()
    encodings = tokenizer.encode_batch(words, add_special_tokens=False)
    expected = [encoding.ids for encoding in encodings]
    assert [encoder.encode(word) for word in words] == expected


def test_words_encode_alike_when_the_merges_read_start_over(
        tokenizer: Tokenizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-lived process's merges start over past `PAIRS_KEPT` pairs met: the words
    still encode as the tokenizer encodes them."""
    monkeypatch.setattr(bpe, "PAIRS_KEPT", 50)
    encoder = model_files.load(tmp_path, "salt\n").encoder
    words = words_to_check()[:3000]
    expected = [encoding.ids for encoding in tokenizer.encode_batch(words, add_special_tokens=False)]
    assert [encoder.encode(word) for word in words] == expected


def test_the_earliest_merge_applies_first_and_the_leftmost_of_equals() -> None:
    # ▁=1 a=2 b=3; merges in order: a b → ab (4), ▁ a → ▁a (5), ab a → aba (6)
    encoder = Encoder({"▁": 1, "a": 2, "b": 3}, list(range(100, 356)), {
        pair_key(2, 3): merge_value(0, 4),
        pair_key(1, 2): merge_value(1, 5),
        pair_key(4, 2): merge_value(2, 6),
    })
    assert encoder.encode("aba") == [1, 6]  # ▁ a b a → ▁ ab a → ▁ aba (`▁ a` comes later)
    assert encoder.encode("abab") == [1, 4, 4]  # ab ab: no merge of the two
    assert encoder.encode("ac") == [5, 100 + ord("c")]  # `c` is no token: its byte is
    assert encoder.encode("") == []
    # Only a word that merges into its own token is taken as one without merging.
    assert encoder.whole_words({"▁a": 5, "▁ab": 9, "a": 2}) == {"a": 5}
    shortcut = Encoder({"▁": 1, "a": 2, "b": 3}, list(range(100, 356)), {}, {"ab": 9})
    assert (shortcut.encode("ab"), shortcut.encode("ba")) == ([9], [1, 3, 2])
    sorted_words = SortedWords(["ab", "bb"], [9, 11])  # as the cache keeps them
    sorted_shortcut = Encoder({"▁": 1, "a": 2, "b": 3}, list(range(100, 356)), {},
                              sorted_words)
    assert [sorted_shortcut.encode(word) for word in ("ab", "ba", "bb", "a", "c")] == [
        [9], [1, 3, 2], [11], [1, 2], [1, 100 + ord("c")]]
    pairs = Encoder({"▁": 1, "a": 2}, list(range(100, 356)), {pair_key(2, 2): merge_value(0, 4)})
    assert pairs.encode("aaa") == [1, 4, 2]  # ▁ aa a, not ▁ a aa
