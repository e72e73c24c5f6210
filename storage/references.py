"""Where a definition is used: the index's stored uses resolved at query time, in tiers.

Imports: tantivy, msgspec, `extract.records`, `extract.go_types`,
`extract.python_types`, `storage` modules.

Nothing spanning files is stored (`storage/uses.py`): each file keeps its own uses and
imports, and everything that ties a use in one file to a definition in another is worked
out here, when asked, from the commit searched. Each use of the target's name falls in one
tier:

- **resolved**: evidence ties it to the target: a module-level name used in its own
  module (or, in Go, its package), or in a file whose import binds it from the target's
  module (directly or through a module that re-exports it); a member used on a receiver
  whose type the file shows to be the target's class or a subclass (`self` in the class;
  in Python, not a subclass that overrides it, and `super()` in a subclass; in Go, also
  an interface the target's type implements and, for an interface's method, a type
  implementing it, as gopls counts them); a Python
  class's construction, for its `__init__` (`_constructors`: resolved as the use of the
  class is); a function defined inside a function, used there; a bare name the
  repository defines once;
- **possible**: nothing says no, nothing says yes: a receiver whose type the file does not
  show, or a base class or interface that declares the member (the call may dispatch
  here); collapsed by receiver (`s.get` ×34) with the reason;
- **elsewhere**: the use is of another definition of the same name (`requests.get` for
  `Session.get`, a bare `get` imported from another module): counted by that definition,
  not listed.

Import sources map to files per language, by table (`_MODULE_FILES`): Python dotted and
relative modules to `.py` files and packages' `__init__.py`; Go import paths to
directories; JavaScript and TypeScript relative specifiers to files; C and C++ includes
to headers (an include brings every name of its header; a function's declaration in a
header stands for its definition). Other languages' imports are not followed yet: their
uses are resolved only in their own file or for a name defined once, and are possible
otherwise.

An answer says what it counted in each tier, what it could not check (dynamic dispatch,
reflection, macros, files the index skipped) and how fresh the index is; a name used in
many files is answered within a time budget and marked partial when the budget ran out.
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence

import msgspec
import tantivy

from symfind.extract.c_types import BUILTIN_TYPES
from symfind.extract.go_types import (STANDARD_INTERFACES, first_result, go_ctor, go_package,
                                      method_shape, variable_type)
from symfind.extract.python_types import (
    IMPORTED,
    REBOUND,
    annotated_class,
    entered_type,
    item_type,
    return_annotation,
    return_type,
    returns_self,
    returns_self_type,
    tuple_item,
)
from symfind.extract.records import SCOPE_KINDS, Import, Symbol, SymbolKind, UseKind
from symfind.storage.errors import CursorMismatch, QueryError
from symfind.storage.freshness import describe, is_partial
from symfind.storage.priors import is_test_path
from symfind.storage.query import SearchQuery
from symfind.storage.records import Freshness, Manifest, SearchResponse
from symfind.storage.schema import decode_record
from symfind.storage.uses import (
    USES_FIELD,
    USES_RECORD_FIELD,
    WILDCARD,
    FileUses,
    Use,
    decode_file_uses,
    typed_receivers,
    uses_named,
    uses_of_kind,
)
from symfind.storage.words import QUALIFIER, qualifier_parts, squash

#: Default and largest number of resolved uses one answer lists (the counts cover all).
DEFAULT_LIMIT = 50
MAX_LIMIT = 500
#: Default time budget of one answer; past it the files left are not read (`partial`).
DEFAULT_BUDGET_MS = 1000
MAX_BUDGET_MS = 30_000
#: Groups of possible uses, and definitions elsewhere, listed at most (the rest counted).
POSSIBLE_GROUPS = 15
POSSIBLE_SAMPLES = 3
ELSEWHERE_GROUPS = 10
ALTERNATIVES = 5
#: `next_cursor`: `<generation>:<offset>:<tag>`, the index's generation the page was read
#: at, where the next page starts, and a tag of the index and the target, so that a cursor
#: is refused, never misread, after the index changed or for another question.
_CURSOR = re.compile(r"(?P<generation>[0-9]{1,18}):(?P<offset>[0-9]{1,9}):(?P<tag>[0-9a-f]{8})",
                     re.ASCII)
#: Files read between two looks at the clock.
_CLOCK_EVERY = 16
#: The share of a query's time budget spent finding and classifying uses: a hot name's
#: thousands of uses take the rest to group (a kernel's `device`: ~100 ms).
CLASSIFYING_SHARE = 0.85
#: The share of the time left, once the hierarchy is known, that reading files may take.
READING_SHARE = 0.5
#: Classes named in a partial answer's note (a wide hierarchy leaves hundreds unread).
_CUT_NAMED = 5
#: Rounds of re-exports followed (`__init__.py` importing from a submodule, and so on).
_REEXPORT_ROUNDS = 3
#: Languages in which a bare name inside a class's method may be a member of the class
#: (an implicit `this`).
_IMPLICIT_THIS = frozenset({"java", "cpp", "csharp", "kotlin", "c"})
_SCRIPT_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
#: (target's kind, use's kind) → what the use is of instead: TypeScript keeps types'
#: names apart from values' (a call is of a value, a type annotation of a type).
_OTHER_NAMESPACE = {
    **{(kind, call): "value" for kind in (SymbolKind.TYPE, SymbolKind.INTERFACE)
       for call in (UseKind.CALL, UseKind.ATTRIBUTE_CALL)},
    **{(kind, UseKind.TYPE): "type" for kind in (SymbolKind.FUNCTION, SymbolKind.CONSTANT,
                                                   SymbolKind.VARIABLE)},
}
_CLASS_KINDS = SCOPE_KINDS - {SymbolKind.MODULE} | {SymbolKind.TYPE}
_INTERFACE_KINDS = frozenset({SymbolKind.INTERFACE, SymbolKind.TRAIT})
#: Languages where a subclass's (Go: an embedding type's) own member is the one a call on
#: it reaches (`References.overrides`).
_SHADOWING_LANGUAGES = frozenset({"python", "go"})
#: Module-level values, whose signature is their assignment's first line.
_VALUE_KINDS = frozenset({SymbolKind.CONSTANT, SymbolKind.VARIABLE})
#: A value assigned a call (`generator = ellipticcurve.PointJacobi(`): the callee.
_ASSIGNED_CALL = re.compile(r"\w+\s*(?::[^=]*)?=\s*(?P<class>[A-Za-z_][\w.]*)\s*\(")
_MEMBER_KINDS = frozenset({SymbolKind.METHOD})
_FUNCTION_KINDS = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD})
#: A receiver naming the instance (or class) a method runs on: a base written through one
#: (`class Default(self.Cache)`) is chosen when the code runs, not the class of its name.
_SELF_NAMES = frozenset({"self", "cls", "this"})
_FUNCTIONS = frozenset({SymbolKind.FUNCTION})
_ENTER_METHODS = ("__enter__", "__aenter__")
#: A call of a class's name (`Cart(...)`, `shop.Cart(...)`) constructs it.
_CONSTRUCTING = frozenset({UseKind.CALL, UseKind.ATTRIBUTE_CALL})
#: A Python receiver's type as extraction leaves it for the query to read
#: (`extract.occurrences._PythonTypes`): a base (a class, or a call `f()`, `mod.f()`,
#: `C.m()`), then steps: `:m()` what method m returns, `:p` what property p gives, `[]` an
#: item a subscript gives, `[i]` one a `for` gives, `[1]` a tuple's unpacked at 1.
#: Several such types joined by `REBOUND` (a name bound again) must agree; `UNTYPED`
#: names no class.
_PYTHON_STEP = re.compile(r":(?P<member>\w+)(?P<called>\(\))?|\[(?P<items>i?|\d+)\]")
#: Languages whose function defined inside a function is a local of it (Ruby's and PHP's
#: define a method or a global when the outer one runs).
_LOCAL_FUNCTIONS = frozenset({"python", "javascript", "typescript", "tsx", "rust", "kotlin",
                              "csharp"})
#: Languages whose definitions inside a function hold in all of it, hoisted (JavaScript's
#: `function`, Rust's items, C#'s local functions). Elsewhere one holds from its line on:
#: Python's `class Migration` made twice in one test, Go's `type Section struct`.
_HOISTED = frozenset({"javascript", "typescript", "tsx", "rust", "csharp"})


class Tier:
    RESOLVED = "resolved"
    POSSIBLE = "possible"
    ELSEWHERE = "elsewhere"


#: The tiers from the most to the least tied to the target.
_TIER_RANK = {Tier.RESOLVED: 0, Tier.POSSIBLE: 1, Tier.ELSEWHERE: 2}


class ReferencesQuery(msgspec.Struct, frozen=True, kw_only=True):
    """One "where is it used" question.

    Attributes:
        target: The definition's name or qualified name (`get`, `Session.get`); with
            `path`, only its last part is matched.
        path: The definition's file, to pin one definition (as a read handle does).
        line: A line of that definition (its name's or its first line), with `path`.
        limit: Resolved uses listed, 1..MAX_LIMIT (the counts cover all of them).
        cursor: `next_cursor` of the previous answer, for the next page of resolved uses.
        budget_ms: Time allowed to read the files that use the name.
    """

    target: str = ""
    path: str = ""
    line: int = 0
    limit: int = DEFAULT_LIMIT
    cursor: str = ""
    budget_ms: int = DEFAULT_BUDGET_MS

    def check(self) -> int:
        """Validate; returns the offset the cursor points at.

        Raises:
            QueryError: No target, a limit or budget out of range, a malformed cursor.
        """
        if not self.target.strip() and not self.path:
            raise QueryError("say which definition: a name, a qualified name, or a handle")
        if not 1 <= self.limit <= MAX_LIMIT:
            raise QueryError(f"limit must be between 1 and {MAX_LIMIT}, got {self.limit}")
        if not 1 <= self.budget_ms <= MAX_BUDGET_MS:
            raise QueryError(f"budget_ms must be between 1 and {MAX_BUDGET_MS}, "
                             f"got {self.budget_ms}")
        return int(_cursor_parts(self.cursor)["offset"]) if self.cursor else 0


def _cursor_parts(cursor: str) -> re.Match[str]:
    """`cursor`'s generation, offset and tag.

    Raises:
        QueryError: It is not a cursor an answer gave.
    """
    parts = _CURSOR.fullmatch(cursor)
    if parts is None:
        shown = cursor if len(cursor) <= 40 else cursor[:39] + "…"
        raise QueryError(f"malformed cursor {shown!r}: pass `next_cursor` as given")
    return parts


class Definition(msgspec.Struct, frozen=True, kw_only=True):
    """A definition an answer names: the target, an alternative, or an enclosing one."""

    name: str
    qualname: str
    kind: str
    language: str
    path: str
    line: int
    start_line: int
    end_line: int


class Site(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One use: where, how, on what, and why it is in its tier."""

    line: int
    column: int
    kind: str
    receiver: str = ""
    reason: str = ""


class SiteGroup(msgspec.Struct, frozen=True, kw_only=True):
    """Resolved uses in one file inside one definition (`enclosing`: None at module
    level)."""

    path: str
    test: bool
    enclosing: Definition | None
    sites: list[Site]


class PossibleGroup(msgspec.Struct, frozen=True, kw_only=True):
    """Possible uses on one receiver, for one reason: counted, with a few samples."""

    receiver: str
    reason: str
    count: int
    files: int
    samples: list[str]  # `path:line`


class ElsewhereGroup(msgspec.Struct, frozen=True, kw_only=True):
    """Uses of another definition of the name (or of a name from outside the index)."""

    of: str  # that definition (`requests.api.get` at `path:line`), or what it comes from
    reason: str
    count: int


class ReferencesAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to a `ReferencesQuery`: counts first, then groups.

    Attributes:
        target: The definition whose uses were looked for (None: none found).
        alternatives: Other definitions the target's name or qualified name matches;
            for a path and line, the others named on that line (an enum's constants).
        resolved, possible, elsewhere: Uses counted in each tier (in the files read).
        resolved_files: Files with a resolved use.
        groups: This page of resolved uses, by file then enclosing definition.
        possible_groups, elsewhere_groups: The other tiers, collapsed.
        files_read, files_using: Files read, of those that use the name.
        partial: Why the counts may be short ("" when complete).
        unchecked: What this answer could not check.
        skipped: Files the index holds no uses for, by reason (`too_large`, ...).
        next_cursor: For the next page of resolved uses ("" when none).
        empty_reason: Why nothing was resolved, when nothing was.
    """

    query: str
    target: Definition | None
    alternatives: list[Definition]
    resolved: int
    possible: int
    elsewhere: int
    resolved_files: int
    groups: list[SiteGroup]
    possible_groups: list[PossibleGroup]
    elsewhere_groups: list[ElsewhereGroup]
    files_read: int
    files_using: int
    freshness: Freshness
    took_ms: float
    partial: str = ""
    unchecked: list[str] = []
    skipped: dict[str, int] = {}
    next_cursor: str = ""
    empty_reason: str = ""


# ---- reading the index ------------------------------------------------------------------


#: Where a file's uses are read from: its first definition's document, or (a file that
#: defines nothing) its manifest entry, decoded already.
Source = tantivy.DocAddress | FileUses


class UseIndex:
    """The lookups resolution needs, over one commit: its Tantivy searcher and schema, and
    its manifest (the files, the skipped ones, the uses of files that define nothing)."""

    def __init__(self, searcher: tantivy.Searcher, schema: tantivy.Schema,
                 manifest: Manifest) -> None:
        self._searcher = searcher
        self._schema = schema
        self.manifest = manifest
        self._files: dict[str, list[Symbol]] = {}  # definitions by file, read once
        self._uses: dict[str, FileUses | None] = {}  # `uses_of_file`, decoded once
        self._loose: list[FileUses] | None = None  # uses of files that define nothing

    def _docs(self, query: tantivy.Query) -> list[tantivy.Document]:
        count = self._searcher.search(query, 1, count=True).count
        if not count:
            return []
        hits = self._searcher.search(query, count, count=False).hits
        return [self._searcher.doc(address) for _, address in hits]

    def _term(self, field: str, value: str) -> tantivy.Query:
        return tantivy.Query.term_query(self._schema, field, value)

    def definitions_named(self, name: str) -> list[Symbol]:
        """Every definition whose name is exactly `name`, by path and line."""
        found = []
        for document in self._docs(self._term("name_exact", squash(name))):
            symbol = decode_record(document.get_all("record")[0])
            if symbol.name == name:
                found.append(symbol)
        return sorted(found, key=lambda s: (s.path, s.line))

    def definitions_in(self, path: str) -> list[Symbol]:
        """The definitions of one file, by line."""
        if path not in self._files:
            documents = self._docs(self._term("path", path))
            self._files[path] = sorted(
                (decode_record(document.get_all("record")[0]) for document in documents),
                key=lambda s: (s.line, s.name))
        return self._files[path]

    def _files_without_definitions(self) -> list[FileUses]:
        if self._loose is None:
            self._loose = _loose_uses(self.manifest)
        return self._loose

    def files_using(self, names: Iterable[str]) -> list[Source]:
        """Where to read the uses of the files that use any of `names`."""
        wanted = set(names)
        clauses = [(tantivy.Occur.Should, self._term(USES_FIELD, name)) for name in wanted]
        query = tantivy.Query.boolean_query(clauses)
        count = self._searcher.search(query, 1, count=True).count
        found: list[Source] = sorted(
            (address for _, address in self._searcher.search(query, count).hits),
            key=lambda a: (a.segment_ord, a.doc)) if count else []
        found += [record for record in self._files_without_definitions()
                  if not wanted.isdisjoint(record.names)]
        return found

    def read_uses(self, source: Source) -> FileUses:
        if isinstance(source, FileUses):
            return source
        return decode_file_uses(self._searcher.doc(source).get_all(USES_RECORD_FIELD)[0])

    def uses_of_file(self, path: str) -> FileUses | None:
        """A file's stored uses (None: it uses nothing, or is not indexed), decoded once
        an answer (a re-exporting module is read for each file whose import it serves)."""
        if path not in self._uses:
            self._uses[path] = self._read_uses_of(path)
        return self._uses[path]

    def _read_uses_of(self, path: str) -> FileUses | None:
        state = self.manifest.files.get(path)
        if state is not None and state.uses:
            return decode_file_uses(state.uses)
        query = self._term("path", path)
        count = self._searcher.search(query, 1, count=True).count
        # The record rides on the file's first document: that one first, not all of them
        # (a generated header defines thousands of names).
        hits = [address for _, address in self._searcher.search(query, count, count=False).hits
                ] if count else []
        first = min(hits, key=lambda a: (a.segment_ord, a.doc), default=None)
        for address in ([first] if first is not None else []) + hits:
            record = self._searcher.doc(address).get_all(USES_RECORD_FIELD)
            if record:
                return decode_file_uses(record[0])
        return None


#: The last manifest's `_loose_uses` (a manifest never changes once handed out, and the
#: commit's answers share it): sorting a kernel's 55,000 file states cost each answer 30 ms.
_LOOSE: list[tuple[Manifest, list[FileUses]] | None] = [None]


def _loose_uses(manifest: Manifest) -> list[FileUses]:
    """The uses of the files that define nothing, by path (kept in their file states)."""
    current = _LOOSE[0]
    if current is not None and current[0] is manifest:
        return current[1]
    loose = [decode_file_uses(state.uses) for _, state
             in sorted((path, state) for path, state in manifest.files.items() if state.uses)]
    _LOOSE[0] = (manifest, loose)
    return loose


# ---- import sources → files, per language -----------------------------------------------


def _python_module_files(source: str, importer: str, files: frozenset[str]) -> set[str]:
    """The files a Python import source names, seen from `importer`: `.models`,
    `..pkg.mod`, `requests.sessions` (matched at any depth: `src/requests/sessions.py`)."""
    dots = len(source) - len(source.lstrip("."))
    rest = source[dots:].replace(".", "/")
    if dots:
        base = posixpath.dirname(importer)
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        stem = posixpath.join(base, rest) if rest else base
        candidates = [f"{stem}.py", f"{stem}.pyi", posixpath.join(stem, "__init__.py")]
        return {c for c in candidates if c in files}
    if not rest:
        return set()
    by_tail = _files_by_tail(files)
    return {f for tail in (f"{rest}.py", f"{rest}.pyi", f"{rest}/__init__.py")
            for f in by_tail.get(tail, ())}


def _go_package_files(source: str, importer: str, files: frozenset[str]) -> set[str]:
    """The `.go` files of the directory a Go import path names: the longest tail of the
    path that is a directory of the index (`net/http` → `src/net/http/*.go`)."""
    parts = [part for part in source.split("/") if part]
    directories = _go_directories(files)
    for keep in range(len(parts), 0, -1):
        tail = "/".join(parts[-keep:])
        found = [d for d in directories if d == tail or d.endswith("/" + tail)]
        if found and (keep > 1 or len(parts) == 1):
            return {f for d in found for f in directories[d]}
    return set()


def _per_file_list(build: Callable[[frozenset[str]], dict[str, list[str]]]
                   ) -> Callable[[frozenset[str]], dict[str, list[str]]]:
    """`build`'s table of an index's file list, kept while the list is the same: an edit
    keeps it equal, and each answer's list is compared once (then it is the same object:
    a kernel's 55,000 paths cost 2 ms to compare)."""
    # One slot, read once and replaced whole: answers on other threads may ask at once.
    slot: list[tuple[frozenset[str], dict[str, list[str]]] | None] = [None]

    def table(files: frozenset[str]) -> dict[str, list[str]]:
        current = slot[0]
        if current is not None and (current[0] is files or current[0] == files):
            if current[0] is not files:
                slot[0] = (files, current[1])
            return current[1]
        built = build(files)
        slot[0] = (files, built)
        return built

    return table


@_per_file_list
def _go_directories(files: frozenset[str]) -> dict[str, list[str]]:
    """The `.go` files of an index by directory."""
    by_directory: dict[str, list[str]] = defaultdict(list)
    for path in files:
        if path.endswith(".go"):
            by_directory[posixpath.dirname(path)].append(path)
    return dict(by_directory)


@_per_file_list
def _files_by_tail(files: frozenset[str]) -> dict[str, list[str]]:
    """An index's files by every tail of their paths (`a/b/c.py` under `a/b/c.py`,
    `b/c.py` and `c.py`): a Python module or an included header is matched at any depth,
    and scanning the list per import cost Django's references 0.4 s."""
    by_tail: dict[str, list[str]] = defaultdict(list)
    for path in files:
        start = 0
        while True:
            by_tail[path[start:]].append(path)
            start = path.find("/", start) + 1
            if not start:
                break
    return dict(by_tail)


_SCRIPT_SUFFIXES = ("", ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", "/index.ts",
                    "/index.tsx", "/index.js", "/index.jsx")


def _script_module_files(source: str, importer: str, files: frozenset[str]) -> set[str]:
    """The file a JavaScript or TypeScript relative specifier names (`./client` →
    `client.ts`, `client/index.ts`...); a package's name (`axios`) names none of ours."""
    if not source.startswith("."):
        return set()
    stem = posixpath.normpath(posixpath.join(posixpath.dirname(importer), source))
    if stem.endswith(".js"):  # TypeScript's ESM spelling of its own `.ts` file
        candidates = [stem, stem[:-3] + ".ts", stem[:-3] + ".tsx"]
    else:
        candidates = [stem + suffix for suffix in _SCRIPT_SUFFIXES]
    return {candidate for candidate in candidates if candidate in files}


def _c_header_files(source: str, importer: str, files: frozenset[str]) -> set[str]:
    """The header an `#include` names: beside the including file first, else any indexed
    file whose path ends with it (`linux/list.h` → `include/linux/list.h`)."""
    beside = posixpath.normpath(posixpath.join(posixpath.dirname(importer), source))
    if beside in files:
        return {beside}
    return set(_files_by_tail(files).get(source, ()))


#: Language → (import source, importing file, indexed files) → the files it names.
_MODULE_FILES: dict[str, Callable[[str, str, frozenset[str]], set[str]]] = {
    "python": _python_module_files,
    "go": _go_package_files,
    "javascript": _script_module_files,
    "typescript": _script_module_files,
    "tsx": _script_module_files,
    "c": _c_header_files,
    "cpp": _c_header_files,
}
#: Languages whose imports bind no name: an include brings every name of its header.
_INCLUDES = frozenset({"c", "cpp"})
_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl")


def _same_unit(language: str, one: str, other: str) -> bool:
    """Whether two files share their top-level names: one module in Python (a `.pyi`
    stub is its `.py` module's), one package (directory) in Go, one file elsewhere."""
    if language == "go":
        return posixpath.dirname(one) == posixpath.dirname(other)
    if language == "python":
        return _module_path(one) == _module_path(other)
    return one == other


def _module_path(path: str) -> str:
    """The Python module a file is: a stub (`range.pyi`) describes its `range.py`."""
    return path.removesuffix("i") if path.endswith(".pyi") else path


# ---- resolution -------------------------------------------------------------------------


def _last(qualname: str) -> str:
    parts = qualifier_parts(qualname)
    return parts[-1] if parts else qualname


def _container(symbol: Symbol) -> str:
    parts = qualifier_parts(symbol.qualname)
    return parts[-2] if len(parts) > 1 else ""


def _enclosing_function(target: Symbol, own: list[Symbol], others: list[Symbol]
                        ) -> tuple[list[str], list[Symbol]]:
    """For a function defined inside a function or method (`Converter.hook.decorator`),
    that function's qualified name's parts and the other definitions of the target's name
    made in it; ([], []) for any other definition. (Those made in functions nested in
    it shadow the target there: `_shadowing`.)"""
    parts = qualifier_parts(target.qualname)
    if len(parts) < 2 or target.kind in _MEMBER_KINDS or target.language not in (
            _LOCAL_FUNCTIONS):
        return [], []
    around = parts[:-1]
    if not any(qualifier_parts(s.qualname) == around for s in own
               if s.kind in _FUNCTION_KINDS):
        return [], []
    return around, [s for s in others
                    if s.path == target.path and qualifier_parts(s.qualname)[:-1] == around]


def _listed(paths: Iterable[str]) -> str:
    return ", ".join(sorted(paths))


def _overriding(typed: str, override: Symbol, member: str) -> str:
    """How `typed` comes by `override`: `, which overrides get`, `, a subclass of Child,
    which overrides get`, or (`override` a Go struct with a field of the name) `, whose
    field Options shadows it`."""
    field = override.kind in _CLASS_KINDS
    owner = _last(override.qualname) if field else _container(override)
    between = "" if owner == typed else f", a subclass of {owner}"
    how = f"whose field {member} shadows it" if field else f"which overrides {override.name}"
    return f"{between}, {how}"


def _head(receiver: str) -> str:
    """The first name of a receiver's text: `self.session` → `self`, `pkg.Type` → `pkg`."""
    for stop in ("(", "[", "<", " "):
        receiver = receiver.split(stop, 1)[0]
    parts = QUALIFIER.split(receiver)
    return parts[0] if parts else receiver


def _join(module: str, name: str) -> str:
    """A Python module and a name in it: `pkg` + `x` → `pkg.x`, `.` + `x` → `.x`."""
    if not name:
        return module
    return module + name if not module.strip(".") else f"{module}.{name}"


def _definition(symbol: Symbol) -> Definition:
    return Definition(name=symbol.name, qualname=symbol.qualname, kind=str(symbol.kind),
                      language=symbol.language, path=symbol.path, line=symbol.line,
                      start_line=symbol.start_line or symbol.line, end_line=symbol.end_line)


def _where(symbol: Symbol) -> str:
    return f"{symbol.qualname} ({symbol.path}:{symbol.line})"


#: A Go method's parameter and result types (`extract.go_types.method_shape`); None when its
#: signature does not show them.
_GoShape = tuple[tuple[str, ...], tuple[str, ...]] | None
_GoMethods = dict[str, _GoShape]  # an interface's methods: name → shape


def _same_shape(one: _GoShape, other: _GoShape) -> bool:
    return one is None or other is None or one == other


def _standard_interface(written: str) -> _GoMethods | None:
    """The methods of one of the standard library's interfaces a Go type embeds, as
    written (`io.Reader`), when the index does not hold it; None for any other."""
    signatures = STANDARD_INTERFACES.get(written)
    if signatures is None:
        return None
    return {signature.split("(", 1)[0]: method_shape(signature) for signature in signatures}


class _Verdict(msgspec.Struct, frozen=True):
    tier: str
    reason: str
    of: str = ""  # elsewhere: which definition, or where the name comes from


class _Resolver:
    """Classifies the uses of one target's name (see the module docstring)."""

    def __init__(self, target: Symbol, others: list[Symbol], index: UseIndex,
                 files: frozenset[str]) -> None:
        self.target = target
        self.name = target.name
        self.others = others
        self.index = index
        self.files = files
        self.container = _container(target)
        own = index.definitions_in(target.path)
        container_kinds = {s.kind for s in own if s.qualname.endswith(self.container)
                           and _last(s.qualname) == self.container} if self.container else set()
        # A Go type's qualified name starts with its package's, which may also be a type's
        # name (package level's `level.Option`, beside its type `level`): no member.
        self.member = target.kind in _MEMBER_KINDS or not self._top_level(target) and bool(
            container_kinds & _CLASS_KINDS)
        self.family: set[str] = {self.container} if self.member else set()
        #: The family's classes by name → the bases they were found under (`learn_hierarchy`).
        self._parents: dict[str, set[str]] = defaultdict(set)
        #: The family's subclasses by name → where each is defined: (path, qualname).
        self.subclasses_at: dict[str, set[tuple[str, str]]] = defaultdict(set)
        self.local_to, self.local_twins = _enclosing_function(target, own, others)
        self._bases: set[str] | None = None  # `bases`, read when first needed
        self._declaring: dict[str, bool] = {}
        self._types: dict[str, bool] = {}
        self.other_members: dict[str, Symbol] = {}
        self.other_top: dict[str, list[Symbol]] = defaultdict(list)
        for other in others:
            owner = _container(other)
            if owner and (other.kind in _MEMBER_KINDS or not self._top_level(other)):
                self.other_members.setdefault(owner, other)
            else:
                self.other_top[other.path].append(other)
        self.providers: set[str] = {target.path}
        #: Go files of the target's package that define its qualified name again: one
        #: build's twin of it (`backend_windows.go`'s `Watcher.readEvents` beside
        #: `backend_inotify.go`'s), whose own uses are of that twin.
        self.build_twins: dict[str, Symbol] = {
            other.path: other for other in others if target.language == "go"
            and other.qualname == target.qualname and other.path != target.path
            and _same_unit("go", other.path, target.path)}
        #: Modules that import the target's name from a provider and define that name
        #: again themselves (`_timelex = deprecated(_timelex)`; a fallback `def` in an
        #: `except ImportError`): which one an importer of theirs gets, the text does
        #: not say (`learn_reexports`).
        self.redefining: set[str] = set()
        self._mapped: dict[tuple[str, str, str], set[str]] = {}
        self._reaching: dict[str, bool] = {}  # included file → `_header_reaches`
        self._includes_of: dict[str, set[str]] = {}  # file → `_included`
        self._go_results: dict[tuple[str, str], str] = {}  # (file, call written) → type
        self._go_embedding: dict[str, bool] = {}
        self._go_method_sets: dict[tuple[str, str], _GoMethods | None] = {}
        self._go_reaching: dict[tuple[str, str], str] = {}  # (directory, type) → why
        self._go_types: dict[tuple[str, str, str], list[Symbol]] = {}
        self._go_methods: dict[tuple[str, str, str, _GoShape], bool] = {}
        self._go_packages: dict[tuple[str, str], _Verdict | None] = {}
        self._definitions: dict[str, list[Symbol]] = {}
        #: The others made inside functions, by file (`_shadowing`), and those of them
        #: whose scope is a function there, innermost first.
        self._nested: dict[str, list[tuple[tuple[str, ...], Symbol]]] | None = None
        self._shadows: dict[str, list[tuple[tuple[str, ...], Symbol]]] = {}
        self._bare_uses: dict[str, list[int]] = {}  # file → `_bare_use_lines`
        #: file → its functions' (first line, last line, qualified name's parts)
        self._function_spans: dict[str, list[tuple[int, int, tuple[str, ...]]]] = {}
        self._dynamic_bases: dict[str, str] = {}  # class name → `_dynamic_base`
        self._class_homes: dict[tuple[str, str, frozenset[SymbolKind]],
                                frozenset[str] | None] = {}
        # (file, call written) → the type it returns, and the file whose names it is in
        self._python_results: dict[tuple[str, str], tuple[str, FileUses | None]] = {}
        self._python_types: dict[tuple[str, str], tuple[str, FileUses | None]] = {}
        self._lineages: dict[str, list[set[str]]] = {}
        self._base_lists_of: dict[str, dict[str, set[str]]] = {}
        self._written_bases_of: dict[str, dict[str, set[str]]] = {}
        # (file, attribute) → class → the types `self.<attribute>` has there
        self._self_attributes: dict[tuple[str, str], dict[str, set[str]]] = {}

    def _top_level(self, symbol: Symbol) -> bool:
        return len(qualifier_parts(symbol.qualname)) <= 1 or symbol.language == "go" and (
            symbol.kind not in _MEMBER_KINDS and len(qualifier_parts(symbol.qualname)) <= 2)

    # -- class hierarchy, from the uses of class names in base lists -----------------------

    def learn_hierarchy(self, uses_of: Callable[[str], list[Use]]) -> None:
        """Subclasses of the target's class (uses of its name as a base, three levels
        down)."""
        if not self.member:
            return
        frontier = {self.container}
        for _ in range(3):
            found = set()
            for name in sorted(frontier):  # the same names cut by the deadline each time
                for use in uses_of(name):
                    if use.kind is UseKind.INHERIT and use.enclosing and (
                            _head(use.receiver) not in _SELF_NAMES):
                        found.add(_last(use.enclosing))
                        self._parents[_last(use.enclosing)].add(name)
                        self.subclasses_at[_last(use.enclosing)].add((use.path, use.enclosing))
            frontier = found - self.family
            self.family |= frontier
            if not frontier:
                break

    def overrides(self, typed: str) -> Symbol | None:
        """The member of the target's name that `typed`, a class of the family, or a class
        between it and the target's class defines, overriding the target (None: calls on a
        `typed` dispatch to the target).

        Python and Go: there a call on a subclass that overrides the member is the
        override's (as jedi says), and in Go a type's own method shadows the one its
        embedded type promotes (gopls: `p.Command.Find()` is `Command.Find`, not the
        embedded `Group.Find`); TypeScript's own tool counts it as a use of the
        overridden member too, and so does symfind for the other languages."""
        if self.target.language not in _SHADOWING_LANGUAGES:
            return None
        seen: set[str] = set()
        frontier = [typed]
        while frontier:
            name = frontier.pop()
            if name == self.container or name in seen:
                continue
            seen.add(name)
            if name in self.other_members:
                return self.other_members[name]
            shadowing = self._go_field_of(name)
            if shadowing is not None:
                return shadowing
            frontier.extend(sorted(self._parents.get(name, ())))
        return None

    def _go_field_of(self, typed: str) -> Symbol | None:
        """A Go struct named `typed` with a field of the target's name, which shadows the
        method an embedded type promotes (go-flags' `Parser.Options` beside the
        `Options()` its `*Command` promotes from `*Group`); None in other languages."""
        if self.target.language != "go":
            return None
        return next((s for s in self._named(typed) if s.kind is SymbolKind.STRUCT
                     and self.name in s.fields.split()), None)

    def _override_in(self, record: FileUses, typed: str) -> Symbol | None:
        """`overrides`, for a receiver of the class `typed` in `record`: when the file
        defines a class of that name itself, its own member of the name, else what its
        own bases lead to (pyasn1's `cer/decoder.py` defines a `BooleanPayloadDecoder` of
        its own, whose namesake in `ber/decoder.py` overrides the member and it does
        not)."""
        bases = self._base_lists(record.path).get(typed) if record.language == "python" else None
        if bases is None:
            return self.overrides(typed)
        if typed == self.container and _same_unit(record.language, record.path,
                                                  self.target.path):
            return None  # the target's own class (its `.pyi` stub's module too)
        own = next((other for other in self.others if other.path == record.path
                    and _container(other) == typed and other.kind in _MEMBER_KINDS), None)
        if own is not None:
            return own
        return next(filter(None, (self.overrides(base) for base in sorted(bases))), None)

    def _through_super(self, enclosing: str) -> _Verdict:
        """`super().name` in a method of `enclosing`'s class: the target's when that class
        is a subclass of the target's class and no class between them overrides it."""
        parts = qualifier_parts(enclosing)
        cls = parts[-2] if len(parts) > 1 else ""
        if cls in self.family and cls != self.container:
            overridden = [self.overrides(parent) for parent in sorted(self._parents[cls])]
            if overridden and all(overridden):
                return _Verdict(Tier.ELSEWHERE, f"through super() in {cls}: another base's "
                                f"{self.name}", _where(overridden[0]))
            if overridden and not any(overridden):
                return _Verdict(Tier.RESOLVED, f"through super() in {cls}, a subclass of "
                                f"{self.container}")
        return _Verdict(Tier.POSSIBLE, "through super(): a base's member")

    def _local(self, record: FileUses, use: Use) -> _Verdict | None:
        """The verdict on a use of a function defined inside another function (`decorator`
        in each of two methods): none of it outside that function, and in Python, within
        it, the one of its definitions of the name last made before the use. None: in the
        function, left to the rules of any other name."""
        inside = record.path == self.target.path and qualifier_parts(use.enclosing)[
            :len(self.local_to)] == self.local_to
        if not inside or use.receiver:
            return _Verdict(Tier.ELSEWHERE, "a local of another function",
                            f"names outside {'.'.join(self.local_to)}")
        # A function nested in the target's, around the use, defines the name.
        shadowed = self._shadowing(record, use, deeper_than=len(self.local_to))
        if shadowed is not None:
            return shadowed
        if record.language != "python" or not self.local_twins:
            return None
        made = sorted((s for s in (self.target, *self.local_twins) if s.line <= use.line),
                      key=lambda s: s.line)
        if not made:
            made = [min((self.target, *self.local_twins), key=lambda s: s.line)]
        # In force: the last made before the use, and those made before it with no use of
        # the name between them: alternatives (each branch of an `if` defines `wrapper`),
        # where a definition used, then made again, is replaced (a loop's `check`).
        used = self._bare_use_lines(record)
        in_force = [made[-1]]
        for earlier in reversed(made[:-1]):
            if any(earlier.line < line < in_force[-1].line for line in used):
                break
            in_force.append(earlier)
        if self.target in in_force:
            return _Verdict(Tier.RESOLVED, "its local definition in force there"
                            if len(in_force) == 1 else
                            "one of its local definitions, made in turn, in force there")
        return _Verdict(Tier.ELSEWHERE, "another local definition of the name in force "
                        "there", _where(in_force[0]))

    def _bare_use_lines(self, record: FileUses) -> list[int]:
        """The lines of a file's uses of the target's name with no receiver, sorted."""
        if record.path not in self._bare_uses:
            self._bare_uses[record.path] = sorted({
                found.line for found in uses_named(record, [self.name]) if not found.receiver})
        return self._bare_uses[record.path]

    def _class_home(self, record: FileUses, written: str,
                    kinds: frozenset[SymbolKind] = _CLASS_KINDS) -> frozenset[str] | None:
        """The files defining the Python class that `record` names `written` (`Lock`,
        `trio.Lock`): the file itself when it defines a class of that name, else where
        its import of the name or of the module leads, through modules that import it
        in turn (`anyio/__init__.py`'s `from ._core._synchronization import Lock`), three
        steps at most; empty when the module is not in the index; None when nothing says
        (a name no import binds). With `kinds`, the files defining a module-level
        definition of those kinds instead (a function)."""
        key = (record.path, written, kinds)
        if key not in self._class_homes:
            qualifier, _, name = written.rpartition(".")
            if qualifier:
                item, module = self._receiver_binding(record, qualifier)
                if item is None and any(i.name.startswith(f"{qualifier}.") and not i.imported
                                        for i in record.imports):
                    module = qualifier  # `import trio.lowlevel` binds `trio` too
                elif item is None:
                    module = ""
                found = self._defining(self._module_files(record, module), name, 3,
                                       kinds) if module else None
            else:
                found = self._defining_in(record, name, 3, kinds)
            self._class_homes[key] = found
        return self._class_homes[key]

    def _defining_in(self, record: FileUses, name: str, steps: int,
                     kinds: frozenset[SymbolKind]) -> frozenset[str] | None:
        if any(s.kind in kinds and s.qualname == name
               for s in self.index.definitions_in(record.path)):
            return frozenset({record.path})
        item = self._binding(record, name)
        if item is None or steps == 0:
            return None
        paths = self._module_files(record, _join(item.source, item.imported)) or (
            self._module_files(record, item.source))
        return self._defining(paths, item.imported or name, steps - 1, kinds)

    def _defining(self, paths: set[str], name: str, steps: int,
                  kinds: frozenset[SymbolKind]) -> frozenset[str] | None:
        """Of `paths` (a module's files), those defining class `name`, or where their
        imports of it lead; empty for a module not in the index."""
        found: set[str] = set()
        for path in sorted(paths):
            record = self.index.uses_of_file(path)
            homes = (self._defining_in(record, name, steps, kinds) if record is not None else
                     frozenset({path}) if any(s.kind in kinds and s.qualname == name
                                              for s in self.index.definitions_in(path))
                     else None)
            if homes is None:
                return None  # one file says nothing: the module may hold it
            found |= homes
        return frozenset(found)

    @property
    def bases(self) -> set[str]:
        """The bases and interfaces of the target's class, three levels up: each class's
        from the base lists of the files that define a class of that name (read when a
        receiver's type first asks: most answers need none)."""
        if self._bases is None:
            self._bases = self._ancestors() if self.member else set()
        return self._bases

    def _ancestors(self) -> set[str]:
        found: set[str] = set()
        frontier = {self.container}
        for _ in range(3):
            parents = set()
            for name in frontier:
                paths = {s.path for s in self.index.definitions_named(name)
                         if s.kind in _CLASS_KINDS} | ({self.target.path}
                                                       if name == self.container else set())
                for path in sorted(paths):
                    parents |= self._base_lists(path).get(name, set())
            frontier = parents - found - {self.container}
            found |= frontier
            if not frontier:
                break
        return found

    def _indexed_type(self, name: str) -> bool:
        """Whether the repository defines a type of that name."""
        if name not in self._types:
            self._types[name] = any(s.kind in _CLASS_KINDS
                                    for s in self.index.definitions_named(name))
        return self._types[name]

    def _dynamic_base(self, name: str) -> str:
        """A base of a class of that name written through `self` (`class Default(
        self.Cache)`, a test mixin's), as written; "" when it has none. Only a class
        defined inside something can name `self` there (in a method)."""
        if name not in self._dynamic_bases:
            self._dynamic_bases[name] = next((
                base for path in sorted({s.path for s in self._named(name)
                                         if s.kind in _CLASS_KINDS
                                         and len(qualifier_parts(s.qualname)) > 1})
                for base in sorted(self._written_bases(path).get(name, ()))
                if _head(base) in _SELF_NAMES), "")
        return self._dynamic_bases[name]

    def _type_alias(self, name: str) -> bool:
        """Whether the repository's only types of that name are aliases (TypeScript's
        `type TeardownLogic = Subscription | ...`), which may name any type."""
        kinds = {s.kind for s in self.index.definitions_named(name)} & _CLASS_KINDS
        return kinds == {SymbolKind.TYPE}

    def _declares(self, owner: str) -> bool:
        """Whether `owner`, which defines a member of the name too, is a base of the
        target's class or an interface (then a call on it may dispatch to the target)."""
        if owner not in self._declaring:
            member = self.other_members[owner]
            self._declaring[owner] = owner in self.bases or any(
                s.kind in _INTERFACE_KINDS and _last(s.qualname) == owner
                for s in self.index.definitions_in(member.path))
        return self._declaring[owner]

    def learn_reexports(self, records: Sequence[FileUses]) -> None:
        """Modules that import the target's name, or every name (a wildcard), from a
        module providing it provide it too (`__init__.py`: `from .api import get`; a
        TypeScript barrel: `export * from "./api"`); under that name only (`from ._common
        import weekday as weekdaybase` provides no `weekday`), and not when they define
        the name again themselves (`redefining`). Go's `import .` re-exports nothing."""
        if self.member or self.target.language == "go":
            return
        for _ in range(_REEXPORT_ROUNDS):
            grown = False
            for record in records:
                if record.path in self.providers:
                    continue
                for item in record.imports:
                    if (item.name == WILDCARD or item.name == item.imported == self.name) and (
                            self._provides(record, item.source)):
                        if record.path in self.other_top:
                            self.redefining.add(record.path)
                        else:
                            self.providers.add(record.path)
                            grown = True
                        break
            if not grown:
                return

    def _includes_reach(self, record: FileUses) -> bool:
        """C and C++: whether a file's `#include`s lead to a file providing the target
        through headers that include it in turn (`table.c` → `table.h` →
        `cmark-gfm-core-extensions.h` → ... → `cmark-gfm.h`)."""
        return any(self._header_reaches(path) for path in self._included(record))

    def _included(self, record: FileUses) -> set[str]:
        """The files a file's `#include`s name, mapped once an answer."""
        found = self._includes_of.get(record.path)
        if found is None:
            found = self._includes_of[record.path] = {
                path for item in record.imports if not item.name
                for path in self._module_files(record, item.source)}
        return found

    def _header_reaches(self, path: str) -> bool:
        """Whether an included file provides the target or includes one that leads to it;
        each file's includes read once an answer. A file being looked at counts as
        leading nowhere while it is (include guards make cycles)."""
        known = self._reaching.get(path)
        if known is not None:
            return known
        if path in self.providers:
            return True
        self._reaching[path] = False
        record = self.index.uses_of_file(path)
        reaches = record is not None and any(
            self._header_reaches(included) for included in self._included(record))
        self._reaching[path] = reaches
        return reaches

    def _module_files(self, record: FileUses, source: str) -> set[str]:
        # Mapping a source scans the file list: once per source and importing directory
        # (a hot name's thousands of uses share a few imports).
        key = (record.language, source, "" if record.language == "go" else
               posixpath.dirname(record.path))  # Go's import paths are not relative
        found = self._mapped.get(key)
        if found is None:
            mapping = _MODULE_FILES.get(record.language)
            found = self._mapped[key] = (mapping(source, record.path, self.files)
                                         if mapping else set())
        return found

    def _provides(self, record: FileUses, source: str) -> bool:
        return bool(self._module_files(record, source) & self.providers)

    # -- one use ---------------------------------------------------------------------------

    def classify(self, record: FileUses, use: Use) -> _Verdict:
        if use.kind is UseKind.IMPORT:  # its receiver is the module it is imported from
            if self.local_to:  # an import takes a module's name, never a function's local
                return _Verdict(Tier.ELSEWHERE, "a local of another function",
                                f"names outside {'.'.join(self.local_to)}")
            return self._imported(record, use)
        twin = self.build_twins.get(record.path)
        if twin is not None and not (use.receiver and self._binding(record, _head(
                use.receiver))):  # not through another package's name
            return _Verdict(Tier.ELSEWHERE, f"this file's own {twin.qualname}, another "
                            "build's (its build constraints)", _where(twin))
        if record.language in _SCRIPT_LANGUAGES and not self.member:
            other = _OTHER_NAMESPACE.get((self.target.kind, use.kind))
            if other:  # TypeScript's `type DIRTY` and `const DIRTY`: one name, two things
                return _Verdict(Tier.ELSEWHERE, f"a use of the {other} named {self.name}",
                                f"the {other} named {self.name}")
        if record.language == "go" and _go_unsettled(use.receiver_type):
            # A Go name the file binds (`logger := log.Logger(f)`) is a value, even named
            # as the target's type is: only a name it does not bind (`=logger`) may be
            # the type itself (`logger.Log(l, kv)`, a method expression).
            value = self.member and use.receiver == self.container and (
                use.receiver_type != f"={use.receiver}")
            use = msgspec.structs.replace(
                use, receiver_type=self._go_result_type(record, use.receiver_type))
            if value and not use.receiver_type:
                return _Verdict(Tier.POSSIBLE, "receiver's type unknown")
        names_from = record  # the file in whose names the receiver's type is written
        if record.language == "python" and use.receiver_type:
            typed, names_from = self._python_type(record, use.receiver_type)
            if not typed:  # a value (no module) whose type says nothing here
                return (_Verdict(Tier.POSSIBLE, "receiver's type unknown") if self.member else
                        _Verdict(Tier.ELSEWHERE, "a member of an object, not a module's name",
                                 "members of objects"))
            use = msgspec.structs.replace(use, receiver_type=typed)
        if self.local_to:
            verdict = self._local(record, use)
            if verdict is not None:
                return verdict
        else:
            shadowed = self._shadowing(record, use)
            if shadowed is not None:
                return shadowed
        if self.member:
            return self._member(record, use, names_from or record)
        return self._top(record, use)

    def _shadowing(self, record: FileUses, use: Use, deeper_than: int = 0) -> _Verdict | None:
        """The verdict on a bare use of the target's name when another definition of it,
        made inside a function around the use (before it, unless `_HOISTED`), is in
        force there (Go's `type Section struct` in a test function, beside the package's
        `Section`; a `def helper` in a function nested in the one defining the target):
        the innermost, then the last made. None when there is none (a language that
        binds such a name as a local already drops its uses of a module's definition:
        Python's nested `def`). `deeper_than`: only those in functions nested deeper than that many
        scopes (a local target's own function holds its twins, which `_local` weighs).
        Scopes are functions: a type declared in a closure is taken to reach the end of
        the function around it."""
        if use.receiver:
            return None
        if self._nested is None:  # the others made inside functions, by file: once
            self._nested = defaultdict(list)
            for other in self.others:
                scope = tuple(qualifier_parts(other.qualname)[:-1])
                if scope:
                    self._nested[other.path].append((scope, other))
        shadows = self._shadows.get(record.path)
        if shadows is None:
            functions = {tuple(qualifier_parts(s.qualname)) for s in
                         self.index.definitions_in(record.path) if s.kind in _FUNCTION_KINDS
                         } if self._nested.get(record.path) else set()
            # The innermost first, then the last made (the first made before a use is the
            # one in force there), whatever order the index lists them in.
            shadows = self._shadows[record.path] = sorted(
                ((scope, other) for scope, other in self._nested.get(record.path, ())
                 if scope in functions), key=lambda shadow: (-len(shadow[0]), -shadow[1].line))
        if not shadows:  # most files: no use there needs its scope read
            return None
        around = tuple(qualifier_parts(use.enclosing))
        hoisted = record.language in _HOISTED
        inner = next((other for scope, other in shadows if len(scope) > deeper_than
                      and around[:len(scope)] == scope
                      and (hoisted or other.line <= use.line)), None)
        if inner is None:
            return None
        return _Verdict(Tier.ELSEWHERE, "another local definition of the name in force there",
                        _where(inner))

    def _binding(self, record: FileUses, name: str, use: Use | None = None) -> Import | None:
        """The import that binds `name` in `record` (its first). With `use`, in Python,
        where an import binds the name when it runs: of several, the last made before
        the use, at module level or in a function around it (a test importing
        `weekday` from another module than the test before it did)."""
        found = [item for item in record.imports if item.name == name]
        if len(found) > 1 and use is not None and record.language == "python":
            around = tuple(qualifier_parts(use.enclosing))
            in_force = [item for item in found if item.line <= use.line and around[
                :len(scope := self._function_at(record.path, item.line))] == scope]
            if in_force:
                return in_force[-1]
        return found[0] if found else None

    def _function_at(self, path: str, line: int) -> tuple[str, ...]:
        """The qualified name's parts of the innermost function of a file around a line;
        () at module level (or in a class's body)."""
        spans = self._function_spans.get(path)
        if spans is None:
            spans = self._function_spans[path] = sorted(
                (s.start_line or s.line, s.end_line, tuple(qualifier_parts(s.qualname)))
                for s in self.index.definitions_in(path) if s.kind in _FUNCTION_KINDS)
        return max(((start, parts) for start, end, parts in spans if start <= line <= end),
                   default=(0, ()))[1]

    def _receiver_binding(self, record: FileUses, receiver: str) -> tuple[Import | None, str]:
        """The import that binds a receiver's first names (`import os.path` binds
        `os.path`), and the module the receiver then names (Python dotted, or the Go
        import path)."""
        best = None
        for item in record.imports:
            if item.name and item.name != "*" and (
                    receiver == item.name or receiver.startswith(item.name + ".")) and (
                    best is None or len(item.name) > len(best.name)):
                best = item
        if best is None and record.language == "python":
            # `import click.types` binds `click` too: the receiver names that package
            head = receiver.partition(".")[0]
            best = next((item for item in record.imports if not item.imported
                         and item.name.startswith(f"{head}.")), None)
            return (best, receiver) if best else (None, "")
        if best is None:
            return None, ""
        if record.language != "python":
            return best, best.source
        module = _join(best.source, best.imported)
        return best, _join(module, receiver[len(best.name):].lstrip("."))

    def _python_rebound(self, record: FileUses, module: str) -> set[str]:
        """The files of a dotted path no module has, through a module of its first names
        that imports the next one (`arrow.arrow.locales`, where `arrow/arrow.py` has `from
        arrow import locales`: `arrow/locales.py`), read where that import is written;
        empty when no module on the path binds the next name by an import."""
        dots = module[:len(module) - len(module.lstrip("."))]  # a relative path's
        parts = module[len(dots):].split(".")
        for cut in range(len(parts) - 1, 0, -1):
            files = self._module_files(record, dots + ".".join(parts[:cut]))
            if len(files) != 1:
                continue
            holder = self._names_of(next(iter(files)))
            item = next((i for i in holder.imports if i.name == parts[cut]), None)
            if item is None:
                return set()
            bound = _join(_join(item.source, item.imported), ".".join(parts[cut + 1:]))
            return self._module_files(holder, bound)
        return set()

    def _around_target(self, receiver: str) -> bool:
        """Whether `receiver` names the namespaces the target is in, the innermost last
        (`JSONRPC2` for `JSONRPC2.RequestId`, written in the namespace's own file)."""
        around = qualifier_parts(self.target.qualname)[:-1]
        written = receiver.split(".")
        return bool(around) and around[-len(written):] == written

    def _elsewhere_in(self, paths: set[str], fallback: str) -> _Verdict:
        """The verdict on a name taken from modules (`paths`, as `fallback` names them)
        that do not provide the target: possible when one of them imports it and defines
        the name again, elsewhere otherwise."""
        if paths & self.redefining:
            return _Verdict(Tier.POSSIBLE, f"imported from {fallback}, which imports "
                            f"{self.name} and defines it again")
        for path in sorted(paths):
            for other in self.other_top.get(path, ()):
                return _Verdict(Tier.ELSEWHERE, "imported from another module", _where(other))
        return _Verdict(Tier.ELSEWHERE, "from another module", fallback)

    def _top(self, record: FileUses, use: Use) -> _Verdict:
        language = record.language
        follows = language in _MODULE_FILES
        if use.receiver:
            item, module = self._receiver_binding(record, use.receiver)
            if item is None and language in _SCRIPT_LANGUAGES and (
                    record.path == self.target.path) and self._around_target(use.receiver):
                return _Verdict(Tier.RESOLVED, f"through its namespace {use.receiver}")
            if item is None or not follows:
                if use.receiver_type:
                    member = self.other_members.get(_last(use.receiver_type))
                    return _Verdict(Tier.ELSEWHERE, f"a member of {use.receiver_type}",
                                    _where(member) if member else
                                    f"a member of {use.receiver_type}")
                if not follows:
                    return _Verdict(Tier.POSSIBLE, f"{language} imports are not followed yet")
                return _Verdict(Tier.ELSEWHERE, "a member of an object, not a module's name",
                                "members of objects")
            if language in _SCRIPT_LANGUAGES and item.imported and item.imported not in (
                    qualifier_parts(self.target.qualname)[:-1]):  # `import { computed }`,
                # not a TypeScript namespace around the target (`import { util }`)
                return _Verdict(Tier.ELSEWHERE, f"a member of {item.name}, a value imported "
                                f"from {item.source}, not a module", "members of objects")
            paths = self._module_files(record, module)
            if not paths and language == "python":
                paths = self._python_rebound(record, module)
            if paths & self.providers:
                return _Verdict(Tier.RESOLVED, f"through module {use.receiver}")
            if paths:
                return self._elsewhere_in(paths, module)
            if language == "go" and go_package(module) == self._package():
                return _Verdict(Tier.RESOLVED, f"package {self._package()}, matched by name")
            return _Verdict(Tier.ELSEWHERE, "a module not in the index", module)
        item = self._binding(record, use.name, use)
        if language == "go" and item is not None:  # `level` of `level.Info()`: a package
            return _Verdict(Tier.ELSEWHERE, f"the package {use.name} (imported)", item.source)
        # An alias (`import X as Y`) is what its import says, even in the target's own
        # module (`from .compat import JSONDecodeError as CompatJSONDecodeError`); so is
        # a script's import of the target's own name, which a declaration in another
        # scope does not take over (`declare global { interface Node }` beside
        # `import {Node} from "prosemirror-model"`).
        imported_here = item is not None and language in _SCRIPT_LANGUAGES
        if _same_unit(language, record.path, self.target.path) and language == (
                self.target.language) and (use.name == self.name or item is None) and (
                not imported_here):
            return _Verdict(Tier.RESOLVED, "in its own module" if language != "go"
                            else "in its own package")
        if item is not None and follows:
            source = item.source
            if item.imported and item.imported != self.name and use.name == self.name:
                # `from dateutil.parser import _parser as parser`: another name, bound as
                # the target's
                return _Verdict(Tier.ELSEWHERE, f"{item.imported} imported as {use.name}",
                                _join(source, item.imported))
            paths = self._module_files(record, source)
            if paths & self.providers:
                return _Verdict(Tier.RESOLVED, f"imported from {source}")
            # `from dateutil import parser`, where the package does not provide the name:
            # Python imports its submodule `dateutil/parser/`, a module, not its class.
            module = _join(source, item.imported) if item.imported else ""
            if module and language == "python" and self._module_files(record, module):
                return _Verdict(Tier.ELSEWHERE, f"the module {module}, imported", module)
            if paths:
                return self._elsewhere_in(paths, source)
            return _Verdict(Tier.ELSEWHERE, "imported from a module not in the index", source)
        if language == "go":
            for item in record.imports:  # `import . "path"`: its package's names, bare
                if item.name != WILDCARD:
                    continue
                files = self._go_import_files(record, item.source)
                if self.target.path in files or not files and (
                        go_package(item.source) == self._package()):  # matched by name
                    return _Verdict(Tier.RESOLVED, f"through `import . \"{item.source}\"`")
            return _Verdict(Tier.ELSEWHERE, "a name of another package",
                            f"package of {posixpath.dirname(record.path) or '.'}")
        own = self.other_top.get(record.path)
        if own:  # the file defines the name itself: its uses are of that definition
            return _Verdict(Tier.ELSEWHERE, "defined in this file too", _where(own[0]))
        stars = [i for i in record.imports if i.name == "*" or (
            language in _INCLUDES and not i.name)]
        if any(self._provides(record, i.source) for i in stars):
            return _Verdict(Tier.RESOLVED, "through #include of its header"
                            if language in _INCLUDES
                            else "through `import *` of its module")
        if language in _INCLUDES and self._includes_reach(record):
            return _Verdict(Tier.RESOLVED, "through #include of a header that includes its "
                            "header")
        if language in _INCLUDES and record.path in self.providers:
            return _Verdict(Tier.RESOLVED, "in the header that declares it")
        if not self.others:
            return _Verdict(Tier.RESOLVED, f"the only definition of {self.name} indexed")
        if stars:
            return _Verdict(Tier.POSSIBLE, "an #include may bring it"
                            if language in _INCLUDES
                            else "a `*` import may bring it")
        if not follows:
            return _Verdict(Tier.POSSIBLE, f"{language} imports are not followed yet")
        return _Verdict(Tier.POSSIBLE, "no import in the file says which definition")

    def _imported(self, record: FileUses, use: Use) -> _Verdict:
        """The name inside an import statement: of the target when its module provides
        it (the module itself, when the name is a submodule)."""
        source = use.receiver or next((item.source for item in record.imports
                                       if use.name in (item.imported, item.name)), "")
        if self.member:  # a member is not imported by its own name
            return self._elsewhere_in(self._module_files(record, source), source)
        if record.language not in _MODULE_FILES:
            if not self.others:
                return _Verdict(Tier.RESOLVED, f"the only definition of {self.name} indexed")
            return _Verdict(Tier.POSSIBLE, f"{record.language} imports are not followed yet")
        paths = self._module_files(record, source)
        if paths & self.providers:
            return _Verdict(Tier.RESOLVED, f"imported from {source}")
        if paths:
            return self._elsewhere_in(paths, source)
        return _Verdict(Tier.ELSEWHERE, "imported from a module not in the index", source)

    def _another_class(self, record: FileUses, name: str) -> Symbol | None:
        """The class that `name`, a class name of the target's family, is in `record` when
        that is not the family's: one the file defines itself, or one defined in the
        module its import of the name comes from (`from shop.legacy import Cart` where
        `shop/legacy.py` defines a `Cart` of its own); written through a Python module
        (`base.TreeBuilder`, even in the target's own file), the class that module's
        names lead to. A module that only re-exports the name is no evidence either
        way."""
        target = self.target
        last = _last(name)
        classes = [s for s in self._named(last) if s.kind in _CLASS_KINDS
                   and not _same_unit(s.language, s.path, target.path)
                   and (s.path, s.qualname) not in self.subclasses_at.get(last, ())]
        if "." in name:  # `base.TreeBuilder`: the class of the module it names
            homes = self._class_home(record, name) if record.language == "python" else None
            return next((s for s in classes if homes and s.path in homes), None)
        if _same_unit(record.language, record.path, target.path):
            return None
        own = [s for s in classes if s.path == record.path]
        if own:
            return own[0]
        item = self._binding(record, name)
        if item is None or record.language not in _MODULE_FILES:
            return None
        paths = self._module_files(record, item.source)
        if item.imported and record.language == "python":
            paths |= self._module_files(record, _join(item.source, item.imported))
        return next((s for s in classes if s.path in paths), None)

    def _named(self, name: str) -> list[Symbol]:
        """`definitions_named`, once per name (the same functions and types are asked of
        for many files)."""
        if name not in self._definitions:
            self._definitions[name] = self.index.definitions_named(name)
        return self._definitions[name]

    def _constructed_value(self, record: FileUses, module: str, dotted: str
                           ) -> tuple[str, FileUses] | None:
        """The class a value of a module is made of, when the module assigns it a call of
        a class once (`generator_192 = ellipticcurve.PointJacobi(...)` in `ecdsa.py`, for
        `generator_192` imported from it), or of a function that returns one (`made =
        make()`, `_python_result`), written in the names of the file that names it; None
        when `dotted` is no such value (`module` "": no module of the index)."""
        name = dotted[len(module) + 1:] if module else ""
        if not name or "." in name:
            return None
        paths = self._module_files(record, module)
        made = {(found["class"], s.path) for s in self._named(name)
                if s.path in paths and s.kind in _VALUE_KINDS
                and (found := _ASSIGNED_CALL.match(s.signature))}
        if len(made) != 1:
            return None
        written, path = made.pop()
        names = self._names_of(path)
        if _last(written)[:1].isupper() or self._class_home(names, written):
            return written, names
        returned, names_of_result = self._python_result(names, written)  # a function's
        typed = annotated_class(returned)
        return (typed, names_of_result) if typed and names_of_result is not None else None

    def _python_module(self, record: FileUses, receiver: str) -> bool:
        """Whether a Python receiver is a module of the index its file imports (`from
        dateutil import parser`, the package's submodule, beside its class `parser`)."""
        if record.language != "python":
            return False
        item, module = self._receiver_binding(record, receiver)
        return item is not None and bool(self._module_files(record, module))

    def _python_value_of_module(self, record: FileUses, dotted: str) -> str:
        """The longest leading part of a dotted receiver that is a module in the index,
        when what follows it there is a value, not a class the module defines or imports
        (`dateutil.tz` of `dateutil.tz.gettz`, where `gettz = __get_gettz()`); "" when
        no part is a module, or the next names a class of it (`shop.cart.Cart`)."""
        parts = dotted.split(".")
        for keep in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:keep])
            if module.strip(".") and self._module_files(record, module):
                # a class there, or one it imports (`shop.Cart`, re-exported), is no value
                return "" if self._class_home(record, ".".join(parts[:keep + 1])) else module
        return ""

    # -- Python: the results of calls, from the indexed signatures --------------------------

    def _python_type(self, record: FileUses, written: str) -> tuple[str, FileUses | None]:
        """The class a receiver's type as extraction wrote it names (`_PYTHON_STEP`), and
        the file whose names that class is written in; ("", None) when a step says
        nothing (a method not annotated, an attribute that is no property)."""
        key = (record.path, written)
        if key in self._python_types:
            return self._python_types[key]
        self._python_types[key] = ("", None)  # a chain that names itself says nothing
        if REBOUND in written:  # a name bound again: its bindings' types must agree
            each = [self._python_type(record, part) for part in written.split(REBOUND)]
            if each[0][0] and self._one_class(each):
                self._python_types[key] = each[0]
            return self._python_types[key]
        cut = min((at for at in (written.find(":"), written.find("[")) if at >= 0),
                  default=len(written))
        base, steps = written[:cut], written[cut:]
        if base.startswith(IMPORTED):
            annotation, names = self._python_imported_value(record, base[len(IMPORTED):])
        elif base.endswith("()"):
            annotation, names = self._python_result(record, base[:-2])
        else:
            annotation, names = base, record
        at = 0
        for step in _PYTHON_STEP.finditer(steps):
            if step.start() != at or not annotation or names is None:
                return ("", None)
            at = step.end()
            if step["member"] is None:  # an item: written in the same file's names
                items = step["items"]
                if items.isdigit():
                    annotation = tuple_item(annotation, int(items))
                    continue
                item = item_type(annotation, iterated=items == "i")
                if not item and items == "i":  # a class iterated (`for a in Retrying()`)
                    annotation, names = self._python_iterated(names, annotation)
                else:
                    annotation = item
                continue
            if step["called"] and step["member"] in _ENTER_METHODS and entered_type(
                    annotation):  # a `@contextmanager` function's `Iterator[Conn]`
                annotation = entered_type(annotation)
                continue
            owner = annotated_class(annotation)
            if not owner:
                return ("", None)
            if step["called"] and step["member"] in _ENTER_METHODS:
                annotation, names = self._python_entered(names, owner)
            else:
                annotation, names = self._python_member(names, owner, step["member"])
        found = annotated_class(annotation) if at == len(steps) else ""
        self._python_types[key] = (found, names) if found and names is not None else ("", None)
        return self._python_types[key]

    def _python_imported_value(self, record: FileUses, name: str
                               ) -> tuple[str, FileUses | None]:
        """The class of a value `record` imports under `name` from a module of the index
        (`gen = generator_192` after `from .ecdsa import generator_192`), when that module
        assigns it a class's call (`_constructed_value`); ("", None) otherwise."""
        item, module = self._receiver_binding(record, name)
        if item is None or self._module_files(record, module):
            return "", None
        constructed = self._constructed_value(
            record, self._python_value_of_module(record, module), module)
        return constructed if constructed is not None else ("", None)

    def _python_member(self, record: FileUses, owner: str,
                       member: str) -> tuple[str, FileUses | None]:
        """What `member` of a value of class `owner` (as `record` names it) gives: the
        return annotation of the method or property of that name that the class defines,
        else its nearest base (three levels up), `owner` itself for `-> Self` or the
        class's own name; else the instance attribute of that name, as the class's file
        shows it (`_python_attribute`). ("", None) when none is found or those found
        disagree."""
        methods = [s for s in self._named(member) if s.kind is SymbolKind.METHOD
                   and (s.returns or return_annotation(s.signature))]
        name = _last(owner)
        homes = self._class_home(record, owner)
        for level, classes in enumerate(self._lineage(name)):
            found = {self._returned_by(s, owner, record, _container(s)) for s in methods
                     if _container(s) in classes
                     and (level or homes is None or s.path in homes)}
            if not found:
                attribute = self._python_attribute(classes, member,
                                                   homes if not level else None)
                if attribute is None:
                    continue
                return attribute
            return self._agreed(found, record)
        return "", None

    def _agreed(self, found: set[tuple[str, str]], record: FileUses
                ) -> tuple[str, FileUses | None]:
        """The one annotation the methods found agree on, and the file whose names it is
        written in; ("", None) when they disagree or it is empty."""
        if len(found) != 1:
            return "", None
        returned, path = found.pop()
        if not returned:
            return "", None
        return returned, record if path == record.path else self._names_of(path)

    def _python_iterated(self, record: FileUses, annotation: str
                         ) -> tuple[str, FileUses | None]:
        """What a `for` over a value of a class gives: the items its `__iter__` is
        annotated to give (`Iterator[C]`, `Generator[C, None, None]`), else what its
        `__anext__` returns (`async for`, whose `__aiter__` most often returns self)."""
        owner = annotated_class(annotation)
        if not owner:
            return "", None
        iterated, names = self._python_member(record, owner, "__iter__")
        if item_type(iterated, iterated=True):
            return item_type(iterated, iterated=True), names
        return self._python_member(record, owner, "__anext__")

    def _python_attribute(self, classes: set[str], member: str, homes: frozenset[str] | None
                          ) -> tuple[str, FileUses | None] | None:
        """The class of an instance attribute of `classes`, from what the files defining
        them show of `self.<member>` as a receiver (its type, as extraction read it
        there); None when they show none, ("", None) when those they show disagree."""
        found = set()
        for cls in sorted(classes):
            for path in sorted({s.path for s in self._named(cls) if s.kind in _CLASS_KINDS}):
                if homes is None or path in homes:
                    found.update((typed, path) for typed in
                                 self._self_attribute(path, member).get(cls, ()))
        if not found:
            return None
        # Those that say nothing (`self.x` typed by a class left for this very lookup) do
        # not count.
        resolved = [found_type for found_type in (
            self._python_type(self._names_of(path), typed) for typed, path in sorted(found))
            if found_type[0]]
        if not resolved:
            return None
        return resolved[0] if self._one_class(resolved) else ("", None)

    def _one_class(self, found: list[tuple[str, FileUses | None]]) -> bool:
        """Whether the classes found (each as a file writes its name) are one: the same
        name leading to the same files (`queue.enqueue()`'s `'Job'`, written in
        `rq/queue.py`, and `Job.fetch()`'s, written in `rq/job.py`), else the same
        name written in the same file."""
        def which(typed: str, names: FileUses | None) -> tuple[object, ...]:
            homes = self._class_home(names, typed) if names is not None and typed else None
            return (_last(typed), homes) if homes else (typed, names.path if names else "")

        return len({which(typed, names) for typed, names in found}) == 1

    def _deeper_subclass(self, typed: str, language: str) -> _Verdict | None:
        """The verdict on a receiver of a class below the family `learn_hierarchy` found
        (three levels down): one whose bases, three levels up, reach a class of the
        family (pyasn1's `Choice` → `Set` → ... → `Asn1Type`). Resolved, or (Python, Go)
        elsewhere when a class between defines the member too; None when they do not
        reach it."""
        between: set[str] = set()
        for classes in self._lineage(typed):
            reached = classes & self.family
            if reached:
                overriding = between & set(self.other_members)
                if overriding and language in _SHADOWING_LANGUAGES:
                    override = self.other_members[min(overriding)]
                    return _Verdict(Tier.ELSEWHERE, f"receiver is a {typed}"
                                    f"{_overriding(typed, override, self.name)}", _where(override))
                return _Verdict(Tier.RESOLVED, f"receiver is a {typed}, a subclass of "
                                f"{min(reached)}")
            between |= classes
        return None

    def _lineage(self, name: str) -> Iterator[set[str]]:
        """A class and its bases by level, as the base lists of the files defining each
        class of the name write them (three levels up), each level read when asked."""
        levels = self._lineages.setdefault(name, [{name}])
        seen = set().union(*levels)
        for depth in range(4):
            if depth == len(levels):
                parents = {base for cls in levels[-1] for base in self._bases_of(cls)} - seen
                if not parents:
                    return
                levels.append(parents)
                seen |= parents
            yield levels[depth]

    def _bases_of(self, name: str) -> set[str]:
        """The bases the classes named `name` list (their last names)."""
        found: set[str] = set()
        for path in sorted({s.path for s in self._named(name) if s.kind in _CLASS_KINDS}):
            found |= self._base_lists(path).get(name, set())
        return found

    def _base_lists(self, path: str) -> dict[str, set[str]]:
        """Each class a file defines → the bases its base list names (last names)."""
        if path not in self._base_lists_of:
            self._base_lists_of[path] = {cls: {_last(name) for name in written}
                                         for cls, written in self._written_bases(path).items()}
        return self._base_lists_of[path]

    def _written_bases(self, path: str) -> dict[str, set[str]]:
        """Each class a file defines → the bases its base list names as written
        (`io.Reader`, `Base`); each file's uses decoded once."""
        if path not in self._written_bases_of:
            bases = self._written_bases_of[path] = defaultdict(set)
            record = self.index.uses_of_file(path)
            for name, enclosing, receiver in (
                    uses_of_kind(record, UseKind.INHERIT) if record else ()):
                bases[_last(enclosing)].add(f"{receiver}.{name}" if receiver else name)
        return self._written_bases_of[path]

    def _self_attribute(self, path: str, member: str) -> dict[str, set[str]]:
        """Class → the types `self.<member>` has as a receiver in the class's methods in
        one file (as extraction read them there)."""
        key = (path, member)
        if key not in self._self_attributes:
            found: dict[str, set[str]] = defaultdict(set)
            self._self_attributes[key] = found
            record = self.index.uses_of_file(path)
            for enclosing, typed in typed_receivers(record, f"self.{member}") if record else ():
                parts = qualifier_parts(enclosing)
                if len(parts) > 1:
                    found[parts[-2]].add(typed)
        return self._self_attributes[key]

    def _python_result(self, record: FileUses, called: str) -> tuple[str, FileUses | None]:
        """The class extraction left as a call returns, and the file whose names that
        class is written in: for `make_converter()` or `helpers.make_converter()`, the
        return annotation of the module-level function the file's own definitions or
        imports lead to, else the class itself when they lead to a class of that name
        (`rrule(DAILY)`: extraction takes only a capitalised name for a class), else
        what a classmethod returns (`Config.from_env()`, `_python_factory`).
        ("", None) when nothing says (a call that gives no class keeps its receiver's
        type unknown)."""
        key = (record.path, called)
        if key not in self._python_results:
            self._python_results[key] = ("", None)
            name = called.rpartition(".")[2]
            # Most functions say nothing of what they return: no import is followed for them.
            typed = [s for s in self._named(name) if s.kind is SymbolKind.FUNCTION
                     and s.qualname == name and (s.returns or return_type(s.signature))]
            homes = self._class_home(record, called, _FUNCTIONS) if typed else None
            functions = [s for s in typed if homes and s.path in homes]
            # the annotation whole: a tuple's or a list's items may be asked next
            returned, path = self._result_of(functions[0]) if len(functions) == 1 else ("", "")
            if returned:
                self._python_results[key] = (returned, self._names_of(path))
            elif homes := self._class_home(record, called):  # a class in lower case too
                self._python_results[key] = self._constructed(record, called, homes)
            elif "." in called:
                self._python_results[key] = self._python_factory(record, called)
        return self._python_results[key]

    def _result_of(self, function: Symbol) -> tuple[str, str]:
        """What a Python function returns, and the file whose names that is written in:
        its return annotation, else the class its `return` statements give
        (`Symbol.returns`, settled from its own file); ("", its file) when neither says."""
        annotation = return_annotation(function.signature)
        if annotation or not function.returns:
            return annotation, function.path
        found, names = self._python_type(self._names_of(function.path), function.returns)
        return (found, names.path) if names is not None else ("", function.path)

    def _returned_by(self, method: Symbol, owner: str, record: FileUses, cls: str
                     ) -> tuple[str, str]:
        """What `method`, called on a value of class `owner` as `record` writes it, returns,
        and the file whose names that is written in: `owner` itself, in the caller's names,
        for `-> Self`, the name of its class `cls`, or `return self` (or `cls(...)`); else
        its annotation or what its `return` statements give (`_result_of`)."""
        annotation = return_annotation(method.signature)
        if returns_self_type(method.signature) or _last(annotated_class(annotation)) == cls or (
                not annotation and _last(method.returns) == cls):
            return owner, record.path
        return self._result_of(method)

    def _constructed(self, record: FileUses, written: str, homes: frozenset[str]
                     ) -> tuple[str, FileUses | None]:
        """What calling the class `record` names `written` makes (`rrule(DAILY)`): an
        instance of it, or what its `__new__` is annotated to return when that names
        something else (anyio's `create_memory_object_stream[str](1)` makes a tuple of
        two streams)."""
        owner = _last(written)
        news = [s for s in self._named("__new__") if s.kind is SymbolKind.METHOD
                and _container(s) == owner and s.path in homes]
        returned = {(return_annotation(s.signature), s.path) for s in news}
        if len(returned) == 1:
            annotation, path = returned.pop()
            if annotation and _last(annotated_class(annotation)) != owner:
                return annotation, self._names_of(path)
        return written, record

    def _python_factory(self, record: FileUses, called: str) -> tuple[str, FileUses | None]:
        """What a class's method called on the class returns (`Config.from_env()`, a
        classmethod or a static method), as `_python_member` reads it on the class or its
        nearest base: the class itself for `-> Self`, `return cls(...)` or its own name;
        ("", None) when the qualifier is no class the file's names lead to, or nothing
        says."""
        written, _, name = called.rpartition(".")
        if not any(s.kind is SymbolKind.METHOD for s in self._named(name)) or not (
                self._class_home(record, written)):
            return "", None
        return self._python_member(record, written, name)

    def _names_of(self, path: str) -> FileUses:
        """A file's imports and uses, whose names an annotation in it is written in (a
        file that imports and uses nothing names only its own classes)."""
        return self.index.uses_of_file(path) or FileUses(
            path=path, language="python", imports=[], strings=[], names={})

    def _python_entered(self, record: FileUses, written: str) -> tuple[str, FileUses | None]:
        """What `with C(...) as x` binds: C itself when C's `__enter__` (or `__aenter__`)
        returns its receiver, says nothing of what it returns, or is not indexed (a base's
        or another module's, which most often `return self`); the class its annotation
        names otherwise; ("", None) when C's methods of that name disagree."""
        name = _last(written)
        homes = self._class_home(record, written)
        enters = [s for method in ("__enter__", "__aenter__") for s in self._named(method)
                  if s.kind is SymbolKind.METHOD and _container(s) == name
                  and (homes is None or s.path in homes)]
        itself = {s.path for s in enters if returns_self(s.signature)
                  or _last(return_type(s.signature)) == name}
        others = {(return_type(s.signature), s.path) for s in enters if s.path not in itself}
        if not others:
            return written, record
        if len(others) == 1 and not itself:
            returned, path = others.pop()
            if returned:
                return returned, self._names_of(path)
        return "", None

    # -- Go: the results of calls, from the indexed signatures ------------------------------

    def _go_result_type(self, record: FileUses, written: str) -> str:
        """The type extraction left as a call (`NewBridge()`, `prometheus.NewRegistry()`,
        `Command:Root()`, `NewBridge():Root()`): the function's or method's first result
        in its indexed signature; a conversion (`Labels(m)`) its type; else Go's naming of
        constructors (`NewServer()` → `Server`); "" when nothing says."""
        key = (record.path, written)
        if key not in self._go_results:
            self._go_results[key] = self._go_read_result(record, written)
        return self._go_results[key]

    def _go_read_result(self, record: FileUses, written: str) -> str:
        if written.startswith("=") and ":" not in written:
            return self._go_variable(record, written[1:])
        element = written.endswith("[]")  # the elements `range` gives of the result
        called = written.removesuffix("[]")[:-2]
        base, method_sep, method = called.rpartition(":")
        if method_sep:  # a method's result, on the type of what it is called on
            owner = self._go_result_type(record, base) if _go_unsettled(base) else base
            if not owner:
                return ""
            return _go_agreed_result(self._go_methods_of(_last(owner), method), element)
        package, dot, function = called.rpartition(".")
        named_package = ""
        if dot:
            item = self._binding(record, package)
            if item is None:  # a variable's method: not read here
                return "" if element else go_ctor(called)
            files = self._go_import_files(record, item.source)
            # A path the index's directories do not end with (`github.com/go-kit/log`
            # for the repository's root): the definitions of the package of that name.
            named_package = "" if files else go_package(item.source)
        else:
            files = set(_go_directories(self.files).get(posixpath.dirname(record.path), ()))
        named = [s for s in self._named(function) if s.path in files or (
            named_package and s.qualname.partition(".")[0] == named_package)]
        result = _go_agreed_result((s for s in named if s.kind is SymbolKind.FUNCTION), element)
        if result or element:
            return result
        if any(s.kind in _CLASS_KINDS for s in named):  # a conversion: `Labels(m)`
            return f"{package}{dot}{function}"
        return go_ctor(called)

    def _go_variable(self, record: FileUses, name: str) -> str:
        """The type of a variable of the record's package that another file declares
        (`var CommandLine = NewFlagSet(...)`): its declared type, or its value's, read from
        its indexed declaration (a call's result in the declaring file's own imports)."""
        files = set(_go_directories(self.files).get(posixpath.dirname(record.path), ()))
        declared = [s for s in self._named(name) if s.path in files
                    and s.kind in (SymbolKind.VARIABLE, SymbolKind.CONSTANT)]
        if len(declared) != 1:
            return ""
        written = variable_type(declared[0].signature)
        if not _go_unsettled(written):
            return written
        home = self.index.uses_of_file(declared[0].path)
        return self._go_result_type(home, written) if home is not None else ""

    def _go_import_files(self, record: FileUses, source: str) -> set[str]:
        """The files of the package a Go import path names: as `_go_package_files` maps
        it, else (a module path the index's directories do not end with, as
        `example.com/m/push` for `push/`) the one directory named as the path's last
        element, for a path outside the standard library (a dot in its first element)."""
        files = self._module_files(record, source)
        if files or "." not in source.split("/", 1)[0]:
            return files
        last = {source.rsplit("/", 1)[-1], go_package(source)}  # `go-toml/`, `toml/`
        named = [files for directory, files in _go_directories(self.files).items()
                 if posixpath.basename(directory) in last]
        return set(named[0]) if len(named) == 1 else set()

    def _go_embeds(self, typed: str) -> bool:
        """Whether a Go type of that name embeds another (an interface embedding one that
        declares the method, a struct whose embedded field has it): the method may be
        promoted from there."""
        if typed not in self._go_embedding:
            self._go_embedding[typed] = any(self._go_embedded(s) for s in self._named(typed)
                                            if s.kind in _CLASS_KINDS)
        return self._go_embedding[typed]

    # -- Go: what a method's type satisfies, by method sets ------------------------------

    def _go_reached_verdict(self, record: FileUses, use: Use) -> _Verdict | None:
        """`_go_reached` as a verdict, once per receiver type written and directory (for a
        qualified type, per import path: `goflag.Value` names the package imported as
        `goflag`)."""
        package = use.receiver_type.rpartition(".")[0]
        item = self._binding(record, package) if package else None
        key = (item.source if item else package or posixpath.dirname(record.path),
               use.receiver_type)
        if key not in self._go_reaching:
            self._go_reaching[key] = self._go_reached(record, use.receiver_type, item)
        return _Verdict(Tier.RESOLVED, self._go_reaching[key]) if self._go_reaching[key] else None

    def _go_reached(self, record: FileUses, written: str, item: Import | None) -> str:
        """Why a call of the target's name on a Go receiver of type `written` (not the
        target's type; `item` the import its qualifier names) calls the target, or ""
        when nothing shows it does. Go's types satisfy interfaces by their methods alone,
        and gopls counts a call through an interface as a use of every method
        implementing it, so symfind does when the target's type has every method the
        interface has (its own and its embedded interfaces'; none of them outside the
        index). Asked about an interface's method, gopls counts the calls on the types
        implementing it too, and so does symfind."""
        homes = self._go_homes(_last(written), posixpath.dirname(record.path),
                               written.rpartition(".")[0])
        if item is not None:  # only the imported package's types (none: not indexed,
            # as the standard library's `flag.Value` beside pflag's own `Value`)
            files = self._go_import_files(record, item.source)
            package = go_package(item.source)  # a root package's files are not mapped
            homes = [s for s in homes if s.path in files or not files and qualifier_parts(
                s.qualname)[0] == package]
        owner = self._go_target_type
        if not homes or owner is None:
            return ""
        typed = _last(written)
        if owner.kind in _INTERFACE_KINDS:  # a type implementing the target's interface
            needed = self._go_interface_methods(owner)
            if needed is not None and all(s.kind not in _INTERFACE_KINDS
                                          and self._go_implements(s, needed) for s in homes):
                return f"receiver is a {typed}, which implements {self.container}"
            return ""
        for interface in homes:
            needed = self._go_interface_methods(interface) if (
                interface.kind in _INTERFACE_KINDS) else None
            if needed is None or self.name not in needed or not self._go_implements(
                    owner, needed):
                return ""
        return f"through the interface {typed}, which {self.container} implements"

    def _go_implements(self, home: Symbol, needed: _GoMethods) -> bool:
        return all(self._go_has_method(home, method, shape) for method, shape in needed.items())

    @functools.cached_property
    def _go_target_type(self) -> Symbol | None:
        """The definition of the target method's type, in the target's package: the one in
        its file when the package defines the type more than once (files for different
        build constraints)."""
        homes = [s for s in self._go_homes(self.container, posixpath.dirname(self.target.path))
                 if posixpath.dirname(s.path) == posixpath.dirname(self.target.path)]
        if len(homes) > 1:
            homes = [s for s in homes if s.path == self.target.path]
        return homes[0] if len(homes) == 1 else None

    def _go_homes(self, name: str, directory: str, package: str = "") -> list[Symbol]:
        """The Go types a type name written in a file of `directory` can name: of the
        package it is qualified with (`prometheus.Collector`), else of the directory; any
        of the name when none is."""
        key = (name, "" if package else directory, package)
        if key not in self._go_types:
            named = self._go_homes_named(name)
            self._go_types[key] = [
                s for s in named if (qualifier_parts(s.qualname)[0] == package if package
                                     else posixpath.dirname(s.path) == directory)] or named
        return self._go_types[key]

    def _go_methods_of(self, owner: str, method: str, depth: int = 3) -> list[Symbol]:
        """The methods named `method` that a Go type named `owner` has: its own, else those
        the types it embeds promote (the nearest level, three down)."""
        own = [s for s in self._named(method)
               if s.kind is SymbolKind.METHOD and _container(s) == owner]
        if own or depth == 0:
            return own
        return [s for home in self._go_homes_named(owner) for _, homes in self._go_embedded(home)
                for embedded in homes
                for s in self._go_methods_of(_last(embedded.qualname), method, depth - 1)]

    def _go_homes_named(self, name: str) -> list[Symbol]:
        """Every Go type of the index named `name`, whatever its package."""
        return [s for s in self._named(name) if s.kind in _CLASS_KINDS and s.language == "go"]

    def _go_embedded(self, home: Symbol) -> list[tuple[str, list[Symbol]]]:
        """The types a Go type embeds: each as written (`io.Reader`), with the definitions
        its name can name (none: a type the index does not define). A predeclared one
        (`error`) is not seen: its name is stored as no use."""
        embedded = []
        for name in sorted(self._written_bases(home.path).get(_last(home.qualname), ())):
            package = name.rpartition(".")[0]
            homes = self._go_homes(_last(name), posixpath.dirname(home.path), package)
            # Another package's `Reader` is no `io.Reader`: a qualified name names its
            # package's type only.
            embedded.append((name, [s for s in homes if not package
                                    or qualifier_parts(s.qualname)[0] == package]))
        return embedded

    def _go_interface_methods(self, interface: Symbol, depth: int = 3) -> _GoMethods | None:
        """A Go interface's methods, its embedded interfaces' included, each name with its
        shape (`method_shape`); None when one of those is not in the index, or is no
        interface (a type set)."""
        key = (interface.path, interface.qualname)
        if key not in self._go_method_sets:
            prefix = interface.qualname + "."
            methods: _GoMethods | None = {
                s.name: method_shape(s.signature)
                for s in self.index.definitions_in(interface.path)
                if s.kind in _MEMBER_KINDS and s.qualname.startswith(prefix)
                and "." not in s.qualname[len(prefix):]}
            for written, homes in self._go_embedded(interface):
                embedded = ([self._go_interface_methods(s, depth - 1) for s in homes]
                            if homes and depth > 0 and all(
                                s.kind in _INTERFACE_KINDS for s in homes)
                            else [_standard_interface(written)])
                if methods is None or None in embedded:
                    methods = None
                    break
                for found in embedded:
                    methods.update(found)  # type: ignore[arg-type]
            self._go_method_sets[key] = methods
        return self._go_method_sets[key]

    def _go_declares(self, home: Symbol, method: str, shape: _GoShape) -> bool:
        """Whether a Go type declares a method of that name and shape itself (in its
        package); a shape a signature does not show matches any."""
        qualname = f"{home.qualname}.{method}"
        return any(s.kind in _MEMBER_KINDS and s.qualname == qualname
                   and posixpath.dirname(s.path) == posixpath.dirname(home.path)
                   and _same_shape(method_shape(s.signature), shape)
                   for s in self._named(method))

    def _go_has_method(self, home: Symbol, method: str, shape: _GoShape,
                       depth: int = 3) -> bool:
        """Whether a Go type has a method of that name and shape: its own, or promoted from
        a type it embeds (three levels down)."""
        key = (home.path, home.qualname, method, shape)
        if key not in self._go_methods:
            self._go_methods[key] = self._go_declares(home, method, shape) or (
                depth > 0 and any(self._go_has_method(s, method, shape, depth - 1)
                                  for _, homes in self._go_embedded(home) for s in homes))
        return self._go_methods[key]

    def _go_other_package(self, record: FileUses, written: str) -> _Verdict | None:
        """A Go receiver typed with the name of the target's type that names another
        package's type (`Logger` in package promhttp, when the target is graphite's
        `Logger.Println`), or None when the type is the target's or nothing says."""
        package, dot, name = written.rpartition(".")
        if dot:
            item = self._binding(record, package)
            if item is None:
                return None
            files = self._go_import_files(record, item.source)
        else:
            files = set(_go_directories(self.files).get(posixpath.dirname(record.path), ()))
        if posixpath.dirname(self.target.path) in {posixpath.dirname(f) for f in files}:
            return None
        if not any(s.kind in _CLASS_KINDS and s.path in files
                   for s in self._named(name)):
            return None  # not a type that package defines: matched by name, as elsewhere
        member = next((s for s in self.others if _container(s) == name and s.path in files),
                      None)
        return _Verdict(Tier.ELSEWHERE, f"receiver is another package's {name}",
                        _where(member) if member else f"members of {written}")

    def _package(self) -> str:
        parts = qualifier_parts(self.target.qualname)
        return parts[0] if self.target.language == "go" and len(parts) > 1 else ""

    def _in_class_body(self, record: FileUses, use: Use) -> bool:
        """Whether a bare use of the member's name is in its class's own body, where the
        class's names are in scope: a statement of the body, or a decorator of one of its
        methods (`@prefetch_src.setter`, before the line the method's name is on)."""
        if not _same_unit("python", record.path, self.target.path):
            return False
        around = qualifier_parts(use.enclosing)
        cls = qualifier_parts(self.target.qualname)[:-1]
        if not cls or around[:len(cls)] != cls or len(around) > len(cls) + 1:
            return False
        if len(around) == len(cls):
            return True
        return any(s.qualname == use.enclosing and use.line < s.line
                   for s in self.index.definitions_in(record.path))

    def _member(self, record: FileUses, use: Use, names_from: FileUses) -> _Verdict:
        """`names_from`: the file whose names the receiver's type is written in (`record`,
        or the file defining the function whose result it is)."""
        owner = self.container
        if use.receiver_type:
            typed = _last(use.receiver_type)
            if typed == owner and record.language == "go":
                # A bare type means the same in the package's files; a qualified one
                # follows the file's imports.
                key = (record.path if "." in use.receiver_type
                       else posixpath.dirname(record.path), use.receiver_type)
                if key not in self._go_packages:
                    self._go_packages[key] = self._go_other_package(record, use.receiver_type)
                if self._go_packages[key] is not None:  # unless an interface it implements
                    return self._go_reached_verdict(record, use) or self._go_packages[key]
            if typed == owner and record.language == "python":
                homes = self._class_home(names_from, use.receiver_type)
                if homes is not None and _module_path(self.target.path) not in {
                        _module_path(home) for home in homes}:
                    return _Verdict(Tier.ELSEWHERE, f"receiver is a {use.receiver_type} of "
                                    f"{_listed(homes) or 'a module not in the index'}, "
                                    f"another class of that name",
                                    f"members of {typed} ({_listed(homes) or 'not indexed'})")
            if typed in self.family:
                override = self._override_in(record, typed)
                if override is not None:
                    return _Verdict(Tier.ELSEWHERE, f"receiver is a {typed}"
                                    f"{_overriding(typed, override, self.name)}", _where(override))
                how = ("self" if use.receiver in _SELF_NAMES else
                       "super" if _head(use.receiver) == "super" else "receiver")
                return _Verdict(Tier.RESOLVED, f"{how} is a {typed}")
            if record.language == "go":
                reached = self._go_reached_verdict(record, use)
                if reached is not None:
                    return reached
            if typed in self.other_members and self._declares(typed):
                return _Verdict(Tier.POSSIBLE, f"receiver typed {typed}, which declares "
                                f"{self.name}: may dispatch here")
            if typed in self.bases:  # its member is not indexed (a property signature)
                return _Verdict(Tier.POSSIBLE, f"receiver typed {typed}, which {owner} "
                                "extends or implements: may dispatch here")
            if typed in self.other_members:
                return _Verdict(Tier.ELSEWHERE, f"receiver is a {typed}",
                                _where(self.other_members[typed]))
            if record.language in _SCRIPT_LANGUAGES and self._type_alias(typed):
                return _Verdict(Tier.POSSIBLE, f"receiver typed {typed}, a type alias: it "
                                f"may name {owner} or a union with it")
            if record.language == "go" and self._go_embeds(typed):
                return _Verdict(Tier.POSSIBLE, f"receiver typed {typed}, which embeds a type "
                                f"that may have {self.name}: may dispatch here")
            dynamic = self._dynamic_base(typed)
            if dynamic:
                return _Verdict(Tier.POSSIBLE, f"receiver is a {typed}, whose base {dynamic} "
                                "is chosen when the code runs: may dispatch here")
            deeper = self._deeper_subclass(typed, record.language)
            if deeper is not None:
                return deeper
            if self._indexed_type(typed):  # its subclasses are all known: not one of them
                return _Verdict(Tier.ELSEWHERE, f"receiver is a {typed}, not a {owner}",
                                f"members of {typed}")
            return _Verdict(Tier.POSSIBLE, f"receiver typed {typed}, which the index does "
                            "not define")
        if use.receiver:
            head = _head(use.receiver)
            if (use.receiver == owner or _last(use.receiver) in self.family and (
                    use.receiver.split(".")[-1][:1].isupper())) and not (
                    self._python_module(record, use.receiver)):
                other = self._another_class(record, use.receiver)
                if other is not None:
                    return _Verdict(Tier.ELSEWHERE, f"called on another class named {owner}",
                                    _where(other))
                override = self.overrides(_last(use.receiver))
                if override is not None:
                    return _Verdict(Tier.ELSEWHERE, f"called on the class {use.receiver}"
                                    f"{_overriding(_last(use.receiver), override, self.name)}",
                                    _where(override))
                return _Verdict(Tier.RESOLVED, f"called on the class {use.receiver}")
            item, module = self._receiver_binding(record, use.receiver)
            if item is not None and record.language in _MODULE_FILES:
                paths = self._module_files(record, module)
                if not (paths and record.language == "python"):  # no module: the class
                    if item.imported in self.family and use.receiver == item.name:
                        return _Verdict(Tier.RESOLVED, f"called on the class {item.imported}")
                    if _last(module) in self.family:
                        return _Verdict(Tier.RESOLVED, f"called on the class {_last(module)}")
                if not paths and record.language == "python":
                    valued = self._python_value_of_module(record, module)
                    constructed = self._constructed_value(record, valued, module)
                    if constructed is not None:  # `generator = PointJacobi(...)` there
                        typed, names = constructed
                        return self._member(record, msgspec.structs.replace(
                            use, receiver_type=typed), names)
                    if valued:  # `tz.gettz.set_cache_size()`: `gettz`, a value in `tz`
                        return _Verdict(Tier.POSSIBLE, f"receiver {use.receiver}, a value "
                                        f"of module {valued}: its type unknown")
                return self._elsewhere_in(paths, f"module {module}")
            if head in {"super()", "super"}:
                return self._through_super(use.enclosing)
            return _Verdict(Tier.POSSIBLE, "receiver's type unknown")
        if record.language in _IMPLICIT_THIS and _last(use.enclosing.rsplit(".", 1)[0]) in (
                self.family):
            return _Verdict(Tier.RESOLVED, "an implicit this in its class")
        if record.language == "python" and self._in_class_body(record, use):
            return _Verdict(Tier.RESOLVED, "in its class's body (`@name.setter`)")
        for others in self.other_top.values():
            return _Verdict(Tier.ELSEWHERE, "a bare name, not a member", _where(others[0]))
        return _Verdict(Tier.ELSEWHERE, "a bare name, not a member", "bare names")


