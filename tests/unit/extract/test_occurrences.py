"""Every language's uses of names and imports (`Extraction.occurrences`, `.imports`)
match their golden, compared whole, and the rules of what is a use hold.

Each `tests/fixtures/languages/<lang>/refs_sample.*` has its expected occurrences and
imports in `expected_refs.json`, one record a line; `--update-goldens` rewrites them
(review the diff by eye: every occurrence listed is a use of a name the file does not
bind locally, and no use is missing).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest

from symfind.extract import LANGUAGES, Import, Occurrence, extract_file
from symfind.extract.occurrences import type_name

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "languages"


def refs_languages() -> list[str]:
    return sorted(language for language in LANGUAGES
                  if any((FIXTURES / language).glob("refs_sample.*")))


def golden_text(occurrences: list[Occurrence], imports: list[Import]) -> str:
    """One record a line, fields by name: a reviewable diff."""
    def lines(records: list[Occurrence] | list[Import]) -> str:
        return ",\n".join(
            "    " + json.dumps(msgspec.structs.asdict(record), ensure_ascii=False)
            for record in records)
    return (f'{{\n  "imports": [\n{lines(imports)}\n  ],\n'
            f'  "occurrences": [\n{lines(occurrences)}\n  ]\n}}\n')


@pytest.mark.parametrize("language", refs_languages())
def test_fixture_occurrences_match_golden(language: str, update_goldens: bool) -> None:
    (source,) = (FIXTURES / language).glob("refs_sample.*")
    extraction = extract_file(f"{language}/{source.name}", source.read_bytes(),
                              language=language)
    text = golden_text(extraction.occurrences, extraction.imports)
    golden = FIXTURES / language / "expected_refs.json"
    if update_goldens:
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def uses(source: str, language: str = "python") -> list[tuple[str, str, str, str]]:
    """(name, kind, receiver, receiver type) of each occurrence in `source`."""
    extraction = extract_file(f"t.{language}", source.encode(), language=language)
    return [(o.name, o.kind.value, o.receiver, o.receiver_type)
            for o in extraction.occurrences]


def calls_on_receivers(source: str, language: str) -> list[tuple[str, str, str, str]]:
    """`uses` of the kind `attribute_call` only (`x.f()`): how receivers are typed."""
    return [use for use in uses(source, language) if use[1] == "attribute_call"]


def test_python_locals_parameters_and_loop_variables_are_not_uses() -> None:
    source = (
        "def f(a, b=1, *args, c: int = 2, **kw):\n"
        "    x = a + b + c + len(args) + len(kw)\n"
        "    for i, (j, k) in pairs:\n"
        "        x += i + j + k\n"
        "    squares = [n * n for n in x]\n"
        "    with open(x) as fh:\n"
        "        pass\n"
        "    try:\n"
        "        pass\n"
        "    except Error as e:\n"
        "        raise e\n"
        "    return (y := squares) and y and fh and outer\n"
    )
    assert uses(source) == [  # int, len and open are builtins
        ("pairs", "plain", "", ""),
        ("Error", "plain", "", ""),
        ("outer", "plain", "", ""),
    ]


def test_python_a_name_local_to_one_function_is_a_use_in_another() -> None:
    source = "def f():\n    total = 1\n\ndef g():\n    return total\n"
    assert uses(source) == [("total", "plain", "", "")]


def test_python_closures_see_the_enclosing_function_locals() -> None:
    source = "def f(items):\n    def key(item):\n        return items[item]\n    return key\n"
    assert uses(source) == [("key", "plain", "", "")]  # key is a definition symfind indexes



def test_python_a_class_body_binds_its_own_names_only() -> None:
    # A class written inside a function (a test's schema) assigns `fields` in its `Meta`:
    # the function's `fields.String()` is still the module's `fields`. A method does not
    # see its class's names: its bare `name` and `client` are the module's, untyped. In
    # the class's own body its names are local (`other = name`, `client.close()`). A
    # method's parameters are seen in its comprehensions, whatever the class holds.
    source = (
        "from marshmallow import fields\n"
        "def test_schema():\n"
        "    class UserSchema(Schema):\n"
        "        name = fields.String()\n"
        "        other = name\n"
        "        class Meta:\n"
        "            fields = ('name',)\n"
        "        def upper(self):\n"
        "            return name.upper()\n"
        "    return fields.Int()\n"
        "class Service:\n"
        "    client = Client()\n"
        "    client.close()\n"
        "    def call(self):\n"
        "        client.get()\n"
        "    pool = [client for _ in range(3)]\n"
        "class Single:\n"  # a body of one method: its span is the method's
        "    def pair(self, item):\n"
        "        return [item for _ in range(2)]\n"
    )
    assert uses(source) == [
        ("fields", "import", "marshmallow", ""),
        ("Schema", "inherit", "", ""),
        ("fields", "plain", "", ""), ("String", "attribute_call", "fields", ""),
        ("name", "plain", "", ""), ("upper", "attribute_call", "name", ""),
        ("fields", "plain", "", ""), ("Int", "attribute_call", "fields", ""),
        ("Client", "call", "", ""),
        ("close", "attribute_call", "client", "Client"),
        ("client", "plain", "", ""), ("get", "attribute_call", "client", ""),
        ("client", "plain", "", ""),
    ]

def test_python_a_name_both_defined_and_assigned_in_a_function_stays_a_use() -> None:
    # `func` is the nested definition in one branch, a value in the other: the use may be
    # the definition's (jedi counts it), so it is kept, untyped.
    source = (
        "def prepare(flag):\n"
        "    if flag:\n"
        "        func = make()\n"
        "    else:\n"
        "        def func(item):\n"
        "            return item\n"
        "    return func, func.name\n"
    )
    assert uses(source) == [("make", "call", "", ""), ("func", "plain", "", ""),
                            ("func", "plain", "", ""), ("name", "attribute", "func", "")]


def test_python_a_global_declaration_makes_assignments_uses() -> None:
    source = "count = 0\n\ndef bump():\n    global count\n    count += 1\n"
    assert uses(source) == [("count", "plain", "", "")]


def test_python_builtins_are_not_uses_unless_the_file_binds_them() -> None:
    assert uses("x = len(a) + str(b)\n") == [("a", "plain", "", ""), ("b", "plain", "", "")]
    assert uses("from .compat import str\nx = len(a) + str(b)\n") == [
        ("str", "import", ".compat", ""),
        ("a", "plain", "", ""),
        ("str", "call", "", ""),
        ("b", "plain", "", ""),
    ]


def test_python_keyword_argument_names_are_not_uses() -> None:
    assert uses("connect(timeout=3, retries=limit)\n") == [
        ("connect", "call", "", ""),
        ("limit", "plain", "", ""),
    ]


def test_python_attributes_are_uses_whatever_their_receiver() -> None:
    source = "def f(session):\n    session.headers.update(session.auth)\n"
    assert uses(source) == [
        ("headers", "attribute", "session", "?"),  # a value, not a module
        ("update", "attribute_call", "session.headers", "?"),
        ("auth", "attribute", "session", "?"),
    ]


def test_python_self_and_cls_have_their_class_type() -> None:
    source = (
        "class Outer:\n"
        "    class Client:\n"
        "        def send(self):\n"
        "            return self.adapter.send(self)\n"
        "        @classmethod\n"
        "        def make(cls):\n"
        "            return cls.default()\n"
        "def exception(self: Logger, event):\n"
        "    return self.error(event)\n"
        "def untyped(self):\n"
        "    return self.error()\n"
    )
    assert uses(source) == [
        ("adapter", "attribute", "self", "Outer.Client"),
        ("send", "attribute_call", "self.adapter", "Outer.Client:adapter"),  # a property?
        ("default", "attribute_call", "cls", "Outer.Client"),
        ("Logger", "type", "", ""),
        ("error", "attribute_call", "self", "Logger"),  # outside a class: its annotation
        ("error", "attribute_call", "self", "?"),
    ]


def test_python_a_classmethods_cls_call_is_an_instance_of_its_class() -> None:
    source = (
        "class Result:\n"
        "    @classmethod\n"
        "    def create(cls, job):\n"
        "        made = cls(job)\n"
        "        made.save()\n"
        "        return cls(job).save()\n"
        "def build(cls: type[Result]):\n"
        "    return cls().save()\n"
    )
    assert calls_on_receivers(source, "python") == [
        ("save", "attribute_call", "made", "Result"),
        ("save", "attribute_call", "cls(job)", "Result"),
        ("save", "attribute_call", "cls()", "Result"),  # a class object's, outside a class
    ]


def test_python_a_name_bound_to_a_member_of_self_has_the_members_type() -> None:
    source = (
        "class SortedDict:\n"
        "    def __init__(self):\n"
        "        self._list = SortedList()\n"
        "        _list = self._list\n"
        "        self._list_add = _list.add\n"
    )
    assert [use for use in uses(source) if use[0] == "add"] == [
        ("add", "attribute", "_list", "SortedList")]


def test_python_a_name_bound_to_another_name_has_its_type() -> None:
    """`gen = generator_192`: a value imported from another module is left for the query
    to read where that module makes it (`=generator_192`); a local's type is the local's;
    an imported class or module, or a name the file binds itself, give no such mark."""
    source = (
        "import curves\n"
        "from .ecdsa import generator_192, PointJacobi\n"
        "def f(generator_192=None):\n"
        "    gen = generator_192\n"
        "    gen.curve()\n"
        "def g():\n"
        "    gen = generator_192\n"
        "    gen.curve()\n"
        "    made = Point()\n"
        "    other = made\n"
        "    other.curve()\n"
        "    mod = curves\n"
        "    mod.curve()\n"
        "    j = PointJacobi.from_affine(gen)\n"
        "    j.curve()\n"
    )
    assert [use[2:] for use in calls_on_receivers(source, "python")] == [
        ("gen", "?"),  # the parameter of that name, untyped
        ("gen", "=generator_192"),
        ("other", "Point"),
        ("mod", "?"),
        ("PointJacobi", ""),
        ("j", "PointJacobi.from_affine()"),
    ]


def test_python_a_list_comprehension_of_a_class_has_its_items() -> None:
    """`[NodeCfg(n) for n in ...]` is a list of NodeCfg, bound to a name or to a member of
    `self`: what a `for` over it or a subscript gives is a NodeCfg; a comprehension of
    what the file does not type (`a.make()`) gives nothing typed."""
    source = (
        "class Gen:\n"
        "    def __init__(self, names):\n"
        "        self.node_cfg = [NodeCfg(n) for n in names]\n"
        "    def run(self, names):\n"
        "        for node_cfg in self.node_cfg:\n"
        "            node_cfg.generate()\n"
        "        conns = [pool.Conn(a) for a in names]\n"
        "        conns[0].send()\n"
        "        made = [a.make() for a in names]\n"
        "        made[0].send()\n"
    )
    assert [use[2:] for use in calls_on_receivers(source, "python")] == [
        ("node_cfg", "NodeCfg"),
        ("pool", ""),
        ("conns[0]", "pool.Conn"),
        ("a", "?"),
        ("made[0]", "?"),
    ]


def test_python_constructed_and_annotated_names_have_their_type() -> None:
    source = (
        "import requests\n"
        "def f(s: Session, t: Optional['Timeout'], n):\n"
        "    r = requests.Session()\n"
        "    c = make_client()\n"
        "    d = Thing()\n"
        "    d = Other()\n"
        "    p = _Private()\n"
        "    u = _UPPER()\n"
        "    h = helpers.make_client()\n"
        "    o = self.make_client()\n"
        "    s.get(), t.total(), n.x(), r.get(), c.get(), d.get(), p.get(), u.get()\n"
        "    h.get(), o.get()\n"
    )
    assert calls_on_receivers(source, "python") == [
        ("Session", "attribute_call", "requests", ""),
        ("make_client", "attribute_call", "helpers", ""),
        ("make_client", "attribute_call", "self", ""),
        ("get", "attribute_call", "s", "Session"),
        ("total", "attribute_call", "t", "Timeout"),
        ("x", "attribute_call", "n", "?"),
        ("get", "attribute_call", "r", "requests.Session"),
        ("get", "attribute_call", "c", "make_client()"),  # the query reads its result
        ("get", "attribute_call", "d", "Thing\x1fOther"),  # two types: the query's to agree on
        ("get", "attribute_call", "p", "_Private"),  # a private class
        ("get", "attribute_call", "u", "_UPPER()"),  # a constant's name: a call, not a class
        ("get", "attribute_call", "h", "helpers.make_client()"),
        ("get", "attribute_call", "o", "?"),  # a method's result: not read
    ]


def test_python_members_assigned_a_constructor_have_its_type() -> None:
    source = (
        "class Client:\n"
        "    def __init__(self):\n"
        "        self.pool = Pool()\n"
        "    def close(self):\n"
        "        self.pool.close()\n"
    )
    assert uses(source)[-1] == ("close", "attribute_call", "self.pool", "Pool")


def test_python_a_members_declared_type_wins_over_the_values_assigned() -> None:
    # As a type checker reads it: `Pool` and `Http2Pool` assigned, `Base` declared.
    declared = (
        "class Client:\n"
        "    def connect(self):\n"
        "        self.pool = Pool()\n"
        "    def __init__(self):\n"
        "        self.pool: Base | None = None\n"
        "    def reconnect(self):\n"
        "        self.pool = Http2Pool()\n"
        "        self.pool.close()\n"
    )
    assert uses(declared)[-1] == ("close", "attribute_call", "self.pool", "Base")
    undeclared = declared.replace("self.pool: Base | None = None", "self.other = None")
    # two types: left to the query, which reads a property of the name if the class has one
    assert uses(undeclared)[-1] == ("close", "attribute_call", "self.pool", "Client:pool")


def test_python_an_augmented_assignment_keeps_the_names_type() -> None:
    source = (
        "def f():\n"
        "    b = ReceiveBuffer()\n"
        "    b += b'123'\n"
        "    b.extract()\n"
        "    n += 1\n"
        "    n.x()\n"
    )
    assert uses(source) == [
        ("ReceiveBuffer", "call", "", ""),
        ("extract", "attribute_call", "b", "ReceiveBuffer"),
        ("x", "attribute_call", "n", "?"),  # bound here, of no type known
    ]


def test_python_a_with_statements_target_is_left_to_the_query() -> None:
    # What `__enter__` returns is read from the index: extraction names the class entered.
    source = (
        "import httpcore\n"
        "async def f(o):\n"
        "    async with httpcore.Connection(o) as conn, open(o) as g, Pool() as p:\n"
        "        conn.close(), g.read(), p.get()\n"
    )
    assert calls_on_receivers(source, "python") == [
        ("Connection", "attribute_call", "httpcore", ""),
        ("close", "attribute_call", "conn", "httpcore.Connection:__enter__()"),
        ("read", "attribute_call", "g", "?"),  # a function's result, entered: not read
        ("get", "attribute_call", "p", "Pool:__enter__()"),
    ]


def test_python_a_member_assigned_a_parameter_has_the_parameters_annotation() -> None:
    source = (
        "class Connection:\n"
        "    def __init__(self, stream: Stream, origin=None, *, pool: Optional[Pool] = None):\n"
        "        self._stream = stream\n"
        "        self._origin = origin\n"
        "        self._pool = pool\n"
        "    def close(self):\n"
        "        self._stream.close(), self._origin.close(), self._pool.close()\n"
    )
    assert calls_on_receivers(source, "python") == [
        ("close", "attribute_call", "self._stream", "Stream"),
        ("close", "attribute_call", "self._origin", "Connection:_origin"),  # not annotated
        ("close", "attribute_call", "self._pool", "Pool"),
    ]


def test_python_a_receiver_written_as_an_expression_keeps_the_steps_the_query_reads() -> None:
    # `Owner:m()` what a method returns, `Owner:p` a member, `[]` / `[i]` an item by
    # subscript / by `for`: read from the indexed signatures when a query runs. An
    # annotated collection gives its items here; a class object called makes an instance.
    source = (
        "import helpers\n"
        "class Pool:\n"
        "    def __init__(self, conns: list[Conn], table: dict[str, Conn]):\n"
        "        self.table = table\n"
        "    async def run(self, factory: type[Conn], extra: 'Sequence[Conn]'):\n"
        "        conn = await self.acquire()\n"
        "        conn.send()\n"
        "        again = await conn.renew()\n"
        "        again.send()\n"
        "        self.conns[0].send()\n"
        "        for item in sorted(self.conns):\n"
        "            item.send()\n"
        "        self.table['a'].send()\n"
        "        [e.send() for e in extra]\n"
        "        made = factory()\n"
        "        made.send()\n"
        "        helpers.make().send()\n"
        "        untyped.send()\n"
    )
    assert [use for use in uses(source) if use[0] == "send"] == [
        ("send", "attribute_call", "conn", "Pool:acquire()"),
        ("send", "attribute_call", "again", "Pool:acquire():renew()"),
        ("send", "attribute_call", "self.conns[0]", "Pool:conns[]"),
        ("send", "attribute_call", "item", "Pool:conns[i]"),
        ("send", "attribute_call", "self.table['a']", "Conn"),
        ("send", "attribute_call", "e", "Conn"),
        ("send", "attribute_call", "made", "Conn"),
        ("send", "attribute_call", "helpers.make()", "helpers.make()"),
        ("send", "attribute_call", "untyped", ""),
    ]


def test_python_generic_bases_are_inherited() -> None:
    source = (
        "class T(Serializer[str], t.Generic[_T], Mixin):\n"
        "    pass\n"
    )
    assert uses(source) == [
        ("Serializer", "inherit", "", ""),
        ("t", "plain", "", ""),
        ("Generic", "inherit", "t", ""),
        ("_T", "plain", "", ""),
        ("Mixin", "inherit", "", ""),
    ]


def test_python_imports_with_aliases() -> None:
    source = (
        "import os, a.b as ab\n"
        "from .models import Request as Req, Response\n"
        "from .. import util\n"
        "from x import *\n"
    )
    extraction = extract_file("t.py", source.encode())
    assert extraction.imports == [
        Import(name="os", source="os", line=1),
        Import(name="ab", source="a.b", line=1),
        Import(name="Req", source=".models", imported="Request", line=2),
        Import(name="Response", source=".models", imported="Response", line=2),
        Import(name="util", source="..", imported="util", line=3),
        Import(name="*", source="x", line=4),
    ]
    assert uses(source) == [
        ("Request", "import", ".models", ""),
        ("Response", "import", ".models", ""),
        ("util", "import", "..", ""),
    ]


def test_occurrences_carry_lines_columns_in_characters_and_the_enclosing_definition() -> None:
    source = "class A:\n    def m(self):\n        é = 'ü'; return ñ.f()\n"
    extraction = extract_file("t.py", source.encode())
    assert extraction.occurrences == [
        Occurrence(name="ñ", line=3, column=25, kind="plain", enclosing="A.m"),
        Occurrence(name="f", line=3, column=27, kind="attribute_call", receiver="ñ",
                   enclosing="A.m"),
    ]


def test_go_locals_parameters_and_struct_keys_are_not_uses() -> None:
    source = (
        "package p\n"
        "func f(a int, rest ...string) (n int) {\n"
        "\tx := T{Name: a, Size: size}\n"
        "\tvar y, z = 1, 2\n"
        "\tfor i, v := range rest { n += i + len(v) + y + z }\n"
        "\tg := func(k string) bool { return k == x.Name }\n"
        "\tswitch t := x.(type) { case U: return t.n }\n"
        "\treturn g(global)\n"
        "}\n"
    )
    assert uses(source, "go") == [
        ("T", "call", "", ""),
        ("size", "plain", "", ""),
        ("Name", "attribute", "x", "T"),
        ("U", "type", "", ""),
        ("n", "attribute", "t", ""),
        ("global", "plain", "", ""),
    ]


def test_go_a_variable_does_not_hide_the_type_of_its_name_but_a_type_parameter_does() -> None:
    # `key := ...` binds a value: `key{}` and `*key` still name the type (the syntax says
    # so), which a type parameter `T` hides, as a type and as a conversion `T(x)`.
    source = (
        "package p\n"
        "func f() {\n"
        "\ttype key struct{}\n"
        "\tvar p *key\n"
        "\tvar libcall libcall\n"
        "\tkey := ctx.Value(key{})\n"
        "\tuse(libcall, key, p)\n"
        "}\n"
        "func g[T any](x any) []T { return []T{T(x)} }\n"
        "type L[E any] struct{}\n"
        "func (l *L[E]) Get() E { var e E; return e }\n"
    )
    assert uses(source, "go") == [
        ("key", "type", "", ""),
        ("libcall", "type", "", ""),
        ("ctx", "plain", "", ""),
        ("Value", "attribute_call", "ctx", "=ctx"),  # `=`: a name the file does not bind
        ("key", "call", "", ""),
        ("use", "call", "", ""),
        ("L", "type", "", ""),
    ]


def test_go_a_name_bound_in_a_block_is_local_to_it() -> None:
    # Two loops bind `c` to values of two types; `config`, bound in an `if` header, is
    # the package's after it; `_` is never a use, even where `var _ = x` declares it.
    source = (
        "package p\n"
        "var _ = check\n"
        "func (r *Root) walk(cmds []*Command, flags []*Flag) {\n"
        "\tfor _, c := range cmds { c.Run() }\n"
        "\tfor _, c := range flags { c.Set() }\n"
        "\tif config := load(); config != nil { config.Apply() }\n"
        "\tconfig.Reset()\n"
        "\t_, _ = r, config\n"
        "}\n"
    )
    assert uses(source, "go") == [
        ("check", "plain", "", ""),
        ("Root", "type", "", ""),
        ("Command", "type", "", ""),
        ("Flag", "type", "", ""),
        ("Run", "attribute_call", "c", "Command"),
        ("Set", "attribute_call", "c", "Flag"),
        ("load", "call", "", ""),
        ("Apply", "attribute_call", "config", "load()"),
        ("config", "plain", "", ""),
        ("Reset", "attribute_call", "config", "=config"),
        ("config", "plain", "", ""),
    ]


def test_go_receivers_and_declared_names_have_their_type() -> None:
    source = (
        "package p\n"
        "import h \"net/http\"\n"
        "func (s *Server[T]) Serve(r *h.Request) {\n"
        "\tvar b bytes.Buffer\n"
        "\tc := &Config{}\n"
        "\td := NewClient()\n"
        "\te := pool.NewConn(1)\n"
        "\tf := new(Thing)\n"
        "\tg := build()\n"
        "\ts.x(); r.y(); b.z(); c.w(); d.v(); e.u(); f.t(); g.s()\n"
        "}\n"
    )
    assert calls_on_receivers(source, "go") == [
        ("NewConn", "attribute_call", "pool", "=pool"),  # a package variable of another file
        ("x", "attribute_call", "s", "Server"),
        ("y", "attribute_call", "r", "h.Request"),
        ("z", "attribute_call", "b", "bytes.Buffer"),
        ("w", "attribute_call", "c", "Config"),
        ("v", "attribute_call", "d", "NewClient()"),  # its signature is read by the query
        ("u", "attribute_call", "e", "=pool:NewConn()"),  # `pool`: no import of this file
        ("t", "attribute_call", "f", "Thing"),
        ("s", "attribute_call", "g", "build()"),
    ]


def test_go_a_field_of_a_struct_the_file_declares_types_a_receiver() -> None:
    source = (
        "package p\n"
        "import \"example.com/api\"\n"
        "type Bridge struct {\n"
        "\tlogger Logger\n"
        "\tclient, backup *api.Client\n"
        "\tbyName map[string]*Handler\n"
        "\t*Base\n"
        "}\n"
        "func (b *Bridge) Run() {\n"
        "\tb.logger.Println(); b.client.URL(); b.backup.URL(); b.Base.Close()\n"
        "\tb.byName.Get(); b.other.Do(); api.Default.Get()\n"
        "}\n"
    )
    assert calls_on_receivers(source, "go") == [
        ("Println", "attribute_call", "b.logger", "Logger"),
        ("URL", "attribute_call", "b.client", "api.Client"),
        ("URL", "attribute_call", "b.backup", "api.Client"),
        ("Close", "attribute_call", "b.Base", "Base"),  # embedded: named by its type
        ("Get", "attribute_call", "b.byName", ""),  # a map has no methods of its own
        ("Do", "attribute_call", "b.other", ""),  # no such field here
        ("Get", "attribute_call", "api.Default", ""),  # a package's variable
    ]


def test_go_an_element_by_index_or_range_has_the_element_type_of_a_type_defined_here() -> None:
    # `items` and `children` are defined here as a slice, `more` is declared one: their
    # elements have a type.
    # `s` and `n` are receivers only inside expressions (`s[0]`, `n.items[i]`).
    source = (
        "package p\n"
        "type items []Item\n"
        "type children []*node\n"
        "type node struct { items items; children children; byKey map[string]*node }\n"
        "func (s items) first() bool { return s[0].Less(nil) }\n"
        "func (n *node) walk(i int, more []*node) {\n"
        "\tn.items[i].Less(nil); n.byKey[\"k\"].walk(0, nil); more[0].walk(0, nil)\n"
        "\tfor _, c := range n.children { c.walk(i, nil) }\n"
        "\tfor _, it := range n.items { it.Less(nil) }\n"
        "\tlocal := []*node{}; local[0].walk(0, nil)\n"
        "\tfirst := n.items[0]; first.Less(nil); kids := n.children; kids[0].walk(0, nil)\n"
        "}\n"
        "func all(list []*node) { for _, x := range list { x.walk(0, nil) } }\n"
    )
    assert calls_on_receivers(source, "go") == [
        ("Less", "attribute_call", "s[0]", "Item"),
        ("Less", "attribute_call", "n.items[i]", "Item"),
        ("walk", "attribute_call", 'n.byKey["k"]', "node"),  # a map's values
        ("walk", "attribute_call", "more[0]", "node"),
        ("walk", "attribute_call", "c", "node"),
        ("Less", "attribute_call", "it", "Item"),
        ("walk", "attribute_call", "local[0]", "node"),
        ("Less", "attribute_call", "first", "Item"),  # an element assigned
        ("walk", "attribute_call", "kids[0]", "node"),  # a field assigned
        ("walk", "attribute_call", "x", "node"),  # `list`: a range's, not a receiver
    ]


def test_go_a_calls_result_comes_from_the_signature_or_is_left_for_the_query() -> None:
    source = (
        "package p\n"
        "import \"example.com/cobra\"\n"
        "func NewBridge() (*Bridge, error) { return nil, nil }\n"
        "func (c *Command) Root() *Command { return c }\n"
        "func use(c *Command, f func() *Bridge) {\n"
        "\tb, err := NewBridge(); b.Push()\n"
        "\tc.Root().Execute(); c.Parent().Execute(); c.Root().Parent().Execute()\n"
        "\tr, _ := c.Root(), 1; r.Close()\n"
        "\tcmd := cobra.NewCommand(); cmd.Execute(); cobra.Find(c).Execute()\n"
        "\tp := c.Parent(); p.Close()\n"
        "\tf().Push(); Other().Push(); err.Error()\n"
        "\tn := n.Next(); n.Close()\n"
        "\tnew(Route).PathPrefix(\"/\").Subrouter()\n"
        "\trt := NewRouter().StrictSlash(true); sub := rt.PathPrefix(\"/\").Subrouter()\n"
        "\tsub.Methods(\"GET\"); sub.Path(\"/a\").Methods(\"PUT\")\n"
        "}\n"
    )
    assert calls_on_receivers(source, "go") == [
        ("Push", "attribute_call", "b", "Bridge"),  # NewBridge is defined here
        ("Root", "attribute_call", "c", "Command"),
        ("Execute", "attribute_call", "c.Root()", "Command"),  # so is Command.Root
        ("Parent", "attribute_call", "c", "Command"),
        ("Execute", "attribute_call", "c.Parent()", "Command:Parent()"),  # for the query
        ("Root", "attribute_call", "c", "Command"),
        ("Parent", "attribute_call", "c.Root()", "Command"),
        ("Execute", "attribute_call", "c.Root().Parent()", "Command:Parent()"),
        ("Root", "attribute_call", "c", "Command"),
        ("Close", "attribute_call", "r", ""),  # two values: no call's first result
        ("NewCommand", "attribute_call", "cobra", ""),
        ("Execute", "attribute_call", "cmd", "cobra.NewCommand()"),
        ("Find", "attribute_call", "cobra", ""),
        ("Execute", "attribute_call", "cobra.Find(c)", "cobra.Find()"),
        ("Parent", "attribute_call", "c", "Command"),
        ("Close", "attribute_call", "p", "Command:Parent()"),
        ("Push", "attribute_call", "f()", ""),  # a local function value
        ("Push", "attribute_call", "Other()", "Other()"),
        ("Error", "attribute_call", "err", ""),  # the call's second result: not typed
        ("Next", "attribute_call", "n", ""),
        ("Close", "attribute_call", "n", ""),  # `n := n.Next()` names itself
        ("PathPrefix", "attribute_call", "new(Route)", "Route"),
        ("Subrouter", "attribute_call", 'new(Route).PathPrefix("/")', "Route:PathPrefix()"),
        # a name bound to a chain of calls: each step for the query to read
        ("StrictSlash", "attribute_call", "NewRouter()", "NewRouter()"),
        ("PathPrefix", "attribute_call", "rt", "NewRouter():StrictSlash()"),
        ("Subrouter", "attribute_call", 'rt.PathPrefix("/")',
         "NewRouter():StrictSlash():PathPrefix()"),
        ("Methods", "attribute_call", "sub", "NewRouter():StrictSlash():PathPrefix():Subrouter()"),
        ("Path", "attribute_call", "sub", "NewRouter():StrictSlash():PathPrefix():Subrouter()"),
        ("Methods", "attribute_call", 'sub.Path("/a")',
         "NewRouter():StrictSlash():PathPrefix():Subrouter():Path()"),
    ]


def test_go_range_gives_the_elements_of_a_call_or_a_field_and_an_assertion_its_type(
) -> None:
    """`x.(T)` types a receiver, and the name it is assigned to (`c, ok := x.(T)`); a
    value received from a channel has its elements' type (`make(chan T)` types one), and
    so has the one name a `range` over a channel binds; over a map, its keys'."""
    source = (
        "package p\n"
        "type Command struct {\n"
        "\tflags map[string]*Flag\n"
        "\tcommands []*Command\n"
        "\tparent *Command\n"
        "}\n"
        "func (c *Command) Commands() []*Command { return c.commands }\n"
        "func (c *Command) walk(all []*Command, v Value) {\n"
        "\tfor _, sub := range c.Commands() { sub.Run() }\n"
        "\tfor name, flag := range c.flags { flag.Set(name) }\n"
        "\tfor _, child := range c.parent.Groups() { child.Add() }\n"
        "\tfor _, each := range all { each.Run() }\n"
        "\tfor i := range c.commands { i.Run() }\n"
        "\tv.(*Flag).Set(); (&Flag{}).Set()\n"
        "\tw := v.(*Flag); w.Set()\n"
        "\tu, ok := v.(Value); u.Set(); ok.Set()\n"
        "\tin := make(chan *Flag, 2); got := <-in; got.Set()\n"
        "\tselect {\n\tcase f := <-in:\n\t\tf.Set()\n\t}\n"
        "\tneg := -v; neg.Set()\n"
        "\tfor f := range c.flags { f.Len() }\n"
        "\tfor f := range in { f.Set() }\n"
        "\tseen := map[*Command]bool{}; for k := range seen { k.Run() }\n"
        "}\n"
    )
    assert calls_on_receivers(source, "go") == [
        ("Commands", "attribute_call", "c", "Command"),
        ("Run", "attribute_call", "sub", "Command"),
        ("Set", "attribute_call", "flag", "Flag"),
        ("Groups", "attribute_call", "c.parent", "Command"),
        ("Add", "attribute_call", "child", "Command:Groups()[]"),  # the query reads Groups
        ("Run", "attribute_call", "each", "Command"),  # a declared slice's elements
        ("Run", "attribute_call", "i", ""),  # one name: the index
        ("Set", "attribute_call", "v.(*Flag)", "Flag"),
        ("Set", "attribute_call", "(&Flag{})", "Flag"),
        ("Set", "attribute_call", "w", "Flag"),
        ("Set", "attribute_call", "u", "Value"),
        ("Set", "attribute_call", "ok", ""),
        ("Set", "attribute_call", "got", "Flag"),  # received from a `make(chan *Flag)`
        ("Set", "attribute_call", "f", "Flag"),  # in a `select`'s case
        ("Set", "attribute_call", "neg", ""),  # another unary operator: no channel
        ("Len", "attribute_call", "f", "string"),  # one name over a map: its keys
        ("Set", "attribute_call", "f", "Flag"),  # over a channel: its elements
        ("Run", "attribute_call", "k", "Command"),
    ]


