; C# definitions: the tags.scm convention of tree-sitter grammars, adapted to the kinds
; universal-ctags reports by default (namespaces, types, methods, constants, enum members).
; Properties, events and plain fields are not extracted, nor local functions: `#if` blocks
; inside method bodies make the parser mistake statements (`else if (...) {`) for them.

; `namespace A.B;` prefixes everything in the file and is itself a module.
(file_scoped_namespace_declaration
  name: [(identifier) (qualified_name)] @name @package) @definition.module

(namespace_declaration
  name: [(identifier) (qualified_name)] @name) @definition.module

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.struct

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_member_declaration
  name: (identifier) @name) @definition.constant

(delegate_declaration
  name: (identifier) @name) @definition.type

; Methods, with or without a body (interface and abstract members are their only
; definition), and constructors.
(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.method

; Operators, named as C# writes them: `operator ==`, `operator +`, and conversions
; `implicit operator int`, `explicit operator Guid` as `operator int`, `operator Guid`.
(operator_declaration
  "operator" @name
  operator: _ @name.end) @definition.method

(conversion_operator_declaration
  "operator" @name
  type: (_) @name.end) @definition.method

; Finalizers, `~Handle()`: named like their class, as constructors are.
(destructor_declaration
  name: (identifier) @name) @definition.method

; `const` fields, one symbol per declarator.
(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.constant