def _go_unsettled(type_: str) -> bool:
    """Whether a Go receiver's type is left for the query: a call's result (`NewBridge()`,
    `Command:Root()`, `...[]` its elements), a variable of another file (`=CommandLine`)."""
    return type_.endswith((")", "]")) or type_.startswith("=")


def _go_agreed_result(functions: Iterable[Symbol], element: bool = False) -> str:
    """The type of the first result the functions' signatures give (of its elements),
    when they all give the same one ("" when none does, or they differ)."""
    results = {first_result(symbol.signature, element=element) for symbol in functions}
    return results.pop() if len(results) == 1 else ""


# ---- the answer -------------------------------------------------------------------------

_UNCHECKED = {
    "python": "calls through getattr(), a string or a dict of functions are not seen",
    "go": "a call through an interface counts for every type implementing it (methods "
          "matched by name and by their types as written); reflection is not seen",
    "c": "uses inside macro expansions are not seen (macros are not expanded)",
    "cpp": "uses inside macro expansions and template instantiations are not resolved",
    "javascript": "computed member names (`obj[name]()`) are not seen",
    "typescript": "computed member names (`obj[name]()`) are not seen",
}
_ALWAYS_UNCHECKED = (
    "dynamic dispatch: a call on an object whose type the file does not show is "
    "'possible', not resolved",
    "code generated at build time is seen only where its files are indexed",
)