def test_go_imports_bind_the_package_name_or_the_alias() -> None:
    source = (
        "package p\n"
        "import (\n"
        "\t\"net/http\"\n"
        "\tyaml \"gopkg.in/yaml.v3\"\n"
        "\t\"gopkg.in/ini.v1\"\n"
        "\t. \"strings\"\n"
        "\t_ \"embed\"\n"
        ")\n"
    )
    assert extract_file("p.go", source.encode()).imports == [
        Import(name="http", source="net/http", line=3),
        Import(name="yaml", source="gopkg.in/yaml.v3", line=4),
        Import(name="ini", source="gopkg.in/ini.v1", line=5),
        Import(name="*", source="strings", line=6),
    ]


def test_javascript_parameters_destructuring_and_defaults() -> None:
    source = (
        "function f(a, b = dflt, {c, d: e, g = h}, [i], ...j) {\n"
        "  const {k, l: [m]} = a;\n"
        "  for (const n of j) { n(b, c, e, g, i, k, m); }\n"
        "  return (o) => o + p;\n"
        "}\n"
    )
    # `k` and `l`, read out of `a`, are uses of its members; the names bound are not uses.
    assert uses(source, "javascript") == [("dflt", "plain", "", ""), ("h", "plain", "", ""),
                                          ("k", "attribute", "a", ""),
                                          ("l", "attribute", "a", ""),
                                          ("p", "plain", "", "")]


