"""bench.references.set_aside: what is set aside by rule, a line only when all the oracle's
uses on it are."""

from __future__ import annotations

from pathlib import Path

from bench.references import set_aside, truth_of

SOURCE = (
    "class ConsumerObserver implements Observer {\n"
    "  complete(): void {}\n"
    "}\n"
    "const observer = { complete: () => dest.complete() };\n"  # a key, and a use
    "const keys = { complete: noop };\n"  # a key alone
    "subscriber.complete();\n"  # another class's member
    "// {@link complete}\n"
    "partial.complete();\n"
)


def test_declarations_and_other_classes_set_aside_only_where_nothing_else_is(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.ts").write_text(SOURCE, encoding="utf-8")
    seed = {
        "name": "complete", "qualname": "ConsumerObserver.complete",
        "uses": [["a.ts", 4, 20], ["a.ts", 4, 41], ["a.ts", 5, 16], ["a.ts", 6, 12],
                 ["a.ts", 7, 11], ["a.ts", 8, 9]],
        "aside": {"declaration": [["a.ts", 4, 20], ["a.ts", 5, 16]],
                  "other_class": [["a.ts", 6, 12]]},
    }
    uses = {(path, line) for path, line, _ in seed["uses"]}
    assert set_aside(tmp_path, seed, uses) == {
        "macro": set(), "comment": {("a.ts", 7)}, "declaration": {("a.ts", 5)},
        "other_class": {("a.ts", 6)}}
    truth, _ = truth_of(tmp_path, seed, "corpus", {})
    assert truth == {("a.ts", 4), ("a.ts", 8)}


def test_a_seed_without_the_oracles_verdicts_sets_aside_by_text_alone(tmp_path: Path) -> None:
    (tmp_path / "a.ts").write_text(SOURCE, encoding="utf-8")
    seed = {"name": "complete", "qualname": "ConsumerObserver.complete",
            "uses": [["a.ts", 6, 12], ["a.ts", 7, 11], ["a.ts", 3, 1]]}
    uses = {(path, line) for path, line, _ in seed["uses"]}
    assert set_aside(tmp_path, seed, uses) == {
        "macro": {("a.ts", 3)}, "comment": {("a.ts", 7)}, "declaration": set(),
        "other_class": set()}


def test_a_c_line_that_starts_with_a_dereference_is_no_comment(tmp_path: Path) -> None:
    (tmp_path / "a.c").write_text(
        "/* a state:\n"
        " * state_t holds the key\n"
        " */\n"
        "    *pState = hs = (state_t*) calloc(1, sizeof(state_t));\n", encoding="utf-8")
    seed = {"name": "state_t", "qualname": "state_t",
            "uses": [["a.c", 2, 4], ["a.c", 4, 21], ["a.c", 4, 50]]}
    uses = {(path, line) for path, line, _ in seed["uses"]}
    assert set_aside(tmp_path, seed, uses) == {
        "macro": set(), "comment": {("a.c", 2)}, "declaration": set(), "other_class": set()}


def test_a_line_whose_block_comment_closes_before_code_is_no_comment(tmp_path: Path) -> None:
    (tmp_path / "a.ts").write_text(
        "/* State_ holds\n"
        "   the states */\n"
        "/* see #1208 */ done = state === State_.UP\n"
        "/* State_ once more */\n", encoding="utf-8")
    seed = {"name": "State_", "qualname": "State_",
            "uses": [["a.ts", 1, 4], ["a.ts", 3, 35], ["a.ts", 4, 4]]}
    uses = {(path, line) for path, line, _ in seed["uses"]}
    assert set_aside(tmp_path, seed, uses) == {
        "macro": set(), "comment": {("a.ts", 1), ("a.ts", 4)}, "declaration": set(),
        "other_class": set()}
