"""Turn one source file into `Symbol` records with tree-sitter tag queries.

Imports: tree_sitter, tree_sitter_language_pack, msgspec and `extract` modules only. Pure: no file
I/O except reading the bundled `.scm` query files, no global state except caches of
compiled queries and parsers (one per language per process).

Each `queries/<language>-tags.scm` marks definitions with these captures:

- `@definition.<kind>` the whole definition node (`<kind>` is a `SymbolKind` value);
- `@name` the defined name (a qualified C++ name such as `ns::Cls::m` is split); with
  `@name.end`, the name runs on to the end of that node (C# `operator ==`); a pattern's
  `(#set! name "Companion")` names what has no name in the source (such a definition
  scopes nothing); `(#set! detached)` marks a second name of something another pattern
  already defines (a function expression's own name): it takes no scope and gives none;
  `(#set! unless-named-as "_capture")` drops the match when `@name` reads as that capture;
- `@doc` optional docstring node (otherwise the comment block above is used);
- `@receiver` optional Go method receiver type, inserted before the name;
- `@scope` + `@scope.name` a node that scopes what is inside it without being a symbol
  itself (Rust `impl Type`); `@scope.path` instead of `@scope.name` keeps every part of
  the written name (`jQuery.offset = {...}` scopes `jQuery.offset.setOffset`);
- `@package` a prefix for the definitions that start after it, up to the next one (Go
  `package`, file-scoped C# and PHP namespaces);
- `(#set! parent "type ...")` keeps a match only when the definition node's parent (the
  `@scope` node's, in a scope pattern) is of one of these types: `(class_body
  (method_definition))` written as a pattern would stay under way through the whole
  class body, and through every class nested in it (the query's time grew with the
  square of the nesting);
- `(#set! outside "type ...")` keeps a match only when no ancestor of the definition
  node (of the `@scope` node, in a scope pattern) is of one of these types (Python's
  module variables at any block depth). A setting read after matching, not a predicate:
  py-tree-sitter 0.26 keeps about half a kilobyte for good at every call of a Python
  predicate callback (a worker grew by 200 MiB over 2,500 kernel files, and a daemon
  would grow without end);
- `@static` / `@member` optional, where the language has a member separator: a
  class-level method (Ruby `def self.m`) is joined with `.` (`Net::HTTP.start`); a
  member that is not a method (PHP class constant) with the member separator
  (`App\\Client::MAX`). Methods get the member separator anyway.

A name node captured by several patterns is one symbol, of the first such pattern in the
file: a specific pattern (`const f = () => ...` → function) can precede a catch-all one.
In JavaScript and TypeScript, the body of a module wrapper (AMD `define`, an IIFE, a UMD
factory: rewrite/module_bodies.py) is re-parsed alone so that those queries read it as module level.
In Rust, a braced macro call at item level (`cfg_net! { ... }`: rewrite/item_macros.py) is
blanked around its inside and the file parsed again, so that its items are read in place.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import operator
import re
import time
from collections.abc import Container
from pathlib import Path
from typing import NamedTuple

import msgspec
import tree_sitter
from tree_sitter import Node, Parser, Query, QueryCursor, Tree
import tree_sitter_language_pack
from tree_sitter_language_pack import get_language

from symfind.extract.brackets import closing, top_level_parts
from symfind.extract.errors import ExtractError, ParseTimeout, UnsupportedLanguage
from symfind.extract.languages import LANGUAGES, LanguageSpec, language_for_file
from symfind.extract.occurrences import occurrences_and_imports
from symfind.extract.records import SCOPE_KINDS, Extraction, Symbol, SymbolKind
from symfind.extract.rewrite import parser_input
from symfind.extract.rewrite.item_macros import (
    ITEM_MACRO_GRAMMARS,
    MAX_DEPTH,
    call_wrappers,
    item_macro_calls,
    unwrapped,
)
from symfind.extract.rewrite.module_bodies import WRAPPER_GRAMMARS, module_bodies
from symfind.extract.rewrite.offsets import blanked_outside
from symfind.extract.version import EXTRACTION_VERSION

DEFAULT_DEADLINE_S = 5.0
SIGNATURE_MAX_CHARS = 200
DOC_MAX_CHARS = 400
# A definition's body words (`Symbol.body`): the distinct identifiers and words of its
# first BODY_SCAN_BYTES, at most BODY_MAX_WORDS of them, then its container's doc. The
# head of a body says what it does (its calls, the names it uses, its comments); a class's
# first members say what it holds. Bounded so that a long body neither costs in proportion
# to its length nor drowns its own words in BM25's length normalisation.
BODY_SCAN_BYTES = 4096
BODY_MAX_WORDS = 64
CONTAINER_DOC_CHARS = 200
_BODY_TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]+")
# Bounds the upward walk for scopes; pathological nesting must not cost O(depth) per symbol.
MAX_SCOPE_DEPTH = 256
_READ_CHUNK = 64 * 1024
# The package's own files (queries, modules): always a directory on disk, and a plain
# path costs nothing where importlib.resources costs ~80 ms to set up.
_PACKAGE = Path(__file__).resolve().parent
# Error recovery: an ERROR node spanning this many lines or more hides definitions that
# tree-sitter did not resynchronise on (a grammar gap, a macro it cannot see through);
# at most this many re-parses are spent per file, bounding the cost.
RECOVER_MIN_LINES = 15
RECOVER_MAX_PARSES = 8
# A line where a re-parse may restart: code at column 0 that does not close something.
_RESTART_LINE = re.compile(rb"^[^\s})\]>,;/*#.|&=+-]", re.M)

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
        "expression_statement",
    }
)
# Sibling nodes right before a definition that belong to it.
_LEADING_SIBLINGS = frozenset({"attribute_item"})
# Declarations without a body (`Symbol.declaration`): TypeScript's signatures, and files
# that hold nothing else.
_SIGNATURE_NODES = frozenset({"function_signature", "method_signature",
                              "abstract_method_signature"})
_DECLARATION_FILES = (".pyi", ".d.ts", ".d.mts", ".d.cts")
_OVERLOAD = re.compile(r"@\s*(?:[\w.]+\.)?overload\s*$")
_QUALIFIER_SPLIT = re.compile(r"::|\.|\\|#|->")
_GENERIC_ARGS = re.compile(r"[<\[].*$", re.S)
# Pointers, references, lifetimes and qualifiers before a type name (`&'a mut`, `*const`).
_TYPE_PREFIX = re.compile(r"^(?:[*&\s]|'\w+|(?:mut|dyn|const)\b)+")
_COMMENT_MARKERS = re.compile(r"^\s*(?:/\*\*?|\*/|\*|//!|///?|#+|--|;+)\s?")
_WHITESPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w")
# C# XML doc comments: the text matters, not the wrapping tags.
_XML_DOC_TAGS = re.compile(r"</?(?:summary|remarks|returns|value|para)\b[^>]*>")
_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")
# A C++ operator name (`operator==`, `operator->`, `operator bool`) is one name part.
_OPERATOR = re.compile(r"(?:^|(?<=::))operator(?=\s*[^\w\s]|\s+\w)")
_CALL_OPERATOR = re.compile(r"operator\s*\(\s*\)")
# `#` starts a comment except in C preprocessor directives (`#define`); a `*` does when
# a space or the line's end follows it (a block comment's ` * text`), not a pointer type
# or Python's `*args` (Go's `\t*http.Request)) *Route {`).
_COMMENT_LINE = re.compile(
    r"^\s*(?:#(?!\s*(?:define|undef|if|ifdef|ifndef|elif|else|endif)\b)|//|/\*|\*(?![^\s/]))")


class _Definition(NamedTuple):
    node: Node
    name_node: Node
    kind: SymbolKind
    receiver: str
    doc_node: Node | None
    join: str = ""  # "static", "member" or "" (see the module docstring)
    written: str = ""  # the name as written (see `_written_name`)
    fixed: bool = False  # named by the query (`#set! name`): scopes nothing
    detached: bool = False  # `#set! detached`: takes no scope and gives none


@functools.cache
def _parser_and_query(language: str) -> tuple[Parser, Query]:
    spec = LANGUAGES.get(language)
    if spec is None:
        raise UnsupportedLanguage(f"no tag query for language {language!r}")
    grammar = get_language(spec.grammar)  # type: ignore[arg-type]
    queries = _PACKAGE / "queries"
    try:
        text = "\n".join(
            (queries / f"{stem}-tags.scm").read_text(encoding="utf-8")
            for stem in spec.tags or (language,)
        )
        query = Query(grammar, _with_fragments(text, queries / "fragments"))
    except FileNotFoundError as exc:
        raise UnsupportedLanguage(f"no tag query file for language {language!r}") from exc
    return Parser(grammar), query


# A pattern shared by several patterns or query files, written once in
# `queries/fragments/<name>.scm` and placed with `{{name}}` (C's declarators of a
# variable, under a file, a namespace, an `#if` or its `#else`).
_FRAGMENT = re.compile(r"\{\{([\w-]+)\}\}")


def _with_fragments(text: str, fragments: Path) -> str:
    """`text` with each `{{name}}` replaced by the fragment of that name."""
    return _FRAGMENT.sub(
        lambda match: (fragments / f"{match[1]}.scm").read_text(encoding="utf-8").strip(), text
    )


class _Deadline:
    """The wall-clock budget of one file's extraction: parsing (tree-sitter's progress
    callback) and the work on the trees (checked between steps). tree-sitter's query
    cursor is not cancelled by it (py-tree-sitter 0.26's query progress callback crashes
    the process); its matches are linear in the tree."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def passed(self) -> bool:
        return time.monotonic() > self.at

    def check(self) -> None:
        """Raises:
            ParseTimeout: The deadline passed.
        """
        if time.monotonic() > self.at:  # not `self.passed()`: called per match and definition
            raise ParseTimeout(f"extraction exceeded {self.seconds:.1f}s")


