"""The fast scans of the macro blanking find exactly what the plain patterns find.

`LinePattern` searches a line-start pattern from the newline before it, and
`class_macros` tries the class patterns only where a keyword starts a word; both were
written for speed alone, so each is compared here, match for match (spans and groups),
with the pattern it stands for: `^body` under `re.M`, and the class patterns behind a
`\\b`, scanned on their own.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from symfind.extract import rewrite
from symfind.extract.rewrite import c_declarations, c_macros
from symfind.extract.rewrite.c_tokens import LinePattern

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "languages"

# Real C and C++ (the language fixtures, and the headers their tests cover), and the
# edges of a line-start scan: a match on the first line, none, empty lines, a directive
# whose continuation ends at an empty line, CRLF, no newline at the end.
EDGES = [
    b"",
    b"\n",
    b"FMT_BEGIN_NAMESPACE\nint x;\n",
    b"#define A(x) \\\n\n#define B(y) y\n#undef A\n",
    b"  #if defined(X)\n#else\n\n#endif",
    b"enum e {\n  A GLIB_AVAILABLE_IN_2_74,\n  B,\n#define XX(a) a,\n  UV_MAP(XX)\n};\n",
    b"class C {\nJSON_PRIVATE_UNLESS_TESTED:\n  int a;\n  JSON_TRY {\n  } JSON_CATCH (...) {\n"
    b"  }\n  SPDLOG_LOGGER_CATCH(msg)\n};\r\nEXPORT_API static int f(void);\r\n",
    b"\n\n  static PROTOBUF_NODISCARD FMT_INLINE int g(int);\n_ASYNCRTIMP value f();\n"
    b"inline explicit PROTOBUF_CONSTEXPR Any();",
    b"class LEVELDB_EXPORT DB : public X {};\nstruct GTEST_API_ Test final {};\n"
    b"subclass FOO_API Bar {};\nmy_struct BAZ_API Qux {\n};\nunion U_ALIGN V {\n}\n"
    b"class PROTOBUF_EXPORT Stream PROTOBUF_FUTURE_FINAL\n{};\nstruct\tS_EXPORT T_API {",
    # each line-start shape on the first line (and, with a newline before it, a later one)
    b"JSON_PRIVATE_UNLESS_TESTED:\n  int a;\n",
    b"JSON_TRY\n{\n} JSON_CATCH (...) {\n}\n",
    b"SPDLOG_LOGGER_CATCH(msg.source)\n",
    b"G_IO_IN GLIB_SYSDEF_POLLIN,\n  G_IO_OUT GLIB_SYSDEF_POLLOUT\n",
]
SOURCES = [
    *EDGES,
    *(edge.lstrip(b"\n") for edge in EDGES),
    *(b"\n" + edge for edge in EDGES),
    (FIXTURES / "c" / "sample.c").read_bytes(),
    (FIXTURES / "cpp" / "sample.cpp").read_bytes(),
]

# Every line-start pattern of the rewrites, found in their modules (a new one is compared too).
LINE_PATTERNS = {
    f"{module.name}.{name}": value
    for module in pkgutil.iter_modules(rewrite.__path__)
    for name, value in vars(importlib.import_module(f"{rewrite.__name__}.{module.name}")).items()
    if isinstance(value, LinePattern)
}


def found(matches: object) -> list[tuple[tuple[int, int], tuple[bytes | None, ...]]]:
    return [(match.span(), match.groups()) for match in matches]  # type: ignore[attr-defined]


def caret_pattern(line_pattern: LinePattern) -> re.Pattern[bytes]:
    """The plain pattern a line pattern stands for: `^body` under `re.M`."""
    body = line_pattern.pattern
    return re.compile(b"^(?:" + body.pattern + b")", body.flags)


@pytest.mark.parametrize("name", sorted(LINE_PATTERNS))
def test_each_line_pattern_matches_the_first_line_and_a_later_one(name: str) -> None:
    """The sources hold, for every pattern, a match at offset 0 and one after a newline:
    the comparison below can fail for each (a scan that skipped the first line, or
    every later one, would differ from `^body` somewhere)."""
    plain = caret_pattern(LINE_PATTERNS[name])
    starts = {match.start() == 0 for source in SOURCES for match in plain.finditer(source)}
    assert starts == {True, False}


@pytest.mark.parametrize("name", sorted(LINE_PATTERNS))
def test_a_line_pattern_finds_what_its_caret_pattern_finds(name: str) -> None:
    line_pattern = LINE_PATTERNS[name]
    plain = caret_pattern(line_pattern)
    for source in SOURCES:
        assert found(line_pattern.finditer(source)) == found(plain.finditer(source)), source[:60]
        assert found([line_pattern.match(source)] if line_pattern.match(source) else []) == (
            found([plain.match(source)] if plain.match(source) else [])
        )


def test_class_macros_are_those_each_pattern_finds_after_a_word_boundary() -> None:
    plain = [re.compile(rb"\b" + pattern.pattern, pattern.flags)
             for pattern in (c_declarations._CLASS_MACROS, c_declarations._CLASS_TRAILING_MACROS)]
    some = 0
    for source in SOURCES:
        expected = sorted(match.span(1) for pattern in plain for match in pattern.finditer(source))
        assert sorted(c_declarations.class_macros(source)) == expected, source[:60]
        some += len(expected)
    assert some >= 6  # the edges above hold that many


# A shape on a file's first line, where only the scan's own start finds it (no newline
# before it), and blanked or replaced whole.
FIRST_LINE_SHAPES = [
    (b"FMT_BEGIN_NAMESPACE\nint x;\n", b"                   \nint x;\n"),
    (b"JSON_PRIVATE_UNLESS_TESTED:\n  int a;\n", b"private                   :\n  int a;\n"),
    (b"JSON_TRY\n{\n} JSON_CATCH (...) {\n}\n", b"try     \n{\n} JSON_CATCH (...) {\n}\n"),
    (b"SPDLOG_LOGGER_CATCH(msg.source)\n", b"catch(...){}                   \n"),
    (b"PROTOBUF_NODISCARD std::string* Release();\n",
     b"                   std::string* Release();\n"),
    (b"#if A\nint f(int a,\n#else\nint f(long a,\n#endif\n  int b);\n",
     b"     \nint f(int a,\n     \n             \n      \n  int b);\n"),  # the first branch
]


@pytest.mark.parametrize(("source", "expected"), FIRST_LINE_SHAPES)
def test_a_shape_on_the_first_line_is_rewritten(source: bytes, expected: bytes) -> None:
    assert c_macros.blank_macros(source) == expected