def _distance(one: str, other: str) -> int:
    """How far apart two files are: 0 the same file, then by directories not shared."""
    if one == other:
        return 0
    a, b = one.split("/")[:-1], other.split("/")[:-1]
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return 1 + (len(a) - shared) + (len(b) - shared)


def _declaration_of(symbol: Symbol, target: Symbol) -> bool:
    """Whether `symbol` is the C or C++ target's declaration in a header (`int f(void);`,
    or a `static inline` stub for a configuration, for `int f(void) {...}`): the same
    definition, not another one. A type defined again in a header (a struct of a
    template header included under several macros) is another type."""
    return (target.language in _INCLUDES and symbol.qualname == target.qualname
            and symbol.kind not in _CLASS_KINDS
            and symbol.path != target.path and symbol.path.endswith(_HEADER_SUFFIXES))


def _module_qualified(wanted: str, qualname: str, path: str) -> bool:
    """Whether `wanted` is `qualname` with its module before it: each part before it is a
    directory or the file's stem (`requests.api.get` for `get` in `src/requests/api.py`)."""
    parts, own = qualifier_parts(wanted), qualifier_parts(qualname)
    if len(parts) <= len(own) or parts[-len(own):] != own:
        return False
    where = set(path.rsplit(".", 1)[0].split("/"))
    return all(part in where for part in parts[:-len(own)])


