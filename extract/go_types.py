"""Go's types as its source writes them, for the receivers of references: what a
function's signature says its first result is (the type a call assigns: `b, err :=
NewBridge(c)`), what a package variable's declaration says its type is, Go's naming of
constructors and of imported packages. Read by `extract/occurrences.py` within a file and
by `storage/references.py` across files, from the indexed signatures: one reading for
both (the one module of `extract` that `storage` imports besides `extract.records`).

Imports: the standard library, `extract.brackets`.
"""

from __future__ import annotations

import re

from symfind.extract.brackets import closing, top_level_parts

_TYPE_NAME = re.compile(r"\w+(?:\.\w+)?")


#: Results that name no type a method can be called on (`[]T`, `map[K]V`, `chan T`).
_UNNAMED = ("[", "map[", "chan", "<-chan", "func", "interface", "struct")


def first_result(signature: str, *, element: bool = False) -> str:
    """The type of the first result of a Go function or method as its signature writes it
    (`func NewBridge(c *Config) (*Bridge, error)` → `Bridge`, an interface's `Root()
    *Command` → `Command`); with `element`, the type of its elements (`Commands()
    []*Command` → `Command`, for `range`); "" when it has none, or the signature is cut
    short."""
    written, generic = _first_result(signature)
    found = element_type(written) if element else named_type(written)
    return "" if found in generic else found


def named_type(written: str) -> str:
    """The type a method can be called on, as written (`*List[T]` → `List`,
    `*prometheus.Registry` → `prometheus.Registry`); "" for a slice, a map, a channel, a
    function or a literal type."""
    if not written or written.lstrip("*").startswith(_UNNAMED):
        return ""
    found = written.lstrip("*").split("[", 1)[0].strip()
    return found if _TYPE_NAME.fullmatch(found) else ""


def element_type(written: str) -> str:
    """The type of the elements `range` gives of a slice, an array, a map or a channel
    (`[]*Command`, `map[string]*Flag`, `chan Metric`), as `named_type`; "" for any other."""
    written = written.strip().lstrip("*")
    if written.startswith("["):
        close = closing(written, 0)
        return named_type(written[close + 1:].strip()) if close > 0 else ""
    if written.startswith("map["):
        close = closing(written, 3)
        return named_type(written[close + 1:].strip()) if close > 0 else ""
    for prefix in ("chan ", "<-chan "):
        if written.startswith(prefix):
            return named_type(written.removeprefix(prefix).strip())
    return ""


def defined_type(signature: str) -> tuple[str, str]:
    """The name a type declaration's signature defines and the type it defines it as
    (`type items []Item` → (`items`, `[]Item`)); ("", "") for another signature."""
    if not signature.startswith("type "):
        return "", ""
    name, _, underlying = signature[5:].partition(" ")
    return name, underlying.strip()


_VARIABLE = re.compile(r"(\w+)\s*(?P<type>[^=]*?)\s*(?:=\s*(?P<value>.*))?")
_VALUE_CALL = re.compile(r"(\w+(?:\.\w+)?)\s*\(")
_VALUE_LITERAL = re.compile(r"&?\s*(\w+(?:\.\w+)?)\s*\{")


def variable_type(declaration: str) -> str:
    """The type a package variable's declaration gives it, as its signature writes it:
    the declared type (`x Registerer = ...` → `Registerer`), a composite literal's
    (`= &Registry{...}` → `Registry`), or a call's result left for the caller to read
    (`= NewFlagSet(...)` → `NewFlagSet()`, `= errors.New(...)` → `errors.New()`); ""
    otherwise (several names, an expression)."""
    match = _VARIABLE.fullmatch(declaration.strip())
    if match is None:
        return ""
    if match["type"]:
        return named_type(match["type"])
    value = (match["value"] or "").strip()
    if value.startswith("new("):
        return named_type(value[4:].split(")", 1)[0])
    literal = _VALUE_LITERAL.match(value)
    if literal:
        return literal[1]
    call = _VALUE_CALL.match(value)
    return f"{call[1]}()" if call and call[1] != "func" else ""  # not a function literal


def _first_result(signature: str) -> tuple[str, set[str]]:
    """The first result's type as written, and the type parameters' names."""
    lists = _signature_lists(signature)
    if lists is None:
        return "", set()
    _, rest, generic = lists
    if rest.startswith("("):
        close = closing(rest, 0)
        if close < 0:
            return "", generic
        parts = _parts(rest[1:close])
        named = [part for part in parts if " " in part and not part.startswith(_UNNAMED)]
        rest = named[0].split(" ", 1)[1].strip() if named else (parts[0] if parts else "")
    return rest, generic


def _signature_lists(signature: str) -> tuple[str, str, set[str]] | None:
    """A function's or method's parameter list (inside its brackets), what follows it
    (its results, as written) and its type parameters' names; None when the signature
    holds no parameter list whole."""
    text = signature.strip()
    declared = text.startswith("func")  # else an interface's method: `Root() *Command`
    at = _skip_space(text, 4) if declared else 0
    if declared and text[at:at + 1] == "(":
        at = _skip_space(text, closing(text, at) + 1)  # the method's receiver
    while at < len(text) and (text[at].isalnum() or text[at] == "_"):
        at += 1  # the name
    generic: set[str] = set()
    if text[at:at + 1] == "[":
        close = closing(text, at)
        generic = {part.split(" ", 1)[0] for part in _parts(text[at + 1:close])}
        at = close + 1
    if at <= 0 or at >= len(text) or text[at] != "(":
        return None
    end = closing(text, at)
    if end < 0:
        return None
    return text[at + 1:end], text[end + 1:].strip().removesuffix("{").strip(), generic


