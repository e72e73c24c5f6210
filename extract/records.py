"""Symbol records produced by extraction.

Imports: msgspec only. These Structs cross every boundary (storage documents, the
daemon socket, the manifest), so fields only ever gain defaults, never change type.
"""

from __future__ import annotations

import enum
from typing import Annotated, Any

import msgspec


class SymbolKind(enum.StrEnum):
    """What a definition is. Values are stable strings used on the wire and in filters."""

    CLASS = "class"
    STRUCT = "struct"
    INTERFACE = "interface"
    TRAIT = "trait"
    ENUM = "enum"
    TYPE = "type"
    FUNCTION = "function"
    METHOD = "method"
    MACRO = "macro"
    MODULE = "module"
    CONSTANT = "constant"
    VARIABLE = "variable"


class Language(enum.StrEnum):
    """The languages symfind extracts (`Symbol.language`; `extract.languages` says how
    each is parsed, and a unit test keeps the two lists equal). Values are stable."""

    PYTHON = "python"
    JAVASCRIPT = "javascript"
    TYPESCRIPT = "typescript"
    TSX = "tsx"
    GO = "go"
    RUST = "rust"
    JAVA = "java"
    C = "c"
    CPP = "cpp"
    CSHARP = "csharp"
    RUBY = "ruby"
    PHP = "php"
    KOTLIN = "kotlin"


#: Kinds that open a scope for the names defined inside them.
SCOPE_KINDS = frozenset(
    {
        SymbolKind.CLASS,
        SymbolKind.STRUCT,
        SymbolKind.INTERFACE,
        SymbolKind.TRAIT,
        SymbolKind.ENUM,
        SymbolKind.MODULE,
    }
)


class SymbolHead(msgspec.Struct, frozen=True, kw_only=True):
    """What a definition is and where it is: the fields every record of one definition
    starts with, defined here once. `Symbol` adds what extraction knows besides; storage's
    search result and the MCP tools' answers take these fields, with their `Meta`
    descriptions (an agent reads them in a tool's outputSchema: keep them short), from here.

    Attributes:
        name: The defined identifier, as written (`AsyncClient`).
        qualname: Joined with the language's own separator (`AsyncClient.send`,
            `tokio::Runtime::block_on`, `http.Server.Serve`).
        kind: What the definition is.
        language: Language id from `extract.languages` (`python`, `cpp`, ...).
        line: Where ctags and editors point.
    """

    name: str
    qualname: Annotated[
        str, msgspec.Meta(description="Scope chain plus name, in the language's own syntax.")
    ]
    kind: SymbolKind
    language: str
    path: Annotated[str, msgspec.Meta(description="Repository-relative, `/`-separated.")]
    line: Annotated[int, msgspec.Meta(description="1-based line of the name.")]
    end_line: Annotated[int, msgspec.Meta(description="1-based last line of the definition.")]


def head_fields(record: SymbolHead) -> dict[str, Any]:
    """`record`'s `SymbolHead` fields by name, in order: to make another record of the same
    definition (`SearchResult(**head_fields(symbol), ...)`)."""
    return {name: getattr(record, name) for name in SymbolHead.__struct_fields__}


# Not tracked by the garbage collector (`gc=False`): a record holds strings, numbers and
# an enum, so it is never part of a cycle, and a searcher keeps tens of thousands, which
# every full collection would walk. Encoded as an array (`array_like`), not a map: the
# index stores one per definition, and twelve field names in each made a fifth of the
# stored records (tokio: 113 KB of a 2.39 MB index once LZ4-compressed).
class Symbol(SymbolHead, frozen=True, kw_only=True, gc=False, array_like=True):
    """One definition found in a source file: its `SymbolHead` fields, then these.

    Attributes:
        start_line: 1-based first line of the definition node (decorators, templates
            and export wrappers included); used to read the definition's source.
        signature: The definition's header, whitespace collapsed, capped in length.
        doc: Docstring or the comment block right above the definition, capped.
        body: What else describes the definition to someone who does not know its name,
            for questions asked in words: the distinct identifiers and words of its source
            (names it calls and uses, comments, string literals, parameter and return
            types), then its container's doc; space-separated, capped (`BODY_MAX_WORDS`).
            Searched, not shown.
        declaration: A declaration without a body, standing for a definition elsewhere
            or beside it: in Python an `@overload` stub, a function or method whose body
            is `...` alone, or any definition of a stub file (`.pyi`); in TypeScript an
            overload signature, a method signature, a `declare`d definition or any of a
            `.d.ts` file. Ranked after a definition with a body that nothing else tells
            apart from it.
        returns: What a Python function that does not annotate its result returns, as
            its `return` statements show it when they agree, written as a use's
            `Occurrence.receiver_type` is (`PointJacobi` for `return PointJacobi(...)`,
            the class for `return self`, `make()` for `return make()`); "" otherwise.
            Read by references, for the receivers of calls' results.
        fields: A Go struct's named fields, space-separated (`Usage Options`), those it
            embeds left out: a field shadows a method of its name that an embedded type
            promotes (references); "" for any other definition.
    """

    start_line: int = 0
    signature: str = ""
    doc: str = ""
    body: str = ""
    declaration: bool = False
    returns: str = ""
    fields: str = ""


