"""A file's uses of names (`Occurrence`) and its imports (`Import`), read from the parse
tree that `parse.extract_file` already made, with one query per language.

Imports: msgspec, tree_sitter, tree_sitter_language_pack and `extract` modules only.
Pure: no file I/O except reading the bundled `.scm` query files, no global state except
the caches of compiled queries and of types read (`type_name`).

Each `queries/<stem>-refs.scm` (our own: the grammars ship no reference tags) marks:

- `@scope` a node whose bindings are local to all of it: a function, a lambda, a
  comprehension, Go's `if`, `for`, `switch` and `select` statements and cases (other
  block scopes are read as their function's: a name bound anywhere in a function is
  local to all of it, which may drop a use of a shadowed outer name, never keep a local);
  `@scope.hidden` one whose names the scopes inside it do not see (a Python class's
  body: its methods and comprehensions look its names up in the scopes around the class);
- `@bind` a name bound in the innermost scope around it (a parameter, an assignment's
  target, a loop variable); `@bind.outer` in the scope around that one (a nested def's
  own name); `@bind.same` a name rebound by an operation that keeps its type (Python's
  `b += x`: `__iadd__` gives back what `b` was); `@bind.type` a type's name (where the
  language keeps types' names apart, `_Rules.type_namespace`, only a type's use can be
  of it); `@bind.all` every name of a
  destructuring target (`a, (b, c)`: the identifiers found through nodes whose type ends
  in `pattern` or `_list`, not those of an attribute, a subscript or a default). A name
  bound outside every scope is the module's: not local. A name that is a definition
  symfind indexes (a `Symbol`'s name) binds nothing: its uses are kept;
- `@global` a name a scope declares global (Python `global x`): not local there;
- `@skip` a node none of whose names is a use (keyword-argument names, import paths,
  object keys); definitions' own names are skipped without a pattern (`defined`);
  `@skip.weak` a name that is no use unless a pattern of a kind other than `plain`
  captures it (Kotlin's import paths, whose last name is the one imported);
- `@ref.<kind>` a use, of a `UseKind` (`@ref.attribute_call`...), with `@receiver` what it
  is looked up on. A name several patterns capture takes the first of `_PRIORITY`'s kinds.
  A name with a receiver is always a use; a bare name only when no enclosing scope binds it;
- `@base` the base a class extends: the type of `super` in it (`_Rules.super_name`);
- `@hint.var` a name whose type the file shows: `@hint.type` its declared type,
  `@hint.new` a type constructed for it (`T{}`, `new T()`), or `@hint.call` the function
  called for it, a type when it is a constructor by the language's rule (`_Rules.ctor`:
  Python's `C(...)` capitalised; in Go every call, `NewC()`, whose result `_GoTypes`
  reads from the function's signature), `@hint.range` a `range`'s expression (Go: the
  name takes its elements' type; `@hint.keys` with one name: a map's keys, a channel's
  elements), `@hint.expression` a field or an element assigned (Go's
  `l := s.logger`, `x := n.items[i]`: the name takes its type), `@hint.enter` the class
  a `with` enters (Python: what its `__enter__` returns, which the query reads),
  `@hint.param` a parameter assigned to a member (Python: its annotation); Python's `@hint.value` an expression assigned
  (`c = await pool.get()`), `@hint.items` what a `for` runs over, `@hint.entered` a
  method's result a `with` enters, each settled with the uses (`_PythonTypes`). A name
  given two types, or also bound without one, gets none (a member's declared type wins
  over the values assigned to it; Python keeps two types for the query, `REBOUND`);
- `@struct.field` a field of a named struct (Go), for receivers such as `b.logger`, and
  for the struct's `Symbol.fields` (`_fields`);
- `@destructured` a name an object pattern reads out of a value (JavaScript's `const {
  router } = opts`): bound, and a use of the value's member (`_destructured_from`);
- `@returned` what a `return` statement gives, and `@yield` a `yield` (Python): the type
  a function's `return` statements agree on is its `Symbol.returns` (`_returns`);
- `@import` an import statement, with `@import.source` (the module, quotes dropped),
  `@import.name` the name it takes and `@import.alias` what it binds it as,
  `@import.module` a module bound itself (as its alias, or its own name), or
  `@import.wildcard`; `@import.path` the module's path and the name taken as one
  (`a.b.C`).
"""

from __future__ import annotations

import bisect
import functools
import operator
import re
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

import msgspec
from tree_sitter import Node, Query, QueryCursor
from tree_sitter_language_pack import get_language

from symfind.extract.go_types import (
    defined_type,
    element_type,
    first_result,
    go_package,
    key_type,
    named_type,
)
from symfind.extract.languages import LANGUAGES
from symfind.extract.python_types import (
    ENTERED,
    IMPORTED,
    REBOUND,
    UNTYPED,
    item_type,
    mapping_types,
    return_annotation,
    tuple_item,
)
from symfind.extract.records import Import, Occurrence, Symbol, SymbolKind, UseKind

RECEIVER_MAX_CHARS = 80
_PACKAGE = Path(__file__).resolve().parent

# The kind a name takes when several patterns capture it: the most specific first.
_PRIORITY = {
    kind: rank
    for rank, kind in enumerate(
        (
            UseKind.IMPORT,
            UseKind.DECORATOR,
            UseKind.INHERIT,
            UseKind.ATTRIBUTE_CALL,
            UseKind.CALL,
            UseKind.TYPE,
            UseKind.ATTRIBUTE,
            UseKind.PLAIN,
        )
    )
}
# (capture, kind, whether a receiver is looked for): attributes have one; another kind
# only when its pattern says so (`@ref.call.member`: `new a.B()`, `pkg.T{}`).
_BY_PRIORITY = sorted(
    [(f"ref.{kind.value}", kind, kind in (UseKind.ATTRIBUTE, UseKind.ATTRIBUTE_CALL))
     for kind in UseKind] + [(f"ref.{kind.value}.member", kind, True) for kind in UseKind],
    key=lambda item: (_PRIORITY[item[1]], not item[0].endswith(".member")))
_CLASS_KINDS = frozenset(
    {SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.INTERFACE, SymbolKind.TRAIT,
     SymbolKind.ENUM}
)
_WHITESPACE = re.compile(r"\s+")
_IDENTIFIER = re.compile(r"[$@]{0,2}\w+")
# A type as written, down to the name a receiver's type is looked up by: quotes,
# pointers, references and qualifiers before it and generic arguments after it dropped.
_TYPE_PREFIX = re.compile(
    r"^(?:[*&\s\"']|\[\]|'\w+\s|"
    r"(?:mut|dyn|impl|const|volatile|ref|out|in|struct|union|enum|class|typename)\b)+")
_GENERIC_ARGS = re.compile(r"\s*[<\[({].*$", re.S)
# `Optional[T]`, `typing.Optional[T]`, `t.Optional[T]` (`import typing as t`).
_OPTIONAL = re.compile(r"^(?:\w+\.)*Optional\[(.*)\]$", re.S)
# Declared types that leave the type to the compiler.
_INFERRED = frozenset({"auto", "var", "let", "val", "dynamic", "decltype"})
_TYPE_NAME = re.compile(r"[\w.:\\$]+")
# An array of a type (`Field[]`, `String[] args`): no value of the type named.
_ARRAY = re.compile(r"^[\w.:\\$]+\s*(?:<.*>)?\s*\[\s*\](?:\s*\[\s*\])*$", re.S)
#: A type that is another type's member, looked up by its key (TypeScript's
#: `FieldOptions<T>['form']`): no value of the type named.
_LOOKUP_TYPES = frozenset({"lookup_type"})
_NULLABLE = re.compile(r"\s*\|\s*(?:None|null|undefined)\b|\b(?:None|null|undefined)\s*\|\s*|\?$")
# TypeScript's types that keep a type's members: `Partial<Observer<T>>` is an `Observer`'s.
_SAME_MEMBERS = re.compile(r"^(?:Partial|Readonly|Required|NonNullable)<(.*)>$", re.S)
_NESTING = {ord("<"): 1, ord("["): 1, ord("("): 1, ord("{"): 1,
            ord(">"): -1, ord("]"): -1, ord(")"): -1, ord("}"): -1}


class _Rules(NamedTuple):
    """What differs between languages beyond their query."""

    #: Receivers that are the enclosing class's instance (or the class itself).
    self_names: frozenset[str] = frozenset()
    #: The one that names the instance, for its fields (`this.client`).
    self_name: str = ""
    #: The type a call assigned to a name constructs, or "" (`_python_ctor`).
    ctor: Callable[[str], str] = lambda callee: ""
    #: The name a module imported without an alias is bound as.
    module_name: Callable[[str], str] = lambda source: source
    #: The methods a `@hint.ctor` may name for its receiver to be a type constructed
    #: (Rust's `T::new()`, Ruby's `C.new`).
    ctor_names: frozenset[str] = frozenset()
    #: The functions an `@import.callee` may name (`require`).
    import_callees: frozenset[str] = frozenset()
    #: Names the language itself defines (`len`, `int`): no definition in any repository
    #: to find, and among the most frequent names. Not uses, unless the file defines or
    #: imports the name itself.
    builtins: frozenset[bytes] = frozenset()
    #: Types have names of their own, apart from values' (C's `struct mode *mode`), or
    #: the syntax tells a type's name from a value's (Go's `type_identifier`: a variable
    #: `field` in scope leaves `[]field{}` a use of the type): a type's use is local only
    #: when a type of that name is (`@bind.type`).
    type_namespace: bool = False
    #: A name declared of a slice, map or channel type keeps the type as written (Go's
    #: `more []*node`), for its elements' (`range more`, `more[0]`: `_GoTypes`).
    collection_types: bool = False
    #: A bare name may be a field of the enclosing class (Java's `items.get(k)`): a
    #: receiver no scope binds takes the type of the field of that name.
    implicit_self: bool = False
    #: The receiver that is the enclosing class's base (JavaScript's `super`), typed by
    #: the class's `@base` (its `extends`).
    super_name: str = ""
    #: What a receiver's own text says of its type: (the type it shows or "", the
    #: receiver to look its type up by). `_script_written_type`: a cast or a `new` shows
    #: it; `x!` is looked up as `x`.
    written_type: Callable[[str], tuple[str, str]] = lambda receiver: ("", receiver)
    #: A receiver written as an expression (`b.logger`, `NewBridge(c)`, `c.Root()`) takes
    #: a type worked out from its parts, by the class this makes (`_GoTypes`,
    #: `_PythonTypes`) from the file's captures, bytes, imports, definitions and
    #: module-level names.
    chained: Callable[..., "_GoTypes | _PythonTypes"] | None = None
    #: A parameter annotated `type[C]` holds the class C itself: calling it makes a C
    #: (Python).
    class_objects: bool = False
    #: How deep the names a receiver's type is worked out from are typed (`_hints`): 1,
    #: the receivers' own names only.
    hint_rounds: int = 1
    #: A name bound to values of different types keeps them all, joined by `REBOUND`,
    #: for `chained` to settle and the query to agree on; else it has none.
    rebinding_unions: bool = False


def _python_ctor(callee: str) -> str:
    """`Session` for `Session` or `requests.Session`: a class by PEP 8's naming (a
    private one too, `_FixedFindCallerLogger`)."""
    last = callee.rsplit(".", 1)[-1].lstrip("_")
    return callee if last[:1].isupper() and not last.isupper() else ""


_PYTHON_CALLEE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")