#: Words a parameter's type starts with, never its name (`chan int`, `func()`).
_TYPE_WORDS = frozenset({"chan", "func", "map", "struct", "interface"})
_QUALIFIER = re.compile(r"\b\w+\.(?=\w)")


def method_shape(signature: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """What Go compares when a method implements an interface's, as far as its signature
    shows: the parameters' and results' types, names and packages left out (`Open(name
    string) (File, error)` and `func (d dirFS) Open(name string) (fs.File, error)` both
    → (("string",), ("File", "error"))); None when the signature is cut short (`...` for
    its last parameters) or unread."""
    lists = _signature_lists(signature)
    if lists is None:
        return None
    parameters, results, _ = lists
    if results.startswith("("):
        close = closing(results, 0)
        if close < 0:
            return None
        results = results[1:close]
    shapes = (_types(_parts(parameters)), _types(_parts(results)))
    return None if "..." in shapes[0] else shapes


#: The standard library's interfaces that repositories embed most, outside any index of
#: theirs: their methods as Go's documentation writes them (read by `method_shape`).
STANDARD_INTERFACES: dict[str, tuple[str, ...]] = {
    "io.Reader": ("Read(p []byte) (n int, err error)",),
    "io.Writer": ("Write(p []byte) (n int, err error)",),
    "io.Closer": ("Close() error",),
    "io.Seeker": ("Seek(offset int64, whence int) (int64, error)",),
    "io.ReaderAt": ("ReadAt(p []byte, off int64) (n int, err error)",),
    "io.WriterAt": ("WriteAt(p []byte, off int64) (n int, err error)",),
    "io.StringWriter": ("WriteString(s string) (n int, err error)",),
    "io.ByteReader": ("ReadByte() (byte, error)",),
    "io.ByteWriter": ("WriteByte(c byte) error",),
    "io.RuneReader": ("ReadRune() (r rune, size int, err error)",),
    "io.ReadCloser": ("Read(p []byte) (n int, err error)", "Close() error"),
    "io.WriteCloser": ("Write(p []byte) (n int, err error)", "Close() error"),
    "io.ReadWriter": ("Read(p []byte) (n int, err error)", "Write(p []byte) (n int, err error)"),
    "io.ReadWriteCloser": ("Read(p []byte) (n int, err error)",
                           "Write(p []byte) (n int, err error)", "Close() error"),
    "io.ReadSeeker": ("Read(p []byte) (n int, err error)",
                      "Seek(offset int64, whence int) (int64, error)"),
    "fmt.Stringer": ("String() string",),
    "sort.Interface": ("Len() int", "Less(i, j int) bool", "Swap(i, j int)"),
    "http.Handler": ("ServeHTTP(ResponseWriter, *Request)",),
    "json.Marshaler": ("MarshalJSON() ([]byte, error)",),
    "json.Unmarshaler": ("UnmarshalJSON([]byte) error",),
}


def _types(parts: list[str]) -> tuple[str, ...]:
    """The types of a parameter or result list's parts: named (`a, b int` → `int`, `int`)
    or not (`[]byte`, `int`); packages left out, spaces too."""
    typed = [part.split(" ", 1) for part in parts if part]
    named = any(len(words) == 2 and words[0] not in _TYPE_WORDS
                and words[0].isidentifier() for words in typed)
    types: list[str] = []
    pending = 0  # names waiting for the type a later part gives them (`a, b int`)
    for words in typed:
        if named and len(words) == 1 and words[0].isidentifier():
            pending += 1
            continue
        written = words[1] if named and len(words) == 2 else " ".join(words)
        written = _QUALIFIER.sub("", written).replace(" ", "")
        types.extend([written] * (pending + 1))
        pending = 0
    return tuple(types)


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] == " ":
        at += 1
    return at


def key_type(written: str) -> str:
    """The type a `range` with one name gives of a value of the type `written`: a map's
    keys (`map[SinkAdapter]struct{}` → `SinkAdapter`), a channel's elements, as
    `named_type`; "" for any other (a slice's or a string's index is an int)."""
    written = written.strip().lstrip("*")
    if written.startswith("map["):
        close = closing(written, 3)
        return named_type(written[4:close].strip()) if close > 0 else ""
    return element_type(written) if written.startswith(("chan ", "<-chan ")) else ""


def go_ctor(callee: str) -> str:
    """`Server` for `NewServer`, `http.Server` for `http.NewServer`: Go's naming of
    constructors, for a function whose signature the index does not hold."""
    package, dot, last = callee.rpartition(".")
    if len(last) > 3 and last.startswith("New") and last[3].isupper():
        return f"{package}{dot}{last[3:]}"
    return ""


_MAJOR_VERSION = re.compile(r"v\d+")
_NAME_START = re.compile(r"\w*")


def go_package(source: str) -> str:
    """The name an import without an alias binds: the package's own name, which Go's
    tools assume from the path as goimports does: its last element, or the one before a
    major version's `vN`, without a leading `go-`, up to the first character no name
    holds (`gopkg.in/ini.v1` → `ini`, `github.com/pelletier/go-toml` → `toml`,
    `github.com/go-kit/log/v2` → `log`)."""
    parts = source.split("/")
    base = parts[-2] if len(parts) > 1 and _MAJOR_VERSION.fullmatch(parts[-1]) else parts[-1]
    return _NAME_START.match(base.removeprefix("go-"))[0]


def _parts(text: str) -> list[str]:
    """A parameter or result list's parts, at its top-level commas."""
    return [part.strip() for part in top_level_parts(text)]
