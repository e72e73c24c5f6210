"""References on a real Tantivy index: uses stored with definitions, resolved in tiers, and
answers that say what they counted and what they could not check.

The records are written by hand through the real `IndexWriter` (extraction has its own
tests), so that each answer here follows from records a reader can see in the test.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from symfind.extract.records import Import, Occurrence, Symbol, SymbolKind, UseKind
from symfind.storage import (
    DaemonState,
    DaemonStatus,
    FileState,
    IndexWriter,
    QueryError,
    ReferencesQuery,
    Searcher,
    SearchQuery,
)
from symfind.storage.references import MAX_BUDGET_MS
from tests.integration.conftest import searcher_over, tiers

UNCHECKED_PYTHON = [
    "dynamic dispatch: a call on an object whose type the file does not show is 'possible', "
    "not resolved",
    "code generated at build time is seen only where its files are indexed",
    "calls through getattr(), a string or a dict of functions are not seen",
]

Files = dict[str, tuple[list[Symbol], list[Occurrence], list[Import]]]


def defn(path: str, qualname: str, kind: SymbolKind, line: int, end: int) -> Symbol:
    return Symbol(name=qualname.rsplit(".", 1)[-1], qualname=qualname, kind=kind,
                  language="python", path=path, line=line, end_line=end, start_line=line)


def use(name: str, line: int, kind: UseKind = UseKind.CALL, receiver: str = "",
        receiver_type: str = "", enclosing: str = "") -> Occurrence:
    return Occurrence(name=name, line=line, column=5, kind=kind, receiver=receiver,
                      receiver_type=receiver_type, enclosing=enclosing)


def project() -> Files:
    """A package with a module-level `get` and a `Session.get`, and callers of both."""
    return {
        "pkg/api.py": ([defn("pkg/api.py", "get", SymbolKind.FUNCTION, 1, 3)], [], []),
        "pkg/sessions.py": (
            [defn("pkg/sessions.py", "Session", SymbolKind.CLASS, 1, 9),
             defn("pkg/sessions.py", "Session.get", SymbolKind.METHOD, 2, 4),
             defn("pkg/sessions.py", "Session.fetch", SymbolKind.METHOD, 5, 9)],
            [use("get", 6, UseKind.ATTRIBUTE_CALL, "self", "Session", "Session.fetch")], []),
        "pkg/__init__.py": (  # defines nothing: its uses are kept in its manifest entry
            [], [use("get", 1, UseKind.IMPORT, ".api"),
                 use("Session", 2, UseKind.IMPORT, ".sessions")],
            [Import(name="get", source=".api", imported="get", line=1),
             Import(name="Session", source=".sessions", imported="Session", line=2)]),
        "app.py": (
            [defn("app.py", "main", SymbolKind.FUNCTION, 2, 9)],
            [use("get", 3, UseKind.ATTRIBUTE_CALL, "pkg", "", "main"),
             use("get", 5, UseKind.ATTRIBUTE_CALL, "s", "Session", "main"),
             use("get", 6, UseKind.ATTRIBUTE_CALL, "conn", "", "main"),
             use("get", 7, UseKind.ATTRIBUTE_CALL, "conn", "", "main")],
            [Import(name="pkg", source="pkg", line=1)]),
        "tests/test_api.py": (
            [defn("tests/test_api.py", "test_get", SymbolKind.FUNCTION, 2, 3)],
            [use("get", 1, UseKind.IMPORT, "pkg"), use("get", 3, UseKind.CALL, "", "", "test_get")],
            [Import(name="get", source="pkg", imported="get", line=1)]),
    }


def build(index_dir: Path, files: Files, *, skipped: dict[str, str] | None = None) -> Searcher:
    with IndexWriter(index_dir, repo_root=index_dir.parent, options_hash="t") as writer:
        for path, (symbols, occurrences, imports) in files.items():
            writer.replace_file(path, FileState(mtime_ns=1, size=1, digest=path,
                                                language="python" if symbols else ""),
                                symbols, occurrences, imports, language="python")
        for path, reason in (skipped or {}).items():
            writer.skip_file(path, reason)
        writer.commit()
    return Searcher(index_dir)


def build_in_languages(index_dir: Path, files: Files) -> Searcher:
    """`build`, each file in the language of its first definition."""
    with IndexWriter(index_dir, repo_root=index_dir.parent, options_hash="t") as writer:
        for path, (symbols, occurrences, imports) in files.items():
            writer.replace_file(path, FileState(mtime_ns=1, size=1, digest=path,
                                                language=symbols[0].language),
                                symbols, occurrences, imports)
        writer.commit()
    return Searcher(index_dir)


def answer_of(searcher: Searcher, query: ReferencesQuery, **kwargs: Any) -> dict[str, Any]:
    """The whole answer, without what changes from run to run."""
    found = msgspec.to_builtins(searcher.find_references(query, **kwargs))
    del found["took_ms"], found["freshness"]["updated_at"]
    return found


def target(path: str, qualname: str, kind: str, line: int, end: int) -> dict[str, Any]:
    return {"name": qualname.rsplit(".", 1)[-1], "qualname": qualname, "kind": kind,
            "language": "python", "path": path, "line": line, "start_line": line,
            "end_line": end}


def fresh(files: int) -> dict[str, Any]:
    return {"generation": 1, "files": files, "pending": 0, "state": "unwatched",
            "watching": False, "failing": 0, "error": "", "retry_after_s": 0.0}


def test_a_method_is_resolved_by_its_receivers_type_and_the_rest_counted_by_tier(
    tmp_path: Path,
) -> None:
    searcher = build(tmp_path / "index", project())
    assert answer_of(searcher, ReferencesQuery(target="Session.get")) == {
        "query": "Session.get",
        "target": target("pkg/sessions.py", "Session.get", "method", 2, 4),
        "alternatives": [],
        "resolved": 2, "possible": 2, "elsewhere": 4, "resolved_files": 2,
        "groups": [
            {"path": "pkg/sessions.py", "test": False,
             "enclosing": target("pkg/sessions.py", "Session.fetch", "method", 5, 9),
             "sites": [{"line": 6, "column": 5, "kind": "attribute_call", "receiver": "self",
                        "reason": "self is a Session"}]},
            {"path": "app.py", "test": False,
             "enclosing": target("app.py", "main", "function", 2, 9),
             "sites": [{"line": 5, "column": 5, "kind": "attribute_call", "receiver": "s",
                        "reason": "receiver is a Session"}]},
        ],
        "possible_groups": [{"receiver": "conn", "reason": "receiver's type unknown",
                             "count": 2, "files": 1, "samples": ["app.py:6", "app.py:7"]}],
        "elsewhere_groups": [
            {"of": "get (pkg/api.py:1)", "reason": "a bare name, not a member", "count": 1},
            {"of": "get (pkg/api.py:1)", "reason": "imported from another module", "count": 1},
            {"of": "module pkg", "reason": "from another module", "count": 1},
            {"of": "pkg", "reason": "from another module", "count": 1},
        ],
        "files_read": 4, "files_using": 4,
        "freshness": fresh(5),
        "partial": "",
        "unchecked": UNCHECKED_PYTHON,
        "skipped": {},
        "next_cursor": "",
        "empty_reason": "",
    }


def test_a_function_is_resolved_through_imports_and_re_exports(tmp_path: Path) -> None:
    searcher = build(tmp_path / "index", project())
    found = searcher.find_references(ReferencesQuery(target="get", path="pkg/api.py", line=1))
    sites = [(group.path, site.line, site.reason) for group in found.groups
             for site in group.sites]
    assert sites == [
        ("pkg/__init__.py", 1, "imported from .api"),
        ("app.py", 3, "through module pkg"),  # `pkg` re-exports it from .api
        ("tests/test_api.py", 1, "imported from pkg"),  # tests last
        ("tests/test_api.py", 3, "imported from pkg"),
    ]
    assert (found.resolved, found.possible, found.elsewhere) == (4, 0, 4)
    assert [(g.of, g.count) for g in found.elsewhere_groups] == [
        ("Session.get (pkg/sessions.py:2)", 2), ("members of objects", 2)]


def test_nothing_resolved_but_something_possible_says_so(tmp_path: Path) -> None:
    files = project()
    files["app.py"] = (files["app.py"][0], [use("get", 6, UseKind.ATTRIBUTE_CALL, "conn", "",
                                                "main")], [])
    del files["pkg/sessions.py"]
    files["pkg/sessions.py"] = ([defn("pkg/sessions.py", "Session", SymbolKind.CLASS, 1, 9),
                                 defn("pkg/sessions.py", "Session.get", SymbolKind.METHOD, 2, 4)],
                                [], [])
    del files["tests/test_api.py"], files["pkg/__init__.py"]
    found = build(tmp_path / "index", files).find_references(ReferencesQuery(target="Session.get"))
    assert (found.resolved, found.possible, found.elsewhere, found.groups) == (0, 1, 0, [])
    assert found.empty_reason == (
        "no use is tied to this definition by evidence; 1 possible (see possible_groups) and 0 "
        "of other definitions named get")


def test_uses_that_are_all_of_another_definition_say_so(tmp_path: Path) -> None:
    files = {key: project()[key] for key in ("pkg/api.py", "pkg/sessions.py")}
    files["client.py"] = ([], [use("get", 2, UseKind.CALL)],
                          [Import(name="get", source="pkg.api", imported="get", line=1)])
    found = build(tmp_path / "index", files).find_references(ReferencesQuery(target="Session.get"))
    assert (found.resolved, found.possible, found.elsewhere) == (1, 0, 1)
    found = build(tmp_path / "other", {
        "pkg/api.py": files["pkg/api.py"], "pkg/sessions.py": (files["pkg/sessions.py"][0], [], []),
        "client.py": files["client.py"]}).find_references(ReferencesQuery(target="Session.get"))
    assert (found.resolved, found.possible, found.elsewhere) == (0, 0, 1)
    assert found.empty_reason == (
        "no use is tied to this definition by evidence; 0 possible (see possible_groups) and 1 "
        "of other definitions named get")
    assert [(g.of, g.reason, g.count) for g in found.elsewhere_groups] == [
        ("get (pkg/api.py:1)", "a bare name, not a member", 1)]


def test_a_name_no_file_uses_says_so_and_names_the_skipped_files(tmp_path: Path) -> None:
    files = {"pkg/api.py": project()["pkg/api.py"]}
    searcher = build(tmp_path / "index", files, skipped={"vendor/big.py": "too_large",
                                                          "data.py": "binary"})
    with IndexWriter(tmp_path / "index", repo_root=tmp_path, options_hash="t") as writer:
        # Its definitions indexed, its uses not read before the parse deadline.
        writer.replace_file("slow.py", FileState(mtime_ns=1, size=1, digest="s",
                                                 uses_read=False),
                            [defn("slow.py", "slow", SymbolKind.FUNCTION, 1, 2)])
        writer.commit()
    searcher.refresh()
    found = searcher.find_references(ReferencesQuery(target="get"))
    assert (found.resolved, found.possible, found.elsewhere, found.files_using) == (0, 0, 0, 0)
    assert found.empty_reason == "no indexed file uses the name get"
    assert found.skipped == {"binary": 1, "too_large": 1}
    assert found.unchecked[-2:] == [
        "1 indexed files whose uses were not read before the parse deadline (their "
        "definitions are indexed)",
        "2 files the index skipped: binary 1, too_large 1"]


def test_an_index_being_built_makes_the_answer_partial_and_says_how_far(
    tmp_path: Path,
) -> None:
    searcher = build(tmp_path / "index", project())
    building = DaemonStatus(pid=1, repo=str(tmp_path), state=DaemonState.INDEXING,
                            pending=40, building=True)
    found = searcher.find_references(ReferencesQuery(target="get", path="pkg/api.py", line=1),
                                     daemon=building)
    said = ("the index is being built: 5 files indexed so far, 40 to go — ask again in 5 s")
    assert (found.freshness.state, found.partial) == ("building", said)
    found = searcher.find_references(ReferencesQuery(target="nothing_named_so"), daemon=building)
    assert found.target is None
    assert found.empty_reason.endswith(f"; {said}")


def callers(name: str, module: str, count: int = 600) -> Files:
    """`count` files, each importing `name` from `module` and calling it once."""
    return {f"callers/c{number}.py": (
        [defn(f"callers/c{number}.py", f"call{number}", SymbolKind.FUNCTION, 2, 3)],
        [use(name, 3, UseKind.CALL, "", "", f"call{number}")],
        [Import(name=name, source=module, imported=name, line=1)]) for number in range(count)}


def test_the_time_budget_marks_the_answer_partial_with_what_was_read(tmp_path: Path) -> None:
    files = {**project(), **callers("get", "pkg.api")}
    searcher = build(tmp_path / "index", files)
    query = ReferencesQuery(target="get", path="pkg/api.py", line=1)
    # The longest budget: on a busy machine the default second may not read all 604.
    whole = searcher.find_references(msgspec.structs.replace(query, budget_ms=MAX_BUDGET_MS))
    assert (whole.partial, whole.files_read, whole.files_using, whole.resolved) == (
        "", 604, 604, 604)
    cut = searcher.find_references(msgspec.structs.replace(query, budget_ms=1))
    assert cut.files_read < cut.files_using == 604
    assert cut.partial == (f"the time budget (1 ms) ran out: {cut.files_read:,} of the 604 "
                           "files that use get were read")


def test_a_partial_answer_about_an_init_names_the_class_whose_constructions_it_read(
        tmp_path: Path) -> None:
    files: Files = {"shop/cart.py": ([defn("shop/cart.py", "Cart", SymbolKind.CLASS, 1, 3),
                                      defn("shop/cart.py", "Cart.__init__", SymbolKind.METHOD,
                                           2, 3)], [], [])}
    files.update(callers("Cart", "shop.cart"))
    searcher = build(tmp_path / "index", files)
    query = ReferencesQuery(path="shop/cart.py", line=2)
    whole = searcher.find_references(msgspec.structs.replace(query, budget_ms=MAX_BUDGET_MS))
    assert (whole.partial, whole.files_read, whole.files_using, whole.resolved) == (
        "", 600, 600, 600)
    cut = searcher.find_references(msgspec.structs.replace(query, budget_ms=1))
    assert cut.files_read < cut.files_using == 600
    # Then the subclasses of Cart may not all have been found in time either: said after.
    assert cut.partial.split("; ")[0] == (
        f"the time budget (1 ms) ran out: {cut.files_read:,} of the 600 files that use "
        "__init__ or Cart were read")


def test_a_hierarchy_too_wide_for_the_budget_makes_the_answer_partial_naming_a_few(
    tmp_path: Path,
) -> None:
    # Session has 300 subclasses, each with a subclass of its own: their names alone
    # would fill an agent's context, so the answer names five and counts the rest.
    files = project()
    for number in range(300):
        path = f"sessions/s{number}.py"
        files[path] = (
            [defn(path, f"Session{number}", SymbolKind.CLASS, 2, 3),
             defn(path, f"Session{number}Child", SymbolKind.CLASS, 4, 5)],
            [use("Session", 2, UseKind.INHERIT, "", "", f"Session{number}"),
             use(f"Session{number}", 4, UseKind.INHERIT, "", "", f"Session{number}Child")],
            [Import(name="Session", source="pkg.sessions", imported="Session", line=1)])
    searcher = build(tmp_path / "index", files)
    query = ReferencesQuery(path="pkg/sessions.py", line=2, budget_ms=MAX_BUDGET_MS)
    assert searcher.find_references(query).partial == ""
    # The budget that cuts the walk midway depends on the machine's load: the smallest of
    # 1, 2, 4... ms whose answer names more than the first class (at 1 ms on a busy machine
    # the time can run out before Session's own subclasses are read).
    for budget_ms in (2 ** power for power in range(10)):
        cut = searcher.find_references(msgspec.structs.replace(query, budget_ms=budget_ms))
        if " and " in cut.partial:
            break
    prefix, _, rest = cut.partial.partition("the time budget ran out while finding the "
                                            "subclasses of ")
    named, _, more = rest.partition(" and ")
    unread = int(more.split(" more: ")[0].replace(",", ""))
    assert (prefix, more.split(" more: ")[1]) == ("", "uses on a subclass not found are "
                                                      "'possible'")
    assert len(named.split(", ")) == 5
    assert set(named.split(", ")) <= {"Session", *(f"Session{n}" for n in range(300))}
    assert 0 < unread <= 296


def test_pages_of_resolved_uses_follow_the_cursor(tmp_path: Path) -> None:
    searcher = build(tmp_path / "index", project())
    query = ReferencesQuery(target="get", path="pkg/api.py", line=1, limit=3)
    first = searcher.find_references(query)
    second = searcher.find_references(msgspec.structs.replace(query, cursor=first.next_cursor))
    lines = [[(g.path, s.line) for g in page.groups for s in g.sites] for page in (first, second)]
    assert lines == [[("pkg/__init__.py", 1), ("app.py", 3), ("tests/test_api.py", 1)],
                     [("tests/test_api.py", 3)]]
    # The generation, the offset, and a tag of the index and the target.
    assert re.fullmatch(r"1:3:[0-9a-f]{8}", first.next_cursor) and second.next_cursor == ""
    with pytest.raises(QueryError, match="malformed cursor"):
        searcher.find_references(msgspec.structs.replace(query, cursor="three"))


def test_an_ambiguous_name_answers_for_the_best_match_and_lists_the_others(
    tmp_path: Path,
) -> None:
    found = build(tmp_path / "index", project()).find_references(ReferencesQuery(target="get"))
    assert found.target is not None and found.alternatives
    assert {found.target.qualname, *(a.qualname for a in found.alternatives)} == {
        "get", "Session.get"}


def test_uses_stay_out_of_definition_search_and_follow_their_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index_dir = tmp_path / "index"
    with caplog.at_level(logging.INFO):
        searcher = build(index_dir, project())
    # No document is added for uses (BM25's statistics stay those of the definitions): the
    # index holds the 6 definitions, as its header counts them.
    assert searcher.num_symbols == len(searcher.all_symbols()) == 6
    assert "the commit searched holds" not in caplog.text
    assert searcher.manifest.files["pkg/__init__.py"].uses  # it defines nothing
    assert not searcher.manifest.files["app.py"].uses  # on its first definition's document
    for text in ("get", "Session", "pkg", "init"):
        found = searcher.search(SearchQuery(text=text, path="pkg/__init__.py", limit=50))
        assert found.results == []
    query = ReferencesQuery(target="get", path="pkg/api.py", line=1)
    assert searcher.find_references(query).resolved == 4
    with IndexWriter(index_dir, repo_root=tmp_path, options_hash="t") as writer:
        writer.delete_file("tests/test_api.py")
        symbols, _, imports = project()["app.py"]
        writer.replace_file("app.py", FileState(mtime_ns=2, size=2, digest="app2"), symbols,
                            [use("get", 4, UseKind.ATTRIBUTE_CALL, "pkg", "", "main")], imports,
                            language="python")
        writer.commit()
    searcher.refresh()
    after = searcher.find_references(query)
    assert [(g.path, s.line) for g in after.groups for s in g.sites] == [
        ("pkg/__init__.py", 1), ("app.py", 4)]
    assert searcher.num_symbols == len(searcher.all_symbols()) == 5


def test_files_added_by_a_later_commit_are_read_and_their_imports_followed(
    tmp_path: Path,
) -> None:
    # An answer keeps tables per file list and per manifest (a kernel's 55,000 files cost
    # each answer 30 ms to sort): a commit that adds files must be seen by the next answer.
    index_dir = tmp_path / "index"
    searcher = build(index_dir, project())
    query = ReferencesQuery(target="get", path="pkg/api.py", line=1)
    assert searcher.find_references(query).resolved == 4
    with IndexWriter(index_dir, repo_root=tmp_path, options_hash="t") as writer:
        for path, occurrences, imports in (
            ("tools/helpers.py",  # defines nothing: re-exports get
             [use("get", 1, UseKind.IMPORT, "pkg.api")],
             [Import(name="get", source="pkg.api", imported="get", line=1)]),
            ("scripts/run.py",  # defines nothing: imports it from the new module
             [use("get", 1, UseKind.IMPORT, "tools.helpers"), use("get", 2)],
             [Import(name="get", source="tools.helpers", imported="get", line=1)]),
        ):
            writer.replace_file(path, FileState(mtime_ns=1, size=1, digest=path), [],
                                occurrences, imports, language="python")
        writer.commit()
    searcher.refresh()
    after = searcher.find_references(query)
    assert [(g.path, s.line, s.reason) for g in after.groups for s in g.sites] == [
        ("pkg/__init__.py", 1, "imported from .api"),
        ("app.py", 3, "through module pkg"),
        ("scripts/run.py", 1, "imported from tools.helpers"),
        ("scripts/run.py", 2, "imported from tools.helpers"),
        ("tools/helpers.py", 1, "imported from pkg.api"),
        ("tests/test_api.py", 1, "imported from pkg"),
        ("tests/test_api.py", 3, "imported from pkg"),
    ]


def test_a_subclass_receiver_resolves_and_a_base_that_declares_the_method_is_possible(
    tmp_path: Path,
) -> None:
    files: Files = {
        "base.py": ([defn("base.py", "Base", SymbolKind.CLASS, 1, 3),
                     defn("base.py", "Base.get", SymbolKind.METHOD, 2, 3)], [], []),
        "sessions.py": (
            [defn("sessions.py", "Session", SymbolKind.CLASS, 2, 5),
             defn("sessions.py", "Session.get", SymbolKind.METHOD, 3, 5)],
            [use("Base", 2, UseKind.INHERIT, "", "", "Session")],
            [Import(name="Base", source="base", imported="Base", line=1)]),
        "mine.py": (
            [defn("mine.py", "MySession", SymbolKind.CLASS, 2, 3),
             defn("mine.py", "Plain", SymbolKind.CLASS, 4, 4),
             defn("mine.py", "run", SymbolKind.FUNCTION, 5, 9)],
            [use("Session", 2, UseKind.INHERIT, "", "", "MySession"),
             use("get", 6, UseKind.ATTRIBUTE_CALL, "mine", "MySession", "run"),
             use("get", 7, UseKind.ATTRIBUTE_CALL, "anyone", "Base", "run"),
             use("get", 8, UseKind.ATTRIBUTE_CALL, "other", "Other", "run"),
             use("get", 9, UseKind.ATTRIBUTE_CALL, "plain", "Plain", "run")],
            [Import(name="Session", source="sessions", imported="Session", line=1)]),
    }
    found = build(tmp_path / "index", files).find_references(
        ReferencesQuery(target="get", path="sessions.py", line=3))
    assert [(s.line, s.reason) for g in found.groups for s in g.sites] == [
        (6, "receiver is a MySession")]
    assert [(g.receiver, g.reason, g.count) for g in found.possible_groups] == [
        ("anyone", "receiver typed Base, which declares get: may dispatch here", 1),
        ("other", "receiver typed Other, which the index does not define", 1)]
    assert [(g.of, g.reason, g.count) for g in found.elsewhere_groups] == [
        ("members of Plain", "receiver is a Plain, not a Session", 1)]


def test_a_qualified_target_must_match_its_qualified_name_or_module(tmp_path: Path) -> None:
    searcher = build(tmp_path / "index", project())
    found = searcher.find_references(ReferencesQuery(target="pkg.api.get"))
    assert found.target is not None and (found.target.qualname, found.target.path) == (
        "get", "pkg/api.py")
    found = searcher.find_references(ReferencesQuery(target="pkg.Session.get"))
    assert found.target is not None and found.target.path == "pkg/sessions.py"
    missing = searcher.find_references(ReferencesQuery(target="Other.get"))
    assert (missing.target, missing.resolved) == (None, 0)
    assert missing.empty_reason.startswith("no definition named 'Other.get' is indexed")


def test_typescript_relative_imports_and_c_includes_are_followed(tmp_path: Path) -> None:
    def script(path: str, qualname: str, kind: SymbolKind, line: int, end: int,
               language: str) -> Symbol:
        return msgspec.structs.replace(defn(path, qualname, kind, line, end), language=language)

    files: Files = {
        "src/client.ts": ([script("src/client.ts", "send", SymbolKind.FUNCTION, 1, 3,
                                  "typescript")], [], []),
        "src/other.ts": ([script("src/other.ts", "send", SymbolKind.FUNCTION, 1, 3,
                                 "typescript")], [], []),
        "src/app.ts": ([script("src/app.ts", "main", SymbolKind.FUNCTION, 2, 9, "typescript")],
                       [use("send", 3, UseKind.CALL, "", "", "main"),
                        use("send", 4, UseKind.ATTRIBUTE_CALL, "net", "", "main")],
                       [Import(name="send", source="./client", imported="send", line=1),
                        Import(name="net", source="./other", line=1)]),
        "lib/list.c": ([script("lib/list.c", "list_add", SymbolKind.FUNCTION, 3, 9, "c")],
                       [], [Import(name="", source="list.h", line=1)]),
        "include/list.h": ([script("include/list.h", "list_add", SymbolKind.FUNCTION, 2, 2,
                                   "c")], [], []),
        "drivers/net.c": ([script("drivers/net.c", "probe", SymbolKind.FUNCTION, 3, 9, "c")],
                          [use("list_add", 5, UseKind.CALL, "", "", "probe")],
                          [Import(name="", source="list.h", line=1)]),
        "tools/mock.c": ([script("tools/mock.c", "list_add", SymbolKind.FUNCTION, 1, 2, "c")],
                         [], []),  # another definition: a bare name is no longer unique
        "drivers/other.c": ([script("drivers/other.c", "init", SymbolKind.FUNCTION, 3, 9, "c")],
                            [use("list_add", 5, UseKind.CALL, "", "", "init")],
                            [Import(name="", source="stdio.h", line=1)]),
    }
    searcher = build_in_languages(tmp_path / "index", files)
    found = searcher.find_references(ReferencesQuery(target="send", path="src/client.ts",
                                                     line=1))
    assert [(g.path, s.line, s.reason) for g in found.groups for s in g.sites] == [
        ("src/app.ts", 3, "imported from ./client")]
    assert [(g.of, g.count) for g in found.elsewhere_groups] == [
        ("send (src/other.ts:1)", 1)]
    found = searcher.find_references(ReferencesQuery(target="list_add", path="lib/list.c",
                                                     line=3))
    assert [(g.path, s.line, s.reason) for g in found.groups for s in g.sites] == [
        ("drivers/net.c", 5, "through #include of its header")]
    assert [(g.reason, g.count) for g in found.possible_groups] == [
        ("an #include may bring it", 1)]


def test_an_alias_of_another_modules_name_in_the_targets_own_module_is_elsewhere(
    tmp_path: Path,
) -> None:
    # `class DecodeError(CompatDecodeError)` where `CompatDecodeError` is json's
    # `DecodeError` under another name: its uses are json's, not the class's.
    files: Files = {
        "pkg/errors.py": (
            [defn("pkg/errors.py", "DecodeError", SymbolKind.CLASS, 3, 6)],
            [use("DecodeError", 1, UseKind.IMPORT, "json"),
             use("CompatDecodeError", 3, UseKind.INHERIT),
             use("CompatDecodeError", 5, UseKind.ATTRIBUTE_CALL, enclosing="DecodeError"),
             use("DecodeError", 8, UseKind.CALL)],
            [Import(name="CompatDecodeError", source="json", imported="DecodeError", line=1)]),
    }
    answer = build(tmp_path / "index", files).find_references(
        ReferencesQuery(target="DecodeError"))
    assert [(g.path, [(s.line, s.reason) for s in g.sites]) for g in answer.groups] == [
        ("pkg/errors.py", [(8, "in its own module")])]
    assert (answer.resolved, answer.possible, answer.elsewhere) == (1, 0, 3)


def test_path_and_line_name_the_definition_named_on_that_line(tmp_path: Path) -> None:
    # `typedef struct cctx_s { ... } cctx_t;`: both start on line 3; the struct is named
    # there (as search prints it), the typedef on line 9, where its name is.
    def c_definition(qualname: str, kind: SymbolKind, line: int, start: int) -> Symbol:
        return msgspec.structs.replace(defn("frame.c", qualname, kind, line, 9),
                                       language="c", start_line=start)

    files: Files = {
        "frame.c": ([c_definition("cctx_s", SymbolKind.STRUCT, 3, 3),
                     c_definition("cctx_t", SymbolKind.TYPE, 9, 3)],
                    [use("cctx_t", 12, UseKind.TYPE), use("cctx_s", 14, UseKind.TYPE)], []),
    }
    searcher = build(tmp_path / "index", files)
    asked = {line: searcher.find_references(ReferencesQuery(path="frame.c", line=line))
             for line in (3, 9, 5)}
    assert {line: (found.target.qualname, [s.line for g in found.groups for s in g.sites])
            for line, found in asked.items()} == {
        3: ("cctx_s", [14]), 9: ("cctx_t", [12]), 5: ("cctx_t", [12])}


def test_a_file_that_defines_the_name_itself_uses_its_own_definition(tmp_path: Path) -> None:
    # Two template headers each define their own `Hasher` struct (a C header's type is
    # another type, not a declaration of the target); a Python module defines and calls
    # its own `get`.
    def c_definition(path: str, qualname: str, kind: SymbolKind, line: int) -> Symbol:
        return msgspec.structs.replace(defn(path, qualname, kind, line, line + 3),
                                       language="c")

    files: Files = {
        "enc/hasher_a.h": ([c_definition("enc/hasher_a.h", "Hasher", SymbolKind.STRUCT, 2)],
                           [use("Hasher", 8, UseKind.TYPE)], []),
        "enc/hasher_b.h": ([c_definition("enc/hasher_b.h", "Hasher", SymbolKind.STRUCT, 2)],
                           [use("Hasher", 9, UseKind.TYPE)], []),
        "pkg/api.py": project()["pkg/api.py"],
        "pkg/mirror.py": ([defn("pkg/mirror.py", "get", SymbolKind.FUNCTION, 1, 3)],
                          [use("get", 6)], []),
    }
    searcher = build_in_languages(tmp_path / "index", files)
    hasher = searcher.find_references(ReferencesQuery(path="enc/hasher_a.h", line=2))
    get = searcher.find_references(ReferencesQuery(path="pkg/api.py", line=1))
    assert [([(g.path, [s.line for s in g.sites]) for g in found.groups], found.possible,
             [(g.of, g.reason, g.count) for g in found.elsewhere_groups])
            for found in (hasher, get)] == [
        ([("enc/hasher_a.h", [8])], 0,
         [("Hasher (enc/hasher_b.h:2)", "defined in this file too", 1)]),
        ([], 0, [("get (pkg/mirror.py:1)", "defined in this file too", 1)])]


def test_a_c_header_reached_through_a_chain_of_includes_brings_its_names(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`table.c` includes `core.h`, which includes `api.h`, which includes `render.h`: the
    struct `render.h` defines is the one `table.c` uses. A file including none of them
    may still get it from elsewhere (another file defines one); one defining its own
    uses that one. A `path:line`
    naming an enum's type and its constants takes the type, the constants listed as
    alternatives (real extraction, `searcher_over`)."""
    searcher = searcher_over(tmp_path_factory, "c-includes", {
        "include/render.h": ("typedef enum { PLAIN, QUOTED } escaping_t;\n"
                            "struct pool { int size; };\n"),
        "include/api.h": '#include "render.h"\n',
        "ext/core.h": '#include "api.h"\n',
        "ext/table.c": ('#include "core.h"\n'
                        "static int f(struct pool *a, escaping_t e) { return e; }\n"),
        "other/plain.c": "static void g(struct pool *a) {}\n",
        "other/mock.c": "struct pool { int y; };\nstatic void h(struct pool *a) {}\n",
    })
    assert tiers(searcher, "include/render.h", 2) == {
        "resolved": [("ext/table.c", 2, "through #include of a header that includes its "
                      "header")],
        "possible": [("", "no import in the file says which definition", 1)],
        "elsewhere": [("pool (other/mock.c:1)", "defined in this file too", 1)],
    }
    found = searcher.find_references(ReferencesQuery(path="include/render.h", line=1))
    assert (found.target.qualname, [a.qualname for a in found.alternatives],
            [(g.path, [s.line for s in g.sites]) for g in found.groups]) == (
        "escaping_t", ["PLAIN", "QUOTED"], [("ext/table.c", [2])])


