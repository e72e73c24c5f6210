"""What is known of C and C++ projects' macros by name: the words a macro stands beside or
for, declared as data (as universal-ctags declares the names to ignore) for the scans of
c_declarations.py and c_lines.py.

Imports: the standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable

# Declaration specifiers: an export macro may stand before or among them.
SPECIFIERS = (b"explicit", b"inline", b"static", b"virtual", b"friend", b"extern", b"constexpr")
# Those a constructor may have: after `static` or `extern`, a capitals name then a
# function's is its return type (libuv's `static CONSOLE_CURSOR_INFO get_cursor_info(`).
CONSTRUCTOR_SPECIFIERS = (b"explicit", b"inline", b"constexpr")
# Keywords that can only start a declaration: after an attribute macro, they tell it is one.
DECLARATION_KEYWORDS = (
    *SPECIFIERS, b"const", b"consteval", b"constinit", b"mutable", b"volatile",
    b"thread_local", b"void", b"bool", b"char", b"short", b"int", b"long", b"float",
    b"double", b"signed", b"unsigned", b"auto", b"struct", b"class", b"union", b"enum",
    b"typename", b"operator",
)
# Keywords before a capitals name that make it the type, not an export macro between a
# return type and a function's name (`static EFI_STATUS f(`, `return FOO_BAR(x)`).
NOT_TYPES = frozenset({
    b"static", b"inline", b"extern", b"virtual", b"explicit", b"friend", b"constexpr",
    b"consteval", b"constinit", b"const", b"volatile", b"mutable", b"thread_local",
    b"typedef", b"register", b"return", b"else", b"case", b"goto", b"throw", b"new",
    b"delete", b"co_return", b"co_yield", b"co_await", b"public", b"private", b"protected",
    b"class", b"struct", b"union", b"enum", b"typename", b"template", b"using",
    b"namespace", b"operator", b"sizeof", b"decltype", b"define", b"ifdef", b"ifndef",
    b"if", b"elif", b"undef", b"and", b"or", b"not",
})
# Calling conventions: a name of a project's own holding one (`_pplx_cdecl`) stands for it.
CALLING_CONVENTIONS = (b"cdecl", b"stdcall", b"fastcall", b"thiscall", b"vectorcall", b"clrcall")
# Macros that stand for a keyword, told by a word in their name, become it (in lower case):
# access specifiers (nlohmann's `JSON_PRIVATE_UNLESS_TESTED:`) and exception keywords
# (`JSON_TRY {`, `JSON_CATCH (std::out_of_range&) {`, Boost's and Qt's alike).
ACCESS_WORDS = (b"PRIVATE", b"PROTECTED", b"PUBLIC")
EXCEPTION_WORDS = (b"TRY", b"CATCH")
# A macro standing for a whole catch clause (`SPDLOG_CATCH_STD`) becomes one that catches
# everything.
CATCH_ALL = b"catch(...){}"


def one_of(words: Iterable[bytes]) -> bytes:
    """A regex group matching any of `words` (tried in their order)."""
    return b"(?:" + b"|".join(words) + b")"
