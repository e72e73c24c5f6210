"""TypeScript references from real extraction to the tiers: barrels that re-export every
name (`export * from`), `super`, casts, type aliases, and interfaces a class implements
through another one.

The files below are indexed as a repository (`update_index`); each answer is the whole
classification (`Searcher.reference_sites`) or the whole list of reasons, compared whole.
"""

from __future__ import annotations

import pytest

from symfind.storage import ReferencesQuery, Searcher
from tests.integration.conftest import searcher_over

SOURCES = {
    "src/core/pool.ts": (
        "export type Teardown = Pool | (() => void);\n"
        "export class Pool {\n"
        "  acquire(): void {}\n"
        "}\n"
        "export class FastPool extends Pool {\n"
        "  acquire(): void { super.acquire(); }\n"
        "}\n"
        "export function makePool(): Pool { return new Pool(); }\n"
    ),
    "src/core/atom.ts": (
        "export interface IObservable {\n"
        "  isBeingObserved: boolean;\n"
        "}\n"
        "export interface IAtom extends IObservable {}\n"
        "export class Atom implements IAtom {\n"
        "  get isBeingObserved(): boolean { return false; }\n"
        "  report(): boolean { return this.isBeingObserved; }\n"
        "}\n"
    ),
    "src/internal.ts": 'export * from "./core/pool";\nexport * from "./core/atom";\n',
    "src/helpers/util.ts": (
        "export namespace util {\n"
        "  export function joinValues(values: string[]): string { return values.join(); }\n"
        "}\n"
    ),
    "src/parse.ts": (
        "export type DIRTY<T> = { value: T };\n"
        "export const DIRTY = <T>(value: T): DIRTY<T> => ({ value });\n"
    ),
    "src/wrap.ts": (
        'import { DIRTY } from "./parse";\n'
        "export function wrap(x: number): DIRTY<number> {\n"
        "  return DIRTY(x);\n"
        "}\n"
    ),
    "src/en.ts": (
        'import { util } from "./helpers/util";\n'
        'export const message = util.joinValues(["a"]);\n'
    ),
    "src/outer.ts": (
        "export function outer(): number {\n"                  # 1
        "  function helper(): number { return 1; }\n"          # 2
        "  function inner(): number {\n"                       # 3
        "    const x = helper();\n"                            # 4
        "    function helper(): number { return 2; }\n"        # 5
        "    return x;\n"                                      # 6
        "  }\n"                                                # 7
        "  return helper() + inner();\n"                       # 8
        "}\n"
    ),
    "src/rpc/envelopes.ts": (
        "export namespace JSONRPC2 {\n"                        # 1
        "  export type RequestId = number | string | null;\n"  # 2
        "  export interface BaseEnvelope {\n"                  # 3
        "    id?: RequestId;\n"                                # 4
        "  }\n"                                                # 5
        "}\n"                                                  # 6
        "export type Message = { id: JSONRPC2.RequestId };\n"  # 7
        "export type Other = { id: Outer.RequestId };\n"       # 8
    ),
    "src/store.ts": (
        "export class Store {\n"                                   # 1
        "  size(): number { return 0; }\n"                         # 2
        "}\n"                                                      # 3
        "export function count(store: Store, other): number {\n"  # 4
        "  const { size } = store;\n"                              # 5
        "  const { size: n } = other;\n"                           # 6
        "  return size() + n();\n"                                 # 7
        "}\n"                                                      # 8
    ),
    "src/app.ts": (
        'import { IObservable, Teardown, makePool, annotations } from "./internal";\n'
        "export function run(o: IObservable, t: Teardown, x: any, both: Pool | Atom): void {\n"
        "  makePool();\n"
        "  annotations.makePool();\n"
        "  (x as Pool).acquire();\n"
        "  t.acquire();\n"
        "  both.acquire();\n"
        "  o.isBeingObserved;\n"
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return searcher_over(tmp_path_factory, "ts-references", SOURCES)


def sites(searcher: Searcher, path: str, line: int) -> dict[str, list[tuple[str, int]]]:
    tiers = searcher.reference_sites(ReferencesQuery(path=path, line=line))
    return {tier: [(where, at) for where, at, _ in found] for tier, found in tiers.items()}


def test_a_barrel_that_re_exports_every_name_provides_them(searcher: Searcher) -> None:
    # `makePool` comes through `export * from "./core/pool"` in internal.ts; a member
    # of a value imported from there (`annotations.makePool`) is no module's name.
    assert sites(searcher, "src/core/pool.ts", 8) == {
        "resolved": [("src/app.ts", 1), ("src/app.ts", 3)], "possible": [],
        "elsewhere": [("src/app.ts", 4)]}
    found = searcher.find_references(ReferencesQuery(path="src/core/pool.ts", line=8))
    assert [(s.line, s.reason) for g in found.groups for s in g.sites] == [
        (1, "imported from ./internal"), (3, "imported from ./internal")]
    assert [(g.of, g.reason) for g in found.elsewhere_groups] == [
        ("members of objects",
         "a member of annotations, a value imported from ./internal, not a module")]


def test_super_a_cast_a_type_alias_and_a_union_on_a_method(searcher: Searcher) -> None:
    assert sites(searcher, "src/core/pool.ts", 3) == {
        "resolved": [("src/app.ts", 5), ("src/core/pool.ts", 6)],
        "possible": [("src/app.ts", 6), ("src/app.ts", 7)], "elsewhere": []}
    found = searcher.find_references(ReferencesQuery(path="src/core/pool.ts", line=3))
    assert [(g.path, s.line, s.reason) for g in found.groups for s in g.sites] == [
        ("src/core/pool.ts", 6, "super is a Pool"),
        ("src/app.ts", 5, "receiver is a Pool")]
    assert [(g.receiver, g.reason) for g in found.possible_groups] == [
        ("both", "receiver's type unknown"),
        ("t", "receiver typed Teardown, a type alias: it may name Pool or a union with it")]


def test_an_interface_the_class_implements_through_another_is_possible(
    searcher: Searcher,
) -> None:
    # IObservable's `isBeingObserved` is a property signature (not indexed): the class's
    # lineage, Atom → IAtom → IObservable, says the call may reach Atom's.
    assert sites(searcher, "src/core/atom.ts", 6) == {
        "resolved": [("src/core/atom.ts", 7)], "possible": [("src/app.ts", 8)],
        "elsewhere": []}
    found = searcher.find_references(ReferencesQuery(path="src/core/atom.ts", line=6))
    assert [(g.receiver, g.reason) for g in found.possible_groups] == [
        ("o", "receiver typed IObservable, which Atom extends or implements: may dispatch "
              "here")]


def test_a_member_of_an_imported_namespace_around_the_target_is_resolved(
    searcher: Searcher,
) -> None:
    # `util` is a value imported by name, but it is the TypeScript namespace that holds
    # `joinValues`: the member is the target, as `annotations.makePool` is not.
    assert sites(searcher, "src/helpers/util.ts", 2) == {
        "resolved": [("src/en.ts", 2)], "possible": [], "elsewhere": []}


def test_a_name_written_through_its_namespace_in_the_namespaces_file_is_resolved(
    searcher: Searcher,
) -> None:
    # `JSONRPC2.RequestId` where `JSONRPC2` is declared, not imported; `Outer` holds no
    # such type.
    assert sites(searcher, "src/rpc/envelopes.ts", 2) == {
        "resolved": [("src/rpc/envelopes.ts", 4), ("src/rpc/envelopes.ts", 7)],
        "possible": [], "elsewhere": [("src/rpc/envelopes.ts", 8)]}


def test_a_member_read_out_by_an_object_pattern_is_a_use_of_it(searcher: Searcher) -> None:
    # `const { size } = store` on a `Store`; out of `other`, of no type shown: possible.
    # The names bound (`size()`, `n()` called) are locals.
    answer = searcher.find_references(ReferencesQuery(path="src/store.ts", line=2))
    assert [(g.path, s.line, s.reason) for g in answer.groups for s in g.sites] == [
        ("src/store.ts", 5, "receiver is a Store")]
    assert [(g.receiver, g.reason, g.count) for g in answer.possible_groups] == [
        ("other", "receiver's type unknown", 1)]
    assert (answer.resolved, answer.possible, answer.elsewhere) == (1, 1, 0)


def test_a_type_and_a_value_of_one_name_keep_their_own_uses(searcher: Searcher) -> None:
    # TypeScript's `type DIRTY` and `const DIRTY`: the call is the value's, the annotation
    # the type's; the import binds both.
    assert sites(searcher, "src/parse.ts", 1) == {
        "resolved": [("src/parse.ts", 2), ("src/wrap.ts", 1), ("src/wrap.ts", 2)],
        "possible": [], "elsewhere": [("src/wrap.ts", 3)]}
    assert sites(searcher, "src/parse.ts", 2) == {
        "resolved": [("src/wrap.ts", 1), ("src/wrap.ts", 3)], "possible": [],
        "elsewhere": [("src/parse.ts", 2), ("src/wrap.ts", 2)]}


def test_a_function_declared_in_a_nested_function_holds_in_all_of_it(
        searcher: Searcher) -> None:
    # JavaScript hoists a function declaration: `inner`'s own `helper` is the one its
    # call calls, though declared after it; `outer`'s `helper` is called on line 8 only.
    assert sites(searcher, "src/outer.ts", 2) == {
        "resolved": [("src/outer.ts", 8)], "possible": [],
        "elsewhere": [("src/outer.ts", 4)]}
    assert sites(searcher, "src/outer.ts", 5) == {
        "resolved": [("src/outer.ts", 4)], "possible": [],
        "elsewhere": [("src/outer.ts", 8)]}


def test_an_import_of_the_targets_name_wins_over_a_global_declaration_in_its_file(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`declare global { interface Node }` beside `import { Node } from "./model"`: the
    file's `Node` is the imported class; the global interface is the DOM's `Node` elsewhere."""
    searcher = searcher_over(tmp_path_factory, "ts-global", {
        "src/model.ts": "export class Node {}\n",
        "src/view.ts": (
            'import { Node } from "./model";\n'                  # 1
            "declare global {\n"                                 # 2
            "  interface Node { desc?: number }\n"               # 3
            "}\n"                                                # 4
            "export function f(n: Node): Node { return n; }\n"   # 5
        ),
    })
    assert sites(searcher, "src/view.ts", 3) == {
        "resolved": [], "possible": [],
        "elsewhere": [("src/view.ts", 1), ("src/view.ts", 5), ("src/view.ts", 5)]}
    assert sites(searcher, "src/model.ts", 1)["resolved"] == [
        ("src/view.ts", 1), ("src/view.ts", 5), ("src/view.ts", 5)]