def _parse(parser: Parser, source: bytes, deadline: _Deadline) -> Node:
    """Parse within the deadline (tree-sitter only checks it for callback input).

    Raises:
        ParseTimeout: The deadline passed.
    """
    return _parse_tree(parser, source, deadline).root_node


def _parse_tree(parser: Parser, source: bytes, deadline: _Deadline,
                old_tree: Tree | None = None) -> Tree:
    """`_parse`, giving the tree; with `old_tree` (edited to match `source`), only what
    the edits touched is parsed again.

    Raises:
        ParseTimeout: The deadline passed.
    """
    def read(offset: int, _point: tuple[int, int]) -> bytes:
        return source[offset : offset + _READ_CHUNK]

    def past_deadline(*_state: object) -> bool:
        return deadline.passed()

    try:
        if old_tree is None:
            tree = parser.parse(read, progress_callback=past_deadline)
        else:
            tree = parser.parse(read, old_tree, progress_callback=past_deadline)
    except ValueError:  # py-tree-sitter reports a cancelled parse as ValueError
        tree = None
    if tree is None:
        # A cancelled parse is kept to be resumed by the parser's next call, whatever that
        # call's input: without a reset the next file is read as the rest of this one (its
        # symbols named from the old file's offsets, `lass Small`).
        parser.reset()
        raise ParseTimeout(f"parse exceeded {deadline.seconds:.1f}s")
    return tree