def _pick_target(
    query: ReferencesQuery, index: UseIndex,
    search: Callable[[SearchQuery], SearchResponse],
) -> tuple[Symbol | None, list[Symbol], str]:
    """The definition asked about, the other definitions the query matches, and why there
    is none when there is none.

    Raises:
        QueryError: `path` and `line` name no definition (the file changed since?).
    """
    name = _last(query.target) if query.target else ""
    if query.path:
        here = [s for s in index.definitions_in(query.path)
                if (not name or s.name == name)
                and (s.line == query.line or (s.start_line or s.line) <= query.line <= s.end_line)]
        if not here:
            where = f"{query.path}:{query.line}"
            if not index.definitions_in(query.path):  # a path search never printed
                raise QueryError(f"no definition at {where}: the index holds none in "
                                 f"{query.path} (outside the repository, not indexed, or "
                                 "defining nothing) — give path:line as search prints it")
            raise QueryError(f"no definition {name + ' ' if name else ''}at {where} in the "
                             "index (the file changed since?) — search for it again")
        # The definition named on the line, as search prints it (`typedef struct s {...} t;`
        # holds both: the struct named at its first line, `t` at its last); else one that
        # starts there; else the innermost definition holding the line: the one starting last.
        # Of several named on one line (`typedef enum { LITERAL, URL } cmark_escaping;`),
        # the type, the others listed as alternatives.
        exact = ([s for s in here if s.line == query.line]
                 or [s for s in here if s.start_line == query.line] or here)
        chosen = max(exact, key=lambda s: (s.start_line or s.line, s.line,
                                           s.kind in _CLASS_KINDS))
        return chosen, [s for s in exact if s is not chosen and s.line == chosen.line], ""
    response = search(SearchQuery(text=query.target, limit=20, explain=True))
    wanted = query.target.strip()
    named = [r for r in response.results if r.name == name] or [
        r for r in response.results if r.name.lower() == name.lower()]
    separators = (".", "::", "#", "/", "\\")
    # A qualified name must match: `Session.get` is not any `get`; `requests.Session.get`
    # (a module before it) is `Session.get`, and `get` is every `get`.
    chosen = [r for r in named if r.qualname == wanted
              or r.qualname.endswith(tuple(sep + wanted for sep in separators))
              or _module_qualified(wanted, r.qualname, r.path)
              ] if wanted != name else named
    if not chosen:
        nearest = ", ".join(response.suggestions[:3] or [r.qualname for r in response.results[:3]])
        why = f"no definition named {wanted!r} is indexed"
        return None, [], why + (f" (nearest: {nearest})" if nearest else "")
    picks = [index.definitions_in(r.path) for r in chosen[:1 + ALTERNATIVES]]
    symbols = []
    for result, defined in zip(chosen, picks, strict=False):
        symbols += [s for s in defined if s.line == result.line and s.name == result.name][:1]
    if not symbols:
        return None, [], f"no definition named {wanted!r} is indexed"
    return symbols[0], symbols[1:], ""