def test_typescript_names_read_out_of_a_value_are_uses_of_its_members() -> None:
    # `const { router, req: request, flag = true } = opts`: three members of `opts`, an
    # `Options`; `this.file`'s `size`; nothing of a call's result (`make()`), whose
    # members are not read; `router`, bound here, is an untyped local.
    source = (
        "import { Options } from './opts';\n"
        "export function run(opts: Options) {\n"
        "  const { router, req: request, flag = true } = opts;\n"
        "  const { size } = this.file;\n"
        "  const { a } = make();\n"
        "  router.go(request, size, flag, a);\n"
        "}\n"
    )
    assert uses(source, "typescript") == [
        ("Options", "import", "./opts", ""),
        ("Options", "type", "", ""),
        ("router", "attribute", "opts", "Options"),
        ("req", "attribute", "opts", "Options"),
        ("flag", "attribute", "opts", "Options"),
        ("size", "attribute", "this.file", ""),
        ("file", "attribute", "this", ""),
        ("make", "call", "", ""),
        ("go", "attribute_call", "router", ""),
    ]


def test_javascript_this_and_new_give_types_and_html_tags_are_not_uses() -> None:
    source = (
        "class Store { load() { const c = new Cache(); this.x.y(); c.get(); }\n"
        "  view() { return <div><Panel.Row /></div>; } }\n"
    )
    assert uses(source, "javascript") == [
        ("Cache", "call", "", ""),
        ("x", "attribute", "this", "Store"),
        ("y", "attribute_call", "this.x", ""),
        ("get", "attribute_call", "c", "Cache"),
        ("Panel", "plain", "", ""),
        ("Row", "call", "Panel", ""),
    ]


