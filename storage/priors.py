"""What a question in words most likely wants, beyond what its words match.

Imports: `extract.records`, `storage` modules.

A developer who describes behaviour ("where are cookies merged into a request") means the
code that does it, not the tests that exercise it: in a repository whose tests name
themselves after what they test (`TestMergeCookies`, `test_merge_cookies`), tests match a
question's words as well as the code does, and outnumber it. Unless the question speaks
of tests, definitions in test code rank below the rest at equal evidence.
"""

from __future__ import annotations

import re

from symfind.extract.records import Symbol

#: What a test definition's fused score is multiplied by, for a question about code.
TEST_CODE_FACTOR = 0.5
TEST_CODE_REASON = f"test code, for a question that does not ask for tests: score × {TEST_CODE_FACTOR:g}"

_TEST_WORDS = frozenset({"test", "tests", "testing", "spec", "specs", "fixture", "fixtures",
                         "mock", "mocks", "benchmark", "benchmarks"})
# A directory of tests, or a file named as one in the usual conventions: `tests/`,
# `__tests__/`, `spec/`, `test_x.py`, `x_test.py`, `x_test.go`, `XTest.java`, `x.test.ts`,
# `x.spec.js`, `x_spec.rb`.
_TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|__tests__|specs?|testing|testdata)/"
    r"|(?:^|/)test_[^/]*$"
    r"|_(?:test|spec)\.[^/.]+$"
    r"|[a-z0-9]Tests?\.[^/.]+$"
    r"|\.(?:test|spec)\.[^/]+$"
)


#: A question whose words single one definition out in full text, its BM25 score at least
#: this many times the next one's, most likely quotes that definition's doc or names it:
#: it gets one more vote in the fusion, as if a channel of weight LEAD_VOTE ranked it
#: first. Measured on the question benchmark (docs-in R@1 .86 → .90, docs-blanked .31 →
#: .32, hand-written R@5 unchanged; 1.08–1.3 and votes of 1–2 within ±.02 of that).
LEAD_RATIO = 1.15
LEAD_VOTE = 1.0
#: The key of that vote among the fused rankings (never a channel's name).
TEXT_LEAD = "text lead"


def text_lead_reason(ratio: float) -> str:
    """What `why.adjusted` says of the definition the text channel singled out."""
    return (f"full text's clear best (BM25 {ratio:.2f}× the next): one more vote, "
            f"weight {LEAD_VOTE:g} at rank 1")


def asks_for_tests(words: tuple[str, ...]) -> bool:
    """Whether a question speaks of tests (then tests are what it wants)."""
    return any(word in _TEST_WORDS for word in words)


def is_test_code(symbol: Symbol) -> bool:
    """A definition in a test file or directory."""
    return _TEST_PATH.search(symbol.path) is not None
