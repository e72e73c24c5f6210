"""A file's uses of names and its imports, as the index stores them (references).

Imports: msgspec, zlib, `extract.records`.

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
- `uses_record`: stored bytes, `FileUses` msgpack-encoded then zlib-compressed: the
  imports, a string table (receivers, receiver types, enclosing definitions: each written
  once per file) and the occurrences grouped by name, each name's group a `msgspec.Raw`
  so that a query decodes only the entries of the names it asks for.

Why compressed here: Tantivy compresses its document store with LZ4 only, which leaves
msgpack's small integers and repeated names at about two thirds of their size; zlib
takes a record to under half (cobra, rich, requests: 397 KB of records, 199 KB once
compressed), for about 0.1 ms a file to compress and a tenth of that to read back.
A group's lines are deltas from the line before (most are a few lines apart: one byte).
"""

from __future__ import annotations

import itertools
import unicodedata
import zlib
from collections.abc import Iterable, Sequence

import msgspec

from symfind.extract.records import Import, Occurrence, UseKind

#: The name a wildcard import binds (`from m import *`, `export * from "m"`): a `uses`
#: term of the files that have one.
WILDCARD = "*"
#: Field names (`storage/schema.py` adds them to the schema).
USES_FIELD = "uses"
USES_RECORD_FIELD = "uses_record"

#: A use as stored: six integers (line, column, kind, receiver, receiver_type,
#: enclosing), the line as the difference from the previous use's in its group (the
#: first's from 0), the kind as its position in `KINDS`, the last three as indexes into
#: `FileUses.strings` (0 is ""). A group is its uses' integers in one flat list, column
#: by column (every line, then every column, ...): zlib finds more alike numbers side by
#: side (tokio's records 2 % smaller than use by use).
ENTRY_WIDTH = 6
#: The columns of a group after its lines and columns, by position.
_KIND_COLUMN, _RECEIVER_COLUMN, _TYPE_COLUMN, _ENCLOSING_COLUMN = 2, 3, 4, 5
#: zlib's default level: levels 1 and 9 change a record's size by 3 % and 0.05 %.
_COMPRESSION = 6
#: Stored kinds by position: new kinds are appended, never inserted (a stored index
#: keeps its meaning).
KINDS: tuple[UseKind, ...] = tuple(UseKind)
_KIND_CODES = {kind: code for code, kind in enumerate(KINDS)}


class EncodedUses(msgspec.Struct, frozen=True, array_like=True):
    """A file's `uses_record` and its `uses` terms, as `encode_uses` makes them: encoded
    where the file is extracted (an extraction worker), so that the writer's process,
    which every file goes through, only stores them."""

    record: bytes
    names: list[str]


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
_ENTRIES_DECODER = msgspec.msgpack.Decoder(list[int])


def _nfc(name: str) -> str:
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def encode_uses(
    path: str, language: str, occurrences: Sequence[Occurrence], imports: Sequence[Import]
) -> EncodedUses:
    """The stored record of a file's uses, and the distinct names it uses (the `uses`
    terms), in first-use order."""
    strings: dict[str, int] = {"": 0}
    intern = strings.setdefault
    rows: dict[str, list[tuple[int, ...]]] = {}  # by the name in NFC
    as_written: dict[str, list[tuple[int, ...]]] = {}  # the same lists, by the name as written
    for occurrence in occurrences:  # in source order: each group's lines never go down
        group = as_written.get(occurrence.name)
        if group is None:
            group = as_written[occurrence.name] = rows.setdefault(_nfc(occurrence.name), [])
        group.append((occurrence.line, occurrence.column, _KIND_CODES[occurrence.kind],
                      intern(occurrence.receiver, len(strings)),
                      intern(occurrence.receiver_type, len(strings)),
                      intern(occurrence.enclosing, len(strings))))
    grouped: dict[str, list[int]] = {name: _columns(group) for name, group in rows.items()}
    for item in imports:  # an aliased import's original name finds the file too, and a
        # wildcard's `*` the modules that re-export every name of another (`export * from`)
        for name in (item.imported, item.name):
            if name:
                grouped.setdefault(_nfc(name), [])
    record = FileUses(
        path=path, language=language, imports=list(imports), strings=list(strings),
        names={name: msgspec.Raw(_ENCODER.encode(group)) for name, group in grouped.items()},
    )
    return EncodedUses(zlib.compress(_ENCODER.encode(record), _COMPRESSION), list(grouped))