def test_typescript_annotations_fields_and_type_parameters() -> None:
    source = (
        "class Client<T> {\n"
        "  private http: Http;\n"
        "  constructor(private config: Config) {}\n"
        "  get(path: Path): T { return this.http.get(this.config.url, path.value); }\n"
        "}\n"
    )
    assert uses(source, "typescript") == [
        ("Http", "type", "", ""),
        ("Config", "type", "", ""),
        ("Path", "type", "", ""),
        ("http", "attribute", "this", "Client"),
        ("get", "attribute_call", "this.http", "Http"),
        ("config", "attribute", "this", "Client"),
        ("url", "attribute", "this.config", "Config"),
        ("value", "attribute", "path", "Path"),
    ]


def test_javascript_imports_and_requires() -> None:
    source = (
        "import React, { useState as useS } from 'react';\n"
        "import * as path from 'path';\n"
        "import './side-effect';\n"
        "const fs = require('fs');\n"
        "const { join, resolve: res } = require('path');\n"
    )
    assert extract_file("t.js", source.encode()).imports == [
        Import(name="React", source="react", imported="default", line=1),
        Import(name="useS", source="react", imported="useState", line=1),
        Import(name="path", source="path", line=2),
        Import(name="", source="./side-effect", line=3),
        Import(name="fs", source="fs", line=4),
        Import(name="join", source="path", imported="join", line=5),
        Import(name="res", source="path", imported="resolve", line=5),
    ]


