"""Python references that depend on scope and on overriding, through a real index (the
files are extracted for real, `searcher_over`): a function defined inside a function is a
local of it, and within it the definition of the name last made before a use is the one
used; a call on a subclass that overrides the method is the override's; `super().m()` in
a subclass is the base's; a receiver typed by a class of the target's name is the
target's only where the file's imports lead to the target's module; a name assigned a
function's call has the class the function's return annotation names; constructing a
class (or a subclass that inherits its `__init__`) is a use of its `__init__`."""

from __future__ import annotations

import pytest

from symfind.storage import Searcher
from tests.integration.conftest import searcher_over, tiers

CONVERTERS = (
    "class Base:\n"                                 # 1
    "    def hook(self, f=None):\n"                 # 2
    "        def decorator(g):\n"                   # 3
    "            return g\n"                        # 4
    "        return decorator\n"                    # 5
    "\n"                                            # 6
    "    def unhook(self, f=None):\n"               # 7
    "        def decorator(g):\n"                   # 8
    "            return g\n"                        # 9
    "        return decorator(f)\n"                 # 10
    "\n"                                            # 11
    "\n"                                            # 12
    "class Child(Base):\n"                          # 13
    "    def __init__(self):\n"                     # 14
    "        self.hook(1)\n"                        # 15
    "\n"                                            # 16
    "    def hook(self, f=None):\n"                 # 17
    "        return super().hook(f)\n"              # 18
    "\n"                                            # 19
    "\n"                                            # 20
    "class Grandchild(Child):\n"                    # 21
    "    def run(self):\n"                          # 22
    "        self.unhook(2)\n"                      # 23
    "        return self.hook(3)\n"                 # 24
    "\n"                                            # 25
    "\n"                                            # 26
    "def use(base: Base, child: Child):\n"          # 27
    "    base.hook(4)\n"                            # 28
    "    child.hook(5)\n"                           # 29
    "    Child.hook(child, 6)\n"                    # 30
)

SHADOWS = (
    "def register(items, add):\n"                   # 1
    "    for item in items:\n"                      # 2
    "        def check(x):\n"                       # 3
    "            return x is item\n"                # 4
    "        add(check)\n"                          # 5
    "    for item in items:\n"                      # 6
    "        def check(x):\n"                       # 7
    "            return x is not item\n"            # 8
    "        add(check)\n"                          # 9
    "\n"                                            # 10
    "\n"                                            # 11
    "def other(add):\n"                             # 12
    "    add(check)\n"                              # 13
)


LOCKS = {
    "backend.py": (
        "import trio.lowlevel\n"                   # 1
        "\n"                                       # 2
        "\n"                                       # 3
        "class Lock:\n"                            # 4
        "    def __init__(self):\n"                # 5
        "        self._inner = trio.Lock()\n"      # 6
        "\n"                                       # 7
        "    def acquire(self):\n"                 # 8
        "        self._inner.acquire()\n"          # 9
    ),
    "core.py": (
        "class Lock:\n"                            # 1
        "    def acquire(self):\n"                 # 2
        "        return True\n"                    # 3
    ),
    "api.py": "from core import Lock as Lock\n",
    "test_lock.py": (
        "import backend\n"                         # 1
        "from api import Lock\n"                   # 2
        "\n"                                       # 3
        "\n"                                       # 4
        "def test_lock():\n"                       # 5
        "    lock = Lock()\n"                      # 6
        "    lock.acquire()\n"                     # 7
        "    other = backend.Lock()\n"             # 8
        "    other.acquire()\n"                    # 9
    ),
}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return searcher_over(tmp_path_factory, "py-scopes",
                         {"conv.py": CONVERTERS, "shadows.py": SHADOWS, **LOCKS})


def test_a_method_overridden_in_a_subclass_is_not_what_the_subclass_calls(
        searcher: Searcher) -> None:
    assert tiers(searcher, "conv.py", 2) == {
        "resolved": [
            ("conv.py", 18, "through super() in Child, a subclass of Base"),
            ("conv.py", 28, "receiver is a Base"),
        ],
        "possible": [],
        "elsewhere": [
            ("Child.hook (conv.py:17)", "receiver is a Child, which overrides hook", 2),
            ("Child.hook (conv.py:17)", "called on the class Child, which overrides hook", 1),
            ("Child.hook (conv.py:17)",
             "receiver is a Grandchild, a subclass of Child, which overrides hook", 1),
        ],
    }


def test_a_method_no_subclass_overrides_is_resolved_on_any_of_them(
        searcher: Searcher) -> None:
    assert tiers(searcher, "conv.py", 7) == {
        "resolved": [("conv.py", 23, "self is a Grandchild")],
        "possible": [],
        "elsewhere": [],
    }


def test_a_function_defined_in_a_method_is_used_only_there(searcher: Searcher) -> None:
    assert tiers(searcher, "conv.py", 3) == {
        "resolved": [("conv.py", 5, "in its own module")],
        "possible": [],
        "elsewhere": [("names outside Base.hook", "a local of another function", 1)],
    }


def test_the_local_definition_in_force_at_a_use_is_the_one_used(searcher: Searcher) -> None:
    first, second = tiers(searcher, "shadows.py", 3), tiers(searcher, "shadows.py", 7)
    assert first == {
        "resolved": [("shadows.py", 5, "its local definition in force there")],
        "possible": [],
        "elsewhere": [
            ("names outside register", "a local of another function", 1),
            ("register.check (shadows.py:7)",
             "another local definition of the name in force there", 1),
        ],
    }
    assert second == {
        "resolved": [("shadows.py", 9, "its local definition in force there")],
        "possible": [],
        "elsewhere": [
            ("names outside register", "a local of another function", 1),
            ("register.check (shadows.py:3)",
             "another local definition of the name in force there", 1),
        ],
    }


