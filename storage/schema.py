"""The versioned Tantivy schema: fields, analyzers and Symbol → document.

Imports: tantivy, msgspec, `extract.records`, `storage` modules.

One field per search channel, each with its own analyzer (the channels: docs/search.md):

| field          | analyzer        | content                                            | channel   |
|----------------|-----------------|----------------------------------------------------|-----------|
| record         | (stored bytes)  | the msgpack-encoded Symbol                          | —         |
| splits         | (stored bytes)  | how those of its qualname's words that run English words together split (`words.stored_splits`) | text, vector |
| name_exact     | raw, lowercase  | name squashed (`_`/`-`/`$` removed, lowercased)     | exact     |
| name_ngram     | 2–3-grams       | squashed name                                       | ngram     |
| name_fuzzy     | raw, lowercase  | squashed name, at most 64 chars                     | fuzzy     |
| scope          | raw, lowercase  | qualname scope parts and path parts (dirs, stem)    | scopes    |
| words          | simple + stem   | qualname split into words (`HTTPServerError`)      | words     |
| text           | simple + stem − stop words | signature, doc, qualname (and the words run together in its words) and path words | text |
| body           | simple + stem − stop words | body words (`Symbol.body`: calls, names, comments, container doc) | text |
| initials       | raw             | the name's word initials (`abifw`), names of 2+ words | abbrev    |
| heads          | raw             | each word's first 3 letters (`adm big int fie wid`), names of 2+ words | abbrev |
| kind, language, path | raw       | filters; `path` also deletes a file's symbols      | filters   |
| uses           | raw             | names the file uses (on one document of the file)  | references |
| uses_record    | (stored bytes)  | the file's uses and imports (`storage/uses.py`)    | references |
| length_<field> | (fast u64)      | a file's length of each BM25-scored field, in tokens (on one document of the file) | scoring |
| name_lengths   | (fast u64)      | the document's lengths of `words` and `name_ngram`, in tokens (`name_lengths`) | scoring (`storage/postings.py`) |

Version history (`schema_version.txt` holds the current one; any field or analyzer
change bumps it, and an index of another version is rebuilt, never misread):

1. First schema.
2. `qualname_ngram` dropped: no channel ever queried it (the ngram channel matches the
   name's grams only), and building it cost every symbol a second n-gram analysis.
3. `body`: the words of a definition's body and its container's doc, for questions in
   words (the record keeps them too: the vector channel reads them at query time).
4. Names in any script: names outside ASCII are squashed and split in their NFKC form,
   at case changes of any script (`привет_мир` → `привет мир`; `ｆｕｌｌｗｉｄｔｈ` →
   `fullwidth`), and stored in NFC. ASCII names' documents are unchanged.
5. `text` also holds the English words run together in a qualified name's words
   (`getbaseline` → `get baseline`, `words.compound_parts`), so a question's words find
   C and Lua names that join them without a case change or `_`.
6. `initials` and `heads`: a name's word initials and word heads
   (`storage/abbreviations.py`), for the abbreviation channel (`ABIFW`,
   `admbigintfiewid` → `AdminBigIntegerFieldWidget`).
7. References: `uses` and `uses_record` hold each file's uses of names and its imports,
   on its first definition's document (`storage/uses.py`); a stored use's kind is its
   position in `storage.uses.KINDS` (a small integer, not its name).
8. The record holds `Symbol.declaration` (a declaration without a body: `@overload`,
   `.pyi`, TypeScript signatures and `declare`), which ranking puts after the definition;
   `length_name_ngram`, `length_words`, `length_text` and `length_body` hold each scored
   field's length, whose sum over the live documents `storage.scoring` averages (BM25
   from statistics that deleted documents do not sway).
9. `uses_record` is zlib-compressed, and a use's line is stored as the difference from
   the previous use of the same name (`storage/uses.py`): the record about half its
   LZ4-compressed size.
10. `length_<field>` counts the tokens Tantivy's analyzer keeps, as Tantivy's own
   field norms do (`text` and `body` without stop words and long words): BM25's average
   length is Tantivy's again.
11. `length_<field>` holds the file's sum, on its first definition's document only
   (`file_documents`): the same totals for ~50× fewer values counted and stored.
   `splits`: how the qualified name's words split where `text` splits them, so that a
   search scores a candidate's `text` without loading the word list and splitting again.
12. `record` holds the Symbol as a msgpack array, its fields in order, not a map of
   them by name (`Symbol` is `array_like`): the stored records ~13 % smaller once
   compressed.
13. `name_lengths` holds each document's lengths of `words` and `name_ngram`, so a name
   channel scores its matches from Tantivy's postings without their records
   (`storage/postings.py`).
"""