def test_c_declarations_parameters_and_prototypes_are_not_uses() -> None:
    source = (
        "int lookup(struct table *table, const char *key);\n"
        "int count(struct device *device, int n)\n"
        "{\n"
        "\tint i, total = 0, *p = &total;\n"
        "\tstruct node *it = device->first;\n"
        "\tfor (i = 0; i < n; i++)\n"
        "\t\ttotal += lookup(device->table, names[i]) + it->size;\n"
        "\treturn total + LIMIT;\n"
        "}\n"
    )
    assert uses(source, "c") == [
        ("table", "type", "", ""),
        ("device", "type", "", ""),  # a type's name, though a parameter's too
        ("node", "type", "", ""),
        ("first", "attribute", "device", "device"),
        ("lookup", "call", "", ""),
        ("table", "attribute", "device", "device"),
        ("names", "plain", "", ""),
        ("size", "attribute", "it", "node"),
        ("LIMIT", "plain", "", ""),
    ]


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_c_names_inside_if_0_are_compiled_out(language: str) -> None:
    """Up to its `#else`, `#elif` or `#endif`, `#if 0` holds no use: a compiler never
    sees it (clangd counts none). What `#else` holds, `#if 1`, and a `#if 0` inside a
    function body are read as always."""
    source = (
        "#if 0\n"
        "static int dead(void) { return used_fn(1) + gone_fn(2); }\n"
        "#else\n"
        "static int alive(void) { return used_fn(3); }\n"
        "#endif\n"
        "#if 1\n"
        "int live(void) { return used_fn(4); }\n"
        "#endif\n"
        "int body(void) {\n"
        "#if 0\n"
        "  gone_fn(5);\n"
        "#elif HAVE_IT\n"
        "  kept_fn(6);\n"
        "#endif\n"
        "  return used_fn(7);\n"
        "}\n"
    )
    extraction = extract_file(f"t.{language}", source.encode(), language=language)
    assert [(o.name, o.line) for o in extraction.occurrences] == [
        ("used_fn", 4), ("used_fn", 7), ("HAVE_IT", 12), ("kept_fn", 13), ("used_fn", 15)]


