"""What a question in words most likely wants, beyond what its words match.

Imports: `extract.records`, `storage` modules.

A developer who describes behaviour ("where are cookies merged into a request") means the
code that does it, not the tests that exercise it: in a repository whose tests name
themselves after what they test (`TestMergeCookies`, `test_merge_cookies`), tests match a
question's words as well as the code does, and outnumber it. Unless the question speaks
of tests, definitions in test code rank below the rest at equal evidence. For a name,
nothing is scaled: among definitions nothing else tells apart, the product's code comes
before its tests (`is_test_code` in `channels.closeness`, the shared tie-break).
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


#: A question's full text and vector channels are blended by score (`fusion.blend`: each
#: score over its channel's best) before the fusion by ranks, full text taking this share
#: of the blend and vector the rest. Measured on the question benchmark against fusing the
#: two by ranks: docs blanked NDCG@10 .512 → .524, hand-written R@5 .581 → .594, docs in
#: R@1 .889 → .917; shares of .5–.6 all gain on the three (bench/history/questions.md,
#: "third pass: a hybrid blend").
HYBRID_TEXT_SHARE = 0.55
#: The key of the blend among the fused rankings, and in `why.channels`.
HYBRID = "hybrid"


def asks_for_tests(words: tuple[str, ...]) -> bool:
    """Whether a question speaks of tests (then tests are what it wants)."""
    return any(word in _TEST_WORDS for word in words)


def is_test_code(symbol: Symbol) -> bool:
    """A definition in a test file or directory."""
    return is_test_path(symbol.path)


def is_test_path(path: str) -> bool:
    """A test file, or a file in a test directory."""
    return _TEST_PATH.search(path) is not None
