"""Turn one source file into `Symbol` records with tree-sitter tag queries.

Imports: tree_sitter, tree_sitter_language_pack and `extract` modules only. Pure: no file
I/O except reading the bundled `.scm` query files, no global state except caches of
compiled queries and parsers (one per language per process).

Each `queries/<language>-tags.scm` marks definitions with these captures:

- `@definition.<kind>` the whole definition node (`<kind>` is a `SymbolKind` value);
- `@name` the defined name (a qualified C++ name such as `ns::Cls::m` is split);
- `@doc` optional docstring node (otherwise the comment block above is used);
- `@receiver` optional Go method receiver type, inserted before the name;
- `@scope` + `@scope.name` a node that scopes what is inside it without being a symbol
  itself (Rust `impl Type`);
- `@package` a file-wide prefix (Go `package`, file-scoped C#/PHP namespaces).
"""

from __future__ import annotations

import functools
import hashlib
import re
import time
from importlib import resources
from typing import NamedTuple

from tree_sitter import Node, Parser, Query, QueryCursor
from tree_sitter_language_pack import get_language

from extract.errors import ExtractError, ParseTimeout, UnsupportedLanguage
from extract.languages import LANGUAGES, LanguageSpec, language_for_file
from extract.records import SCOPE_KINDS, Symbol, SymbolKind

DEFAULT_DEADLINE_S = 5.0
SIGNATURE_MAX_CHARS = 200
DOC_MAX_CHARS = 400
# Bounds the upward walk for scopes; pathological nesting must not cost O(depth) per symbol.
MAX_SCOPE_DEPTH = 256
_READ_CHUNK = 64 * 1024

# Nodes that wrap a definition without changing what it is: their comments and first line
# belong to the definition they wrap.
_WRAPPERS = frozenset(
    {
        "decorated_definition",
        "export_statement",
        "template_declaration",
        "ambient_declaration",
        "lexical_declaration",
        "variable_declaration",
    }
)
_QUALIFIER_SPLIT = re.compile(r"::|\.|\\|#|->")
_GENERIC_ARGS = re.compile(r"[<\[].*$", re.S)
_COMMENT_MARKERS = re.compile(r"^\s*(?:/\*\*?|\*/|\*|///?|//!|#+|--|;+)\s?")
_WHITESPACE = re.compile(r"\s+")
# `#` starts a comment except in C preprocessor directives (`#define`).
_COMMENT_LINE = re.compile(r"^\s*(?:#(?!\s*(?:define|undef|if|ifdef|ifndef|elif|else|endif)\b)|//|/\*|\*)")


class _Definition(NamedTuple):
    node: Node
    name_node: Node
    kind: SymbolKind
    receiver: str
    doc_node: Node | None


def supported_languages() -> list[str]:
    """Return the ids of every language with a tag query, sorted."""
    return sorted(LANGUAGES)