def _python_call_result(callee: str) -> str:
    """A class's name for a constructor's call (`_python_ctor`); else the call itself,
    `make_converter()` or `helpers.make_converter()`, whose result the query reads from
    the function's indexed signature (`storage/references.py`); "" for any other callee
    (`self.make()`, `factory()()`)."""
    if _python_ctor(callee):
        return callee
    own = callee.startswith(("self.", "cls."))
    return f"{callee}()" if _PYTHON_CALLEE.fullmatch(callee) and not own else ""


def _cpp_ctor(callee: str) -> str:
    """`Connection` for `auto c = Connection(...)`, `net::Pool` for `net::Pool(...)`: a
    capitalised callee, by the naming most C++ code uses for types."""
    last = callee.rsplit("::", 1)[-1].split("<", 1)[0]
    return callee.split("<", 1)[0] if last[:1].isupper() and not last.isupper() else ""


_GO_CALLEE = re.compile(r"\w+(?:\.\w+)?")


def _go_call_result(callee: str) -> str:
    """`NewBridge()` for `b, err := NewBridge(c)`, `prometheus.NewRegistry()` for a
    function of an imported package: the result of a call, which the query reads from the
    function's indexed signature (`storage/references.py`), or from `go_types.go_ctor`
    when the index does not hold it."""
    return f"{callee}()" if _GO_CALLEE.fullmatch(callee) else ""


_PYTHON_BUILTINS = frozenset(
    b"abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile "
    b"complex delattr dict dir divmod enumerate eval exec filter float format frozenset "
    b"getattr globals hasattr hash help hex id input int isinstance issubclass iter len list "
    b"locals map max memoryview min next object oct open ord pow print property range repr "
    b"reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip "
    b"__name__ __file__ __doc__ __all__ NotImplemented Ellipsis".split()
)
_GO_BUILTINS = frozenset(
    b"bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune "
    b"string uint uint8 uint16 uint32 uint64 uintptr any comparable append cap clear close "
    b"complex copy delete imag len make max min new panic print println real recover _".split()
)

_JS_BUILTINS = frozenset(
    b"require module exports undefined arguments globalThis window document console Object "
    b"Array JSON Math Promise String Number Boolean Error TypeError RangeError Symbol Map Set "
    b"WeakMap WeakSet Date RegExp parseInt parseFloat isNaN setTimeout clearTimeout "
    b"setInterval clearInterval Record Partial Required Readonly Pick Omit Exclude Extract "
    b"NonNullable ReturnType Parameters InstanceType Awaited".split()
)
_SCRIPT_CAST = re.compile(r"\((?:.+\s+as\s+(?P<as>[^()]+?)|<(?P<angle>[^()<>]+(?:<[^()]*>)?)>.+)\)",
                          re.S)
_SCRIPT_NEW = re.compile(r"new\s+(?P<type>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*"
                         r"(?:<[^()]*>)?\s*\(.*\)", re.S)


def _script_written_type(receiver: str) -> tuple[str, str]:
    """What a JavaScript or TypeScript receiver's text says of its type: a cast
    (`(source as Pool<T>)`, `(<Pool>source)`) or a construction (`new Pool(...)`) gives
    its type; a non-null assertion (`pool!`) has its operand's."""
    cast = _SCRIPT_CAST.fullmatch(receiver)
    if cast:
        return type_name(cast["as"] or cast["angle"]), receiver
    built = _SCRIPT_NEW.fullmatch(receiver)
    if built and not built["type"].startswith("this."):
        return built["type"], receiver
    return "", receiver.rstrip("!") if receiver.endswith("!") else receiver


_JS = _Rules(self_names=frozenset({"this"}), self_name="this", module_name=lambda source: "",
             import_callees=frozenset({"require"}), builtins=_JS_BUILTINS, super_name="super",
             written_type=_script_written_type)

_JAVA_BUILTINS = frozenset(
    b"String Object Integer Long Short Byte Boolean Double Float Character Number Math "
    b"System Override Deprecated SuppressWarnings FunctionalInterface SafeVarargs Exception "
    b"RuntimeException Error Throwable IllegalArgumentException IllegalStateException "
    b"NullPointerException UnsupportedOperationException Iterable Comparable Runnable "
    b"Thread StringBuilder Class Void CharSequence Enum Record var".split()
)

_CSHARP_BUILTINS = frozenset(
    b"String Object Console Math Exception ArgumentException ArgumentNullException "
    b"InvalidOperationException NotImplementedException NotSupportedException Task List "
    b"Dictionary IEnumerable IDisposable Guid DateTime TimeSpan Func Action nameof var value "
    b"Obsolete Serializable".split()
)

_RUST_BUILTINS = frozenset(
    b"Some None Ok Err Vec String Box Option Result Self Default Clone Copy Debug Send Sync "
    b"Sized Fn FnMut FnOnce Iterator IntoIterator From Into PartialEq Eq PartialOrd Ord Hash "
    b"Display Drop AsRef ToString println print eprintln eprint format vec assert assert_eq "
    b"assert_ne debug_assert panic write writeln matches unreachable todo unimplemented "
    b"derive test cfg allow deny inline dbg".split()
)

_KOTLIN_BUILTINS = frozenset(
    b"it String Int Long Short Byte Boolean Double Float Char Any Unit Nothing Array List "
    b"MutableList Map MutableMap Set MutableSet listOf mutableListOf mapOf mutableMapOf setOf "
    b"mutableSetOf arrayOf emptyList emptyMap println print require check error lazy "
    b"Exception IllegalArgumentException IllegalStateException Override JvmStatic "
    b"Deprecated Suppress".split()
)

_RUBY_BUILTINS = frozenset(
    b"puts print p pp require require_relative load autoload raise attr_accessor "
    b"attr_reader attr_writer include extend prepend private protected public "
    b"module_function new loop lambda proc format sprintf block_given? Integer Float String "
    b"Array Hash Kernel Object StandardError ArgumentError RuntimeError NotImplementedError "
    b"Struct Comparable Enumerable".split()
)

_PHP_BUILTINS = frozenset(
    b"count strlen sprintf printf array_map array_filter array_keys array_values array_merge "
    b"in_array implode explode is_array is_string is_int is_null json_encode json_decode "
    b"isset unset empty print_r var_dump str_replace substr trim strtolower strtoupper "
    b"Exception InvalidArgumentException RuntimeException LogicException Closure Throwable "
    b"self static parent true false null TRUE FALSE NULL".split()
)

_RULES: dict[str, _Rules] = {
    "php": _Rules(self_names=frozenset({"$this", "self", "static"}), self_name="$this",
                  builtins=_PHP_BUILTINS),
    "python": _Rules(self_names=frozenset({"self", "cls"}), self_name="self",
                     ctor=_python_call_result, builtins=_PYTHON_BUILTINS,
                     chained=lambda *parts: _PythonTypes(*parts), class_objects=True,
                     hint_rounds=3, rebinding_unions=True),
    "go": _Rules(ctor=_go_call_result, module_name=go_package, builtins=_GO_BUILTINS,
                 chained=lambda *parts: _GoTypes(*parts), type_namespace=True,
                 collection_types=True),
    "c": _Rules(module_name=lambda source: "", type_namespace=True),
    "cpp": _Rules(self_names=frozenset({"this"}), self_name="this", ctor=_cpp_ctor,
                  module_name=lambda source: "", type_namespace=True),
    "csharp": _Rules(self_names=frozenset({"this"}), self_name="this", type_namespace=True,
                     implicit_self=True, module_name=lambda source: source,
                     builtins=_CSHARP_BUILTINS),
    "java": _Rules(self_names=frozenset({"this"}), self_name="this", type_namespace=True,
                   implicit_self=True, builtins=_JAVA_BUILTINS),
    "javascript": _JS,
    "kotlin": _Rules(self_names=frozenset({"this"}), self_name="this", ctor=_python_ctor,
                     type_namespace=True, implicit_self=True, builtins=_KOTLIN_BUILTINS),
    "ruby": _Rules(self_names=frozenset({"self"}), self_name="self", implicit_self=True,
                   module_name=lambda source: "", ctor_names=frozenset({"new"}),
                   import_callees=frozenset({"require", "require_relative", "load", "autoload"}),
                   builtins=_RUBY_BUILTINS),
    "rust": _Rules(self_names=frozenset({"self"}), self_name="self", type_namespace=True,
                   ctor_names=frozenset(
                       {"new", "default", "with_capacity", "from", "builder", "open", "connect"}),
                   module_name=lambda source: source.rsplit("::", 1)[-1],
                   builtins=_RUST_BUILTINS),
    "typescript": _JS,
    "tsx": _JS,
}


class _Queries(NamedTuple):
    """A language's refs query, with cursors kept (making one costs ~0.1 ms, a tenth of
    a small file's extraction); like the cached parsers, used by one thread at a time."""

    every: QueryCursor  # the whole file: run once over the tree, for its captures
    imports: QueryCursor  # its import patterns alone, on each import statement
    hints: QueryCursor  # its receiver-type patterns alone, on a receiver's binding


@functools.cache
def _queries(language: str) -> _Queries | None:
    """The language's refs query, or None when it has none yet."""
    spec = LANGUAGES[language]
    stems = spec.refs or (language,)
    files = [_PACKAGE / "queries" / f"{stem}-refs.scm" for stem in stems]
    if not all(path.is_file() for path in files):
        return None
    text = "\n".join(path.read_text(encoding="utf-8") for path in files)
    grammar = get_language(spec.grammar)  # type: ignore[arg-type]
    patterns = _patterns(text)
    alone = []
    for capture in ("@import", "@hint"):
        chosen = "\n".join(pattern for pattern in patterns if capture in pattern)
        cursor = QueryCursor(Query(grammar, chosen or f"(ERROR) {capture}"))
        cursor.set_max_start_depth(0)  # patterns rooted at the node given only
        alone.append(cursor)
    # The whole file once over the tree: a hint pattern's root and name are all it needs
    # there (its type is matched again, alone, for the few names used as receivers).
    every = re.sub(r"\s@hint\.(?:type|new|call|enter|param)\b", "", text)
    return _Queries(QueryCursor(Query(grammar, every)), *alone)


_PATTERN_TAIL = re.compile(r"\s*(?:@[\w.]+|[?*+])")


def _patterns(text: str) -> list[str]:
    """The top-level patterns of a query's text, comments left out."""
    patterns: list[str] = []
    depth, start, index, length = 0, -1, 0, len(text)
    while index < length:
        char = text[index]
        if char == ";":
            index = text.find("\n", index)
            index = length if index < 0 else index
            continue
        if char == '"':
            index = text.index('"', index + 1) + 1  # no escaped quotes in our queries
            continue
        if char in "([":
            if depth == 0:
                start = index
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth == 0:
                index += 1
                while tail := _PATTERN_TAIL.match(text, index):
                    index = tail.end()
                patterns.append(text[start:index])
                continue
        index += 1
    return patterns


_NEVER = float("inf")  # a position after every file's end


