"""Go's types as its source writes them (`extract/go_types.py`): a signature's first
result, a package variable's type, as `storage/references.py` and
`extract/occurrences.py` read them for a receiver's type."""

from __future__ import annotations

from symfind.extract.go_types import (first_result, go_package, key_type, method_shape,
                                      variable_type)

SIGNATURES = [
    "func NewBridge(c *Config) (*Bridge, error)",
    "func (c *Command) Root() *Command",
    "Root() *Command",  # an interface's method
    "func (c *Command) Commands() []*Command",
    "func Index() map[string]*Flag",
    "func Watch() (<-chan Event, error)",
    "func split() (head, rest string, err error)",
    "func (r *Registry) Gather() ([]*dto.MetricFamily, error)",
    "func NewList[T any](items ...T) *List[T]",
    "func First[T any](items []T) T",
    "func NewRegistry() *prometheus.Registry {",
    "func Close()",
    "func Handler() func(w Writer)",
    "func Wide(a int,",  # cut at its first line
    "",
]


def test_first_result_and_its_elements() -> None:
    assert [(first_result(s), first_result(s, element=True)) for s in SIGNATURES] == [
        ("Bridge", ""),
        ("Command", ""),
        ("Command", ""),
        ("", "Command"),
        ("", "Flag"),
        ("", "Event"),
        ("string", ""),
        ("", "dto.MetricFamily"),
        ("List", ""),
        ("", ""),  # a type parameter names no type
        ("prometheus.Registry", ""),
        ("", ""),
        ("", ""),
        ("", ""),
        ("", ""),
    ]


DECLARATIONS = [
    "CommandLine = NewFlagSet(os.Args[0], ExitOnError)",
    'ErrHelp = errors.New("pflag: help requested")',
    "DefaultRegisterer Registerer = defaultRegistry",
    "x = &Registry{a: 1}",
    "x = new(T)",
    "x *api.Client",
    "Usage = func()",
    "ContinueOnError ErrorHandling = iota",
    "a, b = f()",
    "x = y",
    "x = 3",
]


def test_a_package_variables_type_or_the_call_that_gives_it() -> None:
    assert [variable_type(d) for d in DECLARATIONS] == [
        "NewFlagSet()",  # read by the caller from NewFlagSet's signature
        "errors.New()",
        "Registerer",
        "Registry",
        "T",
        "api.Client",
        "",  # a function literal
        "ErrorHandling",
        "",  # several names
        "",
        "",
    ]


def test_a_methods_shape_is_its_types_without_names_or_packages() -> None:
    assert method_shape("Open(name string) (File, error)") == (("string",), ("File", "error"))
    assert method_shape("func (d dirFS) Open(name string) (fs.File, error)") == (
        ("string",), ("File", "error"))
    assert method_shape("func (l *testLog) Open(name string)") == (("string",), ())
    assert method_shape("Read([]byte) (int, error)") == method_shape(
        "func (f *File) Read(b []byte) (n int, err error)") == (("[]byte",), ("int", "error"))
    assert method_shape("func (c *C) F(a, b int, ch chan int) (x, y string)") == (
        ("int", "int", "chanint"), ("string", "string"))
    assert method_shape("Log(keyvals ...interface{}) error") == (
        ("...interface{}",), ("error",))
    assert method_shape("func (c *C) G(a int, b string, ...) error") is None  # cut short
    assert method_shape("func (r *Router) HandleFunc(path string, f func(") is None


def test_a_range_with_one_name_gives_a_maps_keys_and_a_channels_elements() -> None:
    assert key_type("map[SinkAdapter]struct{}") == "SinkAdapter"
    assert key_type("map[*pkg.Key]int") == "pkg.Key"
    assert key_type("<-chan *Conn") == "Conn"
    assert key_type("[]*Conn") == ""  # a slice's index
    assert key_type("Conn") == ""


def test_an_import_path_binds_the_name_go_tools_assume_for_its_package() -> None:
    paths = ["fmt", "net/http", "gopkg.in/ini.v1", "gopkg.in/yaml.v3",
             "github.com/pelletier/go-toml", "github.com/go-kit/log/v2",
             "github.com/mattn/go-isatty", "k8s.io/client-go/kubernetes", "v2"]
    assert [go_package(path) for path in paths] == [
        "fmt", "http", "ini", "yaml", "toml", "log", "isatty", "kubernetes", "v2"]