def _as_utf8(source: bytes) -> bytes:
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return source.decode("latin-1").encode("utf-8")
    return source


def _text(node: Node, parsed: bytes) -> str:
    """`node`'s text in `parsed`, the bytes its tree was parsed from. Not `node.text`: a
    tree parsed from a callback (`_parse`) reads it back through the callback, tens of
    microseconds a node -- a seventh of all extraction time."""
    return parsed[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _split_name(text: str) -> list[str]:
    """A written name's scope parts then the name itself.

    `ns::Cls::m` → [ns, Cls, m]; generic arguments in the scope are dropped
    (`Box<int>::put` → [Box, put]); an operator is one part, without the parameters a
    conversion operator's declarator carries (`Cls::operator bool() const` → [Cls,
    operator bool]). A leading `:` is no part of a name (Ruby `:sym`, C++ `::global`).
    """
    if text.isidentifier():  # most names: nothing below applies (a third of its time)
        return [text]
    text = text.strip().lstrip(":")
    operator = ""
    match = _OPERATOR.search(text)
    if match:
        text, operator = text[: match.start()], text[match.start() :]
        if not _CALL_OPERATOR.match(operator):
            operator = operator.split("(", 1)[0]
        operator = _WHITESPACE.sub(" ", operator).strip()
    while "<" in text:
        stripped = _TEMPLATE_ARGS.sub("", text)
        if stripped == text:
            break
        text = stripped
    parts = [part.strip() for part in _QUALIFIER_SPLIT.split(text) if part.strip()]
    return [*parts, operator] if operator else parts


def _bare_type_name(text: str) -> str:
    """`*Server[T]` → `Server`; `Vec<T>` → `Vec`; `&'a mut Foo` → `Foo`.

    A type with no name to keep (`[T; 3]`, `(A, B)`) is returned whole.
    """
    bare = _TYPE_PREFIX.sub("", _GENERIC_ARGS.sub("", text.strip())).strip()
    name = _QUALIFIER_SPLIT.split(bare)[-1].strip() if bare else ""
    return name or _WHITESPACE.sub(" ", text.strip())


def _written_name(captures: dict[str, list[Node]], settings: dict, parsed: bytes) -> str:
    """A definition's name: the `@name` node's text, up to the end of `@name.end` when
    there is one (C# `operator ==`), or the query's own (`#set! name "Companion"`)."""
    if "name" in settings:
        return str(settings["name"])
    start = captures["name"][0]
    end = captures["name.end"][0] if "name.end" in captures else start
    return parsed[start.start_byte : end.end_byte].decode("utf-8", errors="replace")


def _collect(
    matches: list[tuple[int, dict[str, list[Node]]]], query: Query, parsed: bytes,
    ancestors: _Ancestors, deadline: _Deadline,
) -> tuple[list[_Definition], dict[int, tuple[str, bool]], list[tuple[int, list[str]]]]:
    definitions: list[_Definition] = []
    scopes: dict[int, tuple[str, bool]] = {}  # node id → (name, is type-like scope)
    packages: list[tuple[int, list[str]]] = []  # (start byte, parts)
    seen: set[int] = set()
    all_settings = _pattern_settings(query)
    # Patterns in file order: a name captured twice keeps the first pattern's kind.
    for pattern, captures in sorted(matches, key=_PATTERN):
        deadline.check()
        settings = all_settings[pattern]
        kinds = [key for key in captures if key.startswith("definition.")]
        if "outside" in settings or "parent" in settings:
            held = captures[kinds[0]][0] if kinds else captures["scope"][0]
            lineage = ancestors.of(held)
            if "outside" in settings and not _outside(lineage, _node_types(settings["outside"])):
                continue
            if "parent" in settings and not (
                    lineage and lineage[0].type in _node_types(settings["parent"])):
                continue
        if "package" in captures:
            package = captures["package"][0]
            parts = [p for p in _QUALIFIER_SPLIT.split(_text(package, parsed)) if p]
            packages.append((package.start_byte, parts))
        if "scope" in captures and "scope.name" in captures:
            name = _bare_type_name(_text(captures["scope.name"][0], parsed))
            scopes[captures["scope"][0].id] = (name, True)
        elif "scope" in captures and "scope.path" in captures:  # every part kept: `a.b`
            name = ".".join(_split_name(_text(captures["scope.path"][0], parsed)))
            scopes[captures["scope"][0].id] = (name, True)
        if not kinds or "name" not in captures:
            continue
        node, name_node = captures[kinds[0]][0], captures["name"][0]
        if name_node.id in seen:
            continue
        written = _written_name(captures, settings, parsed)
        twin = settings.get("unless-named-as")
        if twin and twin in captures and _text(captures[twin][0], parsed) == written:
            continue
        seen.add(name_node.id)
        kind = _KINDS[kinds[0]]
        receiver = _bare_type_name(_text(captures["receiver"][0], parsed)) if "receiver" in captures else ""
        doc = captures["doc"][0] if "doc" in captures else None
        join = "static" if "static" in captures else "member" if "member" in captures else ""
        definitions.append(
            _Definition(node, name_node, kind, receiver, doc, join, written, "name" in settings,
                        "detached" in settings)
        )
    return definitions, scopes, sorted(packages)


_PATTERN = operator.itemgetter(0)  # a match's pattern index
# `@definition.<kind>` → its kind: the enum's lookup by value costs ten times as much.
_KINDS = {f"definition.{kind.value}": kind for kind in SymbolKind}


@functools.cache
def _pattern_settings(query: Query) -> list[dict]:
    """Each pattern's `#set!` settings, by pattern index (read once per query, not per match)."""
    return [query.pattern_settings(pattern) for pattern in range(query.pattern_count)]


def _package(packages: list[tuple[int, list[str]]], definition: _Definition) -> list[str]:
    """The parts of the last package that starts before a definition; none for a package
    clause itself (tagged as a module)."""
    parts: list[str] = []
    for start, package in packages:
        if start == definition.name_node.start_byte:
            return []
        if start > definition.node.start_byte:
            break
        parts = package
    return parts


#: Ancestors a node's are looked for by walking up (`Node.parent`) before `_Ancestors`
#: finds them from the root down: d² steps cost less than keeping a path while d is small.
_WALK_UP = 8


class _Ancestors:
    """The ancestors of a tree's nodes, found from the root down along one kept path.

    tree-sitter keeps no parent links: `Node.parent` searches down from the root at each
    call, so walking up from depth d costs d² steps -- over a minute for 50 KB of nested
    JavaScript functions or objects. Here the path to the node asked about last is kept,
    and the next node's is found from their deepest common ancestor down: nodes asked
    about in source order cost a few steps each.
    """

    def __init__(self, root: Node) -> None:
        self._path = [root]

    def of(self, node: Node) -> list[Node]:
        """`node`'s ancestors, nearest first: the `MAX_SCOPE_DEPTH` + 1 nearest at most."""
        path = self._path
        while True:
            # Keep the nodes that strictly span `node`: its ancestors (one of the same
            # span may be its child: found out below).
            while len(path) > 1 and not _spans(path[-1], node):
                path.pop()
            start = len(path)
            while (child := path[-1].child_with_descendant(node)) is not None:
                if child == node:  # `path` ends with its parent
                    return path[: -MAX_SCOPE_DEPTH - 2 : -1]
                path.append(child)
            # Not below the deepest kept node (a node of the same span, or an empty one
            # at its end): start again above it.
            if start == 1:
                return _parents(node)
            del path[start - 1 :]


def _spans(outer: Node, node: Node) -> bool:
    """Whether `outer` holds `node`'s bytes and more."""
    return (outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte
            and (outer.start_byte, outer.end_byte) != (node.start_byte, node.end_byte))


def _parents(node: Node) -> list[Node]:
    """`node`'s ancestors the slow way (`Node.parent`), nearest first: the
    `MAX_SCOPE_DEPTH` + 1 nearest at most."""
    chain: list[Node] = []
    parent = node.parent
    while parent is not None and len(chain) <= MAX_SCOPE_DEPTH:
        chain.append(parent)
        parent = parent.parent
    return chain


def _enclosing_scopes(
    ancestors: list[Node], scopes: dict[int, tuple[str, bool]]
) -> list[tuple[str, bool]]:
    """The scopes among a node's `MAX_SCOPE_DEPTH` nearest ancestors, outermost first."""
    chain = [scopes[parent.id] for parent in ancestors[:MAX_SCOPE_DEPTH] if parent.id in scopes]
    chain.reverse()
    return chain


def _scopes_before(spec: LanguageSpec, scopes: list[str], written: list[str]) -> list[str]:
    """The enclosing scopes that a qualified name adds to: those before the scope its
    qualifier starts with, if one of them (C++'s `spdlog::sinks::X::f` inside `namespace
    spdlog` is `spdlog::sinks::X::f`, as name lookup finds the namespace itself), else all."""
    if len(written) < 2 or not scopes:
        return scopes
    parts = [part for scope in scopes for part in scope.split(spec.separator)]
    if written[0] not in parts:
        return scopes
    return parts[: len(parts) - 1 - parts[::-1].index(written[0])]


def _end_line(node: Node) -> int:
    """1-based last line; a node that swallows its trailing newline (`#define`) ends before it."""
    row, column = node.end_point
    return row if column == 0 and row > node.start_point.row else row + 1


def _last_byte_before(data: bytes, offset: int) -> bytes:
    """The last byte before `offset` that is not white space (empty when none)."""
    while offset > 0:
        window = data[max(0, offset - 256) : offset].rstrip()
        if window:
            return window[-1:]
        offset -= 256
    return b""


def _anchor(
    node: Node, ancestors: list[Node], attributes: bytes | None
) -> tuple[Node, Node | None]:
    """The outermost wrapper (decorators, `export`, `template<>`) around a definition, or
    the first of the attributes right before it (Rust `#[derive(...)]`, looked for when
    `attributes`, the parsed bytes, are given); and the parent to find its siblings
    from, when it stands deep enough for that to pay (None: `Node.prev_sibling`)."""
    parent = None
    for ancestor in ancestors:
        if ancestor.type not in _WRAPPERS:
            parent = ancestor
            break
        node = ancestor
    if len(ancestors) <= _WALK_UP:
        parent = None
    # An attribute ends with `]`: without one right before, no sibling is looked for.
    while attributes is not None and _last_byte_before(attributes, node.start_byte) == b"]":
        sibling = _previous_sibling(node, parent)
        if sibling is None or sibling.type not in _LEADING_SIBLINGS:
            break
        node = sibling
    return node, parent


def _previous_sibling(node: Node, parent: Node | None) -> Node | None:
    """`node.prev_sibling`, found from its parent when known: `Node.prev_sibling` searches
    down from the root first (`_Ancestors`)."""
    if parent is None:
        return node.prev_sibling
    cursor = parent.walk()
    if cursor.goto_first_child_for_byte(node.start_byte) is None:
        return node.prev_sibling
    while cursor.node != node:  # an empty node first, or `node` is not a child: look up
        if not cursor.goto_next_sibling() or cursor.node.start_byte > node.start_byte:
            return node.prev_sibling
    if not cursor.goto_previous_sibling():
        return None
    sibling = cursor.node
    # The cursor can step into a child of the sibling (a comment Kotlin's grammar nests
    # at the end of an import): taken only when it is a child of `parent`, next to `node`.
    if (parent.child_with_descendant(sibling) != sibling or not cursor.goto_next_sibling()
            or cursor.node != node):
        return node.prev_sibling
    return sibling


_BRACE = re.compile(rb"[{}]")


def _first_line(source: bytes, start: int, end: int) -> bytes:
    """The first line of `source[start:end]`; when it opens a brace and the name comes
    after the closing one (`typedef struct {` ... `} name;`), that closing line too, the
    braces' content elided. Read in place: a definition is not copied for its first line."""
    newline = source.find(b"\n", start, end)
    if newline < 0:
        return source[start:end]
    first, rest = source[start:newline], newline + 1
    if not first.rstrip().endswith(b"{"):
        return first
    depth = first.count(b"{") - first.count(b"}")
    if depth == 0 and source[rest : min(rest + 1, end)] not in (b"", b"{", b"}"):
        return _with_closing_line(first, source, rest, end)
    for brace in _BRACE.finditer(source, rest, end):  # the depth changes only at a brace
        depth += 1 if brace[0] == b"{" else -1
        if depth == 0:
            return _with_closing_line(first, source, brace.start(), end)
    return first


def _with_closing_line(first: bytes, source: bytes, closing_at: int, end: int) -> bytes:
    newline = source.find(b"\n", closing_at, end)
    closing = source[closing_at : newline if newline >= 0 else end]
    named = _WORD.search(closing.decode("utf-8", errors="replace"))
    return first.rstrip() + b" ... " + closing if named else first


def _signature(node: Node, source: bytes) -> str:
    body = node.child_by_field_name("body")
    if body is None:  # grammars without a `body` field (Kotlin `class_body`, `function_body`)
        body = next((c for c in reversed(node.named_children) if c.type.endswith("_body")), None)
    if body is None:
        header = _first_line(source, node.start_byte, node.end_byte)
    else:
        header = source[node.start_byte : body.start_byte].partition(b"\n{")[0]
    text = header.decode("utf-8", errors="replace")
    lines = text.splitlines()
    if len(lines) > 1:
        # Comments between the header and the body are not part of the signature. The
        # first line is code even when it looks like a comment (JS `*gen()`, Go `*T`).
        text = " ".join([lines[0], *(line for line in lines[1:] if not _COMMENT_LINE.match(line))])
    # Each run of white space as one space, none at the ends (as `\s+` → " " then strip,
    # in a third of the time: `str.split` and `\s` know the same white space, line breaks
    # included).
    text = " ".join(text.split())
    return _shortened(text.rstrip(":;={ ").strip())


#: The longest tail after a long signature's parameter list kept whole (`) -> Response`).
_SIGNATURE_TAIL_CHARS = SIGNATURE_MAX_CHARS // 3


def _shortened(signature: str) -> str:
    """A signature cut to `SIGNATURE_MAX_CHARS`: when the parameter list is what makes it
    long, its last parameters give way to ` ...` and what follows the list (the return
    type, which references read: `def get(self, url, ...) -> Response`) is kept."""
    if len(signature) <= SIGNATURE_MAX_CHARS:
        return signature
    opening = signature.find("(")
    close = closing(signature, opening) if opening >= 0 else -1
    tail = signature[close:] if close >= 0 else ""
    if not tail or len(tail) > _SIGNATURE_TAIL_CHARS:
        return signature[:SIGNATURE_MAX_CHARS]
    kept = signature[: opening + 1]
    room = SIGNATURE_MAX_CHARS - len(tail) - len(" ...")
    for part in top_level_parts(signature[opening + 1 : close]):
        if len(kept) + len(part) + 1 > room:
            break
        kept += part + ","
    return f"{kept} ...{tail}"


def _clean_doc(text: str) -> str:
    if not text:  # most definitions have no doc: skip the three passes below
        return ""
    text = _XML_DOC_TAGS.sub("", text)
    lines = [_COMMENT_MARKERS.sub("", line).rstrip("*/ ").strip() for line in text.splitlines()]
    text = " ".join(" ".join(lines).split())  # white space collapsed, empty lines dropped
    return text.strip("\"'`").strip()[:DOC_MAX_CHARS]


def _docstring(node: Node) -> Node | None:
    """A Python-style docstring: a string literal as the body's first statement."""
    body = node.child_by_field_name("body")
    # `named_child(0)`, not `named_children[0]`: a class body's list of members costs in
    # proportion to their number, for the first one.
    first = body.named_child(0) if body is not None and body.named_child_count else None
    if first is not None and first.type == "expression_statement" and first.named_child_count:
        first = first.named_child(0)
    return first if first is not None and first.type == "string" else None


def _node_before(anchor: Node, parent: Node | None) -> Node | None:
    """The previous sibling, or a comment some grammars nest at its end (Kotlin imports)
    when it is indented no deeper than the definition."""
    sibling = nested = _previous_sibling(anchor, parent)
    # The last child by its index: `children[-1]` lists them all first (a function's
    # statements), for the last one.
    while nested is not None and "comment" not in nested.type and (count := nested.child_count):
        nested = nested.child(count - 1)
    if nested is not None and "comment" in nested.type:
        if nested.start_point.column <= anchor.start_point.column:
            return nested
    return sibling


def _doc(definition: _Definition, anchor: Node, parent: Node | None, source: bytes) -> str:
    doc_node = definition.doc_node or _docstring(definition.node)
    if doc_node is not None:
        return _clean_doc(_text(doc_node, source))
    comments: list[str] = []
    expected_row = anchor.start_point.row
    sibling = _node_before(anchor, parent)
    while sibling is not None and "comment" in sibling.type:
        if _end_line(sibling) - 1 < expected_row - 1:  # a blank line ends the block
            break
        comments.append(_text(sibling, source))
        expected_row = sibling.start_point.row
        sibling = sibling.prev_sibling
    return _clean_doc("\n".join(reversed(comments))) if comments else ""


def _body_words(node: Node, source: bytes, members: list[tuple[int, int]]) -> str:
    """The distinct identifiers and words of the start of a definition's source (header
    and body, comments and strings included), in order of appearance; the byte ranges of
    its `members` (sorted) are passed over: their words are theirs, and a class holding
    every word of its methods would answer every question about them."""
    start, end = node.start_byte, node.end_byte
    if not members:  # most definitions: one part
        words = _BODY_TOKEN.findall(source, start, min(end, start + BODY_SCAN_BYTES))
    else:
        words, taken = [], 0
        for member_start, member_end in [*members, (end, end)]:
            if member_start > start:
                # Read in place, part by part: no word runs over the end of a part.
                stop = min(member_start, start + BODY_SCAN_BYTES - taken)
                words += _BODY_TOKEN.findall(source, start, stop)
                taken += stop - start
                if taken >= BODY_SCAN_BYTES:
                    break
            start = max(start, member_end)
    return b" ".join(itertools.islice(dict.fromkeys(words), BODY_MAX_WORDS)).decode("ascii")


def _container(ancestors: list[Node], containers: frozenset[int]) -> Node | None:
    """The nearest enclosing definition node that is a container (class, module...),
    among a node's `MAX_SCOPE_DEPTH` nearest ancestors (`_Ancestors.of`)."""
    return next((parent for parent in ancestors[:MAX_SCOPE_DEPTH] if parent.id in containers),
                None)


def _qualname(
    spec: LanguageSpec, parts: list[str], name: str, kind: SymbolKind, join: str = ""
) -> str:
    if not parts:
        return name
    scope = spec.separator.join(parts)
    if spec.member_separator and join == "static":
        return f"{scope}.{name}"
    if spec.member_separator and (kind is SymbolKind.METHOD or join == "member"):
        return f"{scope}{spec.member_separator}{name}"
    return f"{scope}{spec.separator}{name}"


def extract_symbols(
    path: str,
    source: bytes,
    *,
    language: str | None = None,
    deadline_s: float = DEFAULT_DEADLINE_S,
) -> list[Symbol]:
    """Extract every definition in one file, in source order (`extract_file`'s symbols).

    Raises:
        UnsupportedLanguage: No tag query for the file's language.
        ParseTimeout: Extraction took longer than `deadline_s`.
        ExtractError: The query could not run on the tree.
    """
    return extract_file(path, source, language=language, deadline_s=deadline_s).symbols


def extract_file(
    path: str,
    source: bytes,
    *,
    language: str | None = None,
    deadline_s: float = DEFAULT_DEADLINE_S,
) -> Extraction:
    """Extract every definition in one file, and count what did not parse.

    Syntax errors do not raise: tree-sitter recovers and the definitions it still
    recognises are returned; the regions it could not parse are counted, and the
    definitions found only by re-parsing after a lost region.

    Args:
        path: Repository-relative, `/`-separated path (recorded on each symbol and used
            to pick the language when `language` is None).
        source: The file's bytes; not valid UTF-8, they are read as Latin-1 (old C and
            Java sources) so that no name is mangled.
        language: Language id; detected from `path` and content when None.
        deadline_s: Wall-clock budget for the whole extraction (the rewrites before
            parsing, the parses, the work on the trees).

    Returns:
        The symbols, ordered by line then name, and the parse's error counts.

    Raises:
        UnsupportedLanguage: No tag query for the file's language.
        ParseTimeout: Extraction took longer than `deadline_s`.
        ExtractError: The query could not run on the tree.
    """
    source = _as_utf8(source)
    language = language or language_for_file(path, source[:4096])
    if language is None:
        raise UnsupportedLanguage(f"no language for {path!r}")
    parser, query = _parser_and_query(language)
    spec = LANGUAGES[language]
    deadline = _Deadline(deadline_s)  # the rewrites count too (they are linear)
    parsed = parser_input(spec.grammar, source)  # the rewrites (extract/rewrite/)
    first = _parse_tree(parser, parsed, deadline)
    root = first.root_node
    defined: list[tuple[int, int]] = []  # the definitions' names: not uses
    symbols = _symbols_in(root, query, spec, path, source, parsed, deadline, names=defined)
    uses_root, uses_text = root, parsed  # the tree the uses are read from
    error_regions = _error_regions(root)
    seen = {(s.line, s.name) for s in symbols}
    if spec.grammar in WRAPPER_GRAMMARS:
        for body in module_bodies(root, parsed):
            # The body alone, at its own offsets: its statements become a program's.
            alone = blanked_outside(parsed, body.start_byte + 1, body.end_byte - 1)
            inner = _parse(parser, alone, deadline)
            for symbol in _symbols_in(inner, query, spec, path, source, alone, deadline,
                                      names=defined):
                if (symbol.line, symbol.name) not in seen:
                    seen.add((symbol.line, symbol.name))
                    symbols.append(symbol)
    if spec.grammar in ITEM_MACRO_GRAMMARS:
        text, tree = parsed, first.copy()
        for _ in range(MAX_DEPTH):
            spans = call_wrappers(item_macro_calls(tree.root_node))
            if not spans:
                break
            # The calls' insides as items where the calls stand, in the whole file, so that
            # they take the scopes around them; only the edited calls are parsed again.
            text = unwrapped(text, spans)
            for span in spans:
                tree.edit(span.start_byte, span.end_byte, span.end_byte,
                          span.start_point, span.end_point, span.end_point)
            tree = _parse_tree(parser, text, deadline, tree)
            for symbol in _symbols_in(tree.root_node, query, spec, path, source, text, deadline,
                                      seen, defined):
                if (symbol.line, symbol.name) not in seen:
                    seen.add((symbol.line, symbol.name))
                    symbols.append(symbol)
            # The items now read where the calls stood: their uses are read from this tree.
            uses_root, uses_text = tree.root_node, text
    found_first = len(symbols)
    floor = 0  # rows before this one are settled
    for _ in range(RECOVER_MAX_PARSES):
        restart_row = _restart_row(root, parsed, floor)
        if restart_row is None:
            break
        # Re-parse with everything before the restart line blanked: rows and byte offsets
        # stay those of the file, and tree-sitter starts afresh where the code does.
        start = _row_offset(parsed, restart_row)
        blanked = blanked_outside(parsed, start, len(parsed))
        root = _parse(parser, blanked, deadline)
        for symbol in _symbols_in(root, query, spec, path, source, blanked, deadline):
            if symbol.line > restart_row and (symbol.line, symbol.name) not in seen:
                seen.add((symbol.line, symbol.name))
                symbols.append(symbol)
        floor = restart_row + 1
    symbols.sort(key=lambda s: (s.line, s.name, s.kind))
    try:
        occurrences, imports = occurrences_and_imports(uses_root, language, uses_text,
                                                       symbols, defined, deadline.check)
        read = True
    except ParseTimeout:
        # The definitions are found: a file long to read (generated Go rewrite rules) keeps
        # them, and says that its uses were not read.
        occurrences, imports, read = [], [], False
    return Extraction(
        symbols=symbols, error_regions=error_regions, recovered=len(symbols) - found_first,
        occurrences=occurrences, imports=imports, occurrences_read=read,
    )


def _error_regions(root: Node) -> int:
    """The outermost ERROR nodes and the missing tokens of a tree (0 when it parsed)."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.has_error:
            continue
        if node.type == "ERROR" or node.is_missing:
            count += 1
            continue
        stack.extend(node.children)
    return count



def _row_offset(source: bytes, row: int) -> int:
    offset = 0
    for _ in range(row):
        offset = source.index(b"\n", offset) + 1
    return offset


def _restart_row(root: Node, source: bytes, floor: int) -> int | None:
    """Where to re-parse from: the first line at column 0 inside the first large ERROR
    node that reaches past `floor` (a lost region: tree-sitter did not resynchronise on
    the definitions in it), not before `floor`; None when there is no such region."""
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.has_error or node.end_point.row <= floor:
            continue
        if (
            node.type == "ERROR"
            and node.parent is not None  # a root ERROR still holds the well-parsed parts
            and node.end_point.row - node.start_point.row >= RECOVER_MIN_LINES
        ):
            begin = _row_offset(source, max(node.start_point.row + 1, floor))
            restart = _RESTART_LINE.search(source, begin, node.end_byte)
            if restart is not None:
                return source.count(b"\n", 0, restart.start())
            continue  # nothing to restart on in this one; look further on
        stack.extend(reversed(node.children))  # in source order
    return None


def _outside(ancestors: list[Node], enclosing: frozenset[str]) -> bool:
    """Whether no ancestor of a node is of these types (a Python assignment is a module's
    variable however deep it stands in `if`/`try`/`with`/`for` blocks, unless a def or
    class holds it). A node `MAX_SCOPE_DEPTH` deep or deeper is too deep to tell: not a
    module-level definition."""
    return len(ancestors) < MAX_SCOPE_DEPTH and all(a.type not in enclosing for a in ancestors)


@functools.lru_cache(maxsize=64)
def _node_types(setting: str) -> frozenset[str]:
    return frozenset(setting.split())


def _symbols_in(
    root: Node, query: Query, spec: LanguageSpec, path: str, source: bytes, parsed: bytes,
    deadline: _Deadline, known: Container[tuple[int, str]] = frozenset(),
    names: list[tuple[int, int]] | None = None,
) -> list[Symbol]:
    """The symbols one parse tree defines (`source`: the file as written, for signatures
    and docs; `parsed`: what the tree was parsed from, macros blanked, at the same
    offsets), but those `known` by line and name from an earlier parse of the file;
    the byte spans of every definition's name node are added to `names` when given.

    Raises:
        ParseTimeout: The deadline passed.
    """
    try:
        matches = QueryCursor(query).matches(root)
    except RuntimeError as exc:  # defensive: a query failing on an odd tree
        raise ExtractError(f"tag query failed on {path!r}: {exc}") from exc
    deadline.check()
    ancestors = _Ancestors(root)
    definitions, scopes, packages = _collect(matches, query, parsed, ancestors, deadline)
    for definition in definitions:
        if definition.fixed or definition.detached:
            continue  # Kotlin's unnamed companion: its members belong to the class
        if definition.kind in SCOPE_KINDS or definition.kind in {
            SymbolKind.FUNCTION,
            SymbolKind.METHOD,
        }:
            # The whole written name scopes what is inside (`namespace a::b`, `class A::B`);
            # namespaces and modules hold functions, not methods.
            written = _split_name(definition.written)
            if written:
                type_like = definition.kind in SCOPE_KINDS - {SymbolKind.MODULE}
                scopes.setdefault(definition.node.id, (spec.separator.join(written), type_like))

    attributes = parsed if b"#[" in parsed else None  # Rust's `#[...]` (`_anchor`)
    declarations = spec.name in {"python", "typescript", "tsx"}
    stubs = path.endswith(_DECLARATION_FILES)  # a file of declarations only
    symbols: list[Symbol] = []
    nodes: list[Node] = []  # each symbol's definition node, for its body words
    lineages: list[list[Node]] = []  # and its ancestors, for the container it stands in
    docs: dict[int, str] = {}  # container node id → its doc, for the members' `body`
    for definition in definitions:
        deadline.check()
        written = _split_name(definition.written)
        if not written:
            continue
        name = written[-1]
        if names is not None:
            names.append((definition.name_node.start_byte, definition.name_node.end_byte))
        if (definition.name_node.start_point.row + 1, name) in known:
            if definition.kind in SCOPE_KINDS:  # its doc still goes to its members found here
                anchor, parent = _anchor(definition.node, ancestors.of(definition.node), attributes)
                docs[definition.node.id] = _doc(definition, anchor, parent, source)
            continue
        parents = ancestors.of(definition.node)
        chain = [] if definition.detached else _enclosing_scopes(parents, scopes)
        kind = definition.kind
        if kind is SymbolKind.FUNCTION and (
            (chain and chain[-1][1]) or definition.receiver or len(written) > 1
        ):
            kind = SymbolKind.METHOD
        parts = [*_package(packages, definition),
                 *_scopes_before(spec, [scope for scope, _ in chain], written)]
        parts.extend(written[:-1])
        if definition.receiver:
            parts.append(definition.receiver)
        anchor, parent = _anchor(definition.node, parents, attributes)
        doc = _doc(definition, anchor, parent, source)
        if kind in SCOPE_KINDS:
            docs[definition.node.id] = doc
        declaration = stubs or (declarations and _is_declaration(definition.node, parents, parsed))
        nodes.append(definition.node)
        lineages.append(parents)
        symbols.append(
            Symbol(
                name=name,
                qualname=_qualname(spec, parts, name, kind, definition.join),
                kind=kind,
                language=spec.name,
                path=path,
                line=definition.name_node.start_point.row + 1,
                end_line=_end_line(definition.node),
                start_line=anchor.start_point.row + 1,
                signature=_signature(definition.node, source),
                doc=doc,
                declaration=declaration,
            )
        )
    return _with_bodies(symbols, nodes, lineages, docs, source)


def _is_declaration(node: Node, parents: list[Node], parsed: bytes) -> bool:
    """Whether a Python or TypeScript definition is a declaration without a body
    (`Symbol.declaration`): a TypeScript signature or `declare`d definition, a Python
    `@overload` or a Python function whose body is `...` alone (its docstring aside)."""
    if node.type in _SIGNATURE_NODES:
        return True
    if any(parent.type == "ambient_declaration" for parent in parents):
        return True
    if node.type != "function_definition":
        return False
    wrapper = parents[0] if parents else None
    if wrapper is not None and wrapper.type == "decorated_definition" and any(
        child.type == "decorator" and _OVERLOAD.search(_text(child, parsed))
        for child in wrapper.children
    ):
        return True
    body = node.child_by_field_name("body")
    if body is None:
        return False
    # Statements as the grammar gives them: an expression alone or in its statement. A
    # stub has two at most (its docstring, `...`): a body is not listed past a third.
    statements = []
    for index in range(body.named_child_count):
        statement = body.named_child(index)
        if statement.type == "comment":
            continue
        if statement.type == "expression_statement" and statement.named_child_count == 1:
            statement = statement.named_child(0)
        statements.append(statement)
        if len(statements) > 2:
            return False
    if statements and statements[0].type == "string":
        statements = statements[1:]  # the docstring
    return [statement.type for statement in statements] == ["ellipsis"]


def _with_bodies(symbols: list[Symbol], nodes: list[Node], lineages: list[list[Node]],
                 docs: dict[int, str], source: bytes) -> list[Symbol]:
    """`symbols` with their body words: each one's own words (its members' left out),
    then the doc of the container it stands in (`Symbol.body`)."""
    containers = frozenset(docs)
    members: dict[int, list[tuple[int, int]]] = {}
    enclosing: list[Node | None] = []
    for node, lineage in zip(nodes, lineages):
        container = _container(lineage, containers) if containers else None
        enclosing.append(container)
        if container is not None:
            members.setdefault(container.id, []).append((node.start_byte, node.end_byte))
    with_bodies = []
    for symbol, node, container in zip(symbols, nodes, enclosing):
        body = _body_words(node, source, sorted(members.get(node.id, ())))
        container_doc = docs[container.id][:CONTAINER_DOC_CHARS] if container is not None else ""
        if container_doc:
            body = f"{body} {container_doc}"
        with_bodies.append(msgspec.structs.replace(symbol, body=body))
    return with_bodies


@functools.cache
def extraction_fingerprint() -> str:
    """A hash of everything that decides which symbols a file yields: `EXTRACTION_VERSION`
    (bumped whenever extraction's output changes: the code, the tag queries) and the
    versions of tree-sitter and its grammars.

    Indexes store it; when an upgrade changes any of these, the index is rebuilt rather
    than mixing symbols from two extractors. An edit that changes no output changes none
    of them.
    """
    digest = hashlib.sha256(f"extraction {EXTRACTION_VERSION}".encode())
    digest.update(f"tree-sitter {tree_sitter.__version__}".encode())
    # The grammar pack has no version attribute; its compiled grammars' names and sizes
    # change with it (importlib.metadata is avoided: it is slow and fragile to import).
    bindings = Path(tree_sitter_language_pack.__file__).parent / "bindings"
    for grammar in sorted(bindings.iterdir()):
        if grammar.is_file():
            digest.update(f"{grammar.name}:{grammar.stat().st_size}".encode())
    return digest.hexdigest()[:16]


def load_language(language: str) -> None:
    """Load `language`'s grammar and compile its tag query, which every extraction of its
    files in this process then shares (the first one would otherwise wait for it).

    Raises:
        UnsupportedLanguage: No tag query for `language`.
    """
    _parser_and_query(language)

