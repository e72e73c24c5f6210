"""Exceptions raised by `extract`. Imports: nothing of ours."""


class ExtractError(Exception):
    """Base class: a file could not be turned into symbols."""


class UnsupportedLanguage(ExtractError):
    """No grammar/tag query is registered for the file's language."""


class ParseTimeout(ExtractError):
    """Parsing ran past its deadline (pathological or huge input)."""