class _Nest:
    """The spans around positions asked about in increasing order: a sweep over spans
    sorted by start (then longest first), so that each costs a few steps."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self._spans = spans
        self._next = 0
        self.stack: list[int] = []  # indices into spans, outermost first
        #: The first position at which the stack may differ from the last answer's: the
        #: next span's start or the innermost span's end. Before it, `at` is not needed.
        self.until = spans[0][0] if spans else _NEVER

    def at(self, position: int) -> list[int]:
        spans, stack = self._spans, self.stack
        while self._next < len(spans) and spans[self._next][0] <= position:
            start = spans[self._next][0]
            while stack and spans[stack[-1]][1] <= start:
                stack.pop()
            stack.append(self._next)
            self._next += 1
        while stack and spans[stack[-1]][1] <= position:
            stack.pop()
        following = spans[self._next][0] if self._next < len(spans) else _NEVER
        self.until = min(following, spans[stack[-1]][1]) if stack else following
        return stack


def _text(node: Node, parsed: bytes) -> str:
    return parsed[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _receiver_text(node: Node, parsed: bytes) -> str:
    text = _text(node, parsed)
    if len(text) > RECEIVER_MAX_CHARS or "\n" in text or "  " in text or "\t" in text:
        text = _WHITESPACE.sub(" ", text).strip()[:RECEIVER_MAX_CHARS]
    return text


# The same types are written again and again (`*Reader`, `string`, `Optional[Session]`),
# and reading one takes several expressions: each is read once per process.
@functools.lru_cache(maxsize=8192)
def type_name(text: str) -> str:
    """A declared type as a receiver type: `*Server` → `Server`, `Optional[Session]` →
    `Session`, `Vec<T>` → `Vec`, `requests.Session` kept whole, `Partial<Observer<T>>` →
    `Observer`, `Pool | null` → `Pool`; "" for a type with no name to keep (`[T; 3]`,
    `(A, B)`, `A<T> | B`)."""
    text = text.strip().strip("\"'")
    optional = _OPTIONAL.match(text)
    if optional:
        text = optional[1].strip().strip("\"'")
    text = _NULLABLE.sub("", text)
    wrapped = _SAME_MEMBERS.match(text)
    if wrapped:
        text = wrapped[1].strip()
    if _joins_types(text):
        return ""
    text = _TYPE_PREFIX.sub("", text)
    if _ARRAY.match(text):
        return ""
    text = _GENERIC_ARGS.sub("", text).strip()
    if text in _INFERRED:
        return ""
    return text if text and _TYPE_NAME.fullmatch(text) else ""


def _joins_types(text: str) -> bool:
    """Whether a type is a union or an intersection (`A<T> | B`, `A & B`) outside its
    generic arguments: no one name to keep. (A `&` with nothing before or after it is
    Rust's or C++'s reference.)"""
    depth = 0
    for index, char in enumerate(text):
        depth += _NESTING.get(ord(char), 0)
        if depth == 0 and (char == "|" or (
                char == "&" and text[:index].strip() and text[index + 1:].strip())):
            return True
    return False


_SPACE = b" \t\r\n"
#: What, right before a `.`, makes it more than a plain `a.b` for `_receiver`.
_NOT_BEFORE_DOT = b"?&" + _SPACE
#: The quotes that open a key written in quotes (`a['b']`): `_receiver` looks for the
#: `[` before them.
_QUOTES = b"'\"`"
_first = operator.itemgetter(0)  # may stand around a receiver's separator (`_receiver`)


def occurrences_and_imports(
    root: Node,
    language: str,
    parsed: bytes,
    symbols: list[Symbol],
    defined: list[tuple[int, int]],
    check: Callable[[], None],
) -> tuple[list[Occurrence], list[Import]]:
    """The uses of names one parse tree shows that it does not bind locally, ordered by
    line then column, and its imports in source order.

    One run of the language's query gives every capture at once; an import statement's
    parts, which belong together, are matched again on the statement alone by the
    query's import patterns (`set_max_start_depth(0)`: only patterns rooted there).

    Args:
        root: The file's parse tree.
        language: Language id (`extract.languages`).
        parsed: The bytes the tree was parsed from.
        symbols: The file's definitions (for each use's enclosing definition and the
            types of `self`).
        defined: The byte spans of the definitions' names in `parsed`: not uses.
        check: Raises when the extraction's deadline has passed.

    Returns:
        The occurrences and the imports; both empty for a language without a refs query.

    Raises:
        ParseTimeout: The deadline passed (from `check`).
    """
    queries = _queries(language)
    if queries is None:
        return [], []
    rules = _RULES.get(language, _Rules())
    captured = queries.every.captures(root)
    check()
    alone = queries.imports
    statements = {node.start_byte: node for node in captured.get("import", ())}
    taken = [record for _, statement in sorted(statements.items())
             for record in _imports(statement, alone, parsed, rules)]
    imports = [record for _, record in taken]
    sources = {start: record.source for start, record in taken}  # an imported name's module
    hints: dict[int, str] = {}  # a bound name's start byte → its type
    member_hints: list[tuple[int, str, str, bool]] = []  # (line, `self.x`, type, declared)
    receivers = {node.end_byte: node for node in captured.get("receiver", ())}
    returned = captured.get("returned", ())
    # What a `return` gives is typed as a receiver is (`return made` after `made = C()`).
    typed = {**receivers, **{node.end_byte: node for node in returned}} if returned else receivers
    destructured = _destructured_from(captured.get("destructured", ()))
    if destructured:  # read as receivers are
        typed = {**typed, **{value.end_byte: value for _, value in destructured.values()}}
    _hints(captured, parsed, rules, queries.hints, typed, hints, member_hints)
    if rules.super_name:  # `super` in a class is its base (`@base`), as a field would be
        member_hints.extend((node.start_point.row + 1, rules.super_name,
                             type_name(_text(node, parsed)), False)
                            for node in captured.get("base", ()))
    # Names are bytes until they are kept: most are locals, dropped without decoding.
    binds = [(node.start_byte, parsed[node.start_byte : node.end_byte], False)
             for node in captured.get("bind", ())]
    binds.extend((node.start_byte, parsed[node.start_byte : node.end_byte], True)
                 for node in captured.get("bind.outer", ()))
    same = {node.start_byte: node for node in captured.get("bind.same", ())}
    binds.extend((start, parsed[start : node.end_byte], False) for start, node in same.items())
    for node in captured.get("bind.all", ()):
        _destructured(node, parsed, binds)
    # A type's name, where types have names of their own (C's `struct mode *mode`), is
    # kept apart from values' as `:name` (no identifier starts with a colon).
    mark = b":" if rules.type_namespace else b""
    binds.extend((node.start_byte, mark + parsed[node.start_byte : node.end_byte], False)
                 for node in captured.get("bind.type", ()))
    globals_ = [(node.start_byte, parsed[node.start_byte : node.end_byte])
                for node in captured.get("global", ())]
    # A hidden scope spans what its only statement does (a class body of one method):
    # it is the outer of the two.
    spans = sorted([(node.start_byte, -node.end_byte, False)
                    for node in captured.get("scope.hidden", ())]
                   + [(node.start_byte, -node.end_byte, True)
                      for node in captured.get("scope", ())])
    scopes = [(start, -end) for start, end, _ in spans]
    hidden = frozenset(index for index, (_, _, shown) in enumerate(spans) if not shown)
    skips = [(node.start_byte, node.end_byte) for node in captured.get("skip", ())]
    # Lower-case names only (HTML tags in JSX, Java's package names, PHP's `X::class`):
    # told apart here, not by a query predicate (one reads a node's text back through the
    # parser's input callback: 0.8 s on one large Go file).
    skips.extend((node.start_byte, node.end_byte) for node in captured.get("skip.lower", ())
                 if 0x61 <= parsed[node.start_byte] <= 0x7A)
    # A member named by a key in quotes (`obj['name']`) is one when the key is a name
    # (not `headers['Content-Type']`).
    skips.extend((node.start_byte, node.end_byte) for node in captured.get("skip.key", ())
                 if not parsed[node.start_byte : node.end_byte].decode(
                     "utf-8", errors="replace").isidentifier())
    skips.extend(_compiled_out(captured.get("skip.if_zero", ()), parsed))
    skips.extend(defined)
    bindings = _bindings(scopes, binds, globals_, hints, defined, same,
                         unions=rules.rebinding_unions, hidden=hidden)
    check()
    uses = _uses(captured, [start for start in bindings.sites if start not in destructured]
                 if destructured else bindings.sites)
    for start, (name, _) in destructured.items():  # bound, and read from a member
        uses.nodes[start] = name
        uses.kinds[start] = (UseKind.ATTRIBUTE, True)
    chained = (rules.chained(captured, parsed, imports, symbols, bindings.module)
               if rules.chained else None)
    if captured.get("struct.field"):
        _fields(captured["struct.field"], symbols, parsed)
    occurrences = _occurrences(uses, receivers, imports, sources, scopes, bindings, skips,
                               symbols, member_hints, parsed, rules,
                               LANGUAGES[language].separator, check, chained,
                               returned, captured.get("yield", ()),
                               {start: value for start, (_, value) in destructured.items()})
    return occurrences, imports


def _destructured_from(names: Sequence[Node]) -> dict[int, tuple[Node, Node]]:
    """Each name an object pattern reads out of a value (`const { router } = opts`), by
    its start: the name and the value (the declarator's, two or three levels up)."""
    found = {}
    for name in names:
        declarator = name.parent
        while declarator is not None and declarator.type != "variable_declarator":
            declarator = declarator.parent
        value = declarator.child_by_field_name("value") if declarator is not None else None
        if value is not None:
            found[name.start_byte] = (name, value)
    return found


def _compiled_out(conditions: Sequence[Node], parsed: bytes) -> list[tuple[int, int]]:
    """The spans C's `#if 0` compiles out, from each `#if` whose condition is a number:
    after a `0` up to its `#else` / `#elif`, or its `#endif` (a compiler never sees the
    names there: clangd counts none of them)."""
    spans = []
    for condition in conditions:
        if parsed[condition.start_byte : condition.end_byte] != b"0":
            continue
        block = condition.parent  # the `#if` (a capture's parent: never None)
        alternative = block.child_by_field_name("alternative")
        end = alternative.start_byte if alternative is not None else block.end_byte
        spans.append((condition.end_byte, end))
    return spans


class _Uses(NamedTuple):
    """Each name captured as a use, by its start byte: its node, and the first kind in
    `_PRIORITY` that captured it with whether a receiver is looked for (`_uses`)."""

    nodes: dict[int, Node]
    kinds: dict[int, tuple[UseKind, bool]]


def _uses(captured: dict[str, list[Node]], sites: list[int]) -> _Uses:
    """The names captured as uses: none where a name is bound (`sites`), nor a
    `@skip.weak` name that only `plain` captures.

    Filled from the last kind to the first, each overwriting those after it, by
    `dict.update`: a capture costs no Python step beyond its start byte and makes no
    tuple (`plain` alone captures nearly every name, most of them again under another
    kind or as a binding)."""
    nodes: dict[int, Node] = {}
    kinds: dict[int, tuple[UseKind, bool]] = {}
    weak = captured.get("skip.weak")
    for capture, kind, member in reversed(_BY_PRIORITY):
        if weak and kind is not UseKind.PLAIN:  # the plain captures done (they come last)
            for node in weak:  # no use, unless a pattern of another kind says so
                nodes.pop(node.start_byte, None)
            weak = None
        captures = captured.get(capture)
        if captures:  # reversed: of the nodes at one start byte, the first captured wins
            captures = captures[::-1]
            starts = [node.start_byte for node in captures]
            nodes.update(zip(starts, captures))
            kinds.update(dict.fromkeys(starts, (kind, member)))
    for start in sites:
        nodes.pop(start, None)
    return _Uses(nodes, kinds)


class _Bindings(NamedTuple):
    module: dict[bytes, str]  # the module's names → their types ("" unknown)
    scopes: list[dict[bytes, str]]  # each scope's local names → their types
    sites: list[int]  # where names are bound (start bytes): not uses
    hidden: frozenset[int]  # the scopes whose names the scopes inside them do not see


def _bindings(
    scopes: list[tuple[int, int]], binds: list[tuple[int, bytes, bool]],
    globals_: list[tuple[int, bytes]], hints: dict[int, str], defined: list[tuple[int, int]],
    same: Container[int] = (), unions: bool = False, hidden: frozenset[int] = frozenset(),
) -> _Bindings:
    """The names each scope binds, with their types where known, and the module's (a
    binding at a start byte in `same` keeps the name's type). A name bound to values of
    different types has none, or with `unions` all of them (`_rebound`)."""
    definitions = {start for start, _ in defined}
    module: dict[bytes, str] = {}
    bound: list[dict[bytes, str]] = [{} for _ in scopes]
    sites: list[tuple[int, bytes]] = []
    defined_locally: list[tuple[int, bytes]] = []  # (scope, name) of definitions not at the top
    binds.sort(key=_first)
    # The scopes around each binding, by a sweep (as `_Nest`, written out: it runs for
    # every binding of the file).
    stack: list[int] = []
    next_scope, count = 0, len(scopes)
    for start, name, outer in binds:
        while next_scope < count and scopes[next_scope][0] <= start:
            scope_start = scopes[next_scope][0]
            while stack and scopes[stack[-1]][1] <= scope_start:
                stack.pop()
            stack.append(next_scope)
            next_scope += 1
        while stack and scopes[stack[-1]][1] <= start:
            stack.pop()
        depth = len(stack) - (2 if outer else 1)
        type_ = hints.get(start, "") if hints else ""
        if depth < 0:
            names = module
        elif start in definitions:
            defined_locally.append((stack[depth], name))
            continue
        else:
            names = bound[stack[depth]]
        known = names.get(name)
        if start in same:
            type_ = "" if known is None else known
        if known is None:
            names[name] = type_
        elif known != type_:
            names[name] = _rebound(known, type_) if unions else ""
        sites.append((start, name))  # a binding, a module's too, is no use
    # A name a scope both defines (`def func`, indexed) and assigns (`func = f(...)` in
    # another branch) may be either there: its uses stay uses, of the definition.
    for scope, name in defined_locally:
        bound[scope].pop(name, None)
    if globals_:
        nest = _Nest(scopes)
        for start, name in sorted(globals_):
            chain = nest.at(start)
            if chain:
                bound[chain[-1]].pop(name, None)
        undeclared = {name for _, name in globals_}  # a global's assignments are uses
        sites = [(start, name) for start, name in sites if name not in undeclared]
    return _Bindings(module, bound, [start for start, _ in sites], hidden)


def _rebound(known: str, type_: str) -> str:
    """The types of a name bound again, joined (none when a binding gives none)."""
    if not known or not type_:
        return ""
    return known if type_ in known.split(REBOUND) else f"{known}{REBOUND}{type_}"


def _per_part(type_: str, make: Callable[[str], str]) -> str:
    """`make` of each of the types a name bound again has (none when one gives none)."""
    if REBOUND not in type_:
        return make(type_)
    made = [make(part) for part in type_.split(REBOUND)]
    return REBOUND.join(dict.fromkeys(made)) if all(made) else ""


def _visible(scopes: list[tuple[int, int]], bindings: _Bindings) -> list[frozenset[bytes]]:
    """The local names seen in each scope: its own and those of the scopes around it
    (but a hidden scope's, which only it sees)."""
    visible: list[frozenset[bytes]] = []
    passed: list[frozenset[bytes]] = []  # what each scope shows the scopes inside it
    stack: list[int] = []
    for index, (start, _) in enumerate(scopes):
        while stack and scopes[stack[-1]][1] <= start:
            stack.pop()
        names = bindings.scopes[index].keys()
        outer = passed[stack[-1]] if stack else frozenset()
        visible.append(outer.union(names))
        passed.append(outer if index in bindings.hidden else visible[-1])
        stack.append(index)
    return visible


_NAME_TYPES = frozenset(
    {"identifier", "shorthand_property_identifier_pattern", "shorthand_field_identifier"})
_PATTERN_ENDS = ("pattern", "_list")
_DEFAULTED = frozenset({"assignment_pattern", "object_assignment_pattern"})
_NAMED_PATTERNS = frozenset({"tuple_struct_pattern", "struct_pattern"})
_NESTING_DECLARATORS = frozenset(
    {"parenthesized_declarator", "reference_declarator", "structured_binding_declarator"})


def _destructured(node: Node, parsed: bytes, binds: list[tuple[int, bytes, bool]]) -> None:
    """The names a destructuring target binds (`@bind.all`)."""
    if node.type in _NAME_TYPES:
        binds.append((node.start_byte, parsed[node.start_byte : node.end_byte], False))
        return
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _NAME_TYPES:
            binds.append((current.start_byte, parsed[current.start_byte : current.end_byte],
                           False))
        elif current.type in _DEFAULTED:  # `b = dflt`: the default is no binding
            left = current.child_by_field_name("left")
            if left is not None:
                stack.append(left)
        elif current.type in _NESTING_DECLARATORS:  # `(*fp)(int)`, `&x`, `[a, b]`
            stack.extend(current.named_children)
        elif current.type.endswith("declarator"):  # C's `*p = &x`, `a[n]`: the name only
            inner = current.child_by_field_name("declarator")
            if inner is not None:
                stack.append(inner)
        elif current.type in _NAMED_PATTERNS:  # Rust's `Some(v)`, `Point { x, y }`
            kind = current.child_by_field_name("type")
            stack.extend(child for child in current.named_children if child != kind)
        elif current.type.endswith(_PATTERN_ENDS):
            stack.extend(current.named_children)


#: The first name of what a name's type is worked out from when it is settled: `pool` of
#: `value:await pool.get()` or `items:list(pool.conns)`, `cls` of `cls()`; and its first
#: member, which for `self` names a member of the class too (`self._list` of
#: `value:self._list`).
_HEAD = re.compile(r"(?:at\d+:)?(?:(?:value|items|entered):)?(?:await\s+)?[(\s]*(\w*)(?:\.(\w+))?")
#: The name a receiver starts with, and that name with its first member (`self.table`
#: of `self.table["a"]`).
_LEADING = re.compile(rb"((\w*)(?:\.\w+)?)")


def _hints(captured: dict[str, list[Node]], parsed: bytes, rules: _Rules, alone: QueryCursor,
           receivers: dict[int, Node], hints: dict[int, str],
           member_hints: list[tuple[int, str, str, bool]]) -> None:
    """The types of the names used as receivers (`x` of `x.f()`, `self.x` of
    `self.x.f()`), from the `@hint` patterns: a name that is no receiver needs none, and
    most are not (a name is matched with its type again on its pattern's root alone).
    With `rules.hint_rounds`, so are the names that the expressions bound to those
    names start with, that many rounds deep (`c` of `x = c.get()`)."""
    wanted = {parsed[node.start_byte : end] for end, node in receivers.items()}
    wanted.update([name[:-1] for name in wanted if name.endswith(b"!")])  # TypeScript's `x!`
    if rules.hint_rounds > 1:  # the name and member a receiver's expression starts with
        wanted.update(part for name in list(wanted)
                      for part in _LEADING.match(name).group(1, 2) if part)
    elif rules.chained:  # Go: the name an expression starts with, its type read from it,
        # a `range`'s too (`for _, f := range fields`: `f` is of `fields`' elements)
        ranged = [parsed[node.start_byte : node.end_byte]
                  for capture in ("hint.range", "hint.keys", "hint.expression")
                  for node in captured.get(capture, ())]
        wanted.update(filter(None, (_LEADING.match(name)[2] for name in [*wanted, *ranged])))
    prefix = rules.self_name.encode() + b"."
    roots = sorted({node.start_byte: node for node in captured.get("hint", ())}.items())
    starts = [start for start, _ in roots]
    asked: set[bytes] = set()
    # An expression bound to a name is captured already: no need to match its root again.
    values = {node.start_byte: (node, mark) for capture, mark in _PY_BINDING_CAPTURES
              for node in captured.get(capture, ())}
    for _ in range(rules.hint_rounds):
        candidates = [(node, False) for node in captured.get("hint.var", ())
                      if parsed[node.start_byte : node.end_byte] in wanted]
        for node in captured.get("hint.member", ()):
            field = parsed[node.start_byte : node.end_byte]
            if prefix + field in wanted or (rules.implicit_self and field in wanted):
                candidates.append((node, True))
        asked |= wanted
        heads: set[bytes] = set()
        for var, member in candidates:
            index = bisect.bisect_right(starts, var.start_byte) - 1
            while index >= 0 and roots[index][1].end_byte < var.end_byte:
                index -= 1  # a root before it that ends before it: look further back
            if index < 0:
                continue
            root = roots[index][1]
            right = root.child_by_field_name("right") if values else None
            value = values.get(right.start_byte) if right is not None else None
            if value is not None and value[0] == right and root.child_by_field_name(
                    "type") is None and root.child_by_field_name("left") == var:
                typed: tuple[str, bool] | None = (f"{value[1]}{_text(right, parsed)}", False)
            else:
                typed = _hint_type(root, var, alone, parsed, rules)
            if typed is None:
                continue
            type_, declared = typed
            if rules.hint_rounds > 1:
                head = _HEAD.match(type_)
                heads.add(head[1].encode())
                if head[1] in rules.self_names and head[2]:  # `_list = self._list`
                    heads.add(f"{head[1]}.{head[2]}".encode())
            text = _text(var, parsed)
            if member:
                text = f"{rules.self_name}.{text}"  # a class's field: `this.field`
            elif _IDENTIFIER.fullmatch(text):
                hints[var.start_byte] = type_
                continue
            self_name, _, member = text.partition(".")
            if self_name in rules.self_names and _IDENTIFIER.fullmatch(member):
                member_hints.append((var.start_point.row + 1, text, type_, declared))
        wanted = heads - asked
        if not wanted:
            return


#: How deep a name's type is settled through the names and calls it is read from (a name
#: bound to a chain of calls on a name bound to one: `r2 := r1.NewRoute().Subrouter()`
#: takes four); bounds a name that names itself (`c := c.Parent()`).
_GO_SETTLE_STEPS = 8
_GO_CHAIN_STEPS = 16
#: A name no scope of the file binds: a variable of the package, declared in another file
#: (`=CommandLine`), whose type the query reads from its indexed declaration.
_GO_VARIABLE = "="
#: A name bound by `range` over an expression, until its element's type is settled:
#: `range:<the expression's start byte>`.
_GO_RANGE = "range:"
#: The one name a `range` binds (`for k := range m`), until its type is settled: a map's
#: keys, a channel's elements: `keys:<the expression's start byte>`.
_GO_KEYS = "keys:"
#: A name bound to a field or an element (`l := s.logger`, `x := n.items[i]`), until its
#: type is settled: `expression:<the expression's start byte>`.
_GO_EXPRESSION = "expression:"


def _go_unsettled(type_: str) -> bool:
    """Whether a Go receiver's type is one the query reads: a call's result (`F()`,
    `T:M()[]`), a variable of another file (`=CommandLine`)."""
    return type_.endswith((")", "]")) or type_.startswith(_GO_VARIABLE)


class _GoTypes:
    """The type of a Go receiver written as an expression, from its parts: `b.logger` the
    type of the field `logger` of `b`'s struct when this file declares it, `x.(T)` T, a
    call's result (`NewBridge(c)`, `c.Root()`) from the signature of the function or
    method when this file defines it, the elements of a `range` over a call, a field or a
    name (`for _, sub := range c.Commands()`) and an element by index (`n.items[i]`), of
    a slice, map or channel type as written or of this file's type defined as one (`type
    items []Item`). A call to one defined elsewhere is left for the
    query to read from the indexed signature (`storage/references.py`), written
    `NewBridge()`, `prometheus.NewRegistry()`, `Command:Root()` for a method's result, and
    `...[]` for its elements. "" when a part is unknown."""

    def __init__(self, captured: dict[str, list[Node]], parsed: bytes, imports: list[Import],
                 symbols: list[Symbol], module: dict[bytes, str]) -> None:
        self._nodes = captured.get("struct.field", [])  # the fields of named structs
        self._ranges = {node.start_byte: node for node in captured.get("hint.range", ())}
        self._keyed = {node.start_byte: node for node in captured.get("hint.keys", ())}
        self._expressions = {node.start_byte: node
                             for node in captured.get("hint.expression", ())}
        self._parsed = parsed
        self._packages = {record.name for record in imports if record.name not in ("", "*")}
        self._symbols = symbols
        self._module = module  # the names this file binds at package level
        self._fields: dict[str, dict[str, str]] | None = None
        self._signatures: dict[str, str] | None = None  # `F` / `T.M` defined here
        self._defined_as: dict[str, str] | None = None  # `items` → `[]Item` defined here

    def _written(self, node: Node, name_type: Callable[[str], str],
                 local: Callable[[bytes], bool], depth: int) -> str:
        """The type of a name or a field as written, a collection's whole (`map[K]V`);
        "" for any other expression."""
        if node.type == "identifier":
            found = self._name(_text(node, self._parsed), name_type, local, depth)
            return "" if _go_unsettled(found) else found
        selected = self._selected(node, name_type, local, depth)
        return self._field_written(*selected) if selected else ""

    def _selected(self, node: Node, name_type: Callable[[str], str],
                  local: Callable[[bytes], bool], depth: int) -> tuple[str, str] | None:
        """The type whose field `node` selects (`b.logger`: `b`'s, settled) and the field's
        name; None for anything else (a package's name, a call's result)."""
        if node.type != "selector_expression":
            return None
        operand = node.child_by_field_name("operand")
        field = node.child_by_field_name("field")
        if operand is None or field is None or self._package(operand, local):
            return None
        owner = self.type_of(operand, name_type, local, depth + 1)
        if not owner or _go_unsettled(owner):
            return None
        return owner, _text(field, self._parsed)

    def _field(self, owner: str, field: str, element: bool) -> str:
        """The type of a field of a struct this file declares (of its elements)."""
        written = self._field_written(owner, field)
        return self._elements(written) if element else named_type(written)

    def _field_written(self, owner: str, field: str) -> str:
        """A field's type as its struct, one this file declares, writes it."""
        if self._fields is None:
            self._fields = {}
            for struct, names, text in _field_declarations(self._nodes, self._parsed):
                # An embedded field is named by its type's last name.
                for field_name in names or [named_type(text).rsplit(".", 1)[-1]]:
                    if field_name:
                        self._fields.setdefault(_text(struct, self._parsed), {})[
                            field_name] = text
        return self._fields.get(owner, {}).get(field, "")

    def _elements(self, written: str) -> str:
        """The type of the elements of a value of the type `written`: a slice, map or
        channel type, or a type this file defines as one (`type children []*node`)."""
        found = element_type(written)
        if found or not written:
            return found
        if self._defined_as is None:
            self._defined_as = {}
            for symbol in self._symbols:  # `type items []Item`: the signature says it
                if symbol.kind is SymbolKind.TYPE:
                    name, underlying = defined_type(symbol.signature)
                    self._defined_as.setdefault(name, underlying)
        return element_type(self._defined_as.get(named_type(written), ""))

    def _result(self, called: str, element: bool = False) -> str:
        """The result of `F` or `T.M` (its elements) when this file defines it; else the
        call as the query reads it (`F()`, `T:M()`, `T:M()[]`)."""
        if self._signatures is None:
            self._signatures = {}
            for symbol in self._symbols:
                if symbol.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD):
                    # A Go qualname starts with the package: `graphite.Bridge.Push`.
                    self._signatures[symbol.qualname.partition(".")[2]] = symbol.signature
        signature = self._signatures.get(called)
        if signature is not None:
            return first_result(signature, element=element)
        owner, dot, method = called.rpartition(".")
        return (f"{owner}:{method}()" if dot else f"{called}()") + ("[]" if element else "")

    def settle(self, type_: str, name_type: Callable[[str], str],
               local: Callable[[bytes], bool], depth: int = 0) -> str:
        """A name's type as its binding gave it, a call's result settled where this file
        can: `NewBridge()` when it defines NewBridge, `p.addBlock()` on a local `p`, a
        `range`'s elements (a few steps at most: `c := c.Parent()` names itself)."""
        if depth >= _GO_SETTLE_STEPS:
            return ""
        if type_.startswith(_GO_EXPRESSION):
            node = self._expressions.get(int(type_[len(_GO_EXPRESSION):]))
            return "" if node is None else self.type_of(node, name_type, local, depth + 1)
        if type_.startswith(_GO_KEYS):
            node = self._keyed.get(int(type_[len(_GO_KEYS):]))
            return "" if node is None else key_type(self._written(node, name_type, local, depth + 1))
        if type_.startswith(_GO_RANGE):
            node = self._ranges.get(int(type_[len(_GO_RANGE):]))
            if node is None or node.type not in (
                    "call_expression", "selector_expression", "identifier"):
                return ""
            return self.type_of(node, name_type, local, depth + 1, element=True)
        if not type_.endswith("()"):
            return type_
        head, dot, method = type_[:-2].rpartition(".")
        if not dot:
            return self._result(method)
        if head in self._packages and not local(head.encode()):
            return type_  # a package's function: the query reads it
        if not _IDENTIFIER.fullmatch(head):
            return ""
        return self._method(self._name(head, name_type, local, depth + 1), method)

    def _name(self, name: str, name_type: Callable[[str], str], local: Callable[[bytes], bool],
              depth: int) -> str:
        """A name's type: its binding's, settled; for a name the file does not bind, a
        variable of the package in another file (`=CommandLine`)."""
        found = self.settle(name_type(name), name_type, local, depth)
        return found or self.unbound(name, local)

    @staticmethod
    def wants(type_: str) -> bool:
        """Whether a receiver's type, as its binding gave it, is worked out here: unknown,
        a call's result, the elements of a `range`."""
        return not type_ or type_.endswith(")") or type_.startswith(
            (_GO_RANGE, _GO_KEYS, _GO_EXPRESSION))

    def unbound(self, name: str, local: Callable[[bytes], bool]) -> str:
        """`=name` for a name no scope of the file binds, and no import (a variable of
        the package, declared in another file); "" otherwise."""
        written = name.encode()
        if local(written) or written in self._module or name in self._packages or (
                not _IDENTIFIER.fullmatch(name)):
            return ""
        return f"{_GO_VARIABLE}{name}"

    def _method(self, owner: str, method: str, element: bool = False) -> str:
        """The result of a method on a value of type `owner` (its elements)."""
        if not owner:
            return ""
        if _go_unsettled(owner):
            return f"{owner}:{method}()" + ("[]" if element else "")
        return self._result(f"{owner}.{method}", element)

    def type_of(self, node: Node, name_type: Callable[[str], str],
                local: Callable[[bytes], bool], depth: int = 0, element: bool = False) -> str:
        """`node`'s type (with `element`, of the elements `range` gives of it);
        `name_type` gives a name's, `local` says whether a scope binds a name (a local
        function value is no package's function). A long chain of calls (a generated
        builder's) is not followed past `_GO_CHAIN_STEPS`."""
        kind = node.type
        if depth > _GO_CHAIN_STEPS:
            return ""
        if kind == "identifier":
            found = self._name(_text(node, self._parsed), name_type, local, depth)
            if not element:
                return found
            return "" if _go_unsettled(found) else self._elements(found)
        if kind == "index_expression" and not element:  # `n.items[i]`: an element
            operand = node.child_by_field_name("operand")
            return "" if operand is None else self.type_of(operand, name_type, local,
                                                           depth + 1, element=True)
        if kind in ("parenthesized_expression", "unary_expression"):  # (x), &x, *x
            inner = node.child_by_field_name("operand") or (
                node.named_children[0] if node.named_children else None)
            return "" if inner is None else self.type_of(inner, name_type, local, depth + 1,
                                                          element)
        if kind in ("type_assertion_expression", "composite_literal") and not element:
            written = node.child_by_field_name("type")  # x.(T), T{}
            return type_name(_text(written, self._parsed)) if written is not None else ""
        if kind == "selector_expression":
            selected = self._selected(node, name_type, local, depth)
            return self._field(*selected, element) if selected else ""
        if kind != "call_expression":
            return ""
        function = node.child_by_field_name("function")
        if function is not None and function.type == "identifier":
            name = self._parsed[function.start_byte : function.end_byte]
            if local(name):
                return ""
            arguments = node.child_by_field_name("arguments")
            if name == b"new" and not element and arguments is not None and (
                    arguments.named_child_count == 1):  # `new(Route).PathPrefix(...)`
                return type_name(_text(arguments.named_children[0], self._parsed))
            return self._result(name.decode(), element)
        if function is None or function.type != "selector_expression":
            return ""
        operand = function.child_by_field_name("operand")
        field = function.child_by_field_name("field")
        if operand is None or field is None:
            return ""
        method = _text(field, self._parsed)
        if self._package(operand, local):
            return f"{_text(operand, self._parsed)}.{method}()" + ("[]" if element else "")
        return self._method(self.type_of(operand, name_type, local, depth + 1), method,
                            element)

    def _package(self, node: Node, local: Callable[[bytes], bool]) -> bool:
        """Whether `node` is the name of an imported package (not shadowed by a local)."""
        if node.type != "identifier":
            return False
        name = self._parsed[node.start_byte : node.end_byte]
        return name.decode() in self._packages and not local(name)


