"""Python references that depend on what an import binds, through a real index (the
files are extracted for real, `searcher_over`): an aliased import re-exports nothing
under the original name; of several imports of one name, the one in force at the use; a
module that imports a name and defines it again; `from pkg import mod` binding the
submodule, not a class its `__init__` imports; another name imported under the target's;
a value of a module used as a receiver, typed when the module assigns it a class's call
(or a call of a function returning one), or through a name bound to it; a
class named in lower case, and a classmethod's
`cls(...)`, constructing instances; a generic class called, making what its `__new__`
returns; a name bound twice to the same class; a class written through its module
(`base.TreeBuilder`) in a file defining another of its name; an import of a name that a
function of the module defines for itself."""

from __future__ import annotations

import pytest

from symfind.storage import Searcher
from tests.integration.conftest import searcher_over, tiers

DATES = {
    "dates/__init__.py": "",
    "dates/_common.py": (
        "class weekday:\n"                                  # 1
        "    def __call__(self, n):\n"                      # 2
        "        return weekday()\n"                        # 3
    ),
    "dates/rrule.py": (
        "from ._common import weekday as weekdaybase\n"     # 1
        "\n"                                                # 2
        "\n"                                                # 3
        "class weekday(weekdaybase):\n"                     # 4
        "    pass\n"                                        # 5
        "\n"                                                # 6
        "\n"                                                # 7
        "class rrule:\n"                                    # 8
        "    def count(self):\n"                            # 9
        "        return 0\n"                                # 10
        "\n"                                                # 11
        "    @classmethod\n"                                # 12
        "    def daily(cls):\n"                             # 13
        "        made = cls()\n"                            # 14
        "        made.count()\n"                            # 15
        "        return cls().count()\n"                    # 16
    ),
    "dates/relativedelta.py": "from ._common import weekday\n",
    "dates/parser/__init__.py": (
        "from ._parser import parser, parse, _timelex\n"    # 1
        "\n"                                                # 2
        "\n"                                                # 3
        "def deprecated(cls):\n"                            # 4
        "    return cls\n"                                  # 5
        "\n"                                                # 6
        "\n"                                                # 7
        "_timelex = deprecated(_timelex)\n"                 # 8
    ),
    "dates/parser/_parser.py": (
        "class _timelex:\n"                                 # 1
        "    pass\n"                                        # 2
        "\n"                                                # 3
        "\n"                                                # 4
        "class parser:\n"                                   # 5
        "    def parse(self, text):\n"                      # 6
        "        return text\n"                             # 7
        "\n"                                                # 8
        "\n"                                                # 9
        "def parse(text):\n"                                # 10
        "    return parser().parse(text)\n"                 # 11
    ),
    "dates/lazy.py": (
        "def load(text):\n"                                 # 1
        "    from dates.parser import _parser as parser\n"  # 2
        "    return parser.parse(text)\n"                   # 3
    ),
    "dates/tz.py": (
        "class _Factory:\n"                                 # 1
        "    def set_cache_size(self, size):\n"             # 2
        "        self.size = size\n"                        # 3
        "\n"                                                # 4
        "\n"                                                # 5
        "def _make(size=0):\n"                              # 6
        "    return _Factory() if size else None\n"         # 7
        "\n"                                                # 8
        "\n"                                                # 9
        "gettz = _make()\n"                                 # 10
    ),
    "dates/jobs.py": (
        "class Job:\n"                                      # 1
        "    def refresh(self):\n"                          # 2
        "        pass\n"                                    # 3
        "\n"                                                # 4
        "    @classmethod\n"                                # 5
        "    def fetch(cls, key) -> 'Job':\n"               # 6
        "        return cls()\n"                            # 7
        "\n"                                                # 8
        "\n"                                                # 9
        "class Queue:\n"                                    # 10
        "    def enqueue(self, f) -> 'Job':\n"              # 11
        "        return Job()\n"                            # 12
    ),
    "tests/test_dates.py": (
        "from dates import parser, tz\n"                    # 1
        "from dates.parser import _parser as other\n"       # 2
        "from dates.jobs import Job, Queue\n"               # 3
        "from dates.rrule import rrule\n"                   # 4
        "\n"                                                # 5
        "\n"                                                # 6
        "def test_relative():\n"                            # 7
        "    from dates.relativedelta import weekday\n"     # 8
        "    return weekday(1)\n"                           # 9
        "\n"                                                # 10
        "\n"                                                # 11
        "def test_rrule():\n"                               # 12
        "    from dates.rrule import weekday\n"             # 13
        "    return weekday(2)\n"                           # 14
        "\n"                                                # 15
        "\n"                                                # 16
        "def test_private():\n"                             # 17
        "    from dates.parser import _timelex\n"           # 18
        "    return _timelex()\n"                           # 19
        "\n"                                                # 20
        "\n"                                                # 21
        "def test_modules():\n"                             # 22
        "    parser.parse('x')\n"                           # 23
        "    tz.gettz.set_cache_size(3)\n"                  # 24
        "    return other\n"                                # 25
        "\n"                                                # 26
        "\n"                                                # 27
        "def test_jobs():\n"                                # 28
        "    job = Queue().enqueue(print)\n"                # 29
        "    job = Job.fetch(1)\n"                          # 30
        "    job.refresh()\n"                               # 31
        "    return rrule().count()\n"                      # 32
        "\n"                                                # 33
        "\n"                                                # 34
        "def test_streams():\n"                             # 35
        "    from dates.streams import open_stream\n"       # 36
        "    send, receive = open_stream[str](1)\n"         # 37
        "    send.clone()\n"                                # 38
        "    return receive.clone()\n"                      # 39
    ),
    "dates/curves.py": (
        "class Point:\n"                                   # 1
        "    def order(self):\n"                           # 2
        "        return 1\n"                               # 3
        "\n"                                               # 4
        "\n"                                               # 5
        "def make():\n"                                    # 6
        "    return Point()\n"                             # 7
        "\n"                                               # 8
        "\n"                                               # 9
        "generator = Point()\n"                            # 10
        "made = make()\n"                                  # 11
    ),
    "tests/test_curves.py": (
        "from dates.curves import generator, made\n"       # 1
        "from dates import curves\n"                       # 2
        "\n"                                               # 3
        "\n"                                               # 4
        "def test_order():\n"                              # 5
        "    return generator.order(), curves.generator.order(), made.order()\n"  # 6
        "\n"                                               # 7
        "\n"                                               # 8
        "def test_alias():\n"                              # 9
        "    gen = generator\n"                            # 10
        "    return gen.order()\n"                         # 11
    ),
    "dates/streams.py": (
        "class SendStream:\n"                                          # 1
        "    def clone(self):\n"                                       # 2
        "        return self\n"                                        # 3
        "\n"                                                           # 4
        "\n"                                                           # 5
        "class ReceiveStream:\n"                                       # 6
        "    def clone(self):\n"                                       # 7
        "        return self\n"                                        # 8
        "\n"                                                           # 9
        "\n"                                                           # 10
        "class open_stream(tuple):\n"                                  # 11
        "    def __new__(cls, size) -> tuple[SendStream, ReceiveStream]:\n"  # 12
        "        return (SendStream(), ReceiveStream())\n"             # 13
    ),
}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return searcher_over(tmp_path_factory, "py-imports", DATES)