def test_a_class_of_the_targets_name_is_the_targets_only_where_the_imports_lead(
        searcher: Searcher) -> None:
    assert tiers(searcher, "backend.py", 8) == {
        "resolved": [("test_lock.py", 9, "receiver is a Lock")],  # backend.Lock()
        "possible": [],
        "elsewhere": [
            ("members of Lock (core.py)",  # `from api import Lock`, api's from core
             "receiver is a Lock of core.py, another class of that name", 1),
            ("members of Lock (not indexed)",  # trio's, a module not in the index
             "receiver is a trio.Lock of a module not in the index, another class of "
             "that name", 1),
        ],
    }
    assert tiers(searcher, "core.py", 2) == {
        "resolved": [("test_lock.py", 7, "receiver is a Lock")],
        "possible": [],
        "elsewhere": [
            ("members of Lock (backend.py)",
             "receiver is a backend.Lock of backend.py, another class of that name", 1),
            ("members of Lock (not indexed)",
             "receiver is a trio.Lock of a module not in the index, another class of "
             "that name", 1),
        ],
    }


FACTORIES = {
    "factories.py": (
        "import backend\n"                             # 1
        "from core import Lock\n"                      # 2
        "\n"                                           # 3
        "\n"                                           # 4
        "def make_lock() -> Lock:\n"                   # 5
        "    return Lock()\n"                          # 6
        "\n"                                           # 7
        "\n"                                           # 8
        "def make_backend_lock() -> 'backend.Lock':\n"  # 9
        "    return backend.Lock()\n"                  # 10
        "\n"                                           # 11
        "\n"                                           # 12
        "def make_anything():\n"                       # 13
        "    return Lock()\n"                          # 14
        "\n"                                           # 15
        "\n"                                           # 16
        "def make_any(kind):\n"                        # 17
        "    return kind()\n"                          # 18
    ),
    "test_factories.py": (
        "import factories\n"                           # 1
        "from factories import make_lock\n"            # 2
        "\n"                                           # 3
        "\n"                                           # 4
        "def test_factories():\n"                      # 5
        "    first = make_lock()\n"                    # 6
        "    first.acquire()\n"                        # 7
        "    second = factories.make_backend_lock()\n"  # 8
        "    second.acquire()\n"                       # 9
        "    third = factories.make_anything()\n"      # 10
        "    third.acquire()\n"                        # 11
        "    fourth = factories.make_any(dict)\n"      # 12
        "    fourth.acquire()\n"                       # 13
    ),
}


