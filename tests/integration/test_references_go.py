"""Go method references through a real index: receivers typed by a call's result read
from the indexed signature of a function in another file or package, by a struct's field,
by a `range`, by the declaration of a package variable in another file; a type of the
same name in another package; interfaces that embed one declaring the method. The files
are extracted for real (`searcher_over`)."""

from __future__ import annotations

import pytest

from symfind.storage import Searcher
from tests.integration.conftest import searcher_over, tiers

GO_FILES = {
    "go.mod": "module example.com/m\n",
    "graphite/bridge.go": (
        "package graphite\n"
        "\n"
        "type Logger interface {\n"
        "\tPrintln(v ...interface{})\n"
        "}\n"
        "\n"
        "type Bridge struct {\n"
        "\tlogger Logger\n"
        "}\n"
        "\n"
        "func NewBridge() (*Bridge, error) { return &Bridge{}, nil }\n"
        "\n"
        "func (b *Bridge) Push() error {\n"
        "\tb.logger.Println(\"pushed\")\n"
        "\treturn nil\n"
        "}\n"
        "\n"
        "func (b *Bridge) Peers() []*Bridge { return nil }\n"
    ),
    "graphite/bridge_test.go": (
        "package graphite\n"
        "\n"
        "type pusher interface {\n"
        "\tPush() error\n"
        "}\n"
        "\n"
        "type pushCloser interface {\n"
        "\tpusher\n"
        "\tClose()\n"
        "}\n"
        "\n"
        "func TestPush(p pushCloser) {\n"
        "\tb, err := NewBridge()\n"
        "\tif err != nil {\n"
        "\t\treturn\n"
        "\t}\n"
        "\tb.Push()\n"
        "\tfor _, peer := range b.Peers() {\n"
        "\t\tpeer.Push()\n"
        "\t}\n"
        "\tp.Push()\n"
        "}\n"
    ),
    "graphite/defaults.go": (
        "package graphite\n"
        "\n"
        "import \"example.com/m/push\"\n"
        "\n"
        "var DefaultBridge = &Bridge{}\n"
        "\n"
        "var defaultPusher = push.New()\n"
    ),
    "graphite/flush.go": (
        "package graphite\n"
        "\n"
        "func Flush() {\n"
        "\tDefaultBridge.Push()\n"
        "\tdefaultPusher.Push()\n"
        "}\n"
    ),
    "push/push.go": (
        "package push\n"
        "\n"
        "type Pusher struct{}\n"
        "\n"
        "func New() *Pusher { return &Pusher{} }\n"
        "\n"
        "func (p *Pusher) Push() error { return nil }\n"
    ),
    "promhttp/http.go": (
        "package promhttp\n"
        "\n"
        "type Logger interface {\n"
        "\tPrintln(v ...interface{})\n"
        "}\n"
        "\n"
        "type HandlerOpts struct {\n"
        "\tErrorLog Logger\n"
        "}\n"
        "\n"
        "func serve(opts HandlerOpts) {\n"
        "\topts.ErrorLog.Println(\"failed\")\n"
        "}\n"
    ),
    "cmd/main.go": (
        "package main\n"
        "\n"
        "import (\n"
        "\t\"example.com/m/graphite\"\n"
        "\t\"example.com/m/push\"\n"
        ")\n"
        "\n"
        "func main() {\n"
        "\tb, _ := graphite.NewBridge()\n"
        "\tb.Push()\n"
        "\tp := push.New()\n"
        "\tp.Push()\n"
        "\tfor _, peer := range b.Peers() {\n"
        "\t\tpeer.Push()\n"
        "\t}\n"
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def go_searcher(tmp_path_factory: pytest.TempPathFactory) -> Searcher:
    return searcher_over(tmp_path_factory, "go-refs", GO_FILES)


def test_a_calls_result_is_typed_by_the_indexed_signature_in_any_file(
        go_searcher: Searcher) -> None:
    assert tiers(go_searcher, "graphite/bridge.go", 13) == {
        "resolved": [  # the target's directory first, then others, then tests
            ("graphite/flush.go", 4, "receiver is a Bridge"),  # a variable of defaults.go
            ("cmd/main.go", 10, "receiver is a Bridge"),  # b from graphite.NewBridge()
            ("cmd/main.go", 14, "receiver is a Bridge"),  # range over b.Peers()
            ("graphite/bridge_test.go", 17, "receiver is a Bridge"),  # NewBridge()
            ("graphite/bridge_test.go", 19, "receiver is a Bridge"),
        ],
        "possible": [
            ("p", "receiver typed pushCloser, which embeds a type that may have Push: "
                  "may dispatch here", 1),
        ],
        "elsewhere": [  # push.New(), read from its signature (in defaults.go's imports)
            ("push.Pusher.Push (push/push.go:7)", "receiver is a Pusher", 2),
        ],
    }


def test_a_field_types_its_receiver_and_another_packages_type_is_elsewhere(
        go_searcher: Searcher) -> None:
    assert tiers(go_searcher, "graphite/bridge.go", 4) == {
        "resolved": [("graphite/bridge.go", 14, "receiver is a Logger")],  # b.logger
        "possible": [],
        "elsewhere": [("promhttp.Logger.Println (promhttp/http.go:4)",
                       "receiver is another package's Logger", 1)],
    }


def test_a_versioned_import_path_names_the_package_at_the_repository_root(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    searcher = searcher_over(tmp_path_factory, "go-yaml", {
        "go.mod": "module gopkg.in/yaml.v3\n",
        "yaml.go": "package yaml\n\nfunc NewDecoder() *Decoder { return nil }\n",
        "decode_test.go": (
            "package yaml_test\n"
            "\n"
            "import \"gopkg.in/yaml.v3\"\n"
            "\n"
            "func TestDecode() {\n"
            "\tyaml.NewDecoder()\n"
            "}\n"
        ),
    })
    assert tiers(searcher, "yaml.go", 3) == {
        "resolved": [("decode_test.go", 6, "package yaml, matched by name")],
        "possible": [],
        "elsewhere": [],
    }


def test_an_import_path_binds_the_name_go_tools_assume_and_a_local_type_shadows(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`github.com/pelletier/go-toml` binds `toml` (its `go-` left out), the package at
    the repository's root; a type a test function declares for itself is that one."""
    searcher = searcher_over(tmp_path_factory, "go-toml", {
        "go.mod": "module github.com/pelletier/go-toml\n",
        "position.go": "package toml\n\ntype Position struct {\n\tLine int\n}\n",
        "query/lexer.go": (
            "package query\n"
            "\n"
            "import \"github.com/pelletier/go-toml\"\n"
            "\n"
            "func pos() toml.Position {\n"
            "\treturn toml.Position{Line: 1}\n"
            "}\n"
        ),
        "position_test.go": (
            "package toml\n"
            "\n"
            "func TestPosition(t *testing.T) {\n"
            "\t_ = Position{Line: 2}\n"
            "\tt.Run(\"local\", func(t *testing.T) {\n"
            "\t\ttype Position struct{ Col int }\n"
            "\t\t_ = Position{Col: 3}\n"
            "\t})\n"
            "}\n"
        ),
    })
    assert tiers(searcher, "position.go", 3) == {
        "resolved": [("query/lexer.go", 5, "package toml, matched by name"),
                     ("query/lexer.go", 6, "package toml, matched by name"),
                     ("position_test.go", 4, "in its own package")],
        "possible": [],
        "elsewhere": [("toml.TestPosition.Position (position_test.go:6)",
                       "another local definition of the name in force there", 1)],
    }


def test_a_value_named_as_a_type_is_no_type_and_a_root_package_is_found_by_its_name(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    searcher = searcher_over(tmp_path_factory, "go-kit", {
        "go.mod": "module github.com/go-kit/log\n",
        "log.go": (
            "package log\n"
            "\n"
            "type Logger interface {\n"
            "\tLog(keyvals ...interface{}) error\n"
            "}\n"
            "\n"
            "func NewNopLogger() Logger { return nil }\n"
        ),
        "level/level.go": (
            "package level\n"
            "\n"
            "import \"github.com/go-kit/log\"\n"
            "\n"
            "type logger struct {\n"
            "\tnext log.Logger\n"
            "}\n"
            "\n"
            "func (l *logger) Log(keyvals ...interface{}) error {\n"
            "\treturn l.next.Log(keyvals...)\n"
            "}\n"
        ),
        "log_test.go": (
            "package log_test\n"
            "\n"
            "import \"github.com/go-kit/log\"\n"
            "\n"
            "func TestLog() {\n"
            "\tlogger := log.Logger(nil)\n"
            "\tlogger.Log(\"k\", \"v\")\n"
            "\tnop := log.NewNopLogger()\n"
            "\tnop.Log()\n"
            "}\n"
        ),
    })
    # `logger` is a value of the interface `log.Logger` (a conversion), `nop` the result of
    # `log.NewNopLogger` (the root package, found by its name): calls through Logger,
    # which level's `logger` implements.
    through = "through the interface Logger, which logger implements"
    assert tiers(searcher, "level/level.go", 9) == {
        "resolved": [("level/level.go", 10, through),
                     ("log_test.go", 7, through),
                     ("log_test.go", 9, through)],
        "possible": [],
        "elsewhere": [],
    }


INTERFACE_FILES = {
    "go.mod": "module example.com/store\n",
    "store/store.go": (
        "package store\n"
        "\n"
        "import (\n\t\"fmt\"\n\t\"net\"\n)\n"
        "\n"
        "type Getter interface {\n\tGet(key string) string\n}\n"
        "\n"
        "type Store interface {\n\tGetter\n\tCloser\n\tPut(key, value string)\n}\n"
        "\n"
        "type Dumper interface {\n\tnet.Conn\n\tGet(key string) string\n}\n"
        "\n"
        "type Closer interface {\n\tClose()\n}\n"
        "\n"
        "type Lookup interface {\n\tGet(id int) string\n}\n"
        "\n"
        "type Resource interface {\n\tfmt.Stringer\n\tGet(key string) string\n}\n"
        "\n"
        "type Cache interface {\n\tGet(key string) string\n\tEvict()\n}\n"
        "\n"
        "type base struct{}\n"
        "\n"
        "func (base) Close() {}\n"
        "\n"
        "type Memory struct {\n\tbase\n\tdata map[string]string\n}\n"
        "\n"
        "func (m *Memory) Get(key string) string { return m.data[key] }\n"
        "\n"
        "func (m *Memory) Put(key, value string) { m.data[key] = value }\n"
        "\n"
        "func (m *Memory) String() string { return \"\" }\n"
    ),
    "store/names.go": (  # not fmt's: `fmt.Stringer` names fmt's only
        "package store\n\ntype Stringer interface {\n\tName() string\n}\n"
    ),
    "store/memory_plan9.go": (  # the type again, for another build
        "//go:build plan9\n"
        "\n"
        "package store\n"
        "\n"
        "type Memory struct{}\n"
    ),
    "store/use.go": (
        "package store\n"
        "\n"
        "func Read(g Getter, s Store, d Dumper, c Cache, l Lookup, r Resource) {\n"
        "\tg.Get(\"a\")\n"
        "\ts.Get(\"b\")\n"
        "\td.Get(\"c\")\n"
        "\tc.Get(\"d\")\n"
        "\tl.Get(1)\n"
        "\tr.Get(\"r\")\n"
        "}\n"
    ),
    "app/main.go": (
        "package main\n"
        "\n"
        "import \"example.com/store/store\"\n"
        "\n"
        "func main() {\n"
        "\tvar g store.Getter = &store.Memory{}\n"
        "\tg.Get(\"e\")\n"
        "\tm := &store.Memory{}\n"
        "\tm.Get(\"f\")\n"
        "}\n"
    ),
}


def test_a_call_through_an_interface_the_type_implements_is_resolved(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Go types implement interfaces by their methods: a call through `Getter` (its one
    method), or `Store` (Getter's, Closer's `Close`, promoted from the embedded `base`, and
    `Put`), runs `Memory.Get` when the value is a Memory, as gopls counts; the Memory of
    the target's file, not another build's; `Resource` wants fmt.Stringer's `String`
    too (the standard library's, known without an index). `Cache` wants an `Evict`
    Memory lacks, `Lookup` a `Get` of other parameters; `Dumper` embeds `net.Conn`,
    which neither the index nor symfind's table of standard interfaces holds: possible,
    for all anyone can tell."""
    searcher = searcher_over(tmp_path_factory, "go-store", INTERFACE_FILES)
    declares = "which declares Get: may dispatch here"
    assert tiers(searcher, "store/store.go", 50) == {
        "resolved": [
            ("store/use.go", 4, "through the interface Getter, which Memory implements"),
            ("store/use.go", 5, "through the interface Store, which Memory implements"),
            # fmt.Stringer's String, from the standard library's table: Memory has it
            ("store/use.go", 9, "through the interface Resource, which Memory implements"),
            ("app/main.go", 7, "through the interface Getter, which Memory implements"),
            ("app/main.go", 9, "receiver is a Memory"),
        ],
        "possible": [("c", f"receiver typed Cache, {declares}", 1),
                     ("d", f"receiver typed Dumper, {declares}", 1),
                     ("l", f"receiver typed Lookup, {declares}", 1)],  # Get(id int)
        "elsewhere": [],
    }
    # Asked about the interface's method: the calls on a type implementing it count too.
    assert tiers(searcher, "store/store.go", 9) == {
        "resolved": [("store/use.go", 4, "receiver is a Getter"),
                     ("store/use.go", 5, "receiver is a Store"),  # it embeds Getter
                     ("app/main.go", 7, "receiver is a Getter"),
                     ("app/main.go", 9, "receiver is a Memory, which implements Getter")],
        "possible": [("c", f"receiver typed Cache, {declares}", 1),
                     ("d", f"receiver typed Dumper, {declares}", 1),
                     ("l", f"receiver typed Lookup, {declares}", 1),  # Get(id int)
                     ("r", f"receiver typed Resource, {declares}", 1)],
        "elsewhere": [],
    }


LEVEL_FILES = {
    "go.mod": "module example.com/log\n",
    "level/level.go": (
        "package level\n"
        "\n"
        "type level byte\n"
        "\n"
        "type Option func(*level)\n"
        "\n"
        "func Allow(l level) Option { return nil }\n"
        "\n"
        "func Info() level { return 0 }\n"
    ),
    "level/level_test.go": (
        "package level_test\n"
        "\n"
        "import \"example.com/log/level\"\n"
        "\n"
        "func TestInfo() {\n"
        "\tlevel.Info()\n"
        "\tvar _ level.Option\n"
        "}\n"
    ),
    "dots/dots_test.go": (
        "package dots\n"
        "\n"
        "import . \"example.com/log/level\"\n"
        "\n"
        "func TestDots() {\n"
        "\tInfo()\n"
        "\tvar _ Option\n"
        "}\n"
    ),
    "other/other.go": "package other\n\nfunc Info() {}\n\nfunc Use() {\n\tInfo()\n}\n",
}


def test_a_package_named_as_its_type_and_a_dot_import(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Package `level` defines a type `level`: `level.Option` is no member of it, and the
    `level` of `level.Info()` in another package is that package's name, not the type.
    `import . "…/level"` brings the package's names bare."""
    searcher = searcher_over(tmp_path_factory, "go-level", LEVEL_FILES)
    own = "in its own package"
    assert tiers(searcher, "level/level.go", 3) == {
        "resolved": [("level/level.go", 5, own), ("level/level.go", 7, own),
                     ("level/level.go", 9, own)],
        "possible": [],
        "elsewhere": [("example.com/log/level", "the package level (imported)", 1)],
    }
    dotted = 'through `import . "example.com/log/level"`'
    assert tiers(searcher, "level/level.go", 5) == {
        "resolved": [("level/level.go", 7, own),
                     ("level/level_test.go", 7, "package level, matched by name"),
                     ("dots/dots_test.go", 7, dotted)],
        "possible": [],
        "elsewhere": [],
    }
    assert tiers(searcher, "level/level.go", 9) == {
        "resolved": [("level/level_test.go", 6, "package level, matched by name"),
                     ("dots/dots_test.go", 6, dotted)],
        "possible": [],
        "elsewhere": [("package of other", "a name of another package", 1)],
    }


def test_a_dot_import_of_the_repositorys_root_package(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The root package's import path ends with no directory of the index: a dot import
    of it is matched by the package's name, as a qualified use is."""
    searcher = searcher_over(tmp_path_factory, "go-root-dot", {
        "go.mod": "module github.com/acme/logrus\n",
        "logrus.go": "package logrus\n\ntype Fields map[string]interface{}\n",
        "internal/testutils/testutils.go": (
            "package testutils\n"
            "\n"
            "import . \"github.com/acme/logrus\"\n"
            "\n"
            "func Check(fields Fields) {}\n"
        ),
    })
    assert tiers(searcher, "logrus.go", 3) == {
        "resolved": [("internal/testutils/testutils.go", 5,
                      'through `import . "github.com/acme/logrus"`')],
        "possible": [],
        "elsewhere": [],
    }


def test_an_interface_of_the_targets_type_name_in_another_package(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """afero's `Fs` is an interface; zipfs's `Fs`, a struct implementing it: a call
    through afero's is a call of zipfs's method, not another package's type's."""
    searcher = searcher_over(tmp_path_factory, "go-afero", {
        "go.mod": "module example.com/afero\n",
        "fs.go": "package afero\n\ntype Fs interface {\n\tStat(name string) error\n}\n",
        "basepath.go": (
            "package afero\n"
            "\n"
            "type BasePathFs struct {\n\tsource Fs\n}\n"
            "\n"
            "func (b *BasePathFs) Stat(name string) error { return b.source.Stat(name) }\n"
        ),
        "zipfs/fs.go": (
            "package zipfs\n"
            "\n"
            "type Fs struct{}\n"
            "\n"
            "func (f *Fs) Stat(name string) error { return nil }\n"
        ),
    })
    assert tiers(searcher, "zipfs/fs.go", 5) == {
        "resolved": [("basepath.go", 7, "through the interface Fs, which Fs implements")],
        "possible": [],
        "elsewhere": [],
    }


def test_a_dot_import_re_exports_nothing(tmp_path_factory: pytest.TempPathFactory) -> None:
    """`import . "…/b"` brings b's names into that one file: `a.F()` in a package importing
    `a` is no call of b's `F` (Go says `a.F` is undefined), where a TypeScript
    `export * from` would re-export it."""
    searcher = searcher_over(tmp_path_factory, "go-dot-reexport", {
        "go.mod": "module example.com/m\n",
        "pkg/b/b.go": "package b\n\nfunc F() {}\n",
        "pkg/a/a.go": "package a\n\nimport . \"example.com/m/pkg/b\"\n\nfunc G() { F() }\n",
        "pkg/c/c.go": "package c\n\nimport \"example.com/m/pkg/a\"\n\nfunc H() { a.F() }\n",
    })
    assert tiers(searcher, "pkg/b/b.go", 3) == {
        "resolved": [("pkg/a/a.go", 5, 'through `import . "example.com/m/pkg/b"`')],
        "possible": [],
        "elsewhere": [("example.com/m/pkg/a", "from another module", 1)],
    }


def test_a_file_built_for_another_system_uses_its_own_twin_of_the_name(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each backend file defines its own `Watcher` and `watch` (one builds per system):
    a backend's uses are of its own twins; a file every build shares uses the target."""
    backend = (
        "//go:build {system}\n"                                   # 1
        "\n"                                                      # 2
        "package notify\n"                                        # 3
        "\n"                                                      # 4
        "type watch struct{{ path string }}\n"                    # 5
        "\n"                                                      # 6
        "type Watcher struct{{ watches map[string]*watch }}\n"    # 7
        "\n"                                                      # 8
        "func (w *Watcher) readEvents() {{}}\n"                   # 9
        "\n"                                                      # 10
        "func (w *Watcher) Start() {{ go w.readEvents() }}\n"     # 11
    )
    searcher = searcher_over(tmp_path_factory, "go-build-twins", {
        "go.mod": "module example.com/m\n",
        "notify/backend_inotify.go": backend.format(system="linux"),
        "notify/backend_windows.go": backend.format(system="windows"),
        "notify/notify.go": "package notify\n\nfunc New() *Watcher { return &Watcher{} }\n",
    })
    assert tiers(searcher, "notify/backend_inotify.go", 5) == {
        "resolved": [("notify/backend_inotify.go", 7, "in its own package")],
        "possible": [],
        "elsewhere": [("notify.watch (notify/backend_windows.go:5)", "this file's own "
                       "notify.watch, another build's (its build constraints)", 1)],
    }
    assert tiers(searcher, "notify/backend_inotify.go", 9) == {
        "resolved": [("notify/backend_inotify.go", 11, "receiver is a Watcher")],
        "possible": [],
        "elsewhere": [("notify.Watcher.readEvents (notify/backend_windows.go:9)", "this file's "
                       "own notify.Watcher.readEvents, another build's (its build "
                       "constraints)", 1)],
    }
    assert tiers(searcher, "notify/backend_inotify.go", 7)["resolved"] == [
        ("notify/backend_inotify.go", 9, "in its own package"),
        ("notify/backend_inotify.go", 11, "in its own package"),
        ("notify/notify.go", 3, "in its own package"),
        ("notify/notify.go", 3, "in its own package"),
    ]


#: go-flags' types, cut down: a `Command` (in `flags/command.go`, after these six lines)
#: embeds a `*Group`, whose `Options` is on line 7 of `flags/group.go`.
FLAGS = {
    "go.mod": "module example.com/m\n",
    "flags/group.go": (
        "package flags\n"                                         # 1
        "\n"                                                      # 2
        "type Group struct{ name string }\n"                      # 3
        "\n"                                                      # 4
        "func (g *Group) Find(name string) *Group { return g }\n"  # 5
        "\n"                                                      # 6
        "func (g *Group) Options() []string { return nil }\n"     # 7
    ),
}
COMMAND_EMBEDS_GROUP = (
    "package flags\n"                                             # 1
    "\n"                                                          # 2
    "type Command struct {\n"                                     # 3
    "\t*Group\n"                                                  # 4
    "}\n"                                                         # 5
    "\n"                                                          # 6
)


def test_a_types_own_method_shadows_the_one_its_embedded_type_promotes(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`Command` embeds `*Group` and defines its own `Find`: `p.Command.Find()` and
    `c.Find()` are `Command.Find`; `c.Options()` is the promoted `Group.Options`."""
    searcher = searcher_over(tmp_path_factory, "go-shadowing", {
        **FLAGS,
        "flags/command.go": (
            COMMAND_EMBEDS_GROUP +                                    # 1-6
            "func (c *Command) Find(name string) *Command { return c }\n"  # 7
            "\n"                                                      # 8
            "type Parser struct {\n"                                  # 9
            "\t*Command\n"                                            # 10
            "}\n"                                                     # 11
            "\n"                                                      # 12
            "func use(p *Parser, c *Command) {\n"                     # 13
            "\tp.Command.Find(\"x\")\n"                               # 14
            "\tc.Find(\"y\")\n"                                       # 15
            "\tc.Options()\n"                                         # 16
            "}\n"                                                     # 17
        ),
    })
    assert tiers(searcher, "flags/group.go", 5)["resolved"] == []
    assert tiers(searcher, "flags/group.go", 7)["resolved"] == [
        ("flags/command.go", 16, "receiver is a Command")]
    assert tiers(searcher, "flags/command.go", 7)["resolved"] == [
        ("flags/command.go", 14, "receiver is a Command"),
        ("flags/command.go", 15, "receiver is a Command")]


def test_a_field_shadows_a_promoted_method_and_a_promoted_method_gives_its_result(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`Parser` embeds `*Command`, which embeds `*Group`, and has a field `Options`:
    `p.Options` is the field, not the `Group.Options` the embedding promotes; the result
    of `p.AddCommand()`, a method `Command` promotes to `Parser`, is a `*Command`."""
    searcher = searcher_over(tmp_path_factory, "go-fields", {
        **FLAGS,
        "flags/command.go": (
            COMMAND_EMBEDS_GROUP +                                    # 1-6
            "func (c *Command) AddCommand(name string) *Command { return c }\n"  # 7
            "\n"                                                      # 8
            "type Options uint\n"                                     # 9
            "\n"                                                      # 10
            "type Parser struct {\n"                                  # 11
            "\t*Command\n"                                            # 12
            "\tUsage, Options Options\n"                              # 13
            "}\n"                                                     # 14
            "\n"                                                      # 15
            "func use(p *Parser) {\n"                                 # 16
            "\t_ = p.Options\n"                                       # 17
            "\tc := p.AddCommand(\"x\")\n"                           # 18
            "\tc.Options()\n"                                         # 19
            "}\n"                                                     # 20
        ),
    })
    assert tiers(searcher, "flags/group.go", 7) == {
        "resolved": [("flags/command.go", 19, "receiver is a Command")],
        "possible": [],
        "elsewhere": [("flags.Options (flags/command.go:9)", "a bare name, not a member", 1),
                      ("flags.Parser (flags/command.go:11)",
                       "receiver is a Parser, whose field Options shadows it", 1)],
    }


def test_an_interface_of_another_package_and_a_maps_element_with_its_ok(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """pflag's shape: its own `Value` interface beside the standard library's `flag.Value`,
    imported as `goflag`. A call through `flag.Value` of an element looked up with its
    `ok` (`flag, ok := f.formal[name]`) is a call through pflag's `Value`, which `intValue`
    implements; a call through `goflag.Value` is through an interface the index does not
    define (gopls does not count it), however its methods are named."""
    searcher = searcher_over(tmp_path_factory, "go-flag-values", {
        "go.mod": "module example.com/flags\n",
        "flags.go": (
            "package flags\n"                                             # 1
            "\n"                                                          # 2
            "type Value interface {\n\tSet(string) error\n}\n"             # 3-5
            "\n"                                                          # 6
            "type Flag struct {\n\tValue Value\n}\n"                       # 7-9
            "\n"                                                          # 10
            "type FlagSet struct {\n\tformal map[string]*Flag\n}\n"        # 11-13
            "\n"                                                          # 14
            "type intValue int\n"                                         # 15
            "\n"                                                          # 16
            "func (i *intValue) Set(s string) error { return nil }\n"     # 17
            "\n"                                                          # 18
            "func (f *FlagSet) Set(name, value string) error {\n"         # 19
            "\tflag, ok := f.formal[name]\n"                              # 20
            "\tif !ok {\n\t\treturn nil\n\t}\n"                           # 21-23
            "\treturn flag.Value.Set(value)\n"                            # 24
            "}\n"                                                         # 25
        ),
        "wrap.go": (
            "package flags\n"                                             # 1
            "\n"                                                          # 2
            "import goflag \"flag\"\n"                                    # 3
            "\n"                                                          # 4
            "type wrapper struct {\n\tinner goflag.Value\n}\n"             # 5-7
            "\n"                                                          # 8
            "func (w *wrapper) Set(s string) error {\n"                   # 9
            "\treturn w.inner.Set(s)\n"                                   # 10
            "}\n"                                                         # 11
        ),
    })
    assert tiers(searcher, "flags.go", 17) == {
        "resolved": [("flags.go", 24, "through the interface Value, which intValue implements")],
        # `Value`, as the standard library's also declares `Set`: `intValue` may be one
        "possible": [("w.inner", "receiver typed Value, which declares Set: may dispatch "
                      "here", 1)],
        "elsewhere": [],
    }