def find_references(
    query: ReferencesQuery,
    index: UseIndex,
    *,
    search: Callable[[SearchQuery], SearchResponse],
    freshness: Freshness,
) -> ReferencesAnswer:
    """Where the definition `query` names is used, in tiers (see the module docstring).

    Args:
        query: The definition, and how much of the answer.
        index: The commit's lookups, and its file table (imports are mapped to its files;
            its skipped files are reported).
        search: The definition search (to find the target by name).
        freshness: How current the commit is (said by every answer).

    Raises:
        QueryError: The query does not pass `ReferencesQuery.check`, or its path and line
            name no definition.
    """
    started = time.perf_counter()
    offset = query.check()
    # The rest of the budget is left for grouping what was classified into the answer.
    deadline = started + query.budget_ms / 1000 * CLASSIFYING_SHARE
    manifest = index.manifest
    target, alternatives, missing = _pick_target(query, index, search)
    skipped = dict(Counter(manifest.skipped.values()))
    fresh_note = describe(freshness) if is_partial(freshness) else ""
    common = {"query": query.target or f"{query.path}:{query.line}", "freshness": freshness,
              "skipped": skipped}
    skipped_note = (f"{sum(skipped.values()):,} files the index skipped: "
                    + ", ".join(f"{reason} {count:,}" for reason, count
                                in sorted(skipped.items())))
    if target is None:
        # The definition may be in a file the index skipped (too large, minified...).
        reason = missing + (f"; {fresh_note}" if fresh_note else "") + (
            f"; it may be defined in one of the {skipped_note}" if skipped else "")
        return no_target(query, freshness, reason, started=started, skipped=skipped,
                         unchecked=[skipped_note] if skipped else [])
    if query.cursor:
        _check_cursor(query.cursor, manifest.index_id, freshness.generation, target)
    addresses, classified, out_of_time, cut, tiers, languages, names = _classify(
        target, index, manifest, deadline)
    name = target.name
    resolved = sorted(
        tiers[Tier.RESOLVED],
        key=lambda item: (is_test_path(item[0].path), _distance(item[0].path, target.path),
                          item[0].path, item[1].line, item[1].column))
    if offset and offset >= len(resolved):
        raise QueryError(f"the cursor starts at use {offset + 1:,}, past the last of the "
                         f"{len(resolved):,} resolved uses — ask again without it")
    page = resolved[offset:offset + query.limit]
    groups = _groups(page, index)
    partial = []
    if out_of_time:
        partial.append(f"the time budget ({query.budget_ms} ms) ran out: {classified:,} of "
                       f"the {len(addresses):,} files that use {_alternatives(names)} were "
                       "read")
    if cut:
        named = ", ".join(cut[:_CUT_NAMED]) + (
            f" and {len(cut) - _CUT_NAMED:,} more" if len(cut) > _CUT_NAMED else "")
        partial.append(f"the time budget ran out while finding the subclasses of {named}: "
                       "uses on a subclass not found are 'possible'")
    if fresh_note:
        partial.append(fresh_note)
    unchecked = [*_ALWAYS_UNCHECKED, *(_UNCHECKED[lang] for lang in sorted(languages)
                                       if lang in _UNCHECKED)]
    unfollowed = sorted(lang for lang in languages if lang and lang not in _MODULE_FILES)
    if unfollowed:
        unchecked.append(f"imports are not followed for {', '.join(unfollowed)}: its uses "
                         "outside their own file are resolved only for a name defined once")
    unread = sum(1 for state in manifest.files.values() if not state.uses_read)
    if unread:
        unchecked.append(f"{unread:,} indexed files whose uses were not read before the "
                         "parse deadline (their definitions are indexed)")
    if skipped:
        unchecked.append(skipped_note)
    if target.kind in _CLASS_KINDS and target.language in ("c", "cpp") and (
            target.name in BUILTIN_TYPES):
        unchecked.append(f"uses of {target.name} are not recorded: the {target.language} "
                         "grammar reads the name as a built-in type")
    counts = {tier: len(tiers[tier]) for tier in (Tier.RESOLVED, Tier.POSSIBLE, Tier.ELSEWHERE)}
    more = offset + len(page) < len(resolved)
    return ReferencesAnswer(
        **common,
        target=_definition(target),
        alternatives=[_definition(s) for s in alternatives],
        **counts,
        resolved_files=len({record.path for record, _, _ in resolved}),
        groups=groups,
        possible_groups=_possible_groups(tiers[Tier.POSSIBLE]),
        elsewhere_groups=_elsewhere_groups(tiers[Tier.ELSEWHERE]),
        files_read=classified,
        files_using=len(addresses),
        took_ms=_ms(started),
        partial="; ".join(partial),
        unchecked=unchecked,
        next_cursor=page_cursor(manifest.index_id, freshness.generation, target,
                                offset + len(page)) if more else "",
        empty_reason="" if resolved else _empty_reason(name, counts, out_of_time, fresh_note),
    )


