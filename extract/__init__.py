"""extract: source files → `Symbol` records with tree-sitter tag queries.

Imports: nothing of ours (the bottom layer). tree_sitter is confined to this package.
"""

from typing import TYPE_CHECKING

from symfind.extract.errors import ExtractError, ParseTimeout, UnsupportedLanguage
from symfind.extract.languages import LANGUAGES, language_for_file, language_for_path
from symfind.extract.records import (
    SCOPE_KINDS,
    Extraction,
    Import,
    Language,
    Occurrence,
    Symbol,
    SymbolHead,
    SymbolKind,
    UseKind,
    head_fields,
)
from symfind.extract.version import EXTRACTION_VERSION

if TYPE_CHECKING:
    from symfind.extract.parse import (
        extract_file,
        extract_symbols,
        extraction_fingerprint,
        load_language,
    )

_PARSE_EXPORTS = ("extract_file", "extract_symbols", "extraction_fingerprint", "load_language")


def __getattr__(name: str) -> object:
    # tree-sitter and its grammars load on first use: readers of records and languages
    # (search, the CLI's argument parser) never pay for them.
    if name in _PARSE_EXPORTS:
        from symfind.extract import parse

        return getattr(parse, name)
    raise AttributeError(f"module 'extract' has no attribute {name!r}")

__all__ = [
    "EXTRACTION_VERSION",
    "LANGUAGES",
    "Language",
    "SCOPE_KINDS",
    "ExtractError",
    "Extraction",
    "Import",
    "Occurrence",
    "ParseTimeout",
    "Symbol",
    "SymbolHead",
    "SymbolKind",
    "UnsupportedLanguage",
    "UseKind",
    "extract_file",
    "extract_symbols",
    "extraction_fingerprint",
    "head_fields",
    "language_for_file",
    "language_for_path",
    "load_language",
]