@functools.cache
def _parser_and_query(language: str) -> tuple[Parser, Query]:
    spec = LANGUAGES.get(language)
    if spec is None:
        raise UnsupportedLanguage(f"no tag query for language {language!r}")
    grammar = get_language(spec.grammar)  # type: ignore[arg-type]
    source = resources.files("extract") / "queries" / f"{language}-tags.scm"
    try:
        query = Query(grammar, source.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise UnsupportedLanguage(f"no tag query file for language {language!r}") from exc
    return Parser(grammar), query


def _parse(parser: Parser, source: bytes, deadline_s: float) -> Node:
    """Parse with a wall-clock deadline (tree-sitter only checks it for callback input)."""
    deadline = time.monotonic() + deadline_s

    def read(offset: int, _point: tuple[int, int]) -> bytes:
        return source[offset : offset + _READ_CHUNK]

    def past_deadline(*_state: object) -> bool:
        return time.monotonic() > deadline

    try:
        tree = parser.parse(read, progress_callback=past_deadline)
    except ValueError as exc:  # py-tree-sitter reports a cancelled parse as ValueError
        raise ParseTimeout(f"parse exceeded {deadline_s:.1f}s") from exc
    if tree is None:
        raise ParseTimeout(f"parse exceeded {deadline_s:.1f}s")
    return tree.root_node


def _as_utf8(source: bytes) -> bytes:
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return source.decode("latin-1").encode("utf-8")
    return source


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _bare_type_name(text: str) -> str:
    """`*Server[T]` → `Server`; `Vec<T>` → `Vec`; `&'a mut Foo` → `Foo`."""
    text = _GENERIC_ARGS.sub("", text.strip())
    text = text.lstrip("*&").replace("mut ", "").strip()
    return _QUALIFIER_SPLIT.split(text)[-1] if text else text


def _collect(matches: list[tuple[int, dict[str, list[Node]]]]) -> tuple[
    list[_Definition], dict[int, tuple[str, bool]], list[str]
]:
    definitions: list[_Definition] = []
    scopes: dict[int, tuple[str, bool]] = {}  # node id → (name, is type-like scope)
    package: list[str] = []
    seen: set[tuple[int, int]] = set()
    for _pattern, captures in matches:
        if "package" in captures:
            package = [p for p in _QUALIFIER_SPLIT.split(_text(captures["package"][0])) if p]
        if "scope" in captures and "scope.name" in captures:
            name = _bare_type_name(_text(captures["scope.name"][0]))
            scopes[captures["scope"][0].id] = (name, True)
        kinds = [key for key in captures if key.startswith("definition.")]
        if not kinds or "name" not in captures:
            continue
        node, name_node = captures[kinds[0]][0], captures["name"][0]
        if (node.id, name_node.id) in seen:
            continue
        seen.add((node.id, name_node.id))
        kind = SymbolKind(kinds[0].removeprefix("definition."))
        receiver = _bare_type_name(_text(captures["receiver"][0])) if "receiver" in captures else ""
        doc = captures["doc"][0] if "doc" in captures else None
        definitions.append(_Definition(node, name_node, kind, receiver, doc))
    return definitions, scopes, package


def _enclosing_scopes(node: Node, scopes: dict[int, tuple[str, bool]]) -> list[tuple[str, bool]]:
    chain: list[tuple[str, bool]] = []
    parent = node.parent
    for _ in range(MAX_SCOPE_DEPTH):
        if parent is None:
            break
        if parent.id in scopes:
            chain.append(scopes[parent.id])
        parent = parent.parent
    chain.reverse()
    return chain


def _anchor(node: Node) -> Node:
    """The outermost wrapper (decorators, `export`, `template<>`) around a definition."""
    while node.parent is not None and node.parent.type in _WRAPPERS:
        node = node.parent
    return node


def _signature(node: Node, source: bytes) -> str:
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    header = source[node.start_byte : end].split(b"\n{")[0]
    if body is None:
        header = header.split(b"\n", 1)[0]
    # Comments between the header and the body are not part of the signature.
    lines = header.decode("utf-8", errors="replace").splitlines()
    code = [line for line in lines if not _COMMENT_LINE.match(line)]
    text = _WHITESPACE.sub(" ", " ".join(code)).strip()
    return text.rstrip(":{ ").strip()[:SIGNATURE_MAX_CHARS]


def _clean_doc(text: str) -> str:
    lines = [_COMMENT_MARKERS.sub("", line).rstrip("*/ ").strip() for line in text.splitlines()]
    text = _WHITESPACE.sub(" ", " ".join(line for line in lines if line)).strip()
    return text.strip("\"'`").strip()[:DOC_MAX_CHARS]


def _docstring(node: Node) -> Node | None:
    """A Python-style docstring: a string literal as the body's first statement."""
    body = node.child_by_field_name("body")
    first = body.named_children[0] if body is not None and body.named_children else None
    if first is not None and first.type == "expression_statement" and first.named_children:
        first = first.named_children[0]
    return first if first is not None and first.type == "string" else None


def _doc(definition: _Definition, anchor: Node) -> str:
    doc_node = definition.doc_node or _docstring(definition.node)
    if doc_node is not None:
        return _clean_doc(_text(doc_node))
    comments: list[str] = []
    expected_row = anchor.start_point.row
    sibling = anchor.prev_sibling
    while sibling is not None and "comment" in sibling.type:
        if sibling.end_point.row < expected_row - 1:
            break
        comments.append(_text(sibling))
        expected_row = sibling.start_point.row
        sibling = sibling.prev_sibling
    return _clean_doc("\n".join(reversed(comments)))


def _qualname(spec: LanguageSpec, parts: list[str], name: str, kind: SymbolKind) -> str:
    if not parts:
        return name
    scope = spec.separator.join(parts)
    if spec.member_separator and kind is SymbolKind.METHOD:
        return f"{scope}{spec.member_separator}{name}"
    return f"{scope}{spec.separator}{name}"


def extract_symbols(
    path: str,
    source: bytes,
    *,
    language: str | None = None,
    deadline_s: float = DEFAULT_DEADLINE_S,
) -> list[Symbol]:
    """Extract every definition in one file, in source order.

    Syntax errors do not raise: tree-sitter recovers and the definitions it still
    recognises are returned.

    Args:
        path: Repository-relative, `/`-separated path (recorded on each symbol and used
            to pick the language when `language` is None).
        source: The file's bytes; not valid UTF-8, they are read as Latin-1 (old C and
            Java sources) so that no name is mangled.
        language: Language id; detected from `path` and content when None.
        deadline_s: Wall-clock budget for parsing.

    Returns:
        The symbols, ordered by line then name.

    Raises:
        UnsupportedLanguage: No tag query for the file's language.
        ParseTimeout: Parsing took longer than `deadline_s`.
        ExtractError: The query could not run on the tree.
    """
    source = _as_utf8(source)
    language = language or language_for_file(path, source[:4096])
    if language is None:
        raise UnsupportedLanguage(f"no language for {path!r}")
    parser, query = _parser_and_query(language)
    spec = LANGUAGES[language]
    root = _parse(parser, source, deadline_s)
    try:
        matches = QueryCursor(query).matches(root)
    except RuntimeError as exc:  # defensive: a query failing on an odd tree
        raise ExtractError(f"tag query failed on {path!r}: {exc}") from exc
    definitions, scopes, package = _collect(matches)
    for definition in definitions:
        if definition.kind in SCOPE_KINDS or definition.kind in {
            SymbolKind.FUNCTION,
            SymbolKind.METHOD,
        }:
            name = _QUALIFIER_SPLIT.split(_text(definition.name_node))[-1]
            scopes.setdefault(definition.node.id, (name, definition.kind in SCOPE_KINDS))

    symbols: list[Symbol] = []
    for definition in definitions:
        written = [p for p in _QUALIFIER_SPLIT.split(_text(definition.name_node).strip()) if p]
        if not written:
            continue
        name = written[-1]
        chain = _enclosing_scopes(definition.node, scopes)
        kind = definition.kind
        if kind is SymbolKind.FUNCTION and (
            (chain and chain[-1][1]) or definition.receiver or len(written) > 1
        ):
            kind = SymbolKind.METHOD
        parts = [*package, *(scope for scope, _ in chain), *written[:-1]]
        if definition.receiver:
            parts.append(definition.receiver)
        anchor = _anchor(definition.node)
        symbols.append(
            Symbol(
                name=name,
                qualname=_qualname(spec, parts, name, kind),
                kind=kind,
                language=language,
                path=path,
                line=definition.name_node.start_point.row + 1,
                end_line=definition.node.end_point.row + 1,
                start_line=anchor.start_point.row + 1,
                signature=_signature(definition.node, source),
                doc=_doc(definition, anchor),
            )
        )
    symbols.sort(key=lambda s: (s.line, s.name, s.kind))
    return symbols


@functools.cache
def extraction_fingerprint() -> str:
    """A hash of everything that decides which symbols a file yields (the tag queries).

    Indexes store it; when an upgrade changes a query, the index is rebuilt rather than
    mixing symbols from two extractors.
    """
    digest = hashlib.sha256()
    queries = resources.files("extract") / "queries"
    for query_file in sorted(queries.iterdir(), key=lambda f: f.name):
        if query_file.name.endswith(".scm"):
            digest.update(query_file.name.encode() + query_file.read_bytes())
    return digest.hexdigest()[:16]
