"""The version of extraction's output: `EXTRACTION_VERSION`, bumped whenever what
`extract_file` returns for some file changes (the code, a tag query, a rewrite).

Imports: nothing.

Indexes store it (through `extraction_fingerprint`, with the versions of tree-sitter and
its grammars), and one built by another version is rebuilt rather than mixing the records
of two extractors. An edit that changes no output (a comment, a refactoring, a faster
path) keeps the version, and every user's index with it.
`tests/unit/extract/test_extraction_version.py` holds it to that: it extracts the language
fixtures and compares the whole output with a golden stored with the version that made it;
output that changed under the same version fails the test.

History:

- 1: the first numbered version (before it, a hash of the package's source).
- 2: `Extraction.occurrences` and `Extraction.imports`: each file's uses of names and its
  imports, for references.
- 3: `Symbol.declaration`: a declaration without a body (`@overload`, `.pyi`, TypeScript
  signatures and `declare`), ranked after its definition.
- 4: JavaScript and TypeScript re-exports (`export { a } from "m"`) are imports of `a`
  from "m", with the module as the use's receiver.
- 5: JavaScript and TypeScript: `export * from "m"` is a wildcard import (`export * as ns
  from "m"` binds the module); `super` has its class's base for type; a receiver's own
  text types it (`(x as C)`, `(<C>x)`, `new C()`; `x!` is `x`); a declared union type
  (`A<T> | B`) gives no type, `T | null` and `Partial<T>` give `T`.
- 6: Go receivers' types from their parts: a struct field of this file (`b.logger`), a
  call's first result (`b, err := NewBridge(c)`, `c.Root()`: from the signature when the
  file defines the function, else left as `NewBridge()` / `Command:Root()` for the
  query), a `range`'s elements, a type assertion (`c, ok := x.(*T)`), a package variable
  of another file (`=CommandLine`, for the query).
- 7: a `Symbol` is encoded as an array of its fields, not a map (`array_like`): the same
  records, smaller where the index stores them and where workers send them.
- 8: Python (and Kotlin): a private class's call types what it is assigned to
  (`logger = _FixedFindCallerLogger("test")`), as a public one's does; `self` in a
  function outside any class has the type its parameter's annotation gives
  (`def exception(self: BoundLogger)`).
- 9: Python: a name assigned a call of a function (`c = make_converter()`,
  `c = helpers.make_converter()`) is typed by the call, whose result the query reads from
  the function's indexed return annotation; `with C(...) as x` types `x` by what C's
  `__enter__` returns, read by the query likewise; `b += x` keeps `b`'s type; a member
  assigned a parameter (`self.stream = stream`) has the parameter's annotation. In every
  language, a member's declared type (`self.pool: Base | None = None`) wins over the
  values assigned to it elsewhere in the class (`self.pool = Http2Pool()`), which gave
  no type when they differed.
- 10: Python receivers written as expressions keep a type the query reads from the
  indexed signatures: what a method returns (`conn = await pool.get()` →
  `Pool:get()`), a property (`Proxy:connections`), an item of a subscript or a `for`
  (`...[]`, `...[i]`; from the annotation itself for `conns: list[Conn]`), a tuple's
  item unpacked (`...[1]`), an annotated mapping's `items()`, `values()`, a call of a
  class object (`cls()` after `cls: type[C]`); a name bound to values of different
  types keeps them all (`A\x1fB`), for the query to agree on; a local of no type known is
  `?` (a value, not a module an import names alike). A signature longer than
  200 characters keeps what follows its parameter list (`...) -> Response`), its last
  parameters giving way to ` ...`.
- 11: Go keeps types' names apart from values' by their syntax: a variable in scope no
  longer hides a use of the type of the same name (`var libcall libcall`, `key{}` where
  `key := ...` is bound), and a type parameter hides its uses as a type; a Go element by
  index or `range` (`n.items[i]`, `s[0]`, `range n.children`) has the element type of a
  slice or map type, this file's named ones too (`type items []Item`), and a name
  assigned a field or an element (`l := s.logger`) has its type; Go's `if`, `for`,
  `switch`, `select` statements and cases are scopes (two loops binding `c` to values of
  two types keep both); Go's blank identifier `_` is never a use; Python's generic
  bases (`class T(Serializer[str])`, `t.Generic[T]`) are inherited.
- 12: a name a function both defines (a nested `def func`) and assigns (`func = f()` in
  another branch) is no local there: its uses stay uses, of the definition.
- 13: C and C++ names inside `#if 0` (up to its `#else`, `#elif` or `#endif`) are no uses:
  compiled out, as clangd counts them.
- 14: a Go receiver written as `new(T)` (`new(Route).PathPrefix("/")`) has the type `T`,
  and a name bound to a chain of calls (`sub := r.PathPrefix("/").Subrouter()`) the
  chain's steps, for the query to read; a signature's line that starts with `*` followed
  by a word is kept (`*args`, Go's `*http.Request)) *Route`): only a block comment's
  ` * text` is left out. A Go value received from a channel (`m := <-ch`, `case m :=
  <-ch:`) has the channel's element type, and `make(chan T, n)` types its name; the one
  name a `range` binds has a map's key type, a channel's element type.
- 15: a name declared with an array type (`fields: Field[]`, `String[] args`) or a
  TypeScript member type looked up by its key (`form: FieldOptions<T>['form']`) has no
  receiver type: it is no value of the type named.
- 16: a Go import without an alias binds the name Go's tools assume for its package
  (goimports' rule): `github.com/pelletier/go-toml` binds `toml`, `github.com/go-kit/log/v2`
  binds `log` (they bound `go-toml` and `v2`).
- 17: a classmethod's `cls(...)` (`result = cls(job=job)`, `cls(job).save()`) is an
  instance of its class; in JavaScript and TypeScript a member named by a key in quotes
  is a use of it (`obj['name']()`, TypeScript's `ParentConfig<T>['addGlobalAttributes']`),
  when the key is a name; a Python name bound to a member of `self` (`_list =
  self._list`) has the member's type, as the class assigns it; a generic class called
  with its type arguments (`Stream[str](1)`) is a call of the class.
- 18: a Python function that does not annotate its result has, in `Symbol.returns`, what
  its `return` statements give when each gives a type the file shows (`return
  PointJacobi(...)`, `return self`, `return cls(...)`, `return make()`); a generator has
  none. A Python name bound to another name (`other = made`) has that name's type, and
  bound to a value the file imports (`gen = generator_192`), `=generator_192`, which the
  query reads where the other module makes it. A list comprehension of a class's calls
  (`self.points = [Point(n) for n in names]`) is a list of that class. A Go struct has
  its named fields in `Symbol.fields`. The methods of a Go interface written in place (a
  parameter's or a field's `interface{ Printf(string) }`) are no definitions (they were
  indexed as the function's or the struct's methods).
- 19: a Python class's body is a scope of its own, whose names its methods and
  comprehensions do not see: a name a class assigns inside a function (`class Meta:
  fields = ...` in a test) no longer makes the function's uses of that name local (they
  were dropped), and a method's bare `client` is the module's, not the class attribute
  `client = Client()` (it took that type). A Go map's element looked up with its `ok`
  (`flag, ok := f.formal[name]`) has the element's type. In JavaScript and TypeScript a
  name read out of a value by an object pattern (`const { router, req: r } = opts`) is a
  use of that member of the value, of the value's type.
"""

#: Bump (and regenerate the golden with `--update-goldens`) when extraction's output changes.
EXTRACTION_VERSION = 19
