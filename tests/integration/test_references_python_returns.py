"""Python receivers typed by what a function that does not annotate its result returns
(`Symbol.returns`), through a real index (the files are extracted for real,
`searcher_over`): a function's or a static method's `return Point()`, a classmethod's
`return cls()` called on a subclass, a method's `return self` in a chain, two returns
leading to one class, the items of a list made by a comprehension of a class's calls; and a
function returning what its parameter makes, of no type."""

from __future__ import annotations

import pytest

from symfind.storage import Searcher
from tests.integration.conftest import searcher_over, tiers

CURVES = {
    "geometry.py": (
        "class Point:\n"                                  # 1
        "    def mul_add(self, k):\n"                     # 2
        "        return self\n"                           # 3
        "\n"                                              # 4
        "    @staticmethod\n"                             # 5
        "    def from_affine(p):\n"                       # 6
        "        return Point()\n"                        # 7
        "\n"                                              # 8
        "    @classmethod\n"                              # 9
        "    def build(cls):\n"                           # 10
        "        return cls()\n"                          # 11
        "\n"                                              # 12
        "\n"                                              # 13
        "class Edwards(Point):\n"                         # 14
        "    pass\n"                                      # 15
        "\n"                                              # 16
        "\n"                                              # 17
        "def make():\n"                                   # 18
        "    return Point()\n"                            # 19
        "\n"                                              # 20
        "\n"                                              # 21
        "def either(flag):\n"                             # 22
        "    if flag:\n"                                  # 23
        "        return make()\n"                         # 24
        "    return Point.from_affine(None)\n"            # 25
        "\n"                                              # 26
        "\n"                                              # 27
        "def unknown(kind):\n"                            # 28
        "    return kind()\n"                             # 29
        "\n"                                              # 30
        "\n"                                              # 31
        "class Curve:\n"                                  # 32
        "    def __init__(self, names):\n"                # 33
        "        self.points = [Point() for n in names]\n"  # 34
        "\n"                                              # 35
        "    def add_all(self, k):\n"                     # 36
        "        for point in self.points:\n"             # 37
        "            point.mul_add(k)\n"                  # 38
    ),
    "test_geometry.py": (
        "from geometry import Point, Edwards, make, either, unknown\n"  # 1
        "\n"                                              # 2
        "\n"                                              # 3
        "def test_points():\n"                            # 4
        "    j = Point.from_affine(None)\n"               # 5
        "    j.mul_add(1)\n"                              # 6
        "    make().mul_add(2)\n"                         # 7
        "    either(True).mul_add(3)\n"                   # 8
        "    Edwards.build().mul_add(4)\n"                # 9
        "    j.mul_add(5).mul_add(6)\n"                   # 10
        "    unknown(Point).mul_add(7)\n"                 # 11
    ),
}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return searcher_over(tmp_path_factory, "py-returns", CURVES)


def test_calls_on_what_unannotated_functions_return_are_resolved(searcher: Searcher) -> None:
    assert tiers(searcher, "geometry.py", 2) == {
        "resolved": [("geometry.py", 38, "receiver is a Point"),
                     ("test_geometry.py", 6, "receiver is a Point"),
                     ("test_geometry.py", 7, "receiver is a Point"),
                     ("test_geometry.py", 8, "receiver is a Point"),
                     ("test_geometry.py", 9, "receiver is a Edwards"),
                     ("test_geometry.py", 10, "receiver is a Point"),
                     ("test_geometry.py", 10, "receiver is a Point")],
        "possible": [("unknown(Point)", "receiver's type unknown", 1)],
        "elsewhere": [],
    }
