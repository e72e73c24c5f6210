"""The ancestors found from the root down (`parse._Ancestors`) are those `Node.parent`
gives, for every node of every fixture, asked about in any order (the kept path is undone
and redone), and for nodes of the same span as their parent or child, and empty ones; the
previous sibling found from the parent (`parse._previous_sibling`) is `Node.prev_sibling`."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from tree_sitter import Node

from symfind.extract import parse
from symfind.extract.languages import LANGUAGES, language_for_path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "languages"
SAMPLES = sorted(path for path in FIXTURES.glob("*/*") if path.suffix != ".json")


def every_node(root: Node) -> list[Node]:
    nodes, stack = [], [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.children)
    return nodes


def parents(node: Node) -> list[int]:
    chain = []
    parent = node.parent
    while parent is not None and len(chain) <= parse.MAX_SCOPE_DEPTH:
        chain.append(parent.id)
        parent = parent.parent
    return chain


def tree_of(path: str, source: bytes) -> Node:
    language = language_for_path(path)
    assert language is not None
    parser, _query = parse._parser_and_query(language)
    parsed = parse.parser_input(LANGUAGES[language].grammar, source)
    return parse._parse(parser, parsed, parse._Deadline(60))


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.parent.name for p in SAMPLES])
def test_every_nodes_ancestors_in_source_order_and_shuffled(sample: Path) -> None:
    root = tree_of(sample.name, sample.read_bytes())
    nodes = every_node(root)
    ancestors = parse._Ancestors(root)
    for node in nodes:  # depth first: source order
        assert [a.id for a in ancestors.of(node)] == parents(node)
    random.Random(sample.name).shuffle(nodes)
    for node in nodes:
        assert [a.id for a in ancestors.of(node)] == parents(node)


def test_nodes_of_one_span_and_empty_ones() -> None:
    # `x` alone: program, expression_statement and identifier share a span; a missing `)`
    # is an empty node where another ends.
    for source in (b"x", b"f(a, b", b"class A { m() {} }", b"if (a) { b(", b""):
        root = tree_of("x.js", source)
        nodes = every_node(root)
        ancestors = parse._Ancestors(root)
        for node in [*nodes, *reversed(nodes), *nodes]:
            assert [a.id for a in ancestors.of(node)] == parents(node), (source, node)
            assert parse._previous_sibling(node, node.parent) == node.prev_sibling


def test_past_the_bound_the_nearest_are_kept() -> None:
    depth = 3 * parse.MAX_SCOPE_DEPTH
    root = tree_of("x.js", b"function f(){\n" * depth + b"}\n" * depth)
    deepest = root
    while deepest.named_children:
        deepest = deepest.named_children[-1]
    chain = parse._Ancestors(root).of(deepest)
    assert [a.id for a in chain] == parents(deepest)
    assert len(chain) == parse.MAX_SCOPE_DEPTH + 1


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.parent.name for p in SAMPLES])
def test_the_previous_sibling_found_from_the_parent_is_tree_sitters(sample: Path) -> None:
    root = tree_of(sample.name, sample.read_bytes())
    for node in every_node(root):
        parent = node.parent
        assert parse._previous_sibling(node, parent) == node.prev_sibling
        assert parse._previous_sibling(node, None) == node.prev_sibling