class UseKind(enum.StrEnum):
    """How a name is used at one place. Values are stable strings used on the wire."""

    CALL = "call"  # `f(...)`, `new F(...)`, `F{...}` composite literals
    ATTRIBUTE = "attribute"  # `x.f`, `x->f`, `X::f`, not called
    ATTRIBUTE_CALL = "attribute_call"  # `x.f(...)`, `x->f(...)`, `X::f(...)`
    TYPE = "type"  # a type annotation, declared type, generic argument, cast
    IMPORT = "import"  # the name inside an import / use / include statement
    INHERIT = "inherit"  # a base class, implemented interface, embedded struct
    DECORATOR = "decorator"  # `@f`, `#[f]`, `[F]` attributes and annotations
    PLAIN = "plain"  # any other read or write of the name


# Not tracked by the garbage collector either (as `Symbol`): strings, numbers and an enum,
# and a file makes thousands, whose allocations would each count towards a collection.
class Occurrence(msgspec.Struct, frozen=True, kw_only=True, array_like=True,
                 omit_defaults=True, gc=False):
    """One use of a name that the file does not bind locally (references, "where is it
    used"). Comments, strings, a definition's own name, parameters, keyword-argument
    names, struct keys and names bound in the enclosing function are not occurrences.
    Array-like and without defaults on the wire: a file holds thousands of them.

    Attributes:
        name: The identifier used, as written: the last segment (`send` in
            `self.session.send(...)`, `Vec` in `std::vec::Vec`).
        line: 1-based line of the name.
        column: 1-based column of the name, in characters of its line.
        kind: How the name is used.
        receiver: For attribute uses, the source text of what it is looked up on,
            whitespace collapsed and at most 80 characters (`self.session`, `requests`,
            `s`, `std::vec`); "" for a bare name.
        receiver_type: The receiver's type where the file shows it, as written with
            generic arguments dropped: `self`/`cls`/`this` inside a class give the
            class's qualified name; `x = C(...)`, `x := C{}`, `var x C`, `x: C`,
            `C x` give `C`. "" when the file does not say.
        enclosing: Qualified name of the innermost definition the use is inside (as
            `Symbol.qualname`); "" at module level.
    """

    name: str
    line: int
    column: int
    kind: UseKind
    receiver: str = ""
    receiver_type: str = ""
    enclosing: str = ""


class Import(msgspec.Struct, frozen=True, kw_only=True, array_like=True,
             omit_defaults=True):
    """One name a file's import, use, require or include statement binds.

    Attributes:
        name: The name bound in the file (`S` for `from m import Session as S`, `np`,
            `http` for Go's `net/http`); `*` for a wildcard import; "" for an include
            that binds no name.
        source: The module as written (`requests.sessions`, `.models`, `./client`,
            `net/http`, `std::collections`, `linux/list.h`).
        imported: The name taken from `source` (`Session` above); "" when the module
            itself is bound.
        line: 1-based line of the statement.
    """

    name: str
    source: str
    imported: str = ""
    line: int = 0


class Extraction(msgspec.Struct, frozen=True, kw_only=True):
    """One file's symbols, its uses of names and its imports, and how well it parsed.

    Attributes:
        symbols: The definitions, ordered by line then name.
        error_regions: Regions tree-sitter could not parse (outermost ERROR nodes and
            missing tokens of the first parse); 0 for a file that parsed cleanly.
        recovered: Definitions found only by re-parsing after a lost region.
        occurrences: The uses of names not bound locally, ordered by line then column.
        imports: The names the file's imports bind, in source order.
        occurrences_read: False when the extraction's deadline passed while the uses of
            names were read, after the definitions: `occurrences` and `imports` are then
            empty, not a file without uses.
    """

    symbols: list[Symbol]
    error_regions: int = 0
    recovered: int = 0
    occurrences: list[Occurrence] = []
    imports: list[Import] = []
    occurrences_read: bool = True
