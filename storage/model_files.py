"""The question model's files, read in milliseconds: what storage/semantic.py's `Model` is made of.

Imports: msgspec, `storage` modules; numpy only to derive (not wordllama: its files are
read, the package is never imported).

The model ships inside the `wordllama` wheel as two files: its token vectors (safetensors:
32,000 x 256 float16, 16 MB) and its tokenizer (JSON, 1.8 MB). Loading them through
wordllama cost every question asked from the command line ~1 s of CPU (wordllama's imports,
the tokenizer's parse, the table's conversion, the vocabulary's listing), where a name
search costs ~0.25 s in all. So:

- The vectors are never copied nor converted ahead: the safetensors file is memory-mapped
  where the wheel put it (an 8-byte header length, a JSON header, then the raw table), so a
  question reads only the rows it uses (`TokenTable.row`, without numpy: its import alone
  costs about what a whole name search does), and no copy of them can go stale or be
  damaged.
- What is derived from the files (the vocabulary's whole words and their ids, the
  tokenizer's tables for storage/bpe.py, the fingerprint the shipped neighbour table is
  checked against) is computed once (~0.3 s) and kept in one file of symfind's cache
  directory (storage/location.py `cache_dir`): `model/<model>-<key>.bin`, where the key
  names the files it was made from (path, size, modification time, inode) and this
  module's `FORMAT`; another wordllama release or another installation gets a file of its
  own. It is written atomically, digest first (storage/cache_files.py), and used only
  when that digest and the key match: a damaged, partial or foreign file is derived again
  and replaced, never read. When the cache directory cannot be written, every process
  derives its own.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import mmap
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import msgspec

from symfind.storage.bpe import (WORD_START, Encoder, PackedMerges, SortedWords, merge_value,
                                 pair_key)
from symfind.storage.cache_files import (key_of, little_endian, packed_little_endian,
                                         read_made_from, write_intact)
from symfind.storage.errors import ModelUnavailable

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

#: The model: WordLlama's `l2_supercat` at 256 dimensions, and where its files sit in the
#: wordllama package's folder.
MODEL_NAME = "l2_supercat_256"
WEIGHTS_FILE = ("weights", "l2_supercat_256.safetensors")
TOKENIZER_FILE = ("tokenizers", "l2_supercat_tokenizer_config.json")
TENSOR = "embedding.weight"
#: Bumped whenever `Derived` or the way it is derived changes: older files are then ignored.
FORMAT = 4
#: safetensors' element types the table may have: their `struct` format character.
_SAFETENSORS_TYPES = {"F16": "e", "F32": "f"}


class Derived(msgspec.Struct, frozen=True, kw_only=True):
    """What is derived once from the model's files and kept in the cache.

    Attributes:
        source: The files it was derived from and how (`source_key`).
        fingerprint: What the neighbours depend on (`fingerprint`).
        vocabulary: The vocabulary's whole words, lowercase, in token order.
        vocabulary_ids: Each vocabulary word's token id.
        characters: Each one-character token → its id.
        byte_ids: The byte tokens' ids, `<0x00>` first.
        merge_keys: The merges' `bpe.pair_key`s, ascending, little-endian unsigned 64-bit.
        merge_values: Their `bpe.merge_value`s, likewise, in the same order.
        whole_words: The words that encode as one token (`Encoder.whole_words`), sorted.
        whole_word_ids: Their ids, in the same order.
    """

    source: str
    fingerprint: str
    vocabulary: list[str]
    vocabulary_ids: list[int]
    characters: dict[str, int]
    byte_ids: list[int]
    merge_keys: memoryview
    merge_values: memoryview
    whole_words: list[str]
    whole_word_ids: list[int]


_DECODER = msgspec.msgpack.Decoder(Derived)


class TokenTable:
    """The token vectors, one row per token id, memory-mapped from the safetensors file.

    Args:
        path: The file.
        offset: Where the table starts in it.
        rows: How many rows (tokens).
        dims: How many numbers a row holds.
        kind: The numbers' `struct` format character (`e`: float16, `f`: float32).
    """

    def __init__(self, path: Path, offset: int, rows: int, dims: int, kind: str) -> None:
        self.path, self.offset, self.rows, self.dims, self.kind = path, offset, rows, dims, kind
        with path.open("rb") as file:
            self._map = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        self._row = struct.Struct(f"<{dims}{kind}")

    def row(self, token: int) -> tuple[float, ...]:
        """One token's vector, as Python floats (exactly the stored numbers)."""
        if not 0 <= token < self.rows:
            raise IndexError(f"token {token} is not in a table of {self.rows}")
        return self._row.unpack_from(self._map, self.offset + token * self._row.size)

    def array(self) -> np.ndarray:
        """The whole table as a numpy array over the same memory (rows x dims), for
        the work that needs every row: deriving, neighbours of words no table holds."""
        import numpy as np  # here: most processes never need it, and it costs ~0.1 s

        return np.frombuffer(self._map, dtype=f"<{'f2' if self.kind == 'e' else 'f4'}",
                             count=self.rows * self.dims, offset=self.offset
                             ).reshape(self.rows, self.dims)


