"""The C/C++ macro blanking runs before tree-sitter's parse deadline: its regular
expressions must stay linear on any input.

A long upper-case run after a parameter list (`void f() AAAA...A x`) made the trailing
annotation pattern try every way to split the run into macro names: 44 letters took
seconds, 60 would take hours. The extraction runs in a subprocess so that a regression
fails by its bound instead of hanging the suite.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
BOUND_S = 60  # generous for a shared 2-core machine; the old pattern needed ~10**5 s here

# (source, the qualnames extracted from 50 copies of it: what tree-sitter makes of junk)
HOSTILE = {
    "caps-run": (b"void f() " + b"A" * 60 + b" x\n", ["f", "x"]),
    "caps-words": (b"int g(int a)\n    " + b"LOCKS_" * 30 + b"\n", []),
    "attributes": (b"static void " + b"printflike(1, 2) " * 200 + b"h(void);\n", []),
    "class-macros": (b"class " + b"EXPORT_MACRO " * 300 + b"Name {};\n", ["Name"]),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_macro_blanking_stays_linear(case: str) -> None:
    source, expected = HOSTILE[case]
    code = (
        "import sys\nfrom extract import extract_symbols\n"
        "symbols = extract_symbols('hostile.cpp', sys.stdin.buffer.read())\n"
        "print(' '.join(sorted({s.qualname for s in symbols})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=source * 50, cwd=ROOT,
        capture_output=True, timeout=BOUND_S, check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout.decode().split() == expected


# Inputs for the scans that decide what to blank (the enum/struct brace sweep, comments in
# `#define`s, annotated enumerators): unclosed comments, strings and characters one
# after another, each of which a careless pattern would scan to the end of the input.
# Only the blanking runs here: tree-sitter's own time on such junk is not the question.
BLANKING = {
    "unclosed-comments": b"struct s {\n  FIELDS\n};\n" + b"/* { " * 100_000,
    "unclosed-strings": b"enum e {\n  LIST(XX)\n" + b'"\\' * 100_000 + b"\n}\n",
    "unclosed-chars": b"enum e {\n  A_B GLIB_X,\n" + b"'\\" * 100_000 + b"\n}\n",
    "define-comments": b"#define M \\\n" + b"/* a */ /*" * 200_000 + b" 1\n",
    "enum-lines": b"enum e {\n" + b"  A_B GLIB_X,\n  LIST(XX)\n#undef XX\n" * 20_000 + b"};\n",
}


@pytest.mark.parametrize("case", sorted(BLANKING))
def test_deciding_what_to_blank_stays_linear(case: str) -> None:
    code = (
        "import sys\nfrom symfind.extract.rewrite.c_macros import blank_macros\n"
        "source = sys.stdin.buffer.read()\nblanked = blank_macros(source)\n"
        "print(len(blanked) == len(source) and blanked.count(b'\\n') == source.count(b'\\n'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=BLANKING[case], cwd=ROOT,
        capture_output=True, timeout=BOUND_S, check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout.decode().split() == ["True"]