def page_cursor(index_id: str, generation: int, target: Symbol | Definition, offset: int
                ) -> str:
    """The cursor of the page of `target`'s resolved uses that starts at `offset`, in the
    index `index_id` at `generation`."""
    return f"{generation}:{offset}:{_cursor_tag(index_id, target)}"


def _cursor_tag(index_id: str, target: Symbol | Definition) -> str:
    key = f"{index_id}\0{target.path}\0{target.line}\0{target.name}".encode()
    return hashlib.blake2b(key, digest_size=4).hexdigest()


def _check_cursor(cursor: str, index_id: str, generation: int, target: Symbol) -> None:
    """Refuse a cursor (well formed: `ReferencesQuery.check`) that is not of this question
    on this index as it is now: its offset would skip uses of another list.

    Raises:
        CursorMismatch: Of another target, or of another repository's index.
        QueryError: Of another generation of this index (the uses may have moved).
    """
    parts = _cursor_parts(cursor)
    if parts["tag"] != _cursor_tag(index_id, target):
        raise CursorMismatch(
            f"the cursor {cursor!r} is of another question (another definition, or another "
            "repository's index) — pass `next_cursor` with the question that returned it")
    if int(parts["generation"]) != generation:
        raise QueryError(
            f"the cursor is of another state of the index (generation {parts['generation']}, now "
            f"{generation}): the index changed since, and its uses may have moved — ask again "
            "without it")


