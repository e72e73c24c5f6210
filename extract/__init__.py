"""extract: source files → `Symbol` records with tree-sitter tag queries.

Imports: nothing of ours (the bottom layer). tree_sitter is confined to this package.
"""

from extract.errors import ExtractError, ParseTimeout, UnsupportedLanguage
from extract.languages import LANGUAGES, language_for_file, language_for_path
from extract.parse import extract_symbols, extraction_fingerprint, supported_languages
from extract.records import SCOPE_KINDS, Symbol, SymbolKind

__all__ = [
    "LANGUAGES",
    "SCOPE_KINDS",
    "ExtractError",
    "ParseTimeout",
    "Symbol",
    "SymbolKind",
    "UnsupportedLanguage",
    "extract_symbols",
    "extraction_fingerprint",
    "language_for_file",
    "language_for_path",
    "supported_languages",
]
