"""The question model loaded from its files and symfind's cache: the same vectors as
wordllama's own loading gives, and a damaged, partial or foreign cache file derived
again, never used."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from wordllama import WordLlama

from symfind.storage import model_files, semantic
from symfind.storage.semantic import Model, model_of

SALT = f"{semantic.NEIGHBOURS_PER_WORD} {semantic.NEIGHBOUR_MIN_COSINE}\n"
WORDS = ["retry", "upload", "redirects", "followed", "getbaseline", "HTTPServerError",
         "привет", "计算总和", "x" * 120, "", "7"]


def unit_vectors(model: Model, words: list[str]) -> np.ndarray:
    """The model's vectors of `words` normalised, one row each (zeros: no vector)."""
    rows = np.zeros((len(words), semantic.MODEL_DIM), dtype=np.float64)
    for row, vector in enumerate(model.vectors(words)):
        if vector is not None:
            rows[row] = np.asarray(vector.numbers, dtype=np.float64) / vector.length
    return rows


def the_cache_file(cache: Path) -> Path:
    (path,) = (cache / "model").iterdir()
    return path


def test_word_vectors_are_those_of_wordllamas_own_loading(tmp_path: Path) -> None:
    """Each word's vector: the mean of its tokens' vectors (as wordllama's tokenizer and
    table give them), normalised."""
    theirs = WordLlama.load(config="l2_supercat", dim=semantic.MODEL_DIM,
                            cache_dir=model_files.package_dir(), disable_download=True)
    mine = unit_vectors(model_of(model_files.load(tmp_path, SALT), tmp_path), WORDS)
    expected = np.zeros_like(mine)
    for row, word in enumerate(WORDS):
        ids = theirs.tokenizer.encode(word, add_special_tokens=False).ids
        if ids:
            summed = theirs.embedding[ids].sum(axis=0)
            expected[row] = summed / np.linalg.norm(summed)
    assert mine == pytest.approx(expected, abs=1e-6)
    assert not mine[WORDS.index("")].any()


def test_the_cache_is_written_once_then_read(tmp_path: Path) -> None:
    first = model_files.load(tmp_path, SALT)
    path = the_cache_file(tmp_path)
    written = path.stat()
    again = model_files.load(tmp_path, SALT)
    assert again.derived == first.derived
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    assert first.derived.fingerprint == semantic.load_model().fingerprint()


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "emptied", "digest only",
                                    "another source"])
def test_a_damaged_cache_file_is_derived_again_never_used(tmp_path: Path, damage: str) -> None:
    fresh = model_files.load(tmp_path / "fresh", SALT)
    expected = unit_vectors(model_of(fresh, tmp_path / "fresh"), WORDS)
    model_files.load(tmp_path / "cache", SALT)
    path = the_cache_file(tmp_path / "cache")
    data = bytearray(path.read_bytes())
    if damage == "flipped byte":  # in the merges: wrong token ids, wrong vectors
        data[len(data) - 1000] ^= 0x01
    elif damage == "truncated":  # a write cut short
        del data[len(data) // 2:]
    elif damage == "emptied":
        data.clear()
    elif damage == "digest only":
        data[:32] = bytes(32)
    else:  # intact, but made from other files: its digest is right, its key is not
        other = model_files.derive(
            model_files.package_dir().joinpath(*model_files.TOKENIZER_FILE), fresh.table,
            "other files", SALT)
        model_files.write_derived(path, other)
        data = bytearray(path.read_bytes())
    path.write_bytes(bytes(data))
    reloaded = model_files.load(tmp_path / "cache", SALT)
    assert reloaded.derived == fresh.derived
    assert np.array_equal(unit_vectors(model_of(reloaded, tmp_path / "cache"), WORDS), expected)
    assert path.read_bytes() == the_cache_file(tmp_path / "fresh").read_bytes()  # rewritten


def test_a_cache_that_cannot_be_written_costs_only_the_derivation(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would be", encoding="utf-8")
    files = model_files.load(blocker, SALT)
    assert files.derived == model_files.load(tmp_path / "cache", SALT).derived
    assert blocker.read_text(encoding="utf-8") == "a file where the cache directory would be"


def test_the_cache_directory_is_the_users_unless_set(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    from symfind.storage.location import cache_dir

    monkeypatch.setenv("SYMFIND_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("SYMFIND_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "symfind"