def test_a_c_type_the_grammar_reads_as_built_in_says_its_uses_are_not_recorded(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`typedef char bool;` in code older than C99: tree-sitter-c reads every `bool` as a
    built-in type, so none of its uses is recorded, and the answer says so rather than
    reading as proof that nothing uses it. A type of another name says nothing of it."""
    searcher = searcher_over(tmp_path_factory, "c-builtin-names", {
        "common.h": "typedef char bool;\ntypedef struct node { int x; } node;\n",
        "main.c": "#include \"common.h\"\nbool ok(node *n) { return n->x; }\n",
    })
    unchecked_c = [*UNCHECKED_PYTHON[:2],
                   "uses inside macro expansions are not seen (macros are not expanded)"]
    for_bool = searcher.find_references(ReferencesQuery(path="common.h", line=1))
    assert (for_bool.target.name, for_bool.resolved, for_bool.possible,
            for_bool.elsewhere, for_bool.files_using) == ("bool", 0, 0, 0, 0)
    assert for_bool.unchecked == [*unchecked_c, "uses of bool are not recorded: the c grammar "
                                  "reads the name as a built-in type"]
    for_node = searcher.find_references(ReferencesQuery(path="common.h", line=2))
    assert (for_node.target.name, for_node.resolved) == ("node", 1)
    assert for_node.unchecked == unchecked_c
