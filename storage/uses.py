"""A file's uses of names and its imports, as the index stores them (references).

Imports: msgspec, `extract.records`.

A file's occurrences and imports ride in the same Tantivy commit as its definitions, on
its first definition's document: no document is added, so the BM25 statistics of the
definition fields (document count, average lengths) do not move, and the `path` term
deletes the uses with the definitions, so they are never out of step. A file that defines
nothing (a script, a re-exporting `__init__.py`, a TypeScript barrel) has no document:
its record is kept in its `FileState.uses` instead, which the manifest's log writes in
the same commit (a document of its own would count in every BM25 statistic). Nothing
spanning files is stored: an edit to one file never touches another's records.

Two fields (`storage/schema.py`):

- `uses`: raw, one term per distinct name used in the file (as written, NFC), and `*`
  for a file with a wildcard import: the candidate files for a name are one term query;
- `uses_record`: stored bytes, `FileUses` msgpack-encoded: the imports, a string table
  (receivers, receiver types, enclosing definitions: each written once per file) and the
  occurrences grouped by name, each name's group a `msgspec.Raw` so that a query decodes
  only the entries of the names it asks for.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

import msgspec

from symfind.extract.records import Import, Occurrence, UseKind

#: The name a wildcard import binds (`from m import *`, `export * from "m"`): a `uses`
#: term of the files that have one.
WILDCARD = "*"
#: Field names (`storage/schema.py` adds them to the schema).
USES_FIELD = "uses"
USES_RECORD_FIELD = "uses_record"

#: A use as stored: (line, column, kind, receiver, receiver_type, enclosing), the kind as
#: its position in `KINDS`, the last three as indexes into `FileUses.strings` (0 is "").
Entry = tuple[int, int, int, int, int, int]
#: Stored kinds by position: new kinds are appended, never inserted (a stored index
#: keeps its meaning).
KINDS: tuple[UseKind, ...] = tuple(UseKind)
_KIND_CODES = {kind: code for code, kind in enumerate(KINDS)}


class FileUses(msgspec.Struct, frozen=True, array_like=True):
    """One file's uses and imports, as stored in `uses_record`."""

    path: str
    language: str
    imports: list[Import]
    strings: list[str]
    names: dict[str, msgspec.Raw]


class Use(msgspec.Struct, frozen=True, kw_only=True):
    """One decoded use of a name in a file (an `Occurrence` with its file)."""

    path: str
    name: str
    line: int
    column: int
    kind: UseKind
    receiver: str = ""
    receiver_type: str = ""
    enclosing: str = ""


_ENCODER = msgspec.msgpack.Encoder()
_FILE_DECODER = msgspec.msgpack.Decoder(FileUses)
_ENTRIES_DECODER = msgspec.msgpack.Decoder(list[Entry])


def _nfc(name: str) -> str:
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def encode_uses(
    path: str, language: str, occurrences: Sequence[Occurrence], imports: Sequence[Import]
) -> tuple[bytes, list[str]]:
    """The stored record of a file's uses, and the distinct names it uses (the `uses`
    terms), in first-use order."""
    strings: dict[str, int] = {"": 0}
    grouped: dict[str, list[Entry]] = {}
    for occurrence in occurrences:
        entry = (occurrence.line, occurrence.column, _KIND_CODES[occurrence.kind],
                 strings.setdefault(occurrence.receiver, len(strings)),
                 strings.setdefault(occurrence.receiver_type, len(strings)),
                 strings.setdefault(occurrence.enclosing, len(strings)))
        grouped.setdefault(_nfc(occurrence.name), []).append(entry)
    for item in imports:  # an aliased import's original name finds the file too, and a
        # wildcard's `*` the modules that re-export every name of another (`export * from`)
        for name in (item.imported, item.name):
            if name:
                grouped.setdefault(_nfc(name), [])
    record = FileUses(
        path=path, language=language, imports=list(imports), strings=list(strings),
        names={name: msgspec.Raw(_ENCODER.encode(entries)) for name, entries in grouped.items()},
    )
    return _ENCODER.encode(record), list(grouped)


def decode_file_uses(data: bytes) -> FileUses:
    """Decode a stored `uses_record` (the groups left encoded)."""
    return _FILE_DECODER.decode(data)


def uses_named(record: FileUses, names: Iterable[str]) -> list[Use]:
    """The uses of `names` in the file `record` describes, ordered by line and column."""
    strings = record.strings
    found = []
    for name in names:
        raw = record.names.get(name)
        if raw is None:
            continue
        for line, column, kind, receiver, receiver_type, enclosing in _ENTRIES_DECODER.decode(raw):
            found.append(Use(path=record.path, name=name, line=line, column=column,
                             kind=KINDS[kind], receiver=strings[receiver],
                             receiver_type=strings[receiver_type],
                             enclosing=strings[enclosing]))
    found.sort(key=lambda use: (use.line, use.column))
    return found
