"""Symbol records produced by extraction.

Imports: msgspec only. These Structs cross every boundary (storage documents, the
daemon socket, the manifest), so fields only ever gain defaults, never change type.
"""

from __future__ import annotations

import enum

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


class Symbol(msgspec.Struct, frozen=True, kw_only=True):
    """One definition found in a source file.

    Attributes:
        name: The defined identifier, as written (`AsyncClient`).
        qualname: The scope chain plus the name, joined with the language's own
            separator (`AsyncClient.send`, `tokio::Runtime::block_on`, `http.Server.Serve`).
        kind: What the definition is.
        language: Language id from `extract.languages` (`python`, `cpp`, ...).
        path: File path relative to the repository root, `/`-separated.
        line: 1-based line of the name (where ctags and editors point).
        end_line: 1-based last line of the whole definition.
        start_line: 1-based first line of the definition node (decorators, templates
            and export wrappers included); used to read the definition's source.
        signature: The definition's header, whitespace collapsed, capped in length.
        doc: Docstring or the comment block right above the definition, capped.
        body: What else describes the definition to someone who does not know its name,
            for questions asked in words: the distinct identifiers and words of its source
            (names it calls and uses, comments, string literals, parameter and return
            types), then its container's doc; space-separated, capped (`BODY_MAX_WORDS`).
            Searched, not shown.
    """

    name: str
    qualname: str
    kind: SymbolKind
    language: str
    path: str
    line: int
    end_line: int
    start_line: int = 0
    signature: str = ""
    doc: str = ""
    body: str = ""


class Extraction(msgspec.Struct, frozen=True, kw_only=True):
    """One file's symbols, and how well it parsed.

    Attributes:
        symbols: The definitions, ordered by line then name.
        error_regions: Regions tree-sitter could not parse (outermost ERROR nodes and
            missing tokens of the first parse); 0 for a file that parsed cleanly.
        recovered: Definitions found only by re-parsing after a lost region.
    """

    symbols: list[Symbol]
    error_regions: int = 0
    recovered: int = 0
