"""TypeScript syntax that tree-sitter-typescript 0.13 does not know, rewritten at the same
offsets before parsing: variance annotations (`extract/rewrite/variance.py`), generic call
signatures that follow a member without a separator (`extract/rewrite/call_signatures.py`)
and escapes in template literal types (`extract/rewrite/template_types.py`).

Each rewrite is compared whole, and the grammar is shown to fail on the source as written
and to parse the rewritten bytes without an error. (In effect 4.1.0's sources these gaps
turned whole files into one ERROR node; small snippets like these stay local errors, so
the tests look at the tree rather than at the symbols.)
"""

from __future__ import annotations

import pytest

from symfind.extract import extract_symbols
from symfind.extract.parse import _parser_and_query, parser_input
from symfind.extract.rewrite.call_signatures import separate_call_signatures
from symfind.extract.rewrite.template_types import plain_template_types
from symfind.extract.rewrite.variance import blank_variance_annotations

VARIANCE = [
    (b"export interface Channel<out A, in B, in out C = never> { readonly a: A }\n",
     b"export interface Channel<    A,    B,        C = never> { readonly a: A }\n"),
    (b"type Fn<\n  in T extends object,\n  out R\n> = (t: T) => R\n",
     b"type Fn<\n     T extends object,\n      R\n> = (t: T) => R\n"),
    (b"class Box<in out T> { constructor(readonly t: T) {} }\n",
     b"class Box<       T> { constructor(readonly t: T) {} }\n"),
]
# Left alone: a parameter named `out`, `in` as an operator, a comparison, names that
# start with the keywords.
NOT_VARIANCE = [
    b"type Id<out extends string> = out\n",
    b"for (const key in object) { if (key, inner > 0) {} }\n",
    b"const ok = count <in_range && outer, outside > 1\n",
    b"interface Tree<inner, outer = inner> { left: inner }\n",
]


@pytest.mark.parametrize(("source", "expected"), VARIANCE)
def test_variance_modifiers_are_blanked(source: bytes, expected: bytes) -> None:
    assert blank_variance_annotations(source) == expected


@pytest.mark.parametrize("source", NOT_VARIANCE)
def test_other_ins_and_outs_are_left_alone(source: bytes) -> None:
    assert blank_variance_annotations(source) == source


SIGNATURES = b"""export const clamp: {
  /**
   * Data-last.
   */
  <A extends Date>(options: { readonly minimum: A }): (self: A) => A
  /** Data-first. */
  <A extends Date>(self: A, options: { readonly minimum: A }): A
  // Over several lines.
  <
    A extends Date,
    B
  >(self: A, other: B): A | B
} = dual(2, clamp_)
"""
SEPARATED = b"""export const clamp: {
  /**
   * Data-last.
   */
  <A extends Date>(options: { readonly minimum: A }): (self: A) => A
  /** Data-first. */
 ;<A extends Date>(self: A, options: { readonly minimum: A }): A
  // Over several lines.
 ;<
    A extends Date,
    B
  >(self: A, other: B): A | B
} = dual(2, clamp_)
"""
# A signature after `{`, `,`, `(` or `=>` follows no member: nothing to separate.
NO_MEMBER_BEFORE = b"""const f = (
  <T>(x: T) => x
)
type G = {
  <T>(x: T): T
}
const h = [
  a,
  <T>(x: T) => x,
]
"""


def test_documented_and_multiline_signatures_are_separated() -> None:
    assert separate_call_signatures(SIGNATURES) == SEPARATED


def test_signatures_after_no_member_are_left_alone() -> None:
    assert separate_call_signatures(NO_MEMBER_BEFORE) == NO_MEMBER_BEFORE


TEMPLATE_TYPE = b"""type MissingSelf<Usage extends string> =
  `Missing \\`Self\\` generic - use \\`class Self extends ${Usage}<Self>()\\``
const hint = `a \\`quoted\\` word`
type Missing<Params extends string = "", T = Array<string>> = `use \\`${Params}\\``
"""
PLAIN_TEMPLATE_TYPE = b"""type MissingSelf<Usage extends string> =
  `Missing __Self__ generic - use __class Self extends ${Usage}<Self>()__`
const hint = `a \\`quoted\\` word`
type Missing<Params extends string = "", T = Array<string>> = `use __${Params}__`
"""


def test_escapes_in_a_template_type_are_made_plain() -> None:
    """Only the type alias's template: the template string after it is code."""
    assert plain_template_types(TEMPLATE_TYPE) == PLAIN_TEMPLATE_TYPE


@pytest.mark.parametrize("source", [*(s for s, _ in VARIANCE), SIGNATURES, TEMPLATE_TYPE])
@pytest.mark.parametrize("grammar", ["typescript", "tsx"])
def test_the_grammar_fails_as_written_and_parses_the_rewrite(grammar: str, source: bytes) -> None:
    parser, _query = _parser_and_query(grammar)
    as_written = parser.parse(source).root_node.has_error
    rewritten = parser.parse(parser_input(grammar, source)).root_node.has_error
    assert (as_written, rewritten) == (True, False)


def test_docs_are_read_as_written() -> None:
    """A comment's `, in particular,` looks like a variance modifier to the blanking;
    the doc keeps it, as it keeps everything the rewrites touch."""
    source = (b"/** Sorted, in particular, by name; `type T = \\`a\\`` is fine. */\n"
              b"export function sortByName<in out T>(items: T[]): T[] {\n"
              b"  return items\n"
              b"}\n")
    assert parser_input("typescript", source) != source
    assert [(s.name, s.line, s.doc) for s in extract_symbols("doc.ts", source)] == [
        ("sortByName", 2, "Sorted, in particular, by name; `type T = \\`a\\`` is fine."),
    ]