def test_cpp_this_in_an_out_of_line_method_and_auto_constructions() -> None:
    source = (
        "namespace net {\n"
        "template <typename T> T* Pool<T>::take(const Key& key) {\n"
        "  auto conn = Connection(key);\n"
        "  auto* raw = new Socket();\n"
        "  auto it = items_.find(key);\n"
        "  this->count_++; conn.open(); raw->bind(); it->second.use();\n"
        "  return std::move(util::cast<T>(conn));\n"
        "}\n"
        "}\n"
    )
    assert uses(source, "cpp") == [
        ("Key", "type", "", ""),
        ("Connection", "call", "", ""),
        ("Socket", "call", "", ""),
        ("items_", "plain", "", ""),
        ("find", "attribute_call", "items_", ""),
        ("count_", "attribute", "this", "net::Pool"),
        ("open", "attribute_call", "conn", "Connection"),
        ("bind", "attribute_call", "raw", "Socket"),
        ("second", "attribute", "it", ""),
        ("use", "attribute_call", "it->second", ""),
        ("move", "call", "std", ""),
        ("cast", "call", "util", ""),
    ]


def test_java_fields_without_this_and_names_shared_by_a_type_and_a_value() -> None:
    source = (
        "class Pool {\n"
        "  private Config config;\n"
        "  void run(Config config, Task task) {\n"
        "    config.load(); items.add(task); this.config.x();\n"
        "  }\n"
        "  Client client() { Client client = new Client(); return client; }\n"
        "}\n"
    )
    assert uses(source, "java") == [
        ("Config", "type", "", ""),
        ("Config", "type", "", ""),
        ("Task", "type", "", ""),
        ("load", "attribute_call", "config", "Config"),
        ("items", "plain", "", ""),
        ("add", "attribute_call", "items", ""),
        ("config", "attribute", "this", "Pool"),
        ("x", "attribute_call", "this.config", "Config"),
        ("Client", "type", "", ""),
        ("Client", "type", "", ""),
        ("Client", "call", "", ""),
    ]


