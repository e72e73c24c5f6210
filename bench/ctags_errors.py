"""ctags' errors: tags that are not definitions (a macro call read as a function, a
property of an object literal read as a constant, ...), told apart by the source line, the
lines around it and what tree-sitter's parse has there.

`bench.coverage` lists them as its own cause (never a miss of symfind's); the relevance
ground truth (`bench.groundtruth.build`) leaves them out of the definitions it asks for.
Every rule is about ctags' tag and the source alone, never about symfind's index.
"""

from __future__ import annotations

import collections
import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

    from bench.groundtruth import Definition

#: ctags kinds under which it reports a C/C++ macro call (`TEST_IMPL(x) {`,
#: `CURLOPT(CURLOPT_URL, ...)` in an enum, `int LIBBSD_REDIRECT(strnvis, ...)`).
_MACRO_CALL_KINDS = frozenset({"function", "enumerator", "variable", "prototype"})
_JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
#: ctags kinds of values: inside a function body they are locals.
_VALUE_KINDS = frozenset({"variable", "constant", "var", "local"})
#: Function-like nodes of the grammars (bodies hold locals, not definitions).
_FUNCTION_NODES = frozenset({
    "function_definition", "function_declaration", "function_expression", "arrow_function",
    "generator_function", "generator_function_declaration", "method_definition",
    "method_declaration", "constructor_declaration", "func_literal", "function_item",
    "closure_expression", "lambda", "lambda_expression", "lambda_literal",
    "anonymous_function", "anonymous_function_creation_expression", "anonymous_initializer",
    "local_function_statement", "anonymous_method_expression", "getter", "setter",
    "method", "singleton_method",
})
#: String literal nodes: code in them is data (Ruby `module_eval <<~END`, docs).
#: Where TypeScript overloads stand: a module's statements, a class's members.
_OVERLOAD_SCOPES = frozenset({"program", "class_body", "statement_block"})
_SIGNATURE_NODES = frozenset({"function_signature", "method_signature"})
_IMPLEMENTATION_NODES = frozenset({"function_declaration", "method_definition"})
_STRING_NODES = frozenset({"string", "heredoc_body", "template_string", "string_literal",
                           "raw_string_literal", "verbatim_string_literal",
                           "string_content", "concatenated_string"})


@dataclass
class Regions:
    """1-based lines of one file by what tree-sitter's parse (symfind's grammar) has there."""

    errors: set[int] = field(default_factory=set)
    #: Lines inside a multi-line string literal (after its first line).
    strings: set[int] = field(default_factory=set)
    #: Line -> how many function, method, lambda or accessor bodies hold it (a body
    #: starts after its first line).
    bodies: collections.Counter = field(default_factory=collections.Counter)
    #: Lines holding a shorthand property of a JS/TS object literal (`{ date, displayMonth }`).
    shorthands: set[int] = field(default_factory=set)
    #: The name line of each TypeScript overload signature -> the name line of the
    #: implementation that follows it (`function f(a: T): U;` ... `function f(a) { }`).
    implementations: dict[int, int] = field(default_factory=dict)


def parse_regions(path: Path) -> Regions:
    """Where `path` has ERROR nodes, multi-line strings and function bodies, in the
    parse symfind makes of it."""
    from symfind.extract.languages import LANGUAGES, language_for_file
    from symfind.extract.parse import parser_input
    from tree_sitter_language_pack import get_parser

    source = path.read_bytes()
    regions = Regions()
    language = language_for_file(path.name, source[:8192])
    if language is None:
        return regions
    # The source as symfind's parser reads it (macros blanked, C++/CLI made C++): what
    # symfind can parse is not counted as an error region.
    grammar = LANGUAGES[language].grammar
    stack = [get_parser(grammar).parse(parser_input(grammar, source)).root_node]
    while stack:
        node = stack.pop()
        first, last = node.start_point[0] + 1, node.end_point[0] + 1
        if node.is_error:
            regions.errors.update(range(first, last + 1))
        elif node.type in _STRING_NODES and last > first:
            regions.strings.update(range(first + 1, last + 1))
            continue
        elif node.type == "shorthand_property_identifier":
            regions.shorthands.add(first)
        elif node.type in _FUNCTION_NODES:
            regions.bodies.update(range(first + 1, last + 1))  # Counter: += 1 a line
        if node.type in _OVERLOAD_SCOPES:
            regions.implementations.update(_overload_implementations(node))
        stack.extend(node.children)
    return regions