#: A Python name bound to an expression's value (`c = await pool.get()`), until its type
#: is settled with the uses: `value:<the expression as written>` (two bindings to the
#: same expression agree); `items:<...>` for a name a `for` binds to each item of it,
#: `entered:<...>` for the name `with <expression> as c` binds.
_PY_VALUE = "value:"
_PY_ITEMS = "items:"
_PY_ENTERED = "entered:"
_PY_BINDING_CAPTURES = (("hint.value", _PY_VALUE), ("hint.items", _PY_ITEMS),
                        ("hint.entered", _PY_ENTERED))
_PY_MARKS = tuple(mark for _, mark in _PY_BINDING_CAPTURES)
#: How Go writes a slice, an array, a map or a channel type (`_Rules.collection_types`).
_COLLECTIONS = ("[", "map[", "chan ", "<-chan ")
#: A name unpacked from a tuple at a position (`a, b = pair()`: `at1:value:pair()` is b's).
_PY_AT = re.compile(r"at(\d+):")
_UNPACKING = frozenset({"pattern_list", "tuple_pattern"})
_PY_CHAIN_STEPS = 8
_PY_SELF = frozenset({"self", "cls"})
#: The longest receiver type kept (a name bound again many times, a long chain): each use
#: stores it.
_PY_TYPE_MAX_CHARS = 240
#: `type[C]`, `Type[C]`, `typing.Type["C"]`: the class C itself.
_CLASS_OBJECT = re.compile(r"(?:typing\.)?[Tt]ype\[\s*[\"']?(?P<name>[\w.]+)[\"']?\s*\]")
#: Calls that give the items of their argument, in a `for`: `for c in list(self._conns)`.
_SAME_ITEMS = frozenset({b"list", b"tuple", b"sorted", b"reversed", b"set", b"frozenset",
                         b"iter"})


