"""What a Python function that does not annotate its result returns, as its `return`
statements show it (`Symbol.returns`): read by references for the receivers of calls'
results (`j = PointJacobi.from_affine(g)`, then `j.mul_add()`)."""

from __future__ import annotations

from symfind.extract import extract_symbols
from symfind.extract.python_types import REBOUND

SOURCE = b'''\
class Point:
    def double(self):
        return Point()

    def scale(self):
        return self

    @classmethod
    def from_affine(cls, p):
        return cls(p)

    def maybe(self, flag):
        if flag:
            return None
        return Point()

    def mixed(self, flag):
        if flag:
            return 1
        return Point()

    def annotated(self) -> int:
        return Point()

    def points(self):
        yield Point()
        return Point()

    def outer(self):
        def inner():
            return Point()
        return inner

    def local(self):
        made = Point()
        return made

    def chained(self):
        return make()

    def either(self, flag):
        if flag:
            return make()
        return Point()

    def bare(self):
        return

    def member(self):
        return self.origin

    def parameter(self, other):
        return other


def make():
    return Point()
'''


def test_each_function_has_what_its_returns_agree_on() -> None:
    """A class's call, `self`, `cls(...)`, a local bound to a call, a function's call (its
    result left for the query) and a member of `self` each give a type; `return None`
    counts for nothing. None when one return gives something of no type known (`1`, a
    parameter, a local def), in a generator, or where the signature says what it returns."""
    symbols = extract_symbols("geometry.py", SOURCE, language="python")
    assert [(s.qualname, s.returns) for s in symbols] == [
        ("Point", ""),
        ("Point.double", "Point"),
        ("Point.scale", "Point"),
        ("Point.from_affine", "Point"),
        ("Point.maybe", "Point"),
        ("Point.mixed", ""),
        ("Point.annotated", ""),
        ("Point.points", ""),
        ("Point.outer", ""),
        ("Point.outer.inner", "Point"),
        ("Point.local", "Point"),
        ("Point.chained", "make()"),
        ("Point.either", f"Point{REBOUND}make()"),
        ("Point.bare", ""),
        ("Point.member", "Point:origin"),
        ("Point.parameter", ""),
        ("make", "Point"),
    ]


def test_other_languages_have_none() -> None:
    """Only Python's functions are read for it: a signature elsewhere says its result."""
    source = b"class Point { double() { return new Point(); } }\n"
    symbols = extract_symbols("geometry.js", source, language="javascript")
    assert [(s.qualname, s.returns) for s in symbols] == [("Point", ""), ("Point.double", "")]