def _columns(rows: list[tuple[int, ...]]) -> list[int]:
    """A group's uses as stored: column by column, lines as differences."""
    if len(rows) == 1:  # a name used once (half of them): its row is its columns
        return list(rows[0])
    lines, *others = zip(*rows)
    flat = [line - before for line, before in zip(lines, (0, *lines))]
    for column in others:
        flat += column
    return flat


def decode_file_uses(data: bytes) -> FileUses:
    """Decode a stored `uses_record` (the groups left encoded)."""
    return _FILE_DECODER.decode(zlib.decompress(data))


def typed_receivers(record: FileUses, receiver: str) -> list[tuple[str, str]]:
    """(enclosing definition, receiver type) of each use in the file whose receiver is
    written `receiver` and has a type: one column of each group read, no `Use` made."""
    try:
        wanted = record.strings.index(receiver)
    except ValueError:
        return []
    strings = record.strings
    found = []
    for raw in record.names.values():
        entries = _ENTRIES_DECODER.decode(raw)
        count = len(entries) // ENTRY_WIDTH
        receivers = _column(entries, count, _RECEIVER_COLUMN)
        if wanted not in receivers:
            continue
        types = _column(entries, count, _TYPE_COLUMN)
        enclosings = _column(entries, count, _ENCLOSING_COLUMN)
        found.extend((strings[enclosings[at]], strings[types[at]])
                     for at, written in enumerate(receivers) if written == wanted and types[at])
    return found


def uses_of_kind(record: FileUses, kind: UseKind) -> list[tuple[str, str, str]]:
    """(name, enclosing definition, receiver) of each use of one kind in the file (a
    class's base list: `UseKind.INHERIT`, `io.Reader` embedded in a Go interface): a few
    columns of each group read, no `Use` made."""
    wanted = _KIND_CODES[kind]
    strings = record.strings
    found = []
    for name, raw in record.names.items():
        entries = _ENTRIES_DECODER.decode(raw)
        count = len(entries) // ENTRY_WIDTH
        kinds = _column(entries, count, _KIND_COLUMN)
        if wanted in kinds:
            enclosings = _column(entries, count, _ENCLOSING_COLUMN)
            receivers = _column(entries, count, _RECEIVER_COLUMN)
            found.extend((name, strings[enclosings[at]], strings[receivers[at]])
                         for at, code in enumerate(kinds) if code == wanted)
    return found


def _column(entries: list[int], count: int, column: int) -> list[int]:
    return entries[column * count : (column + 1) * count]


def uses_named(record: FileUses, names: Iterable[str]) -> list[Use]:
    """The uses of `names` in the file `record` describes, ordered by line and column."""
    strings = record.strings
    found = []
    for name in names:
        raw = record.names.get(name)
        if raw is None:
            continue
        entries = _ENTRIES_DECODER.decode(raw)
        count = len(entries) // ENTRY_WIDTH
        if not count:  # a name imported, never used
            continue
        columns = [entries[at:at + count] for at in range(count, len(entries), count)]
        for line, column, kind, receiver, receiver_type, enclosing in zip(
                itertools.accumulate(entries[:count]), *columns):
            found.append(Use(path=record.path, name=name, line=line, column=column,
                             kind=KINDS[kind], receiver=strings[receiver],
                             receiver_type=strings[receiver_type],
                             enclosing=strings[enclosing]))
    found.sort(key=lambda use: (use.line, use.column))
    return found