def _overload_implementations(scope: Node) -> dict[int, int]:
    """Name line of each overload signature among `scope`'s statements or members -> the
    name line of the implementation (a same-named function or method with a body) after it."""
    found: dict[int, int] = {}
    waiting: dict[str, list[int]] = {}  # name -> its signatures' lines, still unmatched
    for child in scope.named_children:
        if child.type == "export_statement" and child.named_children:
            child = child.named_children[0]
        name = child.child_by_field_name("name")
        if name is None:
            continue
        key, line = name.text.decode("utf-8", "replace"), name.start_point[0] + 1
        if child.type in _SIGNATURE_NODES:
            waiting.setdefault(key, []).append(line)
        elif child.type in _IMPLEMENTATION_NODES:
            for signature in waiting.pop(key, []):
                found[signature] = line
    return found


def ctags_error(d: Definition, text: str, nearby: str, regions: Regions) -> str:
    """Why ctags' tag is not a definition ("" when it is one).

    Args:
        d: The ctags definition.
        text: Its source line.
        nearby: The lines from two before to two after it.
        regions: What the definition's file has where.
    """
    quoted = f"`{text.strip()[:80]}`"
    if d.name.startswith("<") or d.name == "_":
        return f"a name ctags makes up for something unnamed ({d.name}): {quoted}"
    if d.line in regions.strings:
        return f"code inside a string literal: {quoted}"
    if (_IDENTIFIER.match(d.name) and d.name != "Companion"
            and not re.search(rf"(?<!\w){re.escape(d.name)}(?!\w)", nearby)):
        # Kotlin's unnamed `companion object` is a real object ctags names by its implicit
        # name: it stays a miss.
        return f"no identifier {d.name} within two lines (`0xffff` read as `xffff`): {quoted}"
    if (d.language in ("c", "cpp") and d.ctags_kind in _MACRO_CALL_KINDS and d.name.isupper()
            and re.search(rf"(?:^|[\s*&]){re.escape(d.name)}\s*\(", text)):
        return f"a macro call read as a {d.ctags_kind} named {d.name}: {quoted}"
    if (d.language in ("c", "cpp") and d.ctags_kind in ("class", "struct", "union")
            and re.fullmatch(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*", d.name)
            and re.search(rf"\b(?:class|struct|union)\s+(?:\w+\s+)*\w+\s+{d.name}\b", text)):
        # `class PROTOBUF_EXPORT GzipInputStream PROTOBUF_FUTURE_FINAL`: symfind has the class
        return f"a macro after a {d.ctags_kind}'s name read as its name: {quoted}"
    if (d.language in ("c", "cpp") and d.ctags_kind in _MACRO_CALL_KINDS
            and re.match(rf"\s*[A-Z][A-Z0-9_]*\s*\(.*\b{re.escape(d.name)}\s*\(.*\)\s*$", text)):
        # `JSON_HEDLEY_DEPRECATED_FOR(3.1.0, items())` above a declaration of another name
        return f"a call in a macro's arguments read as a {d.ctags_kind} named {d.name}: {quoted}"
    if d.language in ("c", "cpp") and d.ctags_kind == "enumerator" and re.search(
            rf"<[^<>;]*\b{re.escape(d.name)}\b[^<>;]*>", text) and not re.match(
            rf"\s*{re.escape(d.name)}\s*(?:[=,}}]|$)", text):
        # `IntZone_Uint64_Uint = SafeIntCompare<T, U>::isBothUnsigned && ...` in an enum
        return f"a template argument in an enumerator's value read as an enumerator: {quoted}"
    if (d.language == "cpp" and d.ctags_kind in ("class", "struct")
            and d.name in ("abstract", "sealed")
            and re.search(rf"\b(?:class|struct)\s+\w+(?:\s*<.*>)?\s+{d.name}\b", text)):
        # C++/CLI and C++/CX `ref class _AsyncInfoBase abstract : Base`
        return f"a class modifier (C++/CLI) read as the {d.ctags_kind}'s name: {quoted}"
    if (d.language == "cpp" and d.ctags_kind == "variable"
            and re.search(rf"\b{re.escape(d.name)}\s*\([^()]*\^", text)):
        # `_T1 _ProgressTypeSelector(IAsyncActionWithProgress<_T1> ^);`: a handle (C++/CLI)
        # in a parameter list, where ctags reads a variable, is a function's prototype
        return f"a prototype with a handle parameter (C++/CLI) read as a variable: {quoted}"
    if d.language == "csharp" and d.ctags_kind in ("class", "interface", "struct") and re.search(
            rf"<[^>]*\b{re.escape(d.name)}\b[^<]*>|\bwhere\s+\w+\s*:.*\b{re.escape(d.name)}\b",
            text):
        return f"a type parameter or constraint read as a {d.ctags_kind}: {quoted}"
    if d.language == "python" and d.ctags_kind == "function" and not re.match(
            rf"\s*(?:async\s+)?def\s+{re.escape(d.name)}\b|\s*{re.escape(d.name)}\s*=", text):
        return f"a call read as a function definition: {quoted}"
    if d.language in _JS_LANGUAGES:
        name = re.escape(d.name)
        if re.match(rf"\s*(?:[\w$]+\.)*{name}\.prototype\b", text):  # `a.init.prototype = `
            return f"an assignment to a prototype read as a {d.ctags_kind}: {quoted}"
        if re.match(rf"\s*{name}\.\w+\s*[,)\]]", text):
            return f"a member access read as a {d.ctags_kind}: {quoted}"
        if (re.search(rf"\.{name}\b", text)
                and not re.search(rf"(?<![\w$.]){name}\b|\.{name}\s*=(?!=)", text)):
            # `return Buffer.prototype.utf8Write ? ...`, `Namespace.prototype.resolve.call(this)`
            return f"a property read in an expression read as a {d.ctags_kind}: {quoted}"
        if d.line in regions.shorthands and re.match(rf"\s*{name}\s*[,}}]?\s*$", text):
            return f"a shorthand property of an object literal read as a {d.ctags_kind}: {quoted}"
        declared = re.match(r"\s*(?:export\s+)?(?:const|let|var)\s+([\w$]+)\b(.*)", text)
        if (declared and declared[1] != d.name
                and re.search(rf"(?<![\w$.]){name}\b", declared[2])
                and not re.search(rf"(?<![\w$.]){name}\s*=(?!=)", declared[2])):
            # `const internalModifiers = [Selected, Disabled]`, `const tests: [A, B][] = ...`
            return f"a name in the declaration of {declared[1]} read as a {d.ctags_kind}: {quoted}"
        if re.match(rf"\s*{name}\[[^\]]*\]\s*=(?!=)", text):
            return f"an assignment to an element of {d.name} read as a {d.ctags_kind}: {quoted}"
        if d.ctags_kind == "alias" and re.match(r"\s*(?:import|export)\b", text):
            return f"an imported or re-exported type read as a type alias: {quoted}"
        if d.ctags_kind == "class" and re.match(rf"\s*['\"]?{name}['\"]?\s*:\s*\{{", text):
            return f"a key of an object literal read as a class: {quoted}"
        # `name: value` is a property; a bare `name,` is one only in a function body (at
        # the top level it may be a destructured name, a definition).
        ends = "[:,}]" if d.line in regions.bodies else ":"
        if d.ctags_kind in _VALUE_KINDS and re.match(rf"\s*['\"]?{name}['\"]?\s*{ends}", text):
            return f"a property of an object literal read as a {d.ctags_kind}: {quoted}"
        if (d.ctags_kind == "class" and d.line in regions.bodies
                and re.search(rf"(?:^\s*(?:(?:const|let|var)\s+)?|[{{,]\s*){name}\s*[=:]\s*\{{",
                              text)):
            return f"an object literal in a function body read as a class: {quoted}"
    if (d.language == "csharp" and d.ctags_kind == "method" and "." in d.name
            and not re.match(r"I[A-Z]", d.name)):
        return f"a call on a variable read as a method: {quoted}"
    depth = regions.bodies[d.line]
    if depth and (d.ctags_kind in _VALUE_KINDS or (d.language in _JS_LANGUAGES and not d.scope)):
        # The relevance bench leaves out what is defined in a function body; ctags lost the
        # function's scope here (JS/TS callbacks, Kotlin getters, PHP closures).
        return f"a local of a function body that ctags reported at {d.scope_kind or 'file'} level: {quoted}"
    if depth >= 2 and d.language in _JS_LANGUAGES:
        # Two functions deep: a member of an object built inside a function (jQuery's
        # `jqXHR = { getResponseHeader: function () {...} }` inside `ajax`, itself in an AMD
        # module's factory). One function deep is left a miss: an AMD factory's body is the
        # module's top level.
        return f"a member of an object local to a function: {quoted}"
    return ""


def name_lines_fixed(files: SourceFiles, defs: list[Definition]) -> list[Definition]:
    """`defs` with each tag ctags put a line below its name moved to the name's line: the
    last member of an enum tagged on the closing brace's line, `declare const Symbol`
    (no terminator) tagged on the next line. A tag's line is the line of its name; when
    the name is not on it but on the line above, that is the line."""
    fixed = []
    for d in defs:
        if d.line > 1 and _IDENTIFIER.match(d.name):
            name = re.compile(rf"(?<![\w$]){re.escape(d.name)}(?![\w$])")
            if (not name.search(files.line(d.path, d.line))
                    and name.search(files.line(d.path, d.line - 1))):
                d = dataclasses.replace(d, line=d.line - 1)
        fixed.append(d)
    return fixed


def overloads_implemented(files: SourceFiles, defs: list[Definition]) -> list[Definition]:
    """`defs` with each TypeScript definition ctags put on an overload signature moved to
    the implementation's name line. ctags tags an overloaded function once, at its first
    signature; the definition an agent looks for is the implementation with a body, which
    symfind ranks first (`Symbol.declaration`)."""
    fixed = []
    for d in defs:
        if d.language in ("typescript", "tsx"):
            implementation = files.context(d.path, d.line)[2].implementations.get(d.line)
            if implementation is not None:
                d = dataclasses.replace(d, line=implementation)
        fixed.append(d)
    return fixed


def ctags_errors(files: SourceFiles, defs: list[Definition]) -> dict[int, str]:
    """`ctags_error` of each definition of `defs` (by index) that is one."""
    found: dict[int, str] = {}
    for number, d in enumerate(defs):
        if reason := ctags_error(d, *files.context(d.path, d.line)):
            found[number] = reason
    return found


class SourceFiles:
    """The corpus's files, each read once and parsed once, when first asked: a tag's line,
    the lines around it and the file's regions."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lines: dict[str, list[str]] = {}
        self._regions: dict[str, Regions] = {}

    def line(self, path: str, line: int) -> str:
        """The 1-based `line` of `path` ("" past its end)."""
        lines = self._read(path)
        return lines[line - 1] if line <= len(lines) else ""

    def context(self, path: str, line: int) -> tuple[str, str, Regions]:
        """The 1-based `line` of `path`, the lines from two before to two after it, and
        the file's regions."""
        if path not in self._regions:
            self._regions[path] = parse_regions(self.root / path)
        nearby = "\n".join(self._read(path)[max(line - 3, 0):line + 2])
        return self.line(path, line), nearby, self._regions[path]

    def _read(self, path: str) -> list[str]:
        if path not in self._lines:
            text = (self.root / path).read_text(encoding="utf-8", errors="replace")
            self._lines[path] = text.split("\n")
        return self._lines[path]
