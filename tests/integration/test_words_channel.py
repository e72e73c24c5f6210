"""The words channel ranks by the query words a definition holds, its own name first.

BM25 alone let a rare scope word outweigh a common name word: `test append if missing
ignore case` ranked `StringUtils.appendIfMissingIgnoreCase` (no `test`, but a short
document) above the test method that holds every word.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from symfind.extract.records import Symbol, SymbolKind
from symfind.storage import IndexWriter, Searcher, SearchQuery
from symfind.storage.records import FileState
from symfind.storage.router import route

METHODS = {
    "src/main/java/StringUtils.java": [
        "StringUtils.appendIfMissing",
        "StringUtils.appendIfMissingIgnoreCase",
    ],
    "src/test/java/StringUtilsTest.java": [
        "StringUtilsTest.testAppendIfMissing",
        "StringUtilsTest.testAppendIfMissingIgnoreCase",
    ],
    "src/a/ProxyModule.java": ["ProxyModule.name"],
    "src/z/Util.java": ["Util.proxyModuleName"],
    # A test class holds many tests: `test` is a common word, its idf low, as in real code.
    "src/test/java/ArrayUtilsTest.java": [
        f"ArrayUtilsTest.test{verb}{noun}"
        for verb in ("Add", "Remove", "Reverse", "Shift", "Swap", "Insert")
        for noun in ("Boolean", "Byte", "Char", "Double", "Float", "Int", "Long", "Short")
    ],
}


def method(path: str, line: int, qualname: str) -> Symbol:
    name = qualname.rsplit(".", 1)[-1]
    return Symbol(
        name=name, qualname=qualname, kind=SymbolKind.METHOD, language="java", path=path,
        line=line, end_line=line, start_line=line, signature=f"void {name}()", doc="",
    )


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    index_dir = tmp_path_factory.mktemp("words") / "index"
    with IndexWriter(index_dir, repo_root=Path("/repo"), options_hash="h") as writer:
        for path, qualnames in METHODS.items():
            symbols = [method(path, line, q) for line, q in enumerate(qualnames, start=1)]
            writer.replace_file(path, FileState(size=1, mtime_ns=1, digest=path, language="java"),
                                symbols)
        writer.commit()
    return Searcher(index_dir)


def words_ranking(searcher: Searcher, query: str) -> list[str]:
    """The words channel's own order for `query`. A query of five words or more is a
    question (the prose route, which does not run this channel), so the channel is run
    on its own here: its order is what these tests are about."""
    plan = msgspec.structs.replace(route(query), weights={"words": 1.0})
    rankings, found, _ = searcher._run(plan, [])
    return [found.symbols[key].qualname for key in rankings["words"]]


def test_definitions_holding_more_query_words_rank_first(searcher: Searcher) -> None:
    ranking = words_ranking(searcher, "test append if missing ignore case")
    assert ranking[:4] == [
        "StringUtilsTest.testAppendIfMissingIgnoreCase",  # all six words
        "StringUtils.appendIfMissingIgnoreCase",  # five: no `test`
        "StringUtilsTest.testAppendIfMissing",  # four
        "StringUtils.appendIfMissing",  # three
    ]
    assert ranking[4:] and all(q.startswith("ArrayUtilsTest.test") for q in ranking[4:])


def test_among_equals_the_name_holding_more_words_ranks_first(searcher: Searcher) -> None:
    # Both qualnames hold the three words; only one name holds them all.
    assert words_ranking(searcher, "proxy module name") == [
        "Util.proxyModuleName",
        "ProxyModule.name",
    ]
