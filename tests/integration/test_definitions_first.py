"""Among definitions nothing else tells apart, the one with a body before its declarations
(`@overload` stubs, stub files, TypeScript overload signatures and `declare`; C prototypes
are not indexed at all), and the product's own code before its tests. Each declaration or
test stands where the tree's order (path, then line) would put it first."""

from __future__ import annotations

import pytest

from symfind.storage import Searcher, SearchQuery
from tests.integration.conftest import searcher_over

OVERLOADED = '''from typing import overload
import typing


class Context:
    @typing.overload
    def invoke(self, callback: int) -> int: ...

    @overload
    def invoke(self, callback: str) -> str:
        ...

    def invoke(self, callback):
        return callback(self)
'''

FILES = {
    "click/core.py": OVERLOADED,
    # A stub file beside its module: the same class and method, declared.
    "click/a_core.pyi": "class Context:\n    def invoke(self, callback: int) -> int: ...\n",
    "src/parse.ts": (
        "export function parse(x: string): string;\n"
        "export function parse(x: number): number;\n"
        "export function parse(x: any): any { return x; }\n"
        "export class Reader {\n"
        "  read(x: string): void;\n"
        "  read(x: any): void { console.log(x); }\n"
        "}\n"
    ),
    "src/a_globals.ts": "declare function parse(x: boolean): boolean;\n",
    # A prototype in a header, the definition in its source file.
    "lib/a_compute.h": "int compute(int x);\n",
    "lib/compute.c": '#include "a_compute.h"\nint compute(int x) { return x + 1; }\n',
    # The package's own class, and test-local classes of that name in files that path
    # order puts first.
    "tests/test_models.py": "class Model:\n    pass\n\n\ndef test_model():\n    pass\n",
    "tests/test_more_models.py": "class Model:\n    pass\n",
    "zpkg/models.py": "class Model:\n    pass\n",
    "zpkg/model_test.go": "package zpkg\n\nfunc Render() {}\n",
    "zpkg/render.go": "package zpkg\n\nfunc Render() {}\n",
}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return searcher_over(tmp_path_factory, "definitions-first", FILES)


def ranking(searcher: Searcher, query: str) -> list[str]:
    return [f"{r.path}:{r.line}" for r in searcher.search(SearchQuery(text=query, limit=10)).results]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # Python: the method with a body, then the stub file's and its overloads.
        ("invoke", ["click/core.py:13", "click/a_core.pyi:2", "click/core.py:7",
                    "click/core.py:10"]),
        ("Context.invoke", ["click/core.py:13", "click/a_core.pyi:2", "click/core.py:7",
                            "click/core.py:10"]),
        # TypeScript: the implementation, then its overload signatures, then `declare`.
        ("parse", ["src/parse.ts:3", "src/a_globals.ts:1", "src/parse.ts:1", "src/parse.ts:2"]),
        ("Reader.read", ["src/parse.ts:6", "src/parse.ts:5"]),
        # C: the prototype is not a definition.
        ("compute", ["lib/compute.c:2"]),
        # The product's code before its tests.
        ("Model", ["zpkg/models.py:1", "tests/test_models.py:1", "tests/test_more_models.py:1",
                   "tests/test_models.py:5"]),
        ("Render", ["zpkg/render.go:3", "zpkg/model_test.go:3"]),
    ],
)
def test_a_definition_with_a_body_in_the_product_comes_first(
    searcher: Searcher, query: str, expected: list[str]
) -> None:
    assert ranking(searcher, query) == expected


def test_declarations_are_marked_in_the_index(searcher: Searcher) -> None:
    assert sorted(f"{s.path}:{s.line}" for s in searcher.all_symbols() if s.declaration) == [
        "click/a_core.pyi:1", "click/a_core.pyi:2", "click/core.py:10", "click/core.py:7",
        "src/a_globals.ts:1", "src/parse.ts:1", "src/parse.ts:2", "src/parse.ts:5",
    ]