class ModelFiles(NamedTuple):
    """The model as loaded: its token vectors (memory-mapped), its encoder, and what was
    derived from its files."""

    table: TokenTable
    encoder: Encoder
    derived: Derived


def package_dir() -> Path:
    """The wordllama package's folder, found without importing the package.

    Raises:
        ModelUnavailable: The package is not installed.
    """
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("the wordllama package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def read_table(path: Path) -> TokenTable:
    """The token vectors of a safetensors file, memory-mapped read-only.

    Raises:
        ModelUnavailable: The file is missing, unreadable or not the table expected.
    """
    try:
        with path.open("rb") as file:
            (header_size,) = struct.unpack("<Q", file.read(8))
            header = json.loads(file.read(header_size))
        entry = header[TENSOR]
        kind = _SAFETENSORS_TYPES[entry["dtype"]]
        rows, dims = entry["shape"]
        begin, end = entry["data_offsets"]
        offset = 8 + header_size + begin
        size = end - begin
        if size != rows * dims * struct.calcsize(kind) or path.stat().st_size < offset + size:
            raise ValueError(f"{TENSOR} holds {size} bytes, not {rows} x {dims}")
        return TokenTable(path, offset, rows, dims, kind)
    except (OSError, ValueError, KeyError, TypeError, struct.error) as exc:
        raise ModelUnavailable(f"the model's vectors did not load from {path}: {exc!r}") from exc


def unit_rows(table: TokenTable, ids: Sequence[int]) -> np.ndarray:
    """The rows `ids` of the table as float32 unit vectors (numpy's)."""
    import numpy as np  # here: only deriving and neighbours computed need it

    matrix = np.asarray(table.array()[list(ids)], dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def fingerprint(salt: str, vocabulary: Sequence[str], matrix: np.ndarray) -> str:
    """What neighbours computed from a model depend on: `salt` (the thresholds), the
    vocabulary and its unit vectors."""
    digest = hashlib.sha256()
    digest.update(salt.encode())
    digest.update("\n".join(vocabulary).encode())
    digest.update(matrix.tobytes())
    return digest.hexdigest()


def source_key(files: Sequence[Path], salt: str) -> str:
    """What a derived file was made from: this format, `salt`, and each file's path,
    size, modification time and inode (a reinstalled or upgraded wheel changes them).

    Raises:
        ModelUnavailable: A file is missing.
    """
    lines = [f"symfind model files {FORMAT}", salt.strip()]
    for path in files:
        try:
            status = path.stat()
        except OSError as exc:
            raise ModelUnavailable(f"the model's file is missing: {exc}") from exc
        lines.append(f"{path} {status.st_size} {status.st_mtime_ns} {status.st_ino}")
    return "\n".join(lines)


def cache_path(cache_dir: Path, source: str) -> Path:
    """The derived file for `source` in `cache_dir`."""
    return cache_dir / "model" / f"{MODEL_NAME}-{key_of(source)}.bin"


def load(cache_dir: Path, salt: str) -> ModelFiles:
    """The model's files, with what is derived from them read from the cache when it is
    there and intact, else derived now and written to it.

    Raises:
        ModelUnavailable: The package or its files are missing or not as expected.
    """
    package = package_dir()
    weights, tokenizer = package.joinpath(*WEIGHTS_FILE), package.joinpath(*TOKENIZER_FILE)
    table = read_table(weights)
    source = source_key((weights, tokenizer), salt)
    path = cache_path(cache_dir, source)
    derived = read_derived(path, source)
    if derived is None:
        derived = derive(tokenizer, table, source, salt)
        try:
            write_derived(path, derived)
        except OSError as exc:  # a read-only cache: this process keeps its own
            logger.info("the question model's tables stay in memory: %s", exc)
    merges = PackedMerges(little_endian(derived.merge_keys, "Q"),
                          little_endian(derived.merge_values, "Q"))
    encoder = Encoder(derived.characters, derived.byte_ids, merges,
                      SortedWords(derived.whole_words, derived.whole_word_ids))
    return ModelFiles(table, encoder, derived)


def read_derived(path: Path, source: str) -> Derived | None:
    """The derived file at `path` when it is intact and made from `source`, else None."""
    derived: Derived | None = read_made_from(path, _DECODER, source)
    return derived


def write_derived(path: Path, derived: Derived) -> None:
    """Write a derived file atomically, its digest first.

    Raises:
        OSError: It cannot be written.
    """
    write_intact(path, msgspec.msgpack.encode(derived))


def derive(tokenizer: Path, table: TokenTable, source: str, salt: str) -> Derived:
    """Derive the vocabulary, the encoder's tables and the fingerprint from the files.

    Raises:
        ModelUnavailable: The tokenizer is unreadable or not the kind storage/bpe.py reads.
    """
    try:
        config = json.loads(tokenizer.read_text(encoding="utf-8"))
        model = config["model"]
        vocab: dict[str, int] = model["vocab"]
        _check_tokenizer(config)
        byte_ids = [vocab[f"<0x{byte:02X}>"] for byte in range(256)]
        found: dict[int, int] = {}
        for rank, merge in enumerate(model["merges"]):
            left, right = merge.split(" ") if isinstance(merge, str) else merge
            # A later copy of a pair replaces an earlier one, as in the tokenizer.
            found[pair_key(vocab[left], vocab[right])] = merge_value(rank, vocab[left + right])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelUnavailable(
            f"the model's tokenizer did not load from {tokenizer}: {exc!r}") from exc
    # In token order, the first of a word's spellings (`▁retry` before `▁Retry`).
    unique: dict[str, int] = {}
    for token, index in sorted(vocab.items(), key=lambda item: item[1]):
        # `▁` starts a word in this tokenizer; fragments and short words are no synonyms
        word = token[1:]
        if token.startswith(WORD_START) and word.isascii() and word.isalpha() and len(token) > 3:
            unique.setdefault(word.lower(), index)
    vocabulary = list(unique)
    if not vocabulary or max(vocab.values()) >= table.rows:
        raise ModelUnavailable(f"the tokenizer {tokenizer} does not fit the model's vectors")
    characters = {token: index for token, index in vocab.items() if len(token) == 1}
    whole_words = sorted(Encoder(characters, byte_ids, found).whole_words(vocab).items())
    return Derived(
        source=source,
        fingerprint=fingerprint(salt, vocabulary, unit_rows(table, list(unique.values()))),
        vocabulary=vocabulary,
        vocabulary_ids=list(unique.values()),
        characters=characters,
        byte_ids=byte_ids,
        merge_keys=packed_little_endian(sorted(found), "Q"),
        merge_values=packed_little_endian([found[key] for key in sorted(found)], "Q"),
        whole_words=[word for word, _ in whole_words],
        whole_word_ids=[index for _, index in whole_words],
    )


def _check_tokenizer(config: dict[str, object]) -> None:
    """Refuse a tokenizer that storage/bpe.py would not encode as it does.

    Raises:
        ValueError: It is not a byte-fallback BPE that starts words with `▁` and does
            nothing else to them (another wordllama release may ship another).
    """
    model = config["model"]
    # A setting a file leaves out has the tokenizers package's default.
    expected = {"type": ("BPE", None), "dropout": (None, None),
                "continuing_subword_prefix": (None, None), "end_of_word_suffix": (None, None),
                "byte_fallback": (True, False), "ignore_merges": (False, False)}
    normalizer = {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": WORD_START},
        {"type": "Replace", "pattern": {"String": " "}, "content": WORD_START}]}
    if not isinstance(model, dict) or any(model.get(key, default) != value
                                          for key, (value, default) in expected.items()):
        raise ValueError("the tokenizer is not a byte-fallback BPE")
    if config.get("normalizer") != normalizer or config.get("pre_tokenizer") is not None:
        raise ValueError("the tokenizer's normalizer or pre-tokenizer is not the one expected")