#: A Python name annotated with a collection (`conns: list[Conn]`), as extraction keeps
#: it until an item's type is asked (`ann:list[Conn]`); its members are the collection's.
_PY_ANNOTATED = "ann:"


#: A class's name, dotted or not (`Conn`, `pool.Conn`): what a list's items can be written as.
_CLASS_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _python_annotation(written: str) -> str:
    """A Python annotation as a name's type: `type[C]` for a class object, `ann:...` for
    a collection of items of a class; else the class it names (`type_name`)."""
    written = written.strip()
    class_object = _CLASS_OBJECT.fullmatch(written)
    if class_object:
        return f"type[{class_object['name']}]"
    if item_type(written, iterated=True) or tuple_item(written, 0):
        return f"{_PY_ANNOTATED}{written}"
    return type_name(written)


def _instance(type_: str) -> str:
    """A value of `type_`, as its members are looked up: the class C for `type[C]`, the
    collection's class for `ann:list[C]`."""
    written = _CLASS_OBJECT.fullmatch(type_)
    if written:
        return written["name"]
    return type_name(type_[len(_PY_ANNOTATED):]) if type_.startswith(_PY_ANNOTATED) else type_


def _nth(owner: str, position: int) -> str:
    """The type of the item at `position` of a tuple of type `owner`: from its annotation
    (`ann:tuple[A, B]`) here, else left for the query (`...[1]`)."""
    if owner.startswith(_PY_ANNOTATED):
        return _python_annotation(tuple_item(owner[len(_PY_ANNOTATED):], position))
    if not owner or owner.startswith("type["):
        return ""
    return f"{owner}[{position}]"


