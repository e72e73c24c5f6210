"""A file's uses read back whole from the record `encode_uses` stores: every field of
every use, a name imported and never used, a name written in another Unicode form; and
the two columns read alone (a receiver's types, the uses of one kind)."""

from __future__ import annotations

import unicodedata

from symfind.extract.records import Import, Occurrence, UseKind
from symfind.storage.uses import (
    Use,
    decode_file_uses,
    encode_uses,
    typed_receivers,
    uses_named,
    uses_of_kind,
)

DECOMPOSED = unicodedata.normalize("NFD", "café")
COMPOSED = unicodedata.normalize("NFC", "café")
OCCURRENCES = [
    Occurrence(name="get", line=3, column=5, kind=UseKind.ATTRIBUTE_CALL, receiver="s",
               receiver_type="Session", enclosing="main"),
    Occurrence(name="Session", line=3, column=9, kind=UseKind.CALL, enclosing="main"),
    Occurrence(name=DECOMPOSED, line=4, column=1, kind=UseKind.PLAIN),
    Occurrence(name="get", line=7, column=2, kind=UseKind.ATTRIBUTE, receiver="self",
               receiver_type="Client", enclosing="Client.fetch"),
    Occurrence(name="get", line=7, column=20, kind=UseKind.ATTRIBUTE_CALL, receiver="s",
               receiver_type="Session", enclosing="Client.fetch"),
    Occurrence(name=COMPOSED, line=40, column=3, kind=UseKind.TYPE),
]
IMPORTS = [Import(name="Session", source="requests", imported="Session", line=1),
           Import(name="unused", source="os.path", imported="join", line=2)]


def test_every_use_reads_back_whole() -> None:
    encoded = encode_uses("a.py", "python", OCCURRENCES, IMPORTS)
    record = decode_file_uses(encoded.record)
    assert (record.path, record.language, record.imports) == ("a.py", "python", IMPORTS)
    assert encoded.names == ["get", "Session", COMPOSED, "join", "unused"]
    assert uses_named(record, record.names) == [
        Use(path="a.py", name="get", line=3, column=5, kind=UseKind.ATTRIBUTE_CALL,
            receiver="s", receiver_type="Session", enclosing="main"),
        Use(path="a.py", name="Session", line=3, column=9, kind=UseKind.CALL,
            enclosing="main"),
        Use(path="a.py", name=COMPOSED, line=4, column=1, kind=UseKind.PLAIN),
        Use(path="a.py", name="get", line=7, column=2, kind=UseKind.ATTRIBUTE,
            receiver="self", receiver_type="Client", enclosing="Client.fetch"),
        Use(path="a.py", name="get", line=7, column=20, kind=UseKind.ATTRIBUTE_CALL,
            receiver="s", receiver_type="Session", enclosing="Client.fetch"),
        Use(path="a.py", name=COMPOSED, line=40, column=3, kind=UseKind.TYPE),
    ]


def test_a_name_imported_and_never_used_has_no_use() -> None:
    record = decode_file_uses(encode_uses("a.py", "python", [], IMPORTS).record)
    assert sorted(record.names) == ["Session", "join", "unused"]
    assert uses_named(record, ["unused", "join", "Session", "absent"]) == []


def test_one_receivers_types_and_one_kinds_uses_are_read_from_their_columns() -> None:
    occurrences = [*OCCURRENCES,
                   Occurrence(name="Base", line=9, column=12, kind=UseKind.INHERIT,
                              enclosing="Client"),
                   Occurrence(name="Reader", line=10, column=5, kind=UseKind.INHERIT,
                              receiver="io", enclosing="Client"),
                   Occurrence(name="close", line=12, column=9, kind=UseKind.ATTRIBUTE_CALL,
                              receiver="s", enclosing="Client.close")]  # `s` of no type
    record = decode_file_uses(encode_uses("a.py", "python", occurrences, IMPORTS).record)
    assert typed_receivers(record, "s") == [("main", "Session"), ("Client.fetch", "Session")]
    assert typed_receivers(record, "absent") == []
    assert uses_of_kind(record, UseKind.INHERIT) == [("Base", "Client", ""),
                                                     ("Reader", "Client", "io")]
    assert uses_of_kind(record, UseKind.TYPE) == [(COMPOSED, "", "")]
