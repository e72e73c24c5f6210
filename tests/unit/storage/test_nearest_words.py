"""The packed vocabulary behind a word's computed neighbours: its candidates hold every
vocabulary word within the threshold (checked against every cosine, computed by numpy),
and its cache file is written once, read back, and derived again when damaged."""

from __future__ import annotations

import random
import string
from pathlib import Path

import msgspec
import numpy as np
import pytest

from symfind.storage import model_files, nearest_words, semantic
from symfind.storage.cache_files import write_intact
from symfind.storage.compounds import read_word_list

SALT = f"{semantic.NEIGHBOURS_PER_WORD} {semantic.NEIGHBOUR_MIN_COSINE}\n"


def cosines_with_vocabulary(model: semantic.Model, vector: semantic.Vector) -> np.ndarray:
    """Every vocabulary word's cosine with `vector`, in float64."""
    rows = np.asarray(model.table.array()[list(model.vocabulary_ids)], dtype=np.float64)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows @ (np.asarray(vector.numbers, dtype=np.float64) / vector.length)


def test_candidates_hold_every_word_within_the_threshold_and_few_others(tmp_path: Path) -> None:
    files = model_files.load(tmp_path, SALT)
    model = semantic.model_of(files, tmp_path)
    packed = nearest_words.load(tmp_path, files.derived.source, files.table,
                                files.derived.vocabulary_ids)
    rng = random.Random(5)
    words = ["netrc", "argv", "stderr", "colorterm", "utf8", "1024", "delete", "retry",
             *rng.sample(model.vocabulary, 20), *rng.sample(read_word_list(), 20),
             *("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 12)))
               for _ in range(20))]
    kept = 0
    for word, vector in zip(words, model.vectors(words)):
        assert vector is not None, word
        cosines = cosines_with_vocabulary(model, vector)
        unit = [number / vector.length for number in vector.numbers]
        for threshold in (0.5, 0.3):
            found = packed.candidates(unit, threshold)
            within = set(np.flatnonzero(cosines >= threshold).tolist())
            assert within <= set(found), (word, threshold)
            if threshold == semantic.NEIGHBOUR_MIN_COSINE:  # the one neighbours use
                # Few others: the bound leaves a few dozen words in doubt at most.
                assert len(found) <= len(within) + 100, (word, len(found))
            assert found == sorted(found)
            kept += len(within)
    assert kept > 300  # the check compares words found, not only empty sets
    assert packed.candidates([0.0] * semantic.MODEL_DIM, 0.5) == []


def test_the_rounding_alone_keeps_every_word_within_for_a_vector_without_residual(
        tmp_path: Path) -> None:
    """Vectors along the kept directions only (no residual: the residuals' part of the
    bound is 0), each with the threshold at its tenth best cosine: the rounding's bound
    keeps every word at or above it."""
    files = model_files.load(tmp_path, SALT)
    ids = files.derived.vocabulary_ids
    packed = nearest_words.derive(files.table, ids, "test")
    vocabulary = nearest_words.PackedVocabulary(packed)
    directions = np.frombuffer(packed.directions, dtype="<f8").reshape(-1, semantic.MODEL_DIM)
    rows = np.asarray(files.table.array()[list(ids)], dtype=np.float64)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    rng = np.random.default_rng(3)
    for row in rng.choice(len(ids), 40, replace=False):
        along = rows[row] @ directions.T @ directions
        along /= np.linalg.norm(along)
        cosines = rows @ along
        threshold = float(np.sort(cosines)[-10])
        found = set(vocabulary.candidates(along.tolist(), threshold))
        assert set(np.flatnonzero(cosines >= threshold).tolist()) <= found, row


def test_a_first_call_finds_what_later_calls_find(tmp_path: Path) -> None:
    """A process's first call makes each direction's int where the last one was; later
    calls keep them: the same candidates either way."""
    files = model_files.load(tmp_path, SALT)
    packed = nearest_words.derive(files.table, files.derived.vocabulary_ids, "test")
    model = semantic.model_of(files, tmp_path)
    words = ["netrc", "argv", "colorterm", "delete", "retry", "hooks", "multipart", "qzx"]
    units = [[number / vector.length for number in vector.numbers]
             for vector in model.vectors(words) if vector is not None]
    firsts = [nearest_words.PackedVocabulary(packed).candidates(unit, 0.3) for unit in units]
    kept = nearest_words.PackedVocabulary(packed)
    later = [kept.candidates(unit, 0.3) for unit in units]
    assert later == [kept.candidates(unit, 0.3) for unit in units] == firsts
    assert sum(map(len, firsts)) > 50


def the_packed_file(cache: Path) -> Path:
    (path,) = (cache / "model").glob("*-vocabulary.bin")
    return path


def load_packed(cache: Path) -> nearest_words.PackedVocabulary:
    files = model_files.load(cache, SALT)
    return nearest_words.load(cache, files.derived.source, files.table,
                              files.derived.vocabulary_ids)


def answers(packed: nearest_words.PackedVocabulary) -> list[list[int]]:
    model = semantic.load_model()
    return [packed.candidates([n / v.length for n in v.numbers], 0.4)
            for v in model.vectors(["netrc", "argv", "request", "delete"])]


def test_the_packed_vocabulary_is_written_once_then_read(tmp_path: Path) -> None:
    first = answers(load_packed(tmp_path))
    path = the_packed_file(tmp_path)
    written = path.stat()
    assert answers(load_packed(tmp_path)) == first
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    assert any(first)


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "another source"])
def test_a_damaged_packed_vocabulary_is_derived_again_never_used(tmp_path: Path,
                                                                 damage: str) -> None:
    expected = answers(load_packed(tmp_path / "fresh"))
    load_packed(tmp_path / "cache")
    path = the_packed_file(tmp_path / "cache")
    data = bytearray(path.read_bytes())
    if damage == "flipped byte":  # in the columns: other candidates
        data[len(data) - 1000] ^= 0x40
    elif damage == "truncated":
        del data[len(data) // 2:]
    else:  # intact, but made from other files: its digest is right, its source is not
        files = model_files.load(tmp_path / "cache", SALT)
        other = nearest_words.derive(files.table, files.derived.vocabulary_ids[:100], "other")
        write_intact(path, msgspec.msgpack.encode(other))
        data = bytearray(path.read_bytes())
    path.write_bytes(bytes(data))
    assert answers(load_packed(tmp_path / "cache")) == expected
    assert path.read_bytes() == the_packed_file(tmp_path / "fresh").read_bytes()  # rewritten


def test_a_cache_that_cannot_be_written_costs_only_the_derivation(tmp_path: Path) -> None:
    files = model_files.load(tmp_path / "cache", SALT)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would be", encoding="utf-8")
    packed = nearest_words.load(blocker, files.derived.source, files.table,
                                files.derived.vocabulary_ids)
    assert answers(packed) == answers(load_packed(tmp_path / "cache"))
    assert blocker.read_text(encoding="utf-8") == "a file where the cache directory would be"