#: A mapping's methods and what they give, in terms of its key K and value V.
_MAPPING_RESULTS = {"items": "list[tuple[{0}, {1}]]", "keys": "list[{0}]",
                    "values": "list[{1}]", "get": "{1}", "pop": "{1}", "setdefault": "{1}"}


def _mapping_result(owner: str, method: str) -> str:
    """What a mapping's method gives, when `owner` is an annotated mapping (`ann:dict[K,
    V]`, `.items()` → `ann:list[tuple[K, V]]`); "" otherwise."""
    if not owner.startswith(_PY_ANNOTATED) or method not in _MAPPING_RESULTS:
        return ""
    types = mapping_types(owner[len(_PY_ANNOTATED):])
    return _python_annotation(_MAPPING_RESULTS[method].format(*types)) if types else ""


def _called(name: str, type_: str) -> str:
    """What calling the name `name`, of type `type_`, makes: an instance of the class a
    classmethod's `cls` is (its type is that class's name), of a class object's class
    (`cls: type[C]` makes a C)."""
    made = _per_part(type_, _made)
    return made or (type_ if name == "cls" else "")


def _made(type_: str) -> str:
    """What calling a value of `type_` makes, when it is a class object: an instance."""
    return _instance(type_) if type_.startswith("type[") else ""


def _item(owner: str, iterated: bool) -> str:
    """The type of an item of a value of type `owner`: from its annotation (`ann:...`)
    here, else left for the query (`...[]`, `...[i]`); "" for a class object's."""
    if owner.startswith(_PY_ANNOTATED):
        return _python_annotation(item_type(owner[len(_PY_ANNOTATED):], iterated))
    if not owner or owner.startswith("type["):
        return ""  # `type[C][...]` is a generic alias, not an item
    return f"{owner}[i]" if iterated else f"{owner}[]"


class _PythonTypes:
    """The type of a Python receiver written as an expression, from its parts, as the
    query reads it (`storage/references.py`): what a method returns on a receiver whose
    type is known, `Pool:get()`; a member of it, `Pool:connections` (a property's
    annotation); an item of it, `...[]` (a subscript) and `...[i]` (what a `for` gives),
    each read from the indexed signatures when a query runs. A name bound to such an
    expression (`conn = await pool.get()`, `for conn in pool.connections`, `with
    pool.lease() as conn`) takes the expression's type; a name bound to several, each of
    them, joined by `REBOUND`. "" when a part is unknown; `UNTYPED` for a local whose
    type is unknown (a value, not a module)."""

    def __init__(self, captured: dict[str, list[Node]], parsed: bytes, imports: list[Import],
                 symbols: list[Symbol], module: dict[bytes, str]) -> None:
        self._captured = captured
        self._values: dict[str, Node] | None = None  # `value:...`, `items:...` → node
        self._parsed = parsed
        self._assumed: dict[str, str] = {}  # a name bound again → its other bindings' types
        self._imported = {record.name for record in imports if record.imported}

    @staticmethod
    def wants(type_: str) -> bool:
        """Whether a receiver's type, as its binding gave it, is worked out here: unknown
        (a receiver written as an expression), an expression's value, a class object or
        a collection annotated, a call of a name, a name bound again."""
        return not type_ or type_.startswith((*_PY_MARKS, "type[", _PY_ANNOTATED, "at")) or (
            type_.endswith("()") and "." not in type_) or REBOUND in type_

    @staticmethod
    def unbound(name: str, local: Callable[[bytes], bool]) -> str:
        """A name's type when its binding gives none: `UNTYPED` for a local (a value,
        though an import may share its name), "" otherwise."""
        return UNTYPED if local(name.encode()) else ""

    def settle(self, type_: str, name_type: Callable[[str], str],
               local: Callable[[bytes], bool], depth: int) -> str:
        """A name's type as its binding gave it, an expression's settled, and a call of
        a name bound to a class object (`cls()` after `cls: type[C]`, or in a
        classmethod) a C."""
        position = _PY_AT.match(type_)
        if position:  # an item of a tuple unpacked
            whole = self.settle(type_[position.end():], name_type, local, depth + 1)
            return _per_part(whole, functools.partial(_nth, position=int(position[1])))
        if type_.endswith("()") and _IDENTIFIER.fullmatch(type_[:-2]) and (
                depth <= _PY_CHAIN_STEPS):
            if not name_type(type_[:-2]):
                return type_
            called = self._name(type_[:-2], name_type, local, depth + 1)
            return _called(type_[:-2], called)
        for _, mark in _PY_BINDING_CAPTURES:
            if type_.startswith(mark):
                if self._values is None:
                    self._values = {
                        f"{prefix}{_text(node, self._parsed)}": node
                        for capture, prefix in _PY_BINDING_CAPTURES
                        for node in self._captured.get(capture, ())}
                node = self._values.get(type_)
                if node is None:
                    return ""
                if mark == _PY_ITEMS:
                    return self._items(node, name_type, local, depth + 1)
                typed = self._type(node, name_type, local, depth + 1)
                if not typed and node.type == "identifier":  # `gen = generator_192`
                    name = _text(node, self._parsed)
                    if name in self._imported and not local(name.encode()):
                        return f"{IMPORTED}{name}"  # read where the other module makes it
                if mark == _PY_ENTERED and typed:
                    return _per_part(typed, lambda part: part + ENTERED)
                return typed
        return type_

    def type_of(self, node: Node, name_type: Callable[[str], str],
                local: Callable[[bytes], bool]) -> str:
        """The type of the receiver `node`; `name_type` gives a name's type as its binding
        gave it (`self.x` too), `local` says whether a scope binds a name."""
        head = node
        while head.type in ("attribute", "subscript"):  # most are a module's (`os.path`)
            head = head.child_by_field_name("object" if head.type == "attribute" else "value")
            if head is None:
                return ""
        if head.type == "identifier" and head is not node:
            name = _text(head, self._parsed)
            if name not in _PY_SELF and not name_type(name):
                return self.unbound(name, local)
        typed = _per_part(self._type(node, name_type, local, 0), _instance)
        if not typed and head.type == "identifier":  # a local's value, of no type known
            return self.unbound(_text(head, self._parsed), local)
        return typed if len(typed) <= _PY_TYPE_MAX_CHARS else ""

    def _name(self, name: str, name_type: Callable[[str], str],
              local: Callable[[bytes], bool], depth: int) -> str:
        """A name's type, settled; for a name bound again, each binding's, those that
        rebind it from itself (`log = log.bind()`) read with the others' types."""
        if name in self._assumed:
            return self._assumed[name]
        typed = name_type(name)
        if REBOUND not in typed:
            return self.settle(typed, name_type, local, depth)
        parts = typed.split(REBOUND)
        own = [part for part in parts
               if _PY_AT.sub("", part, count=1).startswith(_PY_MARKS)
               and _HEAD.match(part)[1] == name]
        self._assumed[name] = ""
        try:
            settled = [self.settle(part, name_type, local, depth + 1)
                       for part in parts if part not in own]
            if not settled or not all(settled):
                return ""
            self._assumed[name] = REBOUND.join(dict.fromkeys(settled))
            settled += [self.settle(part, name_type, local, depth + 1) for part in own]
        finally:
            del self._assumed[name]
        return REBOUND.join(dict.fromkeys(settled)) if all(settled) else ""

    def _type(self, node: Node, name_type: Callable[[str], str],
              local: Callable[[bytes], bool], depth: int) -> str:
        """`node`'s type as the query reads it, before a class object's instance is
        taken (a long chain is not followed past `_PY_CHAIN_STEPS`)."""
        if depth > _PY_CHAIN_STEPS:
            return ""
        kind = node.type
        if kind == "identifier":
            return self._name(_text(node, self._parsed), name_type, local, depth)
        if kind in ("await", "parenthesized_expression"):
            inner = node.named_children[0] if node.named_children else None
            return self._type(inner, name_type, local, depth + 1) if inner else ""
        if kind == "list_comprehension":  # `[Conn(a) for a in addresses]`: a list of Conn
            body = node.child_by_field_name("body")
            item = self._type(body, name_type, local, depth + 1) if body is not None else ""
            return f"{_PY_ANNOTATED}list[{item}]" if _CLASS_PATH.fullmatch(item) else ""
        if kind == "subscript":
            value = node.child_by_field_name("value")
            owner = self._type(value, name_type, local, depth + 1) if value else ""
            return _per_part(owner, functools.partial(_item, iterated=False))
        if kind == "attribute":
            owner_node = node.child_by_field_name("object")
            member = node.child_by_field_name("attribute")
            if owner_node is None or member is None:
                return ""
            if owner_node.type == "identifier":  # `self.x` assigned in this file
                known = name_type(_text(node, self._parsed))
                if known:
                    return self.settle(known, name_type, local, depth)
            owner = _per_part(self._type(owner_node, name_type, local, depth + 1), _instance)
            step = f":{_text(member, self._parsed)}"
            return _per_part(owner, lambda part: part + step) if owner else ""
        if kind != "call":
            return ""
        function = node.child_by_field_name("function")
        if function is not None and function.type == "subscript":  # a generic class's
            function = function.child_by_field_name("value")  # call: `Stream[str](1)`
        if function is None:
            return ""
        if function.type == "identifier":
            name = _text(function, self._parsed)
            typed = self._name(name, name_type, local, depth)
            if typed:
                return _called(name, typed)
            written = name.encode()  # a builtin's result (`super()`, `len()`) is no class of ours
            return "" if local(written) or written in _PYTHON_BUILTINS else (
                _python_call_result(name))
        if function.type != "attribute":
            return ""
        owner_node = function.child_by_field_name("object")
        method = function.child_by_field_name("attribute")
        if owner_node is None or method is None:
            return ""
        written = self._type(owner_node, name_type, local, depth + 1)
        mapped = _per_part(written, functools.partial(
            _mapping_result, method=_text(method, self._parsed)))
        if mapped:  # `by_name.items()` on `by_name: dict[str, Conn]`
            return mapped
        owner = _per_part(written, _instance)
        if owner:
            step = f":{_text(method, self._parsed)}()"
            return _per_part(owner, lambda part: part + step)
        if owner_node.type == "identifier" and local(
                self._parsed[owner_node.start_byte : owner_node.end_byte]):
            return ""  # an untyped local's method
        # a module's function or a class's factory (`helpers.make()`, `Config.from_env()`)
        return _python_call_result(_text(function, self._parsed))

    def _items(self, node: Node, name_type: Callable[[str], str],
               local: Callable[[bytes], bool], depth: int) -> str:
        """The type of each item a `for` over `node` gives (`list(x)` gives x's)."""
        while node.type == "call":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if function is None or function.type != "identifier" or arguments is None or (
                    arguments.named_child_count != 1):
                break
            name = self._parsed[function.start_byte : function.end_byte]
            if name not in _SAME_ITEMS or local(name):
                break
            node = arguments.named_children[0]
        return _per_part(self._type(node, name_type, local, depth + 1),
                         functools.partial(_item, iterated=True))