def test_a_call_is_typed_by_the_class_its_function_is_annotated_to_return(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # The annotation is read in the file that writes it: `backend.Lock` through
    # factories.py's `import backend`, which test_factories.py does not have. A function
    # not annotated is typed by its `return Lock()`; one returning a parameter's call is not.
    searcher = searcher_over(tmp_path_factory, "py-factories", {**LOCKS, **FACTORIES})
    untyped = ("fourth", "receiver's type unknown", 1)
    trio = ("members of Lock (not indexed)",
            "receiver is a trio.Lock of a module not in the index, another class of that name", 1)
    assert tiers(searcher, "core.py", 2) == {
        "resolved": [("test_factories.py", 7, "receiver is a Lock"),
                     ("test_factories.py", 11, "receiver is a Lock"),
                     ("test_lock.py", 7, "receiver is a Lock")],
        "possible": [untyped],
        "elsewhere": [("members of Lock (backend.py)",
                       "receiver is a backend.Lock of backend.py, another class of that name",
                       2), trio],
    }
    assert tiers(searcher, "backend.py", 8) == {
        "resolved": [("test_factories.py", 9, "receiver is a Lock"),
                     ("test_lock.py", 9, "receiver is a Lock")],
        "possible": [untyped],
        "elsewhere": [("members of Lock (core.py)",
                       "receiver is a Lock of core.py, another class of that name", 3), trio],
    }


CONTEXTS = {
    "pools.py": (
        "class Pool:\n"                                # 1
        "    def __enter__(self):\n"                   # 2
        "        return self\n"                        # 3
        "\n"                                           # 4
        "    def get(self):\n"                         # 5
        "        return 1\n"                           # 6
        "\n"                                           # 7
        "\n"                                           # 8
        "class Lease:\n"                               # 9
        "    def get(self):\n"                         # 10
        "        return 2\n"                           # 11
        "\n"                                           # 12
        "\n"                                           # 13
        "class Leasing:\n"                             # 14
        "    def __enter__(self) -> Lease:\n"          # 15
        "        return Lease()\n"                     # 16
        "\n"                                           # 17
        "    def get(self):\n"                         # 18
        "        return 3\n"                           # 19
    ),
    "use_pools.py": (
        "from pools import Leasing, Pool\n"            # 1
        "\n"                                           # 2
        "\n"                                           # 3
        "def run():\n"                                 # 4
        "    with Pool() as pool:\n"                   # 5
        "        pool.get()\n"                         # 6
        "    with Leasing() as lease:\n"               # 7
        "        lease.get()\n"                        # 8
    ),
}


def test_a_with_statements_target_is_what_the_classs_enter_returns(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    searcher = searcher_over(tmp_path_factory, "py-contexts", CONTEXTS)
    assert tiers(searcher, "pools.py", 5) == {  # Pool.get: `__enter__` returns self
        "resolved": [("use_pools.py", 6, "receiver is a Pool")],
        "possible": [],
        "elsewhere": [("Lease.get (pools.py:10)", "receiver is a Lease", 1)],
    }
    assert tiers(searcher, "pools.py", 10) == {  # Lease.get: what Leasing's `__enter__` gives
        "resolved": [("use_pools.py", 8, "receiver is a Lease")],
        "possible": [],
        "elsewhere": [("Pool.get (pools.py:5)", "receiver is a Pool", 1)],
    }


NESTED = (
    "def request_response(f):\n"                   # 1
    "    async def app(scope):\n"                   # 2
    "        async def app(scope):\n"               # 3
    "            return await f(scope)\n"           # 4
    "\n"                                           # 5
    "        await wrap(app)(scope)\n"              # 6
    "\n"                                           # 7
    "    return app\n"                              # 8
)


def test_a_function_nested_in_the_targets_function_shadows_it_there(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    searcher = searcher_over(tmp_path_factory, "py-nested", {"routing.py": NESTED})
    assert tiers(searcher, "routing.py", 2) == {  # the outer `app`
        "resolved": [("routing.py", 8, "in its own module")],
        "possible": [],
        "elsewhere": [("request_response.app.app (routing.py:3)",
                       "another local definition of the name in force there", 1)],
    }
    assert tiers(searcher, "routing.py", 3) == {  # the inner `app`
        "resolved": [("routing.py", 6, "in its own module")],
        "possible": [],
        "elsewhere": [("names outside request_response.app", "a local of another function",
                       1)],
    }


def test_a_class_a_test_makes_twice_is_each_in_force_from_its_line(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """A test defining its own `Migration` twice, beside the module's: each use is of the
    one made last before it (a `class` statement runs in order, nothing is hoisted)."""
    searcher = searcher_over(tmp_path_factory, "py-twice", {
        "migration.py": "class Migration:\n    pass\n",
        "test_names.py": (
            "from migration import Migration\n"    # 1
            "\n"                                    # 2
            "def test_twice():\n"                   # 3
            "    class Migration:\n"                # 4
            "        pass\n"                        # 5
            "    first = Migration()\n"             # 6
            "    class Migration:\n"                # 7
            "        pass\n"                        # 8
            "    return first, Migration()\n"       # 9
            "\n"                                    # 10
            "def test_module():\n"                  # 11
            "    return Migration()\n"              # 12
        )})
    assert tiers(searcher, "migration.py", 1) == {
        "resolved": [("test_names.py", 1, "imported from migration"),
                     ("test_names.py", 12, "imported from migration")],
        "possible": [],
        "elsewhere": [("test_twice.Migration (test_names.py:4)",
                       "another local definition of the name in force there", 1),
                      ("test_twice.Migration (test_names.py:7)",
                       "another local definition of the name in force there", 1)],
    }


def test_a_function_each_branch_defines_is_any_of_them_after_the_branches(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`wrapper` defined in each branch of an `if`, then used: any of them is in force;
    a `check` defined, used, then defined again is replaced (the loops' of `SHADOWS`)."""
    searcher = searcher_over(tmp_path_factory, "py-branches", {"cached.py": (
        "def cached(cache):\n"                        # 1
        "    if cache is None:\n"                     # 2
        "        def wrapper():\n"                    # 3
        "            return 1\n"                      # 4
        "    else:\n"                                 # 5
        "        def wrapper():\n"                    # 6
        "            return 2\n"                      # 7
        "    wrapper.cache = cache\n"                 # 8
        "    return wrapper\n"                        # 9
    ), "shadows.py": SHADOWS})
    either = "one of its local definitions, made in turn, in force there"
    assert tiers(searcher, "cached.py", 3) == {
        "resolved": [("cached.py", 8, either), ("cached.py", 9, either)],
        "possible": [],
        "elsewhere": [],
    }
    assert tiers(searcher, "shadows.py", 3) == {  # the first loop's `check`
        "resolved": [("shadows.py", 5, "its local definition in force there")],
        "possible": [],
        "elsewhere": [("names outside register", "a local of another function", 1),
                      ("register.check (shadows.py:7)",
                       "another local definition of the name in force there", 1)],
    }


def test_a_class_whose_base_is_chosen_when_the_code_runs_may_be_any(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """A test mixin's `class DefaultCache(self.Cache)`: its base is whatever class the
    test sets, not the class named `Cache`; a call on it is possible."""
    searcher = searcher_over(tmp_path_factory, "py-dynamic-base", {
        "caches.py": (
            "class Cache:\n"                          # 1
            "    def pop(self, key):\n"               # 2
            "        return key\n"                    # 3
        ),
        "tests/mixin.py": (
            "class CacheTestMixin:\n"                 # 1
            "    Cache = None\n"                      # 2
            "\n"                                      # 3
            "    def test_missing(self):\n"           # 4
            "        class DefaultCache(self.Cache):\n"  # 5
            "            pass\n"                      # 6
            "\n"                                      # 7
            "        cache = DefaultCache()\n"        # 8
            "        cache.pop(1)\n"                  # 9
        ),
    })
    assert tiers(searcher, "caches.py", 2) == {
        "resolved": [],
        "possible": [("cache", "receiver is a DefaultCache, whose base self.Cache is chosen "
                      "when the code runs: may dispatch here", 1)],
        "elsewhere": [],
    }


FACTORY_METHODS = {
    "configs.py": (
        "from typing import Self\n"                    # 1
        "\n"                                           # 2
        "\n"                                           # 3
        "class Reader:\n"                              # 4
        "    def get(self):\n"                         # 5
        "        return 1\n"                           # 6
        "\n"                                           # 7
        "\n"                                           # 8
        "class Config:\n"                              # 9
        "    @classmethod\n"                           # 10
        "    def from_env(cls) -> 'Config':\n"         # 11
        "        return cls()\n"                       # 12
        "\n"                                           # 13
        "    @classmethod\n"                           # 14
        "    def load(cls) -> Self:\n"                 # 15
        "        return cls()\n"                       # 16
        "\n"                                           # 17
        "    @classmethod\n"                           # 18
        "    def reader(cls) -> Reader:\n"             # 19
        "        return Reader()\n"                    # 20
        "\n"                                           # 21
        "    def get(self):\n"                         # 22
        "        return 2\n"                           # 23
    ),
    "use_configs.py": (
        "from configs import Config\n"                 # 1
        "\n"                                           # 2
        "\n"                                           # 3
        "def run():\n"                                 # 4
        "    first = Config.from_env()\n"              # 5
        "    first.get()\n"                            # 6
        "    second = Config.load()\n"                 # 7
        "    second.get()\n"                           # 8
        "    third = Config.reader()\n"                # 9
        "    third.get()\n"                            # 10
    ),
}


def test_a_classmethods_call_is_typed_by_its_annotation(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    searcher = searcher_over(tmp_path_factory, "py-factory-methods", FACTORY_METHODS)
    assert tiers(searcher, "configs.py", 22) == {  # Config.get
        "resolved": [("use_configs.py", 6, "receiver is a Config"),
                     ("use_configs.py", 8, "receiver is a Config")],
        "possible": [],
        "elsewhere": [("Reader.get (configs.py:5)", "receiver is a Reader", 1)],
    }


EXPRESSIONS = {
    "streams.py": (
        "class Stream:\n"                                        # 1
        "    def read(self) -> bytes:\n"                         # 2
        "        return b''\n"                                   # 3
        "\n"                                                     # 4
        "    async def start_tls(self) -> 'Stream':\n"           # 5
        "        return self\n"                                  # 6
        "\n"                                                     # 7
        "\n"                                                     # 8
        "class Buffer:\n"                                        # 9
        "    def read(self) -> bytes:\n"                         # 10
        "        return b''\n"                                   # 11
    ),
    "pool.py": (
        "from streams import Buffer, Stream\n"                   # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class Base:\n"                                          # 4
        "    @property\n"                                        # 5
        "    def streams(self) -> list[Stream]:\n"               # 6
        "        return []\n"                                    # 7
        "\n"                                                     # 8
        "    @property\n"                                        # 9
        "    def by_name(self) -> dict[str, Stream]:\n"          # 10
        "        return {}\n"                                    # 11
        "\n"                                                     # 12
        "    async def connect(self, host: str, port: int, timeout: float, retries: int, "
        "backoff: float, keepalive: bool, verify: bool, proxy: str, local_address: str, "
        "socket_options: list, uds: str) -> Stream:\n"           # 13
        "        return Stream()\n"                              # 14
        "\n"                                                     # 15
        "\n"                                                     # 16
        "class Pool(Base):\n"                                    # 17
        "    def __init__(self, buffers: dict[str, Buffer]) -> None:\n"  # 18
        "        self.buffers = buffers\n"                       # 19
        "\n"                                                     # 20
        "    async def run(self, kind: type[Stream]):\n"         # 21
        "        stream = await self.connect(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)\n"  # 22
        "        stream.read()\n"                                # 23
        "        tls = await stream.start_tls()\n"               # 24
        "        tls.read()\n"                                   # 25
        "        self.streams[0].read()\n"                       # 26
        "        for each in list(self.streams):\n"              # 27
        "            each.read()\n"                              # 28
        "        self.buffers['a'].read()\n"                     # 29
        "        [b.read() for b in self.buffers.values()]\n"    # 30
        "        kind().read()\n"                                # 31
        "        self.by_name['a'].read()\n"                     # 32
        "        for key in self.by_name:\n"                     # 33
        "            key.read()\n"                               # 34
    ),
}


def test_a_receiver_written_as_an_expression_is_typed_from_the_signatures_it_calls(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """What a method returns (its signature longer than a stored signature is long), a
    property's items by subscript and by `for` (a dict's values, and its keys), an
    annotated dict's values by subscript and by `values()`, a class object called."""
    searcher = searcher_over(tmp_path_factory, "py-expressions", EXPRESSIONS)
    assert tiers(searcher, "streams.py", 2) == {  # Stream.read
        "resolved": [
            ("pool.py", 23, "receiver is a Stream"),
            ("pool.py", 25, "receiver is a Stream"),
            ("pool.py", 26, "receiver is a Stream"),
            ("pool.py", 28, "receiver is a Stream"),
            ("pool.py", 31, "receiver is a Stream"),
            ("pool.py", 32, "receiver is a Stream"),
        ],
        "possible": [("key", "receiver typed str, which the index does not define", 1)],
        "elsewhere": [("Buffer.read (streams.py:10)", "receiver is a Buffer", 2)],
    }


def test_a_packages_name_bound_by_importing_its_submodule_leads_to_the_package(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`import pkg.sub` binds `pkg` too: `pkg.make()` is the package's `make`."""
    searcher = searcher_over(tmp_path_factory, "py-submodule-import", {
        "pkg/__init__.py": "from .core import make\n",
        "pkg/core.py": "def make():\n    return 1\n",
        "pkg/sub.py": "VALUE = 1\n",
        "use.py": "import pkg.sub\n\n\ndef run():\n    return pkg.make(), pkg.sub.VALUE\n",
        "other.py": "def make():\n    return 2\n",
    })
    assert tiers(searcher, "pkg/core.py", 1) == {
        "resolved": [("pkg/__init__.py", 1, "imported from .core"),
                     ("use.py", 5, "through module pkg")],
        "possible": [],
        "elsewhere": [],
    }


def test_a_modules_name_that_another_module_imports_leads_through_that_import(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`from arrow import arrow` binds the module `arrow.arrow`, which imports `locales`:
    `arrow.locales.get_locale()` is `arrow/locales.py`'s, read as arrow/arrow.py reads it."""
    searcher = searcher_over(tmp_path_factory, "py-rebound-module", {
        "arrow/__init__.py": "",
        "arrow/locales.py": "def get_locale(name):\n    return name\n",
        "arrow/arrow.py": "from arrow import locales\nfrom . import parser as p\n",
        "arrow/parser.py": "def get_locale(name):\n    return None\n",
        "tests/test_locales.py": (
            "from arrow import arrow\n\n\n"
            "def test_get():\n"
            "    arrow.locales.get_locale('en')\n"
            "    arrow.p.get_locale('en')\n"
            "    arrow.missing.get_locale('en')\n"),
    })
    assert tiers(searcher, "arrow/locales.py", 1) == {
        "resolved": [("tests/test_locales.py", 5, "through module arrow.locales")],
        "possible": [],
        "elsewhere": [("arrow.arrow.missing", "a module not in the index", 1),
                      ("get_locale (arrow/parser.py:1)", "imported from another module", 1)],
    }


REBOUND = {
    "logs.py": (
        "class Logger:\n"                                   # 1
        "    def bind(self) -> 'Logger':\n"                  # 2
        "        return self\n"                              # 3
        "\n"                                                 # 4
        "    def info(self):\n"                              # 5
        "        pass\n"                                     # 6
        "\n"                                                 # 7
        "\n"                                                 # 8
        "class Other:\n"                                    # 9
        "    def info(self):\n"                              # 10
        "        pass\n"                                     # 11
        "\n"                                                 # 12
        "\n"                                                 # 13
        "def run(log: Logger, flag: bool):\n"               # 14
        "    log = log.bind()\n"                             # 15
        "    log.info()\n"                                   # 16
        "    either = Logger()\n"                            # 17
        "    if flag:\n"                                     # 18
        "        either = Other()\n"                         # 19
        "    either.info()\n"                                # 20
    ),
}


def test_a_name_bound_again_is_typed_when_its_bindings_agree(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`log = log.bind()` keeps `log` a Logger (read with the parameter's type); a name
    given a Logger and an Other is no one class: possible."""
    searcher = searcher_over(tmp_path_factory, "py-rebound", REBOUND)
    assert tiers(searcher, "logs.py", 5) == {  # Logger.info
        "resolved": [("logs.py", 16, "receiver is a Logger")],
        "possible": [("either", "receiver's type unknown", 1)],
        "elsewhere": [],
    }


ENTERED = {
    "leases.py": (
        "from contextlib import contextmanager\n"            # 1
        "from typing import Iterator\n"                      # 2
        "\n"                                                 # 3
        "\n"                                                 # 4
        "class Stream:\n"                                    # 5
        "    def read(self):\n"                              # 6
        "        pass\n"                                     # 7
        "\n"                                                 # 8
        "    def __enter__(self) -> 'Stream':\n"             # 9
        "        return self\n"                              # 10
        "\n"                                                 # 11
        "\n"                                                 # 12
        "class Pool:\n"                                      # 13
        "    @contextmanager\n"                              # 14
        "    def lease(self) -> Iterator[Stream]:\n"         # 15
        "        yield Stream()\n"                           # 16
        "\n"                                                 # 17
        "    def open(self) -> Stream:\n"                    # 18
        "        return Stream()\n"                          # 19
        "\n"                                                 # 20
        "    def run(self):\n"                               # 21
        "        with self.lease() as leased:\n"             # 22
        "            leased.read()\n"                        # 23
        "        with self.open() as opened:\n"              # 24
        "            opened.read()\n"                        # 25
    ),
}


def test_what_with_binds_from_a_methods_result_is_typed(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`with self.lease() as s`: a `@contextmanager` method annotated `Iterator[Stream]`
    binds a Stream; `with self.open() as s`: what the Stream's `__enter__` returns."""
    searcher = searcher_over(tmp_path_factory, "py-entered", ENTERED)
    assert tiers(searcher, "leases.py", 6) == {  # Stream.read
        "resolved": [("leases.py", 23, "receiver is a Stream"),
                     ("leases.py", 25, "receiver is a Stream")],
        "possible": [],
        "elsewhere": [],
    }


ATTRIBUTES = {
    "dispatch.py": (
        "class Dispatch:\n"                                   # 1
        "    def register(self):\n"                           # 2
        "        pass\n"                                      # 3
    ),
    "converters.py": (
        "from dispatch import Dispatch\n"                     # 1
        "\n"                                                  # 2
        "\n"                                                  # 3
        "class Base:\n"                                       # 4
        "    def __init__(self):\n"                           # 5
        "        self._dispatch = Dispatch()\n"               # 6
        "        self._dispatch.register()\n"                 # 7
        "\n"                                                  # 8
        "\n"                                                  # 9
        "class Converter(Base):\n"                            # 10
        "    def copy(self):\n"                               # 11
        "        self._dispatch.register()\n"                 # 12
    ),
    "configure.py": (
        "from converters import Converter\n"                  # 1
        "\n"                                                  # 2
        "\n"                                                  # 3
        "def configure(converter: Converter):\n"              # 4
        "    converter._dispatch.register()\n"                # 5
        "    converter._other.register()\n"                   # 6
    ),
}


def test_an_instance_attribute_is_typed_as_its_classs_file_shows_it(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`converter._dispatch` and a subclass's `self._dispatch`: the type `self._dispatch`
    has in the methods of the class that assigns it (in a base, another class's file);
    an attribute no class shows stays possible."""
    searcher = searcher_over(tmp_path_factory, "py-attributes", ATTRIBUTES)
    assert tiers(searcher, "dispatch.py", 2) == {  # Dispatch.register
        "resolved": [("configure.py", 5, "receiver is a Dispatch"),
                     ("converters.py", 7, "receiver is a Dispatch"),
                     ("converters.py", 12, "receiver is a Dispatch")],
        "possible": [("converter._other", "receiver's type unknown", 1)],
        "elsewhere": [],
    }


SHADOWED_IMPORT = {
    "types.py": (
        "import typing as t\n"                                # 1
        "\n"                                                  # 2
        "\n"                                                  # 3
        "class ParamType:\n"                                  # 4
        "    def describe(self) -> str:\n"                    # 5
        "        return ''\n"                                 # 6
        "\n"                                                  # 7
        "\n"                                                  # 8
        "class Tuple(ParamType):\n"                           # 9
        "    def __init__(self, types: t.Sequence[ParamType], rest) -> None:\n"  # 10
        "        self.types = types\n"                        # 11
        "        [t.describe() for t in types]\n"             # 12
        "        [t.describe() for t in rest]\n"              # 13
    ),
}


def test_a_local_named_as_an_import_is_a_value_not_the_module(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`t` bound by a comprehension beside `import typing as t`: a value, typed by its
    iterable's annotation (`t.Sequence[ParamType]`) where there is one, else possible;
    never a member of the module `typing`."""
    searcher = searcher_over(tmp_path_factory, "py-shadowed-import", SHADOWED_IMPORT)
    assert tiers(searcher, "types.py", 5) == {  # ParamType.describe
        "resolved": [("types.py", 12, "receiver is a ParamType")],
        "possible": [("t", "receiver's type unknown", 1)],
        "elsewhere": [],
    }


UNPACKED = {
    "pairs.py": (
        "class Conn:\n"                                       # 1
        "    def close(self):\n"                              # 2
        "        pass\n"                                      # 3
        "\n"                                                  # 4
        "\n"                                                  # 5
        "def make_pair() -> tuple[str, Conn]:\n"              # 6
        "    return '', Conn()\n"                             # 7
        "\n"                                                  # 8
        "\n"                                                  # 9
        "def run(by_name: dict[str, Conn]):\n"                # 10
        "    name, conn = make_pair()\n"                      # 11
        "    conn.close()\n"                                  # 12
        "    for key, each in by_name.items():\n"             # 13
        "        each.close()\n"                              # 14
        "        key.close()\n"                               # 15
        "    by_name.get('a').close()\n"                      # 16
    ),
}


def test_a_tuple_unpacked_and_a_mappings_items_are_typed(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`name, conn = make_pair()` with `-> tuple[str, Conn]`; `for key, each in
    by_name.items()` and `by_name.get(...)` with `by_name: dict[str, Conn]`: each at its
    position (the key is a str, which the index does not define)."""
    searcher = searcher_over(tmp_path_factory, "py-unpacked", UNPACKED)
    assert tiers(searcher, "pairs.py", 2) == {  # Conn.close
        "resolved": [("pairs.py", 12, "receiver is a Conn"),
                     ("pairs.py", 14, "receiver is a Conn"),
                     ("pairs.py", 16, "receiver is a Conn")],
        "possible": [("key", "receiver typed str, which the index does not define", 1)],
        "elsewhere": [],
    }


STUBBED = {
    "ranges.py": (
        "class Range:\n"                                     # 1
        "    def for_length(self, length):\n"                # 2
        "        return None\n"                              # 3
        "\n"                                                 # 4
        "    def to_header(self, length):\n"                 # 5
        "        return self.for_length(length)\n"           # 6
        "\n"                                                 # 7
        "    @property\n"                                    # 8
        "    def units(self):\n"                             # 9
        "        return ''\n"                                # 10
        "\n"                                                 # 11
        "    @units.setter\n"                                # 12
        "    def units(self, value):\n"                      # 13
        "        pass\n"                                     # 14
    ),
    "ranges.pyi": (
        "class Range:\n"                                     # 1
        "    def for_length(self, length: int) -> tuple[int, int] | None: ...\n"  # 2
        "    @property\n"                                    # 3
        "    def units(self) -> str: ...\n"                  # 4
        "    @units.setter\n"                                # 5
        "    def units(self, value: str) -> None: ...\n"     # 6
    ),
}


def test_a_stubs_declaration_is_its_modules_and_a_setter_names_its_property(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """A method declared in `ranges.pyi` is the one `ranges.py` defines: `self` there
    is its class; `@units.setter` in a class's body names the property `units`."""
    searcher = searcher_over(tmp_path_factory, "py-stubbed", STUBBED)
    assert tiers(searcher, "ranges.pyi", 2) == {  # Range.for_length, as the stub declares it
        "resolved": [("ranges.py", 6, "self is a Range")],
        "possible": [],
        "elsewhere": [],
    }
    assert tiers(searcher, "ranges.py", 9)["resolved"] == [
        ("ranges.py", 12, "in its class's body (`@name.setter`)"),
        ("ranges.pyi", 5, "in its class's body (`@name.setter`)")]


ITERATED = {
    "retrying.py": (
        "import typing as t\n"                                # 1
        "\n"                                                  # 2
        "\n"                                                  # 3
        "class Attempt:\n"                                    # 4
        "    def record(self):\n"                             # 5
        "        pass\n"                                      # 6
        "\n"                                                  # 7
        "\n"                                                  # 8
        "class Retrying:\n"                                   # 9
        "    def __iter__(self) -> t.Generator[Attempt, None, None]:\n"  # 10
        "        yield Attempt()\n"                           # 11
        "\n"                                                  # 12
        "\n"                                                  # 13
        "class AsyncRetrying:\n"                              # 14
        "    def __aiter__(self) -> 'AsyncRetrying':\n"       # 15
        "        return self\n"                               # 16
        "\n"                                                  # 17
        "    async def __anext__(self) -> Attempt:\n"         # 18
        "        return Attempt()\n"                          # 19
        "\n"                                                  # 20
        "\n"                                                  # 21
        "async def run(state: t.Optional[Attempt]):\n"        # 22
        "    for attempt in Retrying():\n"                    # 23
        "        attempt.record()\n"                          # 24
        "    async for later in AsyncRetrying():\n"           # 25
        "        later.record()\n"                            # 26
        "    state.record()\n"                                # 27
    ),
}


def test_a_for_over_a_class_gives_what_its_iteration_methods_say(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`for` over a class whose `__iter__` is annotated `Generator[Attempt, ...]`, `async
    for` over one whose `__anext__` returns an Attempt; `t.Optional[Attempt]` with
    `import typing as t`."""
    searcher = searcher_over(tmp_path_factory, "py-iterated", ITERATED)
    assert tiers(searcher, "retrying.py", 5) == {  # Attempt.record
        "resolved": [("retrying.py", 24, "receiver is a Attempt"),
                     ("retrying.py", 26, "receiver is a Attempt"),
                     ("retrying.py", 27, "receiver is a Attempt")],
        "possible": [],
        "elsewhere": [],
    }


CONSTRUCTIONS = {
    "shop/__init__.py": "",
    "shop/cart.py": (
        "class Cart:\n"                                       # 1
        "    def __init__(self, items):\n"                    # 2
        "        self.items = items\n"                        # 3
        "\n"                                                  # 4
        "\n"                                                  # 5
        "class BigCart(Cart):\n"                              # 6
        "    pass\n"                                          # 7
        "\n"                                                  # 8
        "\n"                                                  # 9
        "class HugeCart(BigCart):\n"                          # 10
        "    pass\n"                                          # 11
        "\n"                                                  # 12
        "\n"                                                  # 13
        "class OwnCart(Cart):\n"                              # 14
        "    def __init__(self):\n"                           # 15
        "        super().__init__([])\n"                      # 16
        "\n"                                                  # 17
        "\n"                                                  # 18
        "def empty():\n"                                      # 19
        "    return Cart([])\n"                               # 20
    ),
    "shop/checkout.py": (
        "import shop.cart\n"                                  # 1
        "from shop.cart import BigCart, HugeCart, OwnCart\n"  # 2
        "from shop.cart import Cart as Basket\n"              # 3
        "\n"                                                  # 4
        "\n"                                                  # 5
        "def checkout(items):\n"                              # 6
        "    one = Basket(items)\n"                           # 7
        "    two = shop.cart.Cart(items)\n"                   # 8
        "    three = BigCart(items)\n"                        # 9
        "    four = HugeCart(items)\n"                        # 10
        "    five = OwnCart()\n"                              # 11
        "    Basket.__init__(one, [])\n"                      # 12
        "    return Basket, one, two, three, four, five\n"    # 13
    ),
    "legacy.py": "class Cart:\n    pass\n",
    "old.py": "from legacy import Cart\n\n\ndef old():\n    return Cart()\n",
    "scripts/demo.py": "def demo():\n    return Cart([])\n",  # run with Cart in its globals
}


def test_constructing_a_class_is_a_use_of_its_init(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`Cart(...)` runs `Cart.__init__`, and so does constructing a subclass that inherits
    it (`BigCart`, and `HugeCart` below it), not one that defines its own (`OwnCart()`,
    line 11); each construction in the tier a use of its class has: through an alias or a
    module, possible where no import says which `Cart`, elsewhere for another `Cart`."""
    searcher = searcher_over(tmp_path_factory, "py-constructions", CONSTRUCTIONS)
    inherited = "which inherits Cart.__init__: imported from shop.cart"
    assert tiers(searcher, "shop/cart.py", 2) == {
        "resolved": [
            ("shop/cart.py", 16, "through super() in OwnCart, a subclass of Cart"),
            ("shop/cart.py", 20, "constructs Cart: in its own module"),
            ("shop/checkout.py", 7, "constructs Cart: imported from shop.cart"),
            ("shop/checkout.py", 8, "constructs Cart: through module shop.cart"),
            ("shop/checkout.py", 9, f"constructs BigCart, {inherited}"),
            ("shop/checkout.py", 10, f"constructs HugeCart, {inherited}"),
            ("shop/checkout.py", 12, "called on the class Cart"),
        ],
        "possible": [
            ("", "constructs Cart: no import in the file says which definition", 1)],
        "elsewhere": [
            ("Cart (legacy.py:1)", "constructs Cart: imported from another module", 1)],
    }
    assert tiers(searcher, "shop/cart.py", 15) == {  # OwnCart.__init__
        "resolved": [("shop/checkout.py", 11, "constructs OwnCart: imported from shop.cart")],
        "possible": [("super()", "through super(): a base's member", 1)],
        "elsewhere": [("module shop.cart.Cart", "from another module", 1)],
    }



def test_a_method_called_on_another_class_of_the_same_name_is_elsewhere(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    searcher = searcher_over(tmp_path_factory, "py-class-names", {
        "shop/__init__.py": "from .cart import Cart\n",
        "shop/cart.py": ("class Cart:\n    @classmethod\n    def empty(cls):\n        return cls()\n"
                         "\n\nCart.empty()\n"),
        "shop/cart.pyi": "class Cart:\n    @classmethod\n    def empty(cls) -> Cart: ...\n",
        "shop/legacy.py": "class Cart:\n    @classmethod\n    def empty(cls):\n        return cls()\n",
        "app.py": "from shop import Cart\n\nCart.empty()\n",
        "old.py": "from shop.legacy import Cart\n\nCart.empty()\n",
        "own.py": "class Cart:\n    pass\n\nCart.empty()\n",
    })
    # The stub describes the same module: its class is no other class.
    assert [tiers(searcher, path, 3) for path in ("shop/cart.py", "shop/cart.pyi")] == [{
        "resolved": [("shop/cart.py", 7, "called on the class Cart"),
                     ("app.py", 3, "called on the class Cart")],
        "possible": [],
        "elsewhere": [("Cart (own.py:1)", "called on another class named Cart", 1),
                      ("Cart (shop/legacy.py:1)", "called on another class named Cart", 1)],
    }] * 2


def test_a_subclass_below_the_levels_searched_down_is_found_going_up(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`Choice` is five levels below `Asn1Type`: the family is searched three levels down,
    and the receiver's own bases, three levels up, reach it; `Tagged` below a class that
    overrides the method is that class's. A class of the same name in another module
    (`decoder.py`'s own `Boolean`) is told apart from the one that overrides."""
    chain = "".join(f"class L{n}(L{n - 1}):\n    pass\n\n\n" for n in range(2, 6))
    searcher = searcher_over(tmp_path_factory, "py-deep", {
        "asn1/base.py": (
            "class Asn1Type:\n"                                # 1
            "    def same(self, other):\n"                     # 2
            "        return True\n"                            # 3
            "\n"                                               # 4
            "\n"                                               # 5
            "class L1(Asn1Type):\n"                            # 6
            "    pass\n"                                       # 7
            "\n"                                               # 8
            "\n"                                               # 9
            + chain +                                          # 10-25: L2..L5
            "class Tagged(L4):\n"                              # 26
            "    def same(self, other):\n"                     # 27
            "        return False\n"                           # 28
            "\n"                                               # 29
            "\n"                                               # 30
            "class Leaf(Tagged):\n"                            # 31
            "    pass\n"                                       # 32
        ),
        "asn1/ber.py": (
            "from asn1.base import L1\n"                       # 1
            "\n"                                               # 2
            "\n"                                               # 3
            "class Boolean(L1):\n"                             # 4
            "    def same(self, other):\n"                     # 5
            "        return False\n"                           # 6
        ),
        "asn1/cer.py": (
            "from asn1.base import L1\n"                       # 1
            "\n"                                               # 2
            "\n"                                               # 3
            "class Boolean(L1):\n"                             # 4
            "    def check(self, other):\n"                    # 5
            "        return self.same(other)\n"                # 6
        ),
        "tests/test_types.py": (
            "from asn1.base import L5, Leaf\n"                 # 1
            "\n"                                               # 2
            "\n"                                               # 3
            "def test_same():\n"                               # 4
            "    choice = L5()\n"                              # 5
            "    leaf = Leaf()\n"                              # 6
            "    return choice.same(leaf), leaf.same(choice)\n"  # 7
        ),
    })
    assert tiers(searcher, "asn1/base.py", 2) == {
        "resolved": [("asn1/cer.py", 6, "self is a Boolean"),
                     ("tests/test_types.py", 7, "receiver is a L5, a subclass of L3")],
        "possible": [],
        "elsewhere": [("Tagged.same (asn1/base.py:27)", "receiver is a Leaf, a subclass of "
                       "Tagged, which overrides same", 1)],
    }


def test_a_method_called_on_self_in_its_own_class_or_its_stubs_module_is_its_own(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`self._proxy()` in the class that overrides a base's `_proxy`, and `self.add()` in
    a module whose `.pyi` stub declares the class's `add`: uses of the target, though a
    base above defines the member and the module defines the class again."""
    searcher = searcher_over(tmp_path_factory, "py-own-class", {
        "log/base.py": "class Base:\n    def _proxy(self, name):\n        return name\n",
        "log/std.py": (
            "from log.base import Base\n"                     # 1
            "\n"                                              # 2
            "\n"                                              # 3
            "class Bound(Base):\n"                            # 4
            "    def info(self):\n"                           # 5
            "        return self._proxy('info')\n"            # 6
            "\n"                                              # 7
            "    def _proxy(self, name):\n"                   # 8
            "        return name.upper()\n"                   # 9
        ),
        "md/structures.py": (
            "class MultiDict(dict):\n"                        # 1
            "    pass\n"                                      # 2
            "\n"                                              # 3
            "\n"                                              # 4
            "class OrderedMultiDict(MultiDict):\n"            # 5
            "    def update(self, values):\n"                 # 6
            "        for key, value in values:\n"             # 7
            "            self.add(key, value)\n"              # 8
            "\n"                                              # 9
            "    def add(self, key, value):\n"                # 10
            "        self[key] = value\n"                     # 11
        ),
        "md/structures.pyi": (
            "class MultiDict(dict): ...\n"                    # 1
            "\n"                                              # 2
            "class OrderedMultiDict(MultiDict):\n"            # 3
            "    def add(self, key: str, value: str) -> None: ...\n"  # 4
        ),
    })
    assert tiers(searcher, "log/std.py", 8)["resolved"] == [
        ("log/std.py", 6, "self is a Bound")]
    assert tiers(searcher, "md/structures.pyi", 4)["resolved"] == [
        ("md/structures.py", 8, "self is a OrderedMultiDict")]
