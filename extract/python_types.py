"""Python's types as a function's signature writes them, for the receivers of references:
the class a call returns (`c = make_converter()` after `def make_converter() ->
Converter`), and whether a context manager's `__enter__` returns itself (`with
Client() as c`), read by `storage/references.py` from the indexed signatures when a query
runs (extraction records the call, `make_converter()`, not knowing the function).

Imports: the standard library, `extract.brackets`.
"""

from __future__ import annotations

import re

from symfind.extract.brackets import closing, top_level_parts

#: A receiver that is a value whose type the file does not show (a local name): not a
#: module, though an import may share its name (`[t.f() for t in items]` beside `import
#: typing as t`).
UNTYPED = "?"

#: Joins the types of a name bound to different values (`log = log.bind()` after `log:
#: Logger`): the query resolves each, and the name has a type when they all agree.
REBOUND = "\x1f"

#: A value the file imports from another module (`from .ecdsa import generator_192`), as
#: the type of a name bound to it (`gen = generator_192`: `=generator_192`); the query
#: reads what the other module assigns it.
IMPORTED = "="

#: What extraction leaves as `x`'s type for `with C(...) as x` (`C:__enter__()`): the result
#: of C's `__enter__` (or `__aenter__`), which the query reads from the indexed signatures.
ENTERED = ":__enter__()"

_CLASS_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
#: `Optional[T]`, `Union[T, None]` and their `typing.` (or `t.`) spellings: T.
_OPTIONAL = re.compile(r"(?:\w+\.)*(?:Optional\[(?P<one>.+)\]|Union\[(?P<union>.+)\])")
#: Names that give no class a method is looked up on: `-> Self` is the receiver's class,
#: which the call's text does not give; `-> type[Session]` is a class, not an instance.
_NO_CLASS = frozenset({"None", "Self", "typing.Self", "Any", "typing.Any", "NoReturn",
                       "Never", "object", "type", "Type", "typing.Type"})


def return_type(signature: str) -> str:
    """The class a function's signature says it returns (`def f(x) -> Session` →
    `Session`, `-> "Session"`, `-> Session | None`, `-> Optional[Session]`,
    `-> Session[T]` → `Session`, `-> list[Session]` → `list`); "" when it says none, or
    names several (`-> A | B`), or no class (`-> None`, `-> Self`, `-> type[Session]`),
    or the signature is cut short."""
    close = _closing_parenthesis(signature)
    if close < 0:
        return ""
    arrow, _, written = signature[close + 1:].partition("->")
    if arrow.strip() or not written:
        return ""
    return annotated_class(written.strip().rstrip(":"))


def annotated_class(written: str) -> str:
    """The class an annotation names (`"Session"`, `Session | None`, `Optional[Session]`,
    `Session[T]` → `Session`; `list[Session]` → `list`); "" when it names several, or no
    class (`None`, `Self`, `type[Session]`)."""
    written = written.strip().strip("\"'").strip()
    optional = _OPTIONAL.fullmatch(written)
    if optional:
        written = optional["one"] or optional["union"]
    kept = [part.strip().strip("\"'") for part in top_level_parts(written, "|,")]
    kept = [part for part in kept if part != "None"]
    if len(kept) != 1:
        return ""
    name = kept[0].split("[", 1)[0].strip()
    return name if _CLASS_NAME.fullmatch(name) and name not in _NO_CLASS else ""


def return_annotation(signature: str) -> str:
    """A function's return annotation as written, outer quotes off ("" none, or the
    signature cut short)."""
    return _returned(signature) or ""


#: Generic classes whose arguments are their items' types: the one argument (`list[C]`),
#: or (`Mapping[K, V]`) the key's for what a `for` gives and the value's for a subscript.
_SEQUENCES = frozenset({
    "list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection",
    "AsyncIterable", "AsyncIterator", "Generator", "AsyncGenerator", "set", "Set",
    "MutableSet", "AbstractSet", "frozenset", "FrozenSet", "deque", "Deque"})
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict",
                       "defaultdict", "DefaultDict", "ChainMap", "Counter"})
#: A generic annotation, its module's name (`typing.`, `t.`, `collections.abc.`) dropped.
_GENERIC = re.compile(r"(?:\w+\.)*(?P<name>\w+)\[(?P<args>.*)\]", re.S)