def test_rust_patterns_bind_their_names_not_their_types_and_self_is_the_impl_type() -> None:
    source = (
        "impl Pool {\n"
        "    fn take(&self, key: &Key) -> Option<Conn> {\n"
        "        let Some(conn) = self.free.pop() else { return None };\n"
        "        if let Point { x, y: py } = origin() { conn.at(x, py); }\n"
        "        let c = Client::new(key);\n"
        "        match conn.state { State::Idle(n) => c.go(n), other => fail(other) }\n"
        "    }\n"
        "}\n"
    )
    assert uses(source, "rust") == [
        ("Pool", "type", "", ""),
        ("Key", "type", "", ""),
        ("Conn", "type", "", ""),
        ("free", "attribute", "self", "Pool"),
        ("pop", "attribute_call", "self.free", ""),
        ("Point", "type", "", ""),
        ("origin", "call", "", ""),
        ("at", "attribute_call", "conn", ""),
        ("Client", "plain", "", ""),
        ("new", "call", "Client", ""),
        ("state", "attribute", "conn", ""),
        ("State", "plain", "", ""),
        ("Idle", "plain", "State", ""),
        ("go", "attribute_call", "c", "Client"),
        ("fail", "call", "", ""),
    ]


def test_every_language_has_a_refs_fixture() -> None:
    assert refs_languages() == sorted(LANGUAGES)


def test_php_imports_with_and_without_a_namespace() -> None:
    source = "<?php\nuse Foo;\nuse Bar\\Baz as Qux;\nuse A\\{B, C as D};\n"
    assert extract_file("t.php", source.encode()).imports == [
        Import(name="Foo", source="", imported="Foo", line=2),
        Import(name="Qux", source="Bar", imported="Baz", line=3),
        Import(name="B", source="A", imported="B", line=4),
        Import(name="D", source="A", imported="C", line=4),
    ]


def test_a_deadline_passed_while_reading_uses_keeps_the_definitions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from symfind.extract import ParseTimeout, parse

    assert extract_file("t.py", b"import os\n").occurrences_read

    def too_long(*_args: object) -> None:
        raise ParseTimeout("extraction exceeded 5.0s")

    monkeypatch.setattr(parse, "occurrences_and_imports", too_long)
    extraction = extract_file("t.py", b"import os\n\ndef f():\n    return os.getcwd()\n")
    assert [symbol.name for symbol in extraction.symbols] == ["f"]
    assert (extraction.occurrences, extraction.imports, extraction.occurrences_read) == (
        [], [], False)


def test_no_refs_query_has_a_text_predicate() -> None:
    """A text predicate reads its node's text back through the parser's input callback
    (extract/parse.py parses from one): on a refs query it ran for most nodes of a kind,
    0.8 s on go-stdlib's rewriteAMD64.go. What needs a text goes to a capture the Python
    side reads (`@skip.lower`, `@hint.ctor`, `@import.callee`)."""
    queries = Path(__file__).resolve().parents[3] / "extract" / "queries"
    found = [f"{path.name}: {match}" for path in sorted(queries.glob("*-refs.scm"))
             for match in re.findall(r"\(#[\w-]+[?!]", path.read_text(encoding="utf-8"))]
    assert found == []


