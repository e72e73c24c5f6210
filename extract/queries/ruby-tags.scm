; Ruby definitions: the tags.scm convention of tree-sitter grammars, adapted to the kinds
; universal-ctags reports by default (modules, classes, methods, singleton methods,
; constants, aliases). `class A::B` is captured whole: parse.py splits it on `::`.

(module
  name: [(constant) (scope_resolution)] @name) @definition.module

(class
  name: [(constant) (scope_resolution)] @name) @definition.class

; Class-level methods: `def self.m`, and `def m` inside `class << self`. These patterns
; come first so that they win over the instance-method one below.
(singleton_method
  object: (_) @static
  name: (_) @name) @definition.method

(singleton_class
  value: (self) @static
  body: (body_statement
    (method
      name: (_) @name) @definition.method))

(method
  name: (_) @name) @definition.method

; `alias new_name old_name` defines a method name.
(alias
  name: (_) @name) @definition.method

; Constants: `FOO = ...`, `Outer::FOO = ...` (class bodies, modules, top level).
(assignment
  left: [(constant) (scope_resolution name: (constant))] @name) @definition.constant

; `attr_reader :a, :b` (and writer/accessor) and `alias_method :new, :old` define methods.
(call
  method: (identifier) @_attr
  arguments: (argument_list
    (simple_symbol) @name)
  (#match? @_attr "^attr_(reader|writer|accessor)$")) @definition.method

(call
  method: (identifier) @_alias
  arguments: (argument_list
    .
    (simple_symbol) @name)
  (#eq? @_alias "alias_method")) @definition.method