def item_type(written: str, iterated: bool) -> str:
    """The annotation of an item of a value annotated `written`: what a `for` over it
    gives (`iterated`), else what a subscript gives. `list[C]` → `C`; `dict[K, V]` → `K`
    iterated, `V` subscripted; `tuple[C, ...]` → `C`; "" for anything else."""
    generic = _GENERIC.fullmatch(_unwrapped(written))
    if generic is None:
        return ""
    name = generic["name"]
    arguments = [part.strip() for part in top_level_parts(generic["args"])]
    if name in _SEQUENCES:
        return arguments[0]
    if name in _MAPPINGS and len(arguments) == 2:
        return arguments[0 if iterated else 1]
    if name in ("tuple", "Tuple") and len(arguments) == 2 and arguments[1] == "...":
        return arguments[0]
    return ""


def tuple_item(written: str, position: int) -> str:
    """The annotation of the item at `position` of a value annotated as a tuple
    (`tuple[A, B]`, `Tuple[A, B]`; `tuple[C, ...]` → `C` at any position); ""
    otherwise."""
    generic = _GENERIC.fullmatch(_unwrapped(written))
    if generic is None or generic["name"] not in ("tuple", "Tuple"):
        return ""
    arguments = [part.strip() for part in top_level_parts(generic["args"])]
    if len(arguments) == 2 and arguments[1] == "...":
        return arguments[0]
    return arguments[position] if position < len(arguments) else ""


def mapping_types(written: str) -> tuple[str, str] | None:
    """The key's and the value's annotations of a value annotated as a mapping
    (`dict[K, V]`, `Mapping[K, V]`); None otherwise."""
    generic = _GENERIC.fullmatch(_unwrapped(written))
    if generic is None or generic["name"] not in _MAPPINGS:
        return None
    arguments = [part.strip() for part in top_level_parts(generic["args"])]
    return (arguments[0], arguments[1]) if len(arguments) == 2 else None


def _unwrapped(written: str) -> str:
    """An annotation without its quotes, `Optional[...]` and `| None`; "" for a union."""
    written = written.strip().strip("\"'").strip()
    optional = _OPTIONAL.fullmatch(written)
    if optional:
        written = (optional["one"] or optional["union"]).strip()
    kept = [part.strip() for part in top_level_parts(written, "|") if part.strip() != "None"]
    return kept[0] if len(kept) == 1 else ""


#: What a generator-based context manager's function is annotated to return
#: (`@contextmanager def lease(self) -> Iterator[Conn]`): `with` binds its first argument.
_GENERATORS = frozenset({"Iterator", "Generator", "AsyncIterator", "AsyncGenerator",
                         "ContextManager", "AbstractContextManager", "AsyncContextManager",
                         "AbstractAsyncContextManager"})


def entered_type(written: str) -> str:
    """What `with` binds from a value annotated `written` when the annotation says it
    (`Iterator[Conn]`, `AsyncContextManager[Conn]` → `Conn`); "" otherwise."""
    generic = _GENERIC.fullmatch(written.strip().strip("\"'").strip())
    if generic is None or generic["name"] not in _GENERATORS:
        return ""
    return top_level_parts(generic["args"])[0].strip()


def returns_self(signature: str) -> bool:
    """Whether a method's signature says it returns its receiver, or says nothing of what
    it returns (`__enter__`, whose body most often ends `return self`): `-> Self`, or the
    type its `self` is annotated with (`def __aenter__(self: T) -> T`)."""
    written = _returned(signature)
    if written is None:
        return False
    if not written or written in _SELF:
        return True
    annotated = _SELF_ANNOTATION.search(signature)
    return annotated is not None and annotated["type"] == written


def returns_self_type(signature: str) -> bool:
    """Whether a method's signature is annotated `-> Self` (a classmethod's `cls(...)`)."""
    return _returned(signature) in _SELF


_SELF = frozenset({"Self", "typing.Self", "typing_extensions.Self"})


def _returned(signature: str) -> str | None:
    """The return annotation as written, quotes off ("" none; None: cut short)."""
    close = _closing_parenthesis(signature)
    if close < 0:
        return None
    return signature[close + 1:].partition("->")[2].strip().rstrip(":").strip().strip("\"'")


_SELF_ANNOTATION = re.compile(r"\(\s*self\s*:\s*(?P<type>[\w.]+)\s*[,)]")


def _closing_parenthesis(signature: str) -> int:
    """Where the parameter list that the signature's first `(` opens closes (-1: not)."""
    opening = signature.find("(")
    return closing(signature, opening) if opening >= 0 else -1