from __future__ import annotations

import functools
import posixpath
import unicodedata
from collections.abc import Iterable
from importlib import resources

import msgspec
import tantivy

from symfind.extract.records import Symbol
from symfind.storage.abbreviations import heads, initials, name_words
from symfind.storage.uses import USES_FIELD, USES_RECORD_FIELD
from symfind.storage.words import (
    qualifier_parts,
    split_text,
    split_words,
    squash,
    stored_splits,
    with_compound_parts,
)

MAX_FUZZY_TERM_CHARS = 64
#: The stored field of how `compound_parts` splits a document's qualified-name words
#: (`words.stored_splits`), which a search reads back rather than splitting again.
SPLITS_FIELD = "splits"
#: `text_en` drops a word of this many UTF-8 bytes or more (Tantivy's `remove_long`), and
#: these words: Tantivy's English stop words, Lucene's list. `field_length` counts what
#: is left, as Tantivy does.
TEXT_TOKEN_BYTES_LIMIT = 40
TEXT_STOP_WORDS = frozenset(
    """a an and are as at be but by for if in into is it no not of on or such that the
    their then there these they this to was will with""".split())
#: The fewest characters of a word of `TEXT_TOKEN_BYTES_LIMIT` bytes, outside ASCII and in it.
_LONG_WORD_CHARS = (TEXT_TOKEN_BYTES_LIMIT // 4, TEXT_TOKEN_BYTES_LIMIT)
_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Symbol)


def _read_schema_version() -> int:
    # `storage/schema_version.txt` links to the repository root's file, which stays the one to
    # edit; the wheel build copies its content into the package.
    packaged = resources.files(__package__) / "schema_version.txt"
    return int(packaged.read_text(encoding="utf-8").strip())


SCHEMA_VERSION: int = _read_schema_version()


@functools.cache
def analyzers() -> dict[str, tantivy.TextAnalyzer]:
    """The custom analyzers, by registered name; also used to analyse query text."""
    return {
        "raw_lc": tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
        .filter(tantivy.Filter.lowercase())
        .build(),
        "fuzzy_lc": tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.remove_long(MAX_FUZZY_TERM_CHARS + 1))
        .build(),
        "ngram23": tantivy.TextAnalyzerBuilder(
            tantivy.Tokenizer.ngram(min_gram=2, max_gram=3, prefix_only=False)
        )
        .filter(tantivy.Filter.lowercase())
        .build(),
        "words_en": tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build(),
        "text_en": tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(TEXT_TOKEN_BYTES_LIMIT))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.custom_stopword(sorted(TEXT_STOP_WORDS)))
        .filter(tantivy.Filter.stemmer("english"))
        .build(),
    }


def register_analyzers(index: tantivy.Index) -> None:
    """Register every custom analyzer; Tantivy does not persist them, so call on each open."""
    for name, analyzer in analyzers().items():
        index.register_tokenizer(name, analyzer)


