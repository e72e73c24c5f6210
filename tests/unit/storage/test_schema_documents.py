"""A file's documents hold what a search scores them from: each scored field's text is
`scored_texts`'s, and the file's lengths are the sums of `field_length` over them, whether
a definition's texts are made anew or found made for one before (`schema._texts`)."""

from __future__ import annotations

from symfind.extract.records import Symbol, SymbolKind
from symfind.storage.schema import (
    LENGTH_FIELDS,
    SCORED_FIELDS,
    field_length,
    file_documents,
    scored_texts,
)


def _symbol(path: str, name: str, qualname: str, signature: str = "", doc: str = "",
            body: str = "") -> Symbol:
    return Symbol(name=name, qualname=qualname, kind=SymbolKind.FUNCTION, language="go",
                  path=path, line=1, end_line=2, signature=signature, doc=doc, body=body)


SYMBOLS = [
    _symbol("src/syscall/zerrors_linux.go", "AF_INET", "syscall.AF_INET", "AF_INET = 0x2"),
    _symbol("src/net/http/server.go", "ServeHTTP", "Handler.ServeHTTP",
            "func ServeHTTP(w ResponseWriter, r *Request)", "ServeHTTP responds to a request",
            "write header getbaseline"),
    _symbol("src/net/http/server.go", "getbaseline", "getbaseline", "", "the café’s Σ word"),
    _symbol("src/a.go", "привет_мир", "пакет.привет_мир", "func привет_мир()", "",
            "ｆｕｌｌｗｉｄｔｈ"),
    _symbol("src/a.go", "_", "p._", "func _()"),
]


def test_documents_hold_the_scored_texts_and_their_lengths() -> None:
    # Twice, under other paths: the second time every definition's texts are found made.
    for path in ("src/first.go", "src/second/file.go"):
        symbols = [_symbol(path, s.name, s.qualname, s.signature, s.doc, s.body)
                   for s in SYMBOLS]
        documents = [document.to_dict() for document in file_documents(symbols)]
        texts = [scored_texts(symbol) for symbol in symbols]
        for document, scored in zip(documents, texts):
            assert document["name_ngram"] == [scored["name_ngram"]]
            assert document["words"] == [scored["words"]]
            assert document["text"] == [scored["text"]]
            assert document.get("body", [""]) == [scored["body"]]
        for field in SCORED_FIELDS:
            assert documents[0][LENGTH_FIELDS[field]] == [
                sum(field_length(field, scored[field]) for scored in texts)]
        assert all(LENGTH_FIELDS["text"] not in document for document in documents[1:])