def _resolver_for(target: Symbol, index: UseIndex, files: frozenset[str]) -> _Resolver:
    """The resolver of `target`'s uses, told the other definitions of its name."""
    named = [s for s in index.definitions_named(target.name)
             if (s.path, s.line, s.qualname) != (target.path, target.line, target.qualname)]
    others = [s for s in named if not _declaration_of(s, target)]
    resolver = _Resolver(target, others, index, files)
    # A C or C++ definition's declarations in headers stand for it: including one of them
    # brings it.
    resolver.providers |= {s.path for s in named if _declaration_of(s, target)}
    return resolver


def _constructors(target: Symbol, resolver: _Resolver, index: UseIndex,
                  files: frozenset[str]) -> dict[str, list[_Resolver]]:
    """Where a Python class's `__init__` runs besides the calls of its name: where the
    class is constructed (`Cart(...)`, `shop.Cart(...)`), or a subclass found by
    `learn_hierarchy` that neither defines `__init__` nor inherits one from a class
    between. Each class's name, with a resolver per definition of it: a construction is
    resolved as a use of the class is. Empty for any other target."""
    if target.language != "python" or target.name != "__init__" or not resolver.member:
        return {}
    owner = resolver.container
    places = {**resolver.subclasses_at,
              owner: {(target.path, target.qualname.rpartition(".")[0])}}
    makers: dict[str, list[_Resolver]] = {}
    for name, defined_at in sorted(places.items()):
        if name != owner and resolver.overrides(name) is not None:
            continue  # its own __init__ (or a class between's) runs instead
        classes = [s for path, qualname in sorted(defined_at)
                   for s in index.definitions_in(path)
                   if s.qualname == qualname and s.kind in _CLASS_KINDS]
        if classes:
            makers[name] = [_resolver_for(cls, index, files) for cls in classes]
    return makers