@functools.cache
def build_schema() -> tantivy.Schema:
    """The Tantivy schema of SCHEMA_VERSION."""
    builder = tantivy.SchemaBuilder()
    builder.add_bytes_field("record", stored=True)
    builder.add_bytes_field(SPLITS_FIELD, stored=True)
    builder.add_text_field("name_exact", tokenizer_name="raw_lc", index_option="basic")
    builder.add_text_field("name_ngram", tokenizer_name="ngram23", index_option="freq")
    builder.add_text_field("name_fuzzy", tokenizer_name="fuzzy_lc", index_option="basic")
    builder.add_text_field("scope", tokenizer_name="raw_lc", index_option="basic")
    builder.add_text_field("words", tokenizer_name="words_en", index_option="freq")
    builder.add_text_field("text", tokenizer_name="text_en", index_option="freq")
    builder.add_text_field("body", tokenizer_name="text_en", index_option="freq")
    builder.add_text_field("initials", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("heads", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("kind", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("language", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("path", tokenizer_name="raw", index_option="basic")
    builder.add_text_field(USES_FIELD, tokenizer_name="raw", index_option="basic")
    builder.add_bytes_field(USES_RECORD_FIELD, stored=True)
    for field in SCORED_FIELDS:
        builder.add_unsigned_field(LENGTH_FIELDS[field], fast=True)
    builder.add_unsigned_field(NAME_LENGTHS_FIELD, fast=True)
    return builder.build()


def path_parts(path: str) -> list[str]:
    """Directory names and the file stem: `src/httpx/_client.py` → `src httpx _client`."""
    directory, filename = posixpath.split(path)
    stem = filename.split(".", 1)[0]
    return [part for part in directory.split("/") if part] + ([stem] if stem else [])


def scope_terms(symbol: Symbol) -> list[str]:
    """What a qualified query's scope segments are matched against, squashed."""
    return list(_scope_terms(tuple(qualifier_parts(symbol.qualname)[:-1]), symbol.path))


# A file's symbols share its path, and a class's members their scope: indexing splits and
# squashes each once, not once per symbol (a kernel file defines ~60).
@functools.lru_cache(maxsize=4096)
def _scope_terms(scope: tuple[str, ...], path: str) -> tuple[str, ...]:
    qualified = (squash(part) for part in scope if part)
    return tuple(dict.fromkeys((*qualified, *_squashed_path_parts(path))))


@functools.lru_cache(maxsize=4096)
def _squashed_path_parts(path: str) -> tuple[str, ...]:
    return tuple(squash(part) for part in path_parts(path))


@functools.lru_cache(maxsize=4096)
def _path_words(path: str) -> str:
    return " ".join(split_text(path))


# Names repeat (overloads, methods of the same name in many classes).
@functools.lru_cache(maxsize=4096)
def _name_parts(name: str) -> tuple[str, tuple[str, ...]]:
    """A name's initials and word heads (`storage/abbreviations.py`), "" and () for a
    name of one word."""
    words = name_words(name)
    return initials(words), tuple(heads(words))


# A struct, not a NamedTuple: made in C (~0.3 µs less a definition) and, holding only
# strings and numbers, never walked by the garbage collector (`gc=False`).
class _Texts(msgspec.Struct, frozen=True, gc=False):
    """What a symbol's document holds of its names, signature, doc and body (`_texts`):
    all of it but what its path, kind and language make."""

    squashed: str  # name_exact, name_ngram, name_fuzzy
    words: str  # `words`
    words_length: int  # `field_length("words", words)`
    own: str  # `text` but the path's words that end it (`_text_text`)
    body: str  # `body`
    splits: bytes  # `splits`, b"" for none
    lengths: int  # `NAME_LENGTHS_FIELD`
    initials: str
    heads: tuple[str, ...]
    scope: tuple[str, ...]  # the qualified name's scope parts (`scope_terms`)


# Whole definitions repeat from file to file: a Go corpus declares its system calls and
# constants once for each platform, and 40 % of go-stdlib's documents have the name,
# qualified name, signature, doc and body of one of the 4,096 before them (3 % of
# django's): each of those costs a lookup, not ~25 µs of splitting and joining.
@functools.lru_cache(maxsize=4096)
def _texts(name: str, qualname: str, signature: str, doc: str, body: str) -> _Texts:
    qualname_words = split_text(qualname)
    squashed = squash(name)
    words = _words_text(qualname_words)
    initials_, heads_ = _name_parts(name)
    return _Texts(
        squashed, words, field_length("words", words), _own_text(signature, doc, qualname_words),
        split_words(body) if body else "", stored_splits(qualname_words).encode(),
        name_lengths(squashed, words), initials_, heads_,
        tuple(qualifier_parts(qualname)[:-1]),
    )


def file_documents(symbols: Iterable[Symbol]) -> list[tantivy.Document]:
    """The Tantivy documents of one file's symbols (`_document`), the first of them
    holding the file's length of each scored field (`length_<field>`, the sum of its
    documents' `field_length`s): a file's documents are always replaced together, so the
    sums stay exact, and counting and storing them once a file costs the writer a third
    of what once a definition did.

    The sums are those of `scored_texts`: `field_length` of texts joined by spaces is
    the sum of each one's, so `words`' and `name_ngram`'s are summed from what `_texts`
    counted, `body`'s and `text`'s counted over the file's texts joined, and the file's
    path words, which end every `text`, counted once."""
    documents: list[tantivy.Document] = []
    grams = words = 0
    own_texts: list[str] = []  # each `text` but its path words
    bodies: list[str] = []
    for symbol in symbols:
        document, texts = _document(symbol)
        documents.append(document)
        grams += _gram_count(len(texts.squashed))
        words += texts.words_length
        own_texts.append(texts.own)
        bodies.append(texts.body)
    if documents:
        text = (field_length("text", " ".join(filter(None, own_texts)))
                + len(own_texts) * field_length("text", _path_words(symbol.path)))
        body = field_length("body", " ".join(filter(None, bodies)))
        for field, length in (("name_ngram", grams), ("words", words), ("text", text),
                              ("body", body)):
            documents[0].add_unsigned(LENGTH_FIELDS[field], length)
    return documents


def _document(symbol: Symbol) -> tuple[tantivy.Document, _Texts]:
    """Build the Tantivy document for one symbol; and its `_texts`, for `file_documents`
    to sum. The texts are `scored_texts`'s.

    A name outside ASCII is stored in NFC, the form queries are taken in, whichever form
    its file spells it in (`café` written as `e` and a combining accent)."""
    if not (symbol.name.isascii() and symbol.qualname.isascii()):
        symbol = msgspec.structs.replace(symbol, name=unicodedata.normalize("NFC", symbol.name),
                                         qualname=unicodedata.normalize("NFC", symbol.qualname))
    texts = _texts(symbol.name, symbol.qualname, symbol.signature, symbol.doc, symbol.body)
    squashed = texts.squashed
    doc = tantivy.Document()
    doc.add_bytes("record", _ENCODER.encode(symbol))
    if texts.splits:
        doc.add_bytes(SPLITS_FIELD, texts.splits)
    doc.add_text("name_exact", squashed)
    doc.add_text("name_ngram", squashed)
    doc.add_text("name_fuzzy", squashed)
    for term in _scope_terms(texts.scope, symbol.path):
        doc.add_text("scope", term)
    doc.add_text("words", texts.words)
    doc.add_text("text", _spaced(texts.own, _path_words(symbol.path)))
    if texts.body:
        doc.add_text("body", texts.body)
    if texts.initials:
        doc.add_text("initials", texts.initials)
        for head in texts.heads:
            doc.add_text("heads", head)
    doc.add_text("kind", str(symbol.kind))
    doc.add_text("language", symbol.language)
    doc.add_text("path", symbol.path)
    doc.add_unsigned(NAME_LENGTHS_FIELD, texts.lengths)
    return doc, texts


#: The fields scored by BM25, and the analyzer of each (`build_schema`).
SCORED_FIELDS: dict[str, str] = {
    "name_ngram": "ngram23", "words": "words_en", "text": "text_en", "body": "text_en",
}
#: The fast field holding each scored field's length in a file (`file_documents`).
LENGTH_FIELDS: dict[str, str] = {field: f"length_{field}" for field in SCORED_FIELDS}
#: The fast field holding each document's lengths of the name fields (`storage.postings`):
#: `words`' in the low `WORDS_LENGTH_BITS`, capped at 255 (a longer one, then not
#: Tantivy's, leaves its document to its record), `name_ngram`'s above. One column of a
#: few bits a document (Tantivy packs a column by its widest value), not two: each
#: column costs a full index ~1–2 % more CPU.
NAME_LENGTHS_FIELD = "name_lengths"
WORDS_LENGTH_BITS = 8


def name_lengths(squashed: str, words_text: str) -> int:
    """`NAME_LENGTHS_FIELD`'s value for a name squashed and its qualified name's words."""
    words = min(field_length("words", words_text), (1 << WORDS_LENGTH_BITS) - 1)
    return _gram_count(len(squashed)) << WORDS_LENGTH_BITS | words


def name_length(lengths: int, field: str) -> int:
    """A name field's length from `NAME_LENGTHS_FIELD`'s value."""
    if field == "words":
        return lengths & (1 << WORDS_LENGTH_BITS) - 1
    return lengths >> WORDS_LENGTH_BITS


def field_length(field: str, text: str) -> int:
    """The tokens a scored field's analyzer keeps of `text` (`scored_texts`): the 2–3-grams
    of a name; the words of the others (`split_text` has made them letters and digits
    between single spaces, what Tantivy's simple tokenizer splits), but for `text_en`'s
    stop words and long words. Counted in Python, not by the analyzer: stemming every word
    a second time would cost the writer more than the count."""
    if field == "name_ngram":
        return _gram_count(len(text))
    if not text:
        return 0
    if SCORED_FIELDS[field] != "text_en":
        return text.count(" ") + 1
    words = text.split(" ")
    kept = len(words) - sum(map(TEXT_STOP_WORDS.__contains__, words))
    # A word of 40 bytes has 40 characters in ASCII, at least 10 outside: look closer
    # only when there is one that long.
    if max(map(len, words)) >= _LONG_WORD_CHARS[text.isascii()]:
        kept -= sum(len(word.encode()) >= TEXT_TOKEN_BYTES_LIMIT for word in words)
    return kept


def _gram_count(length: int) -> int:
    """The 2- and 3-grams of a name of `length` characters."""
    return max(2 * length - 3, 0)


def scored_texts(symbol: Symbol) -> dict[str, str]:
    """The text each BM25-scored field of `symbol`'s document holds, before analysis:
    what `file_documents` indexes, and what `storage.scoring` analyses again to score a
    candidate from its own record. `symbol` is in the form `file_documents` stores (names
    in NFC)."""
    return _scored_texts(symbol, split_text(symbol.qualname))


def _scored_texts(symbol: Symbol, qualname_words: list[str]) -> dict[str, str]:
    return {
        "name_ngram": squash(symbol.name),
        "words": _words_text(qualname_words),
        "text": _text_text(symbol, qualname_words),
        "body": split_words(symbol.body) if symbol.body else "",
    }


def scored_text(symbol: Symbol, field: str) -> str:
    """One field of `scored_texts`, computed alone."""
    if field == "name_ngram":
        return name_field_text(field, symbol.name)
    if field == "words":
        return name_field_text(field, symbol.qualname)
    if field == "body":
        return split_words(symbol.body) if symbol.body else ""
    return _text_text(symbol, split_text(symbol.qualname))


def name_field_text(field: str, name: str) -> str:
    """The text of a field made of a name alone: `name_ngram`'s of a definition's name,
    `words`' of its qualified name."""
    return squash(name) if field == "name_ngram" else _words_text(split_text(name))


def _words_text(qualname_words: list[str]) -> str:
    return " ".join(dict.fromkeys(qualname_words))  # `Gen.gen` ≠ twice the tf


def _text_text(symbol: Symbol, qualname_words: list[str]) -> str:
    # The path's words come last: `file_documents` counts them once a file.
    return _spaced(_own_text(symbol.signature, symbol.doc, qualname_words),
                   _path_words(symbol.path))


def _own_text(signature: str, doc: str, qualname_words: list[str]) -> str:
    """`text` but the path's words that end it: the signature's and doc's words, then the
    qualified name's words and their compound parts. The signature and doc are split in
    one pass: `split_text` of texts joined by spaces is each one's words in turn."""
    return _spaced(split_words(f"{signature} {doc}"),
                   " ".join(with_compound_parts(qualname_words)))


def _spaced(first: str, second: str) -> str:
    """Two texts joined by a space, or the one that is not empty."""
    return f"{first} {second}" if first and second else first or second


def decode_record(data: bytes) -> Symbol:
    """Decode a stored `record` field back into its Symbol."""
    return _DECODER.decode(data)
