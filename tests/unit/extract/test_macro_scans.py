"""The fast scans of the macro blanking find exactly what the plain patterns find.

`_LinePattern` searches a line-start pattern from the newline before it, and
`_class_macros` tries the class patterns only where a keyword starts a word; both were
written for speed alone, so each is compared here, match for match (spans and groups),
with the pattern it stands for: `^body` under `re.M`, and the class patterns behind a
`\\b`, scanned on their own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from symfind.extract import cmacros

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "languages"

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
]
SOURCES = [
    *EDGES,
    *(edge.lstrip(b"\n") for edge in EDGES),
    *(b"\n" + edge for edge in EDGES),
    (FIXTURES / "c" / "sample.c").read_bytes(),
    (FIXTURES / "cpp" / "sample.cpp").read_bytes(),
]

LINE_PATTERNS = sorted(
    name for name, value in vars(cmacros).items() if isinstance(value, cmacros._LinePattern)
)


def found(matches: object) -> list[tuple[tuple[int, int], tuple[bytes | None, ...]]]:
    return [(match.span(), match.groups()) for match in matches]  # type: ignore[attr-defined]


def test_every_line_start_pattern_is_covered() -> None:
    assert LINE_PATTERNS == [
        "_ACCESS_MACRO", "_ANNOTATED_ENUMERATOR", "_CATCH_CLAUSE_MACRO", "_CONDITIONAL",
        "_DEFINE", "_DIRECTIVE", "_MACRO_LINE", "_SPECIFIER_MACROS", "_TRY_MACRO",
    ]


@pytest.mark.parametrize("name", LINE_PATTERNS)
def test_a_line_pattern_finds_what_its_caret_pattern_finds(name: str) -> None:
    line_pattern = getattr(cmacros, name)
    body = line_pattern.pattern
    plain = re.compile(b"^(?:" + body.pattern + b")", body.flags)
    for source in SOURCES:
        assert found(line_pattern.finditer(source)) == found(plain.finditer(source)), source[:60]
        assert found([line_pattern.match(source)] if line_pattern.match(source) else []) == (
            found([plain.match(source)] if plain.match(source) else [])
        )


def test_class_macros_are_those_each_pattern_finds_after_a_word_boundary() -> None:
    plain = [re.compile(rb"\b" + pattern.pattern, pattern.flags)
             for pattern in (cmacros._CLASS_MACROS, cmacros._CLASS_TRAILING_MACROS)]
    some = 0
    for source in SOURCES:
        expected = sorted(match.span(1) for pattern in plain for match in pattern.finditer(source))
        assert sorted(cmacros._class_macros(source)) == expected, source[:60]
        some += len(expected)
    assert some >= 6  # the edges above hold that many