def _construction(makers: list[_Resolver], owner: str, record: FileUses, use: Use
                  ) -> _Verdict:
    """A call of a class's name, as a use of `owner`'s `__init__`: in the tier a use of the
    class has (the best of its definitions', when the repository defines it twice)."""
    verdict = min((maker.classify(record, use) for maker in makers),
                  key=lambda found: _TIER_RANK[found.tier])
    made = makers[0].name
    what = f"constructs {made}" + ("" if made == owner else
                                   f", which inherits {owner}.__init__")
    return _Verdict(verdict.tier, f"{what}: {verdict.reason}", verdict.of)


def _aliases(record: FileUses, name: str) -> list[str]:
    """The other names `record`'s imports bind `name` under (`from m import get as fetch`)."""
    return sorted({item.name for item in record.imports
                   if item.imported == name and item.name not in ("", "*", name)})


def _classify(target: Symbol, index: UseIndex, manifest: Manifest, deadline: float) -> tuple[
        list[int], int, bool, list[str],
        dict[str, list[tuple[FileUses, Use, _Verdict]]], set[str], list[str]]:
    """Every use of `target`'s name in the files classified before `deadline`, in its tier
    (and, for a Python `__init__`, every construction of its class: `_constructors`):
    the files that use the names, how many were classified, whether time ran out, the
    classes whose subclasses were not all found in time, the tiers, the languages read,
    and the names whose uses were read."""
    name = target.name
    files = frozenset(manifest.files)
    resolver = _resolver_for(target, index, files)
    cache: dict[str, list[Use]] = {}
    cut: list[str] = []  # class names whose uses were not all read in time

    def uses_of(other: str) -> list[Use]:
        if other not in cache:
            found = cache[other] = []
            if time.perf_counter() > deadline:  # a wide hierarchy: thousands of names
                cut.append(other)
                return found
            for count, source in enumerate(index.files_using([other])):
                if count % _CLOCK_EVERY == 0 and count and time.perf_counter() > deadline:
                    cut.append(other)
                    break
                found += uses_named(index.read_uses(source), [other])
        return cache[other]

    resolver.learn_hierarchy(uses_of)
    makers = _constructors(target, resolver, index, files)
    addresses = index.files_using([name, *makers])
    records: list[FileUses] = []
    out_of_time = False
    # Reading takes at most half the time left: what is read must be classified too, and
    # a hot name's files (a kernel's `dev`: 14,006) would take it all.
    now = time.perf_counter()
    reading_ends = now + max(deadline - now, 0.0) * READING_SHARE
    for count, address in enumerate(addresses):
        if count % _CLOCK_EVERY == 0 and count and time.perf_counter() > reading_ends:
            out_of_time = True
            break
        records.append(index.read_uses(address))
    # Modules that re-export every name of another (`export * from`) use no name. Go's
    # `import .` re-exports nothing: it brings the names into its own file only.
    wildcards = [] if resolver.member and not makers or target.language == "go" else [
        index.read_uses(source) for source in index.files_using([WILDCARD])]
    for learner in (resolver, *(maker for each in makers.values() for maker in each)):
        learner.learn_reexports([*records, *wildcards])
    tiers: dict[str, list[tuple[FileUses, Use, _Verdict]]] = defaultdict(list)
    languages: set[str] = {target.language}
    classified = 0
    for record in records:
        if classified % _CLOCK_EVERY == 0 and classified and time.perf_counter() > deadline:
            out_of_time = True
            break
        languages.add(record.language)
        for use in uses_named(record, [name, *_aliases(record, name)]):
            verdict = resolver.classify(record, use)
            tiers[verdict.tier].append((record, use, verdict))
        for made, each in makers.items():
            for use in uses_named(record, [made, *_aliases(record, made)]):
                if use.kind in _CONSTRUCTING:
                    verdict = _construction(each, resolver.container, record, use)
                    tiers[verdict.tier].append((record, use, verdict))
        classified += 1
    return addresses, classified, out_of_time, cut, tiers, languages, [name, *makers]


def classified_uses(
    query: ReferencesQuery,
    index: UseIndex,
    *,
    search: Callable[[SearchQuery], SearchResponse],
) -> dict[str, list[tuple[str, int, int]]]:
    """Every use of the definition `query` names, by tier, as (path, line, column): the
    whole classification `find_references` counts, pages and groups (to measure it).

    Raises:
        QueryError: As `find_references`.
    """
    query.check()
    target, _, missing = _pick_target(query, index, search)
    if target is None:
        raise QueryError(missing)
    deadline = time.perf_counter() + query.budget_ms / 1000
    tiers = _classify(target, index, index.manifest, deadline)[4]
    return {tier: sorted((record.path, use.line, use.column) for record, use, _ in tiers[tier])
            for tier in (Tier.RESOLVED, Tier.POSSIBLE, Tier.ELSEWHERE)}


def _alternatives(names: list[str]) -> str:
    """`get`, `__init__ or Cart`, `__init__, Cart or BigCart`."""
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def no_target(query: ReferencesQuery, freshness: Freshness, reason: str, *, started: float,
              skipped: dict[str, int] | None = None,
              unchecked: Sequence[str] = ()) -> ReferencesAnswer:
    """The answer when no definition is found to look for uses of (`reason` says why;
    also an index that has no commit yet, while its daemon builds it); `unchecked`: what
    else was not checked (the files the index skipped)."""
    return ReferencesAnswer(
        query=query.target or f"{query.path}:{query.line}", freshness=freshness,
        skipped=skipped or {}, target=None, alternatives=[], resolved=0, possible=0,
        elsewhere=0, resolved_files=0, groups=[], possible_groups=[], elsewhere_groups=[],
        files_read=0, files_using=0, took_ms=_ms(started),
        partial=describe(freshness) if is_partial(freshness) else "", empty_reason=reason,
        unchecked=[*_ALWAYS_UNCHECKED, *unchecked])


def _empty_reason(name: str, counts: dict[str, int], out_of_time: bool, fresh: str) -> str:
    """Never a bare "0 references": what was found instead, and what may be missing."""
    possible, elsewhere = counts[Tier.POSSIBLE], counts[Tier.ELSEWHERE]
    if possible or elsewhere:
        reason = (f"no use is tied to this definition by evidence; {possible:,} possible "
                  f"(see possible_groups) and {elsewhere:,} of other definitions named {name}")
    else:
        reason = f"no indexed file uses the name {name}"
    if out_of_time:
        reason += "; not every file was read (see partial)"
    if fresh:
        reason += f"; {fresh}"
    return reason


def _groups(page: list[tuple[FileUses, Use, _Verdict]], index: UseIndex) -> list[SiteGroup]:
    """Resolved uses by file, then by enclosing definition (found among the file's
    definitions, for its read handle)."""
    groups: list[SiteGroup] = []
    by_key: dict[tuple[str, str], list[Site]] = {}
    order: list[tuple[str, str]] = []
    for record, use, verdict in page:
        key = (record.path, use.enclosing)
        if key not in by_key:
            by_key[key] = []
            order.append(key)
        by_key[key].append(Site(line=use.line, column=use.column, kind=str(use.kind),
                                receiver=use.receiver, reason=verdict.reason))
    definitions: dict[str, list[Symbol]] = {}
    for path, enclosing in order:
        if path not in definitions:
            definitions[path] = index.definitions_in(path)
        sites = by_key[(path, enclosing)]
        holder = None
        if enclosing:
            line = sites[0].line
            holders = [s for s in definitions[path] if s.qualname == enclosing
                       and (s.start_line or s.line) <= line <= s.end_line]
            holder = _definition(holders[0]) if holders else None
        groups.append(SiteGroup(path=path, test=is_test_path(path), enclosing=holder,
                                sites=sites))
    return groups


def _possible_groups(items: list[tuple[FileUses, Use, _Verdict]]) -> list[PossibleGroup]:
    buckets: dict[tuple[str, str], list[tuple[FileUses, Use]]] = defaultdict(list)
    for record, use, verdict in items:
        buckets[(use.receiver, verdict.reason)].append((record, use))
    ranked = sorted(buckets.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [
        PossibleGroup(receiver=receiver, reason=reason, count=len(found),
                      files=len({record.path for record, _ in found}),
                      samples=[f"{record.path}:{use.line}" for record, use in
                               sorted(found, key=lambda f: (is_test_path(f[0].path), f[0].path,
                                                            f[1].line))[:POSSIBLE_SAMPLES]])
        for (receiver, reason), found in ranked[:POSSIBLE_GROUPS]
    ]


def _elsewhere_groups(items: list[tuple[FileUses, Use, _Verdict]]) -> list[ElsewhereGroup]:
    counted = Counter((verdict.of, verdict.reason) for _, _, verdict in items)
    ranked = sorted(counted.items(), key=lambda kv: (-kv[1], kv[0]))
    return [ElsewhereGroup(of=of, reason=reason, count=count)
            for (of, reason), count in ranked[:ELSEWHERE_GROUPS]]
