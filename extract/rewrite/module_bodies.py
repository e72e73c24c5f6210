"""JavaScript and TypeScript module wrappers: function bodies that are a module's top level.

Code written before ES modules keeps its module scope inside a function: an AMD module
(`define([...], function (jQuery) { jQuery.offset = {...}; ... })`), an IIFE
(`(function () { ... })()`, `!function () { ... }()`, `(function () { ... }).call(this)`)
or the factory a UMD header is called with (`(function (root, factory) { ... })(this,
function (exports) { ... })`). The tag queries anchor module-level definitions on the
`program` node, so nothing in such a body would be found but nested function
declarations. `module_bodies` finds these bodies; parse.py re-parses each one on its own,
everything around it blanked (`offsets.blanked_outside`: rows and byte offsets
unchanged), so that its statements are a program's and the same queries read them.

Only the statements directly under `program` are looked at, and only calls of a function
written in place or of an AMD loader: a test's `describe("x", () => { ... })` is not a
module, and its locals stay unindexed.

Imports: tree_sitter.
"""

from __future__ import annotations

from tree_sitter import Node

# The grammars whose trees this reads (node type names are the same in all three).
WRAPPER_GRAMMARS = frozenset({"javascript", "typescript", "tsx"})
# AMD and CommonJS loaders that take the module's factory as an argument.
_LOADERS = frozenset({b"define", b"require"})
_FUNCTIONS = frozenset({"function_expression", "function", "arrow_function"})
# `(f)`, `!f()`, `void f()`: the same call, written to make it an expression.
_TRANSPARENT = frozenset({"parenthesized_expression", "unary_expression"})


def module_bodies(root: Node, source: bytes) -> list[Node]:
    """The `statement_block`s of module wrappers called at the top of `root`, in order."""
    bodies: list[Node] = []
    for statement in root.named_children:
        if statement.type != "expression_statement" or not statement.named_children:
            continue
        call = _unwrapped(statement.named_children[0])
        if call.type != "call_expression":
            continue
        functions = _wrapped_functions(call, source)
        bodies.extend(
            body for function in functions
            if (body := function.child_by_field_name("body")) is not None
            and body.type == "statement_block"
        )
    return bodies


def _wrapped_functions(call: Node, source: bytes) -> list[Node]:
    """The functions whose bodies are module scope, for one top-level call."""
    callee = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if callee is None:
        return []
    callee = _unwrapped(callee)
    if callee.type == "member_expression":  # `(function () {...}).call(this)`
        method = callee.child_by_field_name("property")
        target = callee.child_by_field_name("object")
        if method is not None and target is not None and _text(method, source) in {b"call", b"apply"}:
            callee = _unwrapped(target)
    factories = [
        argument for argument in map(_unwrapped, arguments.named_children if arguments else [])
        if argument.type in _FUNCTIONS
    ]
    if callee.type in _FUNCTIONS:
        return [callee, *factories]
    if callee.type == "identifier" and _text(callee, source) in _LOADERS:
        return factories
    return []


def _unwrapped(node: Node) -> Node:
    while node.type in _TRANSPARENT and node.named_children:
        node = node.named_children[-1]  # `!x`: the operand; `(x)`: the expression
    return node


def _text(node: Node, source: bytes) -> bytes:
    return source[node.start_byte : node.end_byte]