def test_typescript_re_exports_are_imports_from_their_module() -> None:
    source = (
        'import { a as b } from "./x";\n'
        'export { c as d, e } from "./y";\n'
        'export { b };\n'
    )
    extraction = extract_file("t.ts", source.encode(), language="typescript")
    assert extraction.imports == [
        Import(name="b", source="./x", imported="a", line=1),
        Import(name="d", source="./y", imported="c", line=2),
        Import(name="e", source="./y", imported="e", line=2),
    ]
    assert uses(source, "typescript") == [
        ("a", "import", "./x", ""),
        ("c", "import", "./y", ""),
        ("e", "import", "./y", ""),
        ("b", "plain", "", ""),
    ]


def test_typescript_wildcard_re_exports_are_wildcard_imports() -> None:
    source = 'export * from "./atom";\nexport * as pools from "./pool";\n'
    extraction = extract_file("t.ts", source.encode(), language="typescript")
    assert extraction.imports == [Import(name="*", source="./atom", line=1),
                                  Import(name="pools", source="./pool", line=2)]
    assert extraction.occurrences == []  # `pools` is bound, not used


def test_script_super_is_the_class_base_in_typescript_and_javascript() -> None:
    source = (
        "class FastPool extends Pool<T> {\n"
        "  acquire() { return super.acquire(); }\n"
        "}\n"
        "class Lone { close() { super.close(); } }\n"
    )
    assert uses(source, "typescript") == [
        ("Pool", "inherit", "", ""),
        ("T", "type", "", ""),
        ("acquire", "attribute_call", "super", "Pool"),
        ("close", "attribute_call", "super", ""),
    ]
    source = "class FastPool extends pools.Pool { acquire() { return super.acquire(); } }\n"
    assert uses(source, "javascript") == [
        ("pools", "plain", "", ""),
        ("Pool", "inherit", "pools", ""),
        ("acquire", "attribute_call", "super", "pools.Pool"),
    ]


def test_typescript_casts_constructions_and_non_null_receivers_have_their_type() -> None:
    source = (
        "function f(x: any, pool: Pool | null, partial: Partial<Pool<T>>, both: Pool<T> | Atom) {\n"
        "  (x as Pool<T>).acquire();\n"
        "  (<Pool>x).acquire();\n"
        "  new Pool<T>(1).acquire();\n"
        "  pool!.acquire();\n"
        "  partial.acquire();\n"
        "  both.acquire();\n"
        "}\n"
    )
    assert uses(source, "typescript") == [
        ("Pool", "type", "", ""),
        ("Pool", "type", "", ""),
        ("T", "type", "", ""),
        ("Pool", "type", "", ""),
        ("T", "type", "", ""),
        ("Atom", "type", "", ""),
        ("Pool", "type", "", ""),
        ("T", "type", "", ""),
        ("acquire", "attribute_call", "(x as Pool<T>)", "Pool"),
        ("Pool", "type", "", ""),
        ("acquire", "attribute_call", "(<Pool>x)", "Pool"),
        ("Pool", "call", "", ""),
        ("T", "type", "", ""),
        ("acquire", "attribute_call", "new Pool<T>(1)", "Pool"),
        ("acquire", "attribute_call", "pool!", "Pool"),
        ("acquire", "attribute_call", "partial", "Pool"),
        ("acquire", "attribute_call", "both", ""),
    ]


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_script_a_member_named_by_a_key_in_quotes_is_a_use_when_the_key_is_a_name(
        language: str) -> None:
    source = (
        "function f(pool, headers) {\n"
        "  pool['acquire']();\n"
        "  pool[\"size\"];\n"
        "  headers['Content-Type'];\n"
        "  pool[name]();\n"
        "}\n"
    )
    assert [use for use in uses(source, language) if use[1].startswith("attribute")] == [
        ("acquire", "attribute_call", "pool", ""),
        ("size", "attribute", "pool", ""),
    ]


def test_typescript_a_member_type_looked_up_by_its_key_is_a_use_of_the_member() -> None:
    source = "type Hook = ParentConfig<MarkConfig<O>>['addGlobalAttributes']\n"
    assert uses(source, "typescript") == [
        ("ParentConfig", "type", "", ""),
        ("MarkConfig", "type", "", ""),
        ("O", "type", "", ""),
        ("addGlobalAttributes", "attribute", "ParentConfig<MarkConfig<O>>", ""),
    ]


def test_type_names_of_unions_nullables_and_member_keeping_wrappers() -> None:
    assert [type_name(text) for text in (
        "Subscriber<any> | Observer<any>", "Pool | null", "Pool<T> | undefined",
        "Partial<Observer<T>>", "Readonly<Pool>", "A<T> & B", "&mut Pool",
        "std::vector<int> &", "Optional[Session]", "Session | None", "Pool[]",
        "Pool<T>[][]", "List['Session']", "Pool[int]")] == [
        "", "Pool", "Pool", "Observer", "Pool", "", "Pool", "std::vector", "Session",
        "Session", "", "", "List", "Pool"]


def test_an_array_or_a_member_looked_up_by_key_is_no_value_of_the_type_named() -> None:
    source = (
        "class Field {\n"
        "  pools: Pool[];\n"
        "  form: Options<T>['form'];\n"
        "  send(all: Pool[][], one: Pool) {\n"
        "    this.pools.push(one); this.form.submit(); all.length; one.acquire();\n"
        "  }\n"
        "}\n"
    )
    assert calls_on_receivers(source, "typescript") == [
        ("push", "attribute_call", "this.pools", ""),
        ("submit", "attribute_call", "this.form", ""),
        ("acquire", "attribute_call", "one", "Pool"),
    ]
    java = (
        "class Main {\n"
        "  void run(String[] args, Pool[] pools, Pool pool) {\n"
        "    args.clone(); pools.clone(); pool.clone();\n"
        "  }\n"
        "}\n"
    )
    assert calls_on_receivers(java, "java") == [
        ("clone", "attribute_call", "args", ""),
        ("clone", "attribute_call", "pools", ""),
        ("clone", "attribute_call", "pool", "Pool"),
    ]


def test_typescript_parameter_properties_type_their_fields() -> None:
    source = (
        "class Client {\n"
        "  constructor(readonly http: Http, private readonly pool: Pool) {}\n"
        "  send() { this.http.get(); this.pool.acquire(); }\n"
        "}\n"
    )
    assert uses(source, "typescript") == [
        ("Http", "type", "", ""),
        ("Pool", "type", "", ""),
        ("http", "attribute", "this", "Client"),
        ("get", "attribute_call", "this.http", "Http"),
        ("pool", "attribute", "this", "Client"),
        ("acquire", "attribute_call", "this.pool", "Pool"),
    ]
