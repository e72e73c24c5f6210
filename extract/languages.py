"""Which language a file is, and how each language spells its scopes.

Imports: msgspec, nothing of ours. The grammar names are those of tree-sitter-language-pack 0.13.
"""

from __future__ import annotations

import posixpath

import msgspec


class LanguageSpec(msgspec.Struct, frozen=True, kw_only=True):
    """How symfind treats one language.

    Attributes:
        name: Our language id (also the default query file: `queries/<name>-tags.scm`).
        grammar: The tree-sitter-language-pack grammar name.
        extensions: File suffixes (lowercase, with the dot).
        separator: Joins scope parts in a qualname (`.` or `::`).
        member_separator: Joins a type and its method when it differs (Ruby `#`).
        tags: Stems of the tag query files (`queries/<stem>-tags.scm`), read in order
            and joined, when not just the language's own (order matters: the first
            matching pattern wins). What languages share lives in one file: TSX uses
            TypeScript's (its grammar is TypeScript's plus JSX); JavaScript and
            TypeScript share module-level variables (`js-variables`); C and C++ share
            typedefs and macros (`c-typedefs`) and file-scope variables (`c-variables`).
        refs: Stems of the reference query files (`queries/<stem>-refs.scm`, read by
            `extract/occurrences.py`), when not just the language's own.
    """

    name: str
    grammar: str
    extensions: tuple[str, ...]
    separator: str = "."
    member_separator: str = ""
    tags: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()


LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec(name="python", grammar="python", extensions=(".py", ".pyi")),
        LanguageSpec(
            name="javascript", grammar="javascript", extensions=(".js", ".mjs", ".cjs", ".jsx"),
            tags=("javascript", "js-objects", "js-variables"),
            refs=("js", "javascript", "jsx"),
        ),
        LanguageSpec(
            name="typescript", grammar="typescript", extensions=(".ts", ".mts", ".cts"),
            tags=("typescript", "js-objects", "js-variables"), refs=("js", "typescript"),
        ),
        LanguageSpec(
            name="tsx", grammar="tsx", extensions=(".tsx",),
            tags=("typescript", "js-objects", "js-variables"), refs=("js", "typescript", "jsx"),
        ),
        LanguageSpec(name="go", grammar="go", extensions=(".go",)),
        LanguageSpec(name="rust", grammar="rust", extensions=(".rs",), separator="::"),
        LanguageSpec(name="java", grammar="java", extensions=(".java",)),
        LanguageSpec(
            name="c", grammar="c", extensions=(".c", ".h"), separator="::",
            tags=("c", "c-typedefs", "c-variables"),
        ),
        LanguageSpec(
            name="cpp",
            grammar="cpp",
            extensions=(".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp"),
            separator="::",
            tags=("cpp", "c-typedefs", "cpp-namespace-variables", "c-variables"),
            refs=("c", "cpp"),
        ),
        LanguageSpec(name="csharp", grammar="csharp", extensions=(".cs",)),
        LanguageSpec(
            name="ruby", grammar="ruby", extensions=(".rb",), separator="::", member_separator="#"
        ),
        LanguageSpec(name="php", grammar="php", extensions=(".php",), separator="\\",
                     member_separator="::"),
        LanguageSpec(name="kotlin", grammar="kotlin", extensions=(".kt", ".kts")),
    )
}

_BY_EXTENSION: dict[str, str] = {
    ext: spec.name for spec in LANGUAGES.values() for ext in spec.extensions
}

# A `.h` file is C unless its first bytes show C++-only syntax.
_CPP_HEADER_MARKERS = (b"class ", b"namespace ", b"template<", b"template <", b"public:", b"::")


def language_for_path(path: str) -> str | None:
    """Return the language id for a file path by its suffix, or None if unsupported."""
    _, ext = posixpath.splitext(path.lower())
    return _BY_EXTENSION.get(ext)


def language_for_file(path: str, head: bytes) -> str | None:
    """Like `language_for_path`, but tells C++ headers named `.h` apart by their content.

    Args:
        path: The file path (only its suffix is used).
        head: The first few KiB of the file.
    """
    language = language_for_path(path)
    if language == "c" and path.lower().endswith(".h"):
        if any(marker in head for marker in _CPP_HEADER_MARKERS):
            return "cpp"
    return language