def test_an_aliased_import_provides_no_name_and_a_functions_own_import_is_in_force(
        searcher: Searcher) -> None:
    """`rrule.py` imports `weekday` as `weekdaybase` and defines its own `weekday`: a test
    importing `weekday` from `rrule` gets that one; each test function's own import is
    the one in force in it, whatever the file imports elsewhere."""
    assert tiers(searcher, "dates/_common.py", 1) == {
        "resolved": [("dates/_common.py", 3, "in its own module"),
                     ("dates/relativedelta.py", 1, "imported from ._common"),
                     ("dates/rrule.py", 1, "imported from ._common"),
                     ("dates/rrule.py", 4, "imported from ._common"),
                     ("tests/test_dates.py", 8, "imported from dates.relativedelta"),
                     ("tests/test_dates.py", 9, "imported from dates.relativedelta")],
        "possible": [],
        "elsewhere": [("weekday (dates/rrule.py:4)", "imported from another module", 2)],
    }


def test_a_module_that_imports_the_name_and_defines_it_again_makes_it_possible(
        searcher: Searcher) -> None:
    """`parser/__init__.py` imports `_timelex`, then rebinds it: which one a module
    importing it from there gets, the text does not say."""
    assert tiers(searcher, "dates/parser/_parser.py", 1) == {
        "resolved": [("dates/parser/__init__.py", 1, "imported from ._parser"),
                     ("dates/parser/__init__.py", 8, "imported from ._parser")],
        "possible": [("", "imported from dates.parser, which imports _timelex and defines "
                      "it again", 1),
                     ("dates.parser", "imported from dates.parser, which imports _timelex "
                      "and defines it again", 1)],
        "elsewhere": [],
    }


def test_a_submodule_imported_from_its_package_is_a_module_not_its_class(
        searcher: Searcher) -> None:
    """`from dates import parser` binds the package `dates/parser/`, whose `__init__`
    imports the class `parser`: `parser.parse()` is the module's function; and
    `from dates.parser import _parser as parser` binds another name as the class's."""
    assert tiers(searcher, "dates/parser/_parser.py", 5) == {
        "resolved": [("dates/parser/_parser.py", 11, "in its own module"),
                     ("dates/parser/__init__.py", 1, "imported from ._parser")],
        "possible": [],
        "elsewhere": [("dates", "from another module", 1),
                      ("dates.parser", "the module dates.parser, imported", 1),
                      ("dates.parser._parser", "_parser imported as parser", 1)],
    }
    assert tiers(searcher, "dates/parser/_parser.py", 6) == {  # the method
        "resolved": [("dates/parser/_parser.py", 11, "receiver is a parser")],
        "possible": [],
        "elsewhere": [("parse (dates/parser/_parser.py:10)", "imported from another module", 2),
                      ("module dates.parser", "from another module", 1)],
    }