#: What a hint pattern may say of its name's type (`_hint_type`).
_HINT_PARTS = frozenset({"hint.type", "hint.new", "hint.call", "hint.arg", "hint.ctor",
                         "hint.range", "hint.keys", "hint.expression", "hint.enter",
                         "hint.param",
                         "hint.value", "hint.items", "hint.entered"})


def _hint_type(root: Node, var: Node, alone: QueryCursor, parsed: bytes,
               rules: _Rules) -> tuple[str, bool] | None:
    """The type one hint pattern rooted at `root` gives `var` (a declared type first,
    then a constructed one, then a constructor's call), and whether it is the declared
    one; None when none does."""
    found: dict[str, Node] = {}
    for _, captures in alone.matches(root):
        if captures.get("hint", (None,))[0] != root:
            continue
        named = captures.get("hint.var") or captures.get("hint.member")
        if not named or named[0] != var:
            continue
        for capture, nodes in captures.items():  # the few a match has, not all parts
            if capture in _HINT_PARTS:
                found.setdefault(capture, nodes[0])
    if not found:
        return None
    if "hint.range" in found:  # Go: settled with the uses (`_GoTypes.settle`)
        return f"{_GO_RANGE}{found['hint.range'].start_byte}", False
    if "hint.keys" in found:  # likewise
        return f"{_GO_KEYS}{found['hint.keys'].start_byte}", False
    if "hint.expression" in found:  # likewise
        return f"{_GO_EXPRESSION}{found['hint.expression'].start_byte}", False
    if "hint.type" in found and rules.class_objects:  # `cls: type[C]`, `conns: list[C]`
        annotated = _python_annotation(_text(found["hint.type"], parsed))
        if annotated:
            return annotated, True
    if "hint.ctor" in found and _text(found.pop("hint.ctor"), parsed) not in rules.ctor_names:
        found.pop("hint.new", None)  # `T::parse(...)`, `C.find`: no constructor
    declared = found.get("hint.type") or found.get("hint.new")
    if declared is not None and rules.collection_types:
        written = _WHITESPACE.sub(" ", _text(declared, parsed).strip())
        if written.startswith(_COLLECTIONS):
            return written, "hint.type" in found
    if "hint.arg" in found and "hint.call" in found and _text(found["hint.call"], parsed) == "new":
        return type_name(_text(found["hint.arg"], parsed)), False  # Go's `new(T)`
    for capture in ("hint.type", "hint.new"):  # a declared `auto` gives way to the value's
        if capture in found:
            node = found[capture]
            type_ = "" if node.type in _LOOKUP_TYPES else type_name(_text(node, parsed))
            if type_:
                return type_, capture == "hint.type"
    for capture, mark in _PY_BINDING_CAPTURES:
        if capture in found:  # Python: settled with the uses (`_PythonTypes.settle`)
            unpacked = var.parent is not None and var.parent.type in _UNPACKING
            at = f"at{var.parent.named_children.index(var)}:" if unpacked else ""
            return f"{at}{mark}{_text(found[capture], parsed)}", False
    if "hint.call" in found:
        return rules.ctor(_WHITESPACE.sub("", _text(found["hint.call"], parsed))), False
    if "hint.param" in found:  # `self.stream = stream`: the parameter's annotation
        return _parameter_type(found["hint.param"], parsed), False
    if "hint.enter" in found:  # `with C(...) as x`: what C's `__enter__` gives, for the query
        constructed = _python_ctor(_WHITESPACE.sub("", _text(found["hint.enter"], parsed)))
        return (f"{constructed}{ENTERED}" if constructed else ""), False
    return "", False


def _parameter_type(name: Node, parsed: bytes) -> str:
    """The type the innermost function around `name` declares for its parameter of that
    name (Python's `def __init__(self, stream: Stream)`), or "" (none of that name, or
    not annotated)."""
    function = name.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    parameters = function.child_by_field_name("parameters") if function else None
    written = parsed[name.start_byte : name.end_byte]
    for parameter in parameters.named_children if parameters else ():
        if parameter.type not in ("typed_parameter", "typed_default_parameter"):
            continue
        named = parameter.child_by_field_name("name") or parameter.named_children[0]
        declared = parameter.child_by_field_name("type")
        if declared is not None and parsed[named.start_byte : named.end_byte] == written:
            return _python_annotation(_text(declared, parsed))
    return ""


def _imports(statement: Node, alone: QueryCursor, parsed: bytes,
             rules: _Rules) -> list[tuple[int, Import]]:
    """The names one import statement binds, in source order, each with the start byte
    of the name it takes (the module's, when it takes none)."""
    line = statement.start_point.row + 1
    records: list[tuple[int, Import]] = []
    for _, captures in alone.matches(statement):
        if "import" not in captures or captures["import"][0] != statement:
            continue
        callee = captures.get("import.callee")
        if callee and _text(callee[0], parsed) not in rules.import_callees:
            continue  # a call of something else than `require` with a string
        alias = _text(captures["import.alias"][0], parsed) if "import.alias" in captures else ""
        if "import.module" in captures:
            module = captures["import.module"][0]
            source = _text(module, parsed).strip("\"'`<>")
            records.append((module.start_byte, Import(
                name=alias or rules.module_name(source), source=source, line=line)))
            continue
        if "import.path" in captures:  # the module's path and the name, as one (Kotlin)
            path = captures["import.path"][0]
            source, _, imported = _text(path, parsed).rpartition(".")
            records.append((path.end_byte - len(imported.encode()), Import(
                name=alias or imported, source=source, imported=imported, line=line)))
            continue
        source_node = captures.get("import.source")  # none: the global namespace (PHP)
        source = _text(source_node[0], parsed).strip("\"'`<>") if source_node else ""
        if "import.wildcard" in captures:
            records.append((captures["import.wildcard"][0].start_byte,
                            Import(name="*", source=source, line=line)))
        elif "import.default" in captures:  # JavaScript's `import X from "m"`
            name_node = captures["import.default"][0]
            records.append((name_node.start_byte, Import(
                name=_text(name_node, parsed), source=source, imported="default", line=line)))
        else:
            name_node = captures["import.name"][0]
            imported = _text(name_node, parsed)
            records.append((name_node.start_byte, Import(
                name=alias or imported, source=source, imported=imported, line=line)))
    if len(records) > 1:  # a module binding no name counts when it is the only one
        records = [record for record in records if record[1].name]
    records.sort(key=lambda record: record[0])
    return records


def _receiver(start: int, receivers: dict[int, Node], parsed: bytes) -> Node | None:
    """The receiver captured right before a name and its separator (`a.b`, `a?.b`,
    `a->b`, `A::b`, `a&.b`, `A\\b`, a key in quotes: `a['b']`, `Options['b']`)."""
    end = start
    while end and parsed[end - 1] in _SPACE:
        end -= 1
    if end < 2:
        return None
    last = parsed[end - 1]
    if last in _QUOTES:  # `a['b']`: the receiver ends at its `[`
        end -= 1
        while end and parsed[end - 1] in _SPACE:
            end -= 1
        if not end or parsed[end - 1] != 0x5B:
            return None
        end -= 1
        while end and parsed[end - 1] in _SPACE:
            end -= 1
        return receivers.get(end)
    if last == 0x2E:  # .
        end -= 2 if parsed[end - 2] in b"?&" else 1
    elif last == 0x5C:  # backslash
        end -= 1
    elif (last == 0x3E and parsed[end - 2] == 0x2D) or (last == 0x3A and parsed[end - 2] == 0x3A):
        end -= 2  # -> ::
    else:
        return None
    while end and parsed[end - 1] in _SPACE:
        end -= 1
    return receivers.get(end)


