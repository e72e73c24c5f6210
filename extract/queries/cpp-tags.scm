; C++ definitions: the tags.scm convention of tree-sitter grammars, adapted to the kinds
; universal-ctags reports by default. Everything from C, plus classes, namespaces, methods
; (in the class body or out of class as `ns::Cls::m`), aliases and enum classes.
; A qualified name is captured whole: parse.py splits it into scope parts and the name.
; In-class declarations without a body (prototypes) and data members are skipped.

; Functions and methods. The name: a plain, field (in-class), qualified (out-of-class),
; destructor or operator name, under zero to two pointer declarators or a reference one.
; A body or `= default` is required: `= delete` declares that no definition exists.
(function_definition
  declarator: (function_declarator
    declarator: [
      (identifier) (field_identifier) (qualified_identifier)
      (destructor_name) (operator_name)
    ] @name)
  [body: (_) (default_method_clause)]) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: [
        (identifier) (field_identifier) (qualified_identifier) (operator_name)
      ] @name))
  [body: (_) (default_method_clause)]) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: [
          (identifier) (field_identifier) (qualified_identifier) (operator_name)
        ] @name)))
  [body: (_) (default_method_clause)]) @definition.function

(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: [
        (identifier) (field_identifier) (qualified_identifier) (operator_name)
      ] @name))
  [body: (_) (default_method_clause)]) @definition.function

(function_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: (function_declarator
          declarator: [(identifier) (qualified_identifier)] @name))))
  [body: (_) (default_method_clause)]) @definition.function

; Explicit specializations `template <> int parse<int>(...)`.
(function_definition
  declarator: (function_declarator
    declarator: (template_function
      name: (identifier) @name))
  [body: (_) (default_method_clause)]) @definition.function

; Conversion operators: `operator bool() const`, `Cls::operator bool() const`.
(function_definition
  declarator: [(operator_cast) (qualified_identifier (operator_cast))] @name
  [body: (_) (default_method_clause)]) @definition.function

; Types with a body (a bare `class Foo;` is a forward declaration).
; `class EXPORT_MACRO Name {...}` parses as a function whose type is the macro; with a
; base clause, the name lands in an ERROR node right after it.
(function_definition
  type: (class_specifier)
  .
  declarator: (identifier) @name
  body: (compound_statement)) @definition.class

(function_definition
  type: (class_specifier)
  .
  (ERROR
    .
    (identifier) @name)
  body: (compound_statement)) @definition.class

(function_definition
  type: (struct_specifier)
  .
  declarator: (identifier) @name
  body: (compound_statement)) @definition.struct

(function_definition
  type: (struct_specifier)
  .
  (ERROR
    .
    (identifier) @name)
  body: (compound_statement)) @definition.struct

; ... and with several base classes, as a declaration whose initializer is the body.
(declaration
  type: (class_specifier !body)
  .
  (ERROR
    .
    (identifier) @name)
  (init_declarator
    value: (initializer_list))) @definition.class

(declaration
  type: (struct_specifier !body)
  .
  (ERROR
    .
    (identifier) @name)
  (init_declarator
    value: (initializer_list))) @definition.struct

(class_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (field_declaration_list)) @definition.class

(class_specifier
  name: (template_type
    name: (type_identifier) @name)
  body: (field_declaration_list)) @definition.class

(struct_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (field_declaration_list)) @definition.struct

(struct_specifier
  name: (template_type
    name: (type_identifier) @name)
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (enumerator_list)) @definition.enum

(enumerator
  name: (identifier) @name) @definition.constant

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

; Aliases: `using Ptr = ...;` (typedefs and macros, as in C: c-typedefs-tags.scm).
(alias_declaration
  name: (type_identifier) @name) @definition.type

; Reference typedefs, `typedef const T& const_reference;` (C has none: not in c-typedefs).
(type_definition
  declarator: (reference_declarator
    (type_identifier) @name)) @definition.type