def test_a_value_of_a_module_as_a_receiver_is_possible(searcher: Searcher) -> None:
    """`tz.gettz.set_cache_size()`: `gettz` is a value of the module `dates.tz`, of no
    type the text shows (`_make()` returns an expression of no class), not a module
    `dates.tz.gettz` missing from the index."""
    assert tiers(searcher, "dates/tz.py", 2) == {
        "resolved": [],
        "possible": [("tz.gettz", "receiver tz.gettz, a value of module dates.tz: its type "
                      "unknown", 1)],
        "elsewhere": [],
    }


def test_classes_named_in_lower_case_and_cls_construct_instances(searcher: Searcher) -> None:
    """`rrule()` constructs an `rrule` (a class named in lower case), and so does a
    classmethod's `cls()`, bound to a name or called on at once."""
    assert tiers(searcher, "dates/rrule.py", 9) == {
        "resolved": [("dates/rrule.py", 15, "receiver is a rrule"),
                     ("dates/rrule.py", 16, "receiver is a rrule"),
                     ("tests/test_dates.py", 32, "receiver is a rrule")],
        "possible": [],
        "elsewhere": [],
    }


def test_a_name_bound_twice_to_one_class_by_two_files_annotations_is_of_it(
        searcher: Searcher) -> None:
    """`job` bound by `Queue.enqueue()` (`'Job'` written in `jobs.py`) and by
    `Job.fetch()`: both lead to the one `Job`."""
    assert tiers(searcher, "dates/jobs.py", 2) == {
        "resolved": [("tests/test_dates.py", 31, "receiver is a Job")],
        "possible": [],
        "elsewhere": [],
    }


def test_a_generic_class_called_makes_what_its_new_is_annotated_to_return(
        searcher: Searcher) -> None:
    """`open_stream[str](1)`: a class subscripted with its type arguments, then called;
    its `__new__` returns a tuple of two streams, unpacked into two names."""
    assert tiers(searcher, "dates/streams.py", 2) == {
        "resolved": [("tests/test_dates.py", 38, "receiver is a SendStream")],
        "possible": [],
        "elsewhere": [("ReceiveStream.clone (dates/streams.py:7)", "receiver is a "
                       "ReceiveStream", 1)],
    }


def test_a_value_a_module_assigns_a_class_call_has_that_class(searcher: Searcher) -> None:
    """`generator = Point()` in `curves.py`: `generator.order()` where it is imported, read
    through the module, or through a name bound to it (`gen = generator`), is a call on a
    `Point`; so is `made.order()`, `made = make()` there, `make` returning a `Point`."""
    assert tiers(searcher, "dates/curves.py", 2) == {
        "resolved": [("tests/test_curves.py", 6, "receiver is a Point"),
                     ("tests/test_curves.py", 6, "receiver is a Point"),
                     ("tests/test_curves.py", 6, "receiver is a Point"),
                     ("tests/test_curves.py", 11, "receiver is a Point")],
        "possible": [],
        "elsewhere": [],
    }


TREES = {
    "trees/__init__.py": "",
    "trees/base.py": (
        "class TreeBuilder:\n"                            # 1
        "    def reset(self):\n"                          # 2
        "        pass\n"                                  # 3
    ),
    "trees/lxml.py": (
        "from . import base\n"                            # 1
        "\n"                                              # 2
        "\n"                                              # 3
        "class TreeBuilder(base.TreeBuilder):\n"          # 4
        "    def reset(self):\n"                          # 5
        "        base.TreeBuilder.reset(self)\n"          # 6
        "        TreeBuilder.reset(self)\n"               # 7
        "\n"                                              # 8
        "\n"                                              # 9
        "def make_set():\n"                               # 10
        "    class TreeBuilder(set):\n"                   # 11
        "        pass\n"                                  # 12
        "    return TreeBuilder()\n"                      # 13
    ),
    "trees/use.py": "from trees.lxml import TreeBuilder\n",
}


def test_a_class_written_through_its_module_and_a_functions_class_imported(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`base.TreeBuilder.reset(self)` in a subclass's own `reset` is the base's, though the
    file defines a `TreeBuilder` of its own; and an import of `TreeBuilder` from the
    module takes its module-level class, never the one a function there defines."""
    searcher = searcher_over(tmp_path_factory, "py-trees", TREES)
    assert tiers(searcher, "trees/lxml.py", 5) == {
        "resolved": [("trees/lxml.py", 7, "called on the class TreeBuilder")],
        "possible": [],
        "elsewhere": [("TreeBuilder (trees/base.py:1)",
                       "called on another class named TreeBuilder", 1)],
    }
    assert tiers(searcher, "trees/lxml.py", 11) == {
        "resolved": [("trees/lxml.py", 13, "in its own module")],
        "possible": [],
        "elsewhere": [("names outside make_set", "a local of another function", 4)],
    }