def _occurrences(
    uses: _Uses, receivers: dict[int, Node],
    imports: list[Import], sources: dict[int, str], scopes: list[tuple[int, int]],
    bindings: _Bindings,
    skips: list[tuple[int, int]], symbols: list[Symbol],
    member_hints: list[tuple[int, str, str, bool]], parsed: bytes, rules: _Rules, separator: str,
    check: Callable[[], None], chained: _GoTypes | _PythonTypes | None = None,
    returned: Sequence[Node] = (), yields: Sequence[Node] = (),
    read_from: dict[int, Node] | None = None,
) -> list[Occurrence]:
    """The uses kept, in source order: a sweep over the uses, the skipped spans, the
    scopes and the definitions' lines together. Python's functions that do not annotate
    what they return are given, in `symbols`, what their `return` statements agree on
    (`_returns`). `read_from`: the value each name an object pattern binds is read out
    of, by the name's start (its receiver)."""
    skips.sort()
    skips.append((len(parsed) + 1, len(parsed) + 1))  # a sentinel: the sweep needs no bound check
    spans = sorted(
        ((min(s.start_line or s.line, s.line), s.end_line + 1, i) for i, s in enumerate(symbols)),
        key=lambda span: (span[0], -span[1], span[2]),
    )
    order = [i for _, _, i in spans]
    lines = [(start, end) for start, end, _ in spans]  # each definition's, in that order
    enclosing = _Nest(lines)
    members = _member_types(member_hints, symbols, spans, order, separator)
    visible = _visible(scopes, bindings)
    separate = rules.type_namespace
    builtins = rules.builtins
    if builtins:
        # Go's blank identifier stays no use where a declaration "defines" it (`var _ = x`).
        builtins = builtins.difference([symbol.name.encode() for symbol in symbols
                                        if symbol.name != "_"],
                                       [record.name.encode() for record in imports])
    scopes.append((len(parsed) + 1, len(parsed) + 1))  # a sentinel, as for skips
    stack: list[int] = []  # the scopes around the current use, outermost first
    next_scope, next_scope_start = 0, scopes[0][0]
    # The innermost scope (-1: none), its end and the names it sees.
    scope_id, scope_end, seen = -1, len(parsed) + 1, frozenset()
    skip_index, next_skip, covered = 0, skips[0][0], -1
    around, definition_id, enclosing_name = [], -1, ""  # the definitions around, innermost
    ascii_only = parsed.isascii()  # most files: a column in bytes is one in characters
    occurrences: list[Occurrence] = []
    append = occurrences.append
    # An enum's member, read from its class, costs a lookup (Python 3.11): read once.
    type_kind = UseKind.TYPE if separate else None
    # A type constructed (Go's `field{}`, Java's `new Field()`) is a use of the kind `call`
    # of a type's name: a value of that name bound around it (`field := f.field`) is no
    # type, so it does not make the use local.
    call_kind = UseKind.CALL if separate else None
    import_kind = UseKind.IMPORT
    types_seen: dict[tuple[str, int, int], str] = {}
    receiver_texts: dict[bytes, str] = {}
    names: dict[bytes, str] = {}
    # Sorted as plain integers: a list of (start, use) pairs sorts several times slower.
    next_check = 0
    nodes, kinds = uses
    for start in sorted(nodes):
        if start >= next_check:  # a large file: the deadline, every 128 KiB of it
            check()
            next_check = start + 0x20000
        if next_skip <= start:
            while skips[skip_index][0] <= start:
                if skips[skip_index][1] > covered:
                    covered = skips[skip_index][1]
                skip_index += 1
            next_skip = skips[skip_index][0]
        if start < covered:
            continue
        if next_scope_start <= start or scope_end <= start:
            while scopes[next_scope][0] <= start:
                scope_start = scopes[next_scope][0]
                while stack and scopes[stack[-1]][1] <= scope_start:
                    stack.pop()
                stack.append(next_scope)
                next_scope += 1
            next_scope_start = scopes[next_scope][0]
            while stack and scopes[stack[-1]][1] <= start:
                stack.pop()
            if stack:
                scope_id = stack[-1]
                scope_end, seen = scopes[scope_id][1], visible[scope_id]
            else:
                scope_id, scope_end, seen = -1, len(parsed) + 1, frozenset()
        node = nodes[start]
        written = parsed[start : node.end_byte]
        if not written:  # a node the parser made up (a missing name)
            continue
        kind, member = kinds[start]
        if not member:
            receiver_node = None
        elif start > 1 and parsed[start - 1] == 0x2E and parsed[start - 2] not in _NOT_BEFORE_DOT:
            receiver_node = receivers.get(start - 1)  # `a.b`, most receivers: as `_receiver`
        else:  # or the value an object pattern reads the name out of
            receiver_node = _receiver(start, receivers, parsed) or (
                read_from.get(start) if read_from else None)
        if receiver_node is None and (written in builtins or (
                b":" + written in seen if kind is type_kind else written in seen and not (
                    kind is call_kind and node.type == "type_identifier"
                    and b":" + written not in seen))):
            continue
        name = names.get(written)  # most names are used again: each decoded once
        if name is None:
            name = names[written] = written.decode("utf-8", errors="replace")
        row, column = node.start_point
        line = row + 1
        if line >= enclosing.until:  # else the same definitions are around as before
            around = list(enclosing.at(line))
            definition_id = around[-1] if around else -1
            enclosing_name = symbols[order[definition_id]].qualname if around else ""
        receiver = receiver_type = ""
        if kind is import_kind:
            receiver = sources.get(start, "")
        elif receiver_node is not None:
            # Most receivers are written again and again (`s.`, `fmt.`): each read once.
            written_receiver = parsed[receiver_node.start_byte : receiver_node.end_byte]
            receiver = receiver_texts.get(written_receiver)  # type: ignore[assignment]
            if receiver is None:
                receiver = receiver_texts[written_receiver] = _receiver_text(receiver_node,
                                                                             parsed)
            # The same receiver in the same scope and definition has the same type.
            key = (receiver, scope_id, definition_id)
            receiver_type = types_seen.get(key)  # type: ignore[assignment]
            if receiver_type is None:
                receiver_type = types_seen[key] = _receiver_type(
                    receiver, stack, bindings, around, order, symbols, members, rules,
                    separator)
                if chained is not None and chained.wants(receiver_type):
                    if not receiver_type and receiver_node.type == "identifier":
                        # Most are packages (`fmt.`) or untyped locals: no parts to read.
                        receiver_type = chained.unbound(receiver, seen.__contains__)
                    else:
                        name_type = functools.partial(
                            _receiver_type, chain=list(stack), bindings=bindings,
                            around=around, order=order, symbols=symbols, members=members,
                            rules=rules, separator=separator)
                        receiver_type = chained.type_of(receiver_node, name_type,
                                                        seen.__contains__)
                    types_seen[key] = receiver_type
        if column and not ascii_only:
            prefix = parsed[start - column : start]
            if not prefix.isascii():
                column = len(prefix.decode("utf-8", errors="replace"))
        append(Occurrence(name=name, line=line, column=column + 1, kind=kind,
                          receiver=receiver, receiver_type=receiver_type,
                          enclosing=enclosing_name))
    scopes.pop()
    if returned and isinstance(chained, _PythonTypes):
        name_types = functools.partial(
            _receiver_type, bindings=bindings, order=order, symbols=symbols,
            members=members, rules=rules, separator=separator)
        _returns(returned, yields, symbols, lines, order, scopes, visible, name_types,
                 chained, parsed)
    return occurrences


def _returns(returned: Sequence[Node], yields: Sequence[Node], symbols: list[Symbol],
             spans: list[tuple[int, int]], order: list[int], scopes: list[tuple[int, int]],
             visible: list[frozenset[bytes]], name_types: Callable[..., str],
             chained: _PythonTypes, parsed: bytes) -> None:
    """Fills in `Symbol.returns` of each function that does not annotate what it returns:
    the types of what its `return` statements give, read as a receiver's are, joined by
    `REBOUND` for the query to settle each and see that they agree (`return None`
    aside). A generator's (a `yield` in it) is not its call's result; a return of
    anything of no type known (`return x + 1`, an untyped local) leaves the function
    without one, as a type checker would give it a union."""
    functions = {(symbol.line, symbol.name): index for index, symbol in enumerate(symbols)
                 if symbol.kind in _FUNCTION_KINDS and not return_annotation(symbol.signature)}
    if not functions:
        return
    generators = {_owner(node, functions, parsed) for node in yields}
    found: dict[int, set[str]] = {}
    definitions, scope_nest = _Nest(spans), _Nest(scopes)
    for node in sorted(returned, key=lambda node: node.start_byte):
        owner = _owner(node, functions, parsed)
        if owner is None or owner in generators or node.type == "none":
            continue
        stack = scope_nest.at(node.start_byte)
        name_type = functools.partial(name_types, chain=list(stack),
                                      around=list(definitions.at(node.start_point.row + 1)))
        seen = visible[stack[-1]] if stack else frozenset()
        found.setdefault(owner, set()).add(chained.type_of(node, name_type, seen.__contains__))
    for owner, types in found.items():
        if all(types) and UNTYPED not in types:  # the query settles each, and they must agree
            symbols[owner] = msgspec.structs.replace(symbols[owner],
                                                     returns=REBOUND.join(sorted(types)))


_FUNCTION_KINDS = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD})


def _fields(declarations: Sequence[Node], symbols: list[Symbol], parsed: bytes) -> None:
    """Fills in `Symbol.fields` of each Go struct from its field declarations (`a, b int`
    names two; an embedded field, which has no name of its own, none)."""
    found: dict[tuple[int, str], list[str]] = {}
    for struct, names, _ in _field_declarations(
            sorted(declarations, key=lambda node: node.start_byte), parsed):
        found.setdefault((struct.start_point.row + 1, _text(struct, parsed)), []).extend(names)
    for index, symbol in enumerate(symbols):
        names = found.get((symbol.line, symbol.name)) if symbol.kind is SymbolKind.STRUCT else None
        if names:
            symbols[index] = msgspec.structs.replace(symbol, fields=" ".join(names))


def _field_declarations(declarations: Iterable[Node], parsed: bytes
                        ) -> Iterator[tuple[Node, list[str], str]]:
    """Each Go field declaration (`@struct.field`) as its struct's name node, the names it
    declares (none for an embedded field) and its type as written."""
    for node in declarations:
        spec = node.parent.parent.parent  # field_declaration_list, struct_type, type_spec
        struct = spec.child_by_field_name("name") if spec is not None else None
        written = node.child_by_field_name("type")
        if struct is not None and written is not None:
            yield struct, [_text(name, parsed) for name in node.children_by_field_name(
                "name")], _text(written, parsed)


def _owner(node: Node, functions: dict[tuple[int, str], int], parsed: bytes) -> int | None:
    """The index in `functions` of the function a `return` or `yield` is in (the nearest
    `def` around it), or None when that is not one of them."""
    parent = node.parent
    while parent is not None and parent.type not in ("function_definition", "lambda"):
        parent = parent.parent
    name = parent.child_by_field_name("name") if parent is not None else None
    if name is None:
        return None
    return functions.get((name.start_point.row + 1, _text(name, parsed)))


def _enclosing_class(around: list[int], order: list[int], symbols: list[Symbol],
                     separator: str) -> str:
    """The class `self`/`this` is an instance of: the innermost class-like definition
    around, else the scope of the innermost method's name (C++'s `void Pool::reset()`,
    Rust's `impl Pool { fn reset(&self) }`)."""
    method = ""
    for index in reversed(around):
        symbol = symbols[order[index]]
        if symbol.kind in _CLASS_KINDS:
            return symbol.qualname
        if not method and symbol.kind is SymbolKind.METHOD:
            method = symbol.qualname
    scope, found, _ = method.rpartition(separator) if separator else ("", "", "")
    return scope if found else ""


def _member_types(member_hints: list[tuple[int, str, str, bool]], symbols: list[Symbol],
                  spans: list[tuple[int, int, int]], order: list[int],
                  separator: str) -> dict[tuple[str, str], str]:
    """`self.x = C()` anywhere in a class: (class, `self.x`) → `C`, while all agree; a
    declared type (`self.x: Base | None = None`) over the values assigned (`self.x =
    Child()`), as a type checker reads it, while the declarations agree."""
    types: dict[tuple[str, str], str] = {}
    declared_keys: set[tuple[str, str]] = set()
    if not member_hints:
        return types
    nest = _Nest([(start, end) for start, end, _ in spans])
    for line, text, type_, declared in sorted(member_hints):
        owner = _enclosing_class(nest.at(line), order, symbols, separator)
        if not owner:
            continue
        key = (owner, text)
        if declared and key not in declared_keys:
            declared_keys.add(key)
            types.pop(key, None)  # the values assigned give way
        elif key in declared_keys and not declared:
            continue
        known = types.get(key)
        types[key] = type_ if known is None or known == type_ else ""
    return types


def _receiver_type(
    receiver: str, chain: list[int], bindings: _Bindings, around: list[int],
    order: list[int], symbols: list[Symbol], members: dict[tuple[str, str], str],
    rules: _Rules, separator: str,
) -> str:
    if receiver in rules.self_names:
        owner = _enclosing_class(around, order, symbols, separator)
        if owner:
            return owner
        # A function outside any class may still name a parameter `self` and annotate it
        # (`def exception(self: BoundLogger, ...)`, bound to a class later): read as any.
    if receiver == rules.super_name:
        return members.get((_enclosing_class(around, order, symbols, separator), receiver), "")
    written, receiver = rules.written_type(receiver)
    if written:
        return written
    if _IDENTIFIER.fullmatch(receiver):
        name = receiver.encode()
        innermost = chain[-1] if chain else -1
        for scope in reversed(chain):
            if scope in bindings.hidden and scope != innermost:
                continue  # a class's names, not seen by its methods
            known = bindings.scopes[scope].get(name)
            if known is not None:
                return known
        known = bindings.module.get(name)
        if known is not None or not (rules.implicit_self and members):
            return known or ""
        owner = _enclosing_class(around, order, symbols, separator)
        return members.get((owner, f"{rules.self_name}.{receiver}"), "")
    if members:
        head, dot, _ = receiver.partition(".")
        if dot and head in rules.self_names:
            return members.get((_enclosing_class(around, order, symbols, separator), receiver),
                               "")
    return ""
