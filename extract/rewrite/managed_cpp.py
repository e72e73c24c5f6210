"""C++/CLI and C++/CX (Microsoft's managed and Windows Runtime dialects) read as C++.

tree-sitter's C++ grammar knows none of their syntax: a handle `String^ s`, `gcnew T()`,
`ref class X abstract`, `value struct`, `property T^ P;` or a finalizer `!X();` is an
ERROR node, and one in a header loses the class around it and what follows (edge-js's
`edge.h` lost every class, `pplxtasks.h` its `#if defined(__cplusplus_winrt)` parts).
`as_standard_cpp` rewrites that syntax into the C++ it means, at the same offsets (the
rule of offsets.py; parse.py reads names from the rewritten bytes, signatures from the
source as written):

- a handle's `^` becomes `*` (an XOR becomes a product, still an expression; the name
  `operator^` is kept);
- `gcnew` becomes `new`, and `for each (T x in xs)` a range-based `for (T x : xs)`;
- a finalizer `!X` becomes a destructor `~X`, and is indexed under that name (the one
  name the rewriting changes);
- the dialect's words around a class head (`ref`, `value`, `interface`, `abstract`,
  `sealed`) and `property` are blanked.

Only files that show the dialect are touched: `gcnew`, a `ref`/`value` class or struct,
or a handle after a type name (`T^ x`, `T^>`, `T^)`); standard C++ is parsed as written.

Imports: the standard library and `extract` modules only.
"""

from __future__ import annotations

import re

from symfind.extract.rewrite.offsets import Edits

# The dialect's marks: `gcnew`, `ref class`, `value struct`, or a handle written as one
# (`String^ s`, `Task<Object^>`, `f(Object^)`; an XOR is `a ^ b` or `a^b`). Looked for as
# plain bytes first: a regex over every C++ file for them cost a tenth of blanking macros.
_KEYWORD_MARKS = (b"gcnew", b"ref class", b"ref struct", b"value class", b"value struct")
_HANDLE_MARK = re.compile(rb"\^(?<=[\w>]\^)(?:[ \t]*[>),]|[ \t]+[A-Za-z_])")
# A handle's `^`; not an operator's name (`operator^=`), read from the parsed bytes.
_HANDLE = re.compile(rb"(?<!operator)(?<!operator )\^")
_GCNEW = re.compile(rb"\bgcnew\b")
# `ref class`, `value struct`, `interface class`: the first word goes.
_CLASS_PREFIX = re.compile(rb"\b(ref|value|interface)[ \t]+(?:class|struct)\b")
# `ref class X abstract : Base`, `ref struct X<T> sealed`: the modifier goes.
_CLASS_MODIFIER = re.compile(
    rb"\b(?:class|struct)[ \t]+[A-Za-z_]\w*(?:[ \t]*<[^\n{};]*>)?[ \t]+(abstract|sealed)\b"
)
# `property System::Object^ Payload;` (a trivial property: a field to the grammar).
_PROPERTY = re.compile(rb"^[ \t]*(?:(?:static|virtual)[ \t]+)*(property)[ \t]+(?=[A-Za-z_:])", re.M)
# A finalizer declared, defined or called: `!NodejsFunc();`, `NodejsFunc::!NodejsFunc()`,
# `this->!NodejsFunc();`.
_FINALIZER = re.compile(rb"(?:^[ \t]*|::|->)(!)(?=[A-Za-z_]\w*[ \t]*\()", re.M)
# `for each (T x in xs)`: `each` goes and `in` becomes `:`, a range-based `for`.
_FOR_EACH = re.compile(rb"\bfor[ \t]+(each)[ \t]*\((?:[^()]|\([^()]*\))*?\s(in)\s")


def as_standard_cpp(source: bytes) -> bytes:
    """`source` with C++/CLI and C++/CX syntax rewritten as C++ (see the module
    docstring), or `source` itself when it shows neither dialect."""
    if not (any(mark in source for mark in _KEYWORD_MARKS)
            or (b"^" in source and _HANDLE_MARK.search(source))):
        return source
    edits = Edits(source)
    for match in _HANDLE.finditer(source):
        edits.replace(match.start(), match.end(), b"*")
    for match in _GCNEW.finditer(source):
        edits.replace(match.start(), match.end(), b"new")
    for pattern in (_CLASS_PREFIX, _CLASS_MODIFIER, _PROPERTY):
        for match in pattern.finditer(source):
            edits.blank(*match.span(1))
    for match in _FINALIZER.finditer(source):
        edits.replace(match.start(1), match.end(1), b"~")
    for match in _FOR_EACH.finditer(source):
        edits.blank(*match.span(1))
        edits.replace(match.start(2), match.end(2), b":")
    return edits.result()
