; TypeScript definitions (tags.scm convention of tree-sitter grammars, adapted: written for
; symfind, following what universal-ctags reports). TSX uses this file too (languages.py).
; Doc comments are the `/** ... */` or `//` block right above, read by parse.py.

; Classes: `class A<T> extends B implements C`, `abstract class`, `export default class`,
; `declare class`.
(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

; `namespace A.B { ... }`, `module A { ... }`, `declare module 'pkg' { ... }`: scopes.
(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.module

(module
  name: [(identifier) (nested_identifier)] @name) @definition.module

(module
  name: (string (string_fragment) @name)) @definition.module

; Class methods, getters/setters, static, abstract and overload signatures. `#set!
; parent`, not `(class_body (...))`: such a pattern stays under way through the whole
; class body, and classes nested a thousand deep made the query quadratic (parse.py
; checks the parent).
([(method_definition
    name: [(property_identifier) (private_property_identifier)] @name)
  (method_signature
    name: [(property_identifier) (private_property_identifier)] @name)
  (abstract_method_signature
    name: [(property_identifier) (private_property_identifier)] @name)] @definition.method
 (#set! parent "class_body"))

; Class fields holding a function (`handle = () => {...}`).
; A method named by a constant, `[kRun]() {}`, is found by the constant's name (`kRun`);
; one named by an expression (`[Symbol.iterator]`) is not.
((method_definition
   name: (computed_property_name (identifier) @name)) @definition.method
 (#set! parent "class_body"))

((public_field_definition
   name: [(property_identifier) (private_property_identifier)] @name
   value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
 (#set! parent "class_body"))

; Interface methods, function-typed properties (`onError?: (e: Error) => void`) and
; construct signatures (`new (message: string): AjaxError`, named `new`), as ctags has them.
([(method_signature
    name: (property_identifier) @name)
  (property_signature
    name: (property_identifier) @name
    type: (type_annotation (function_type)))
  (construct_signature
    "new" @name)] @definition.method
 (#set! parent "interface_body"))

; Functions, generators, `declare function` and overload signatures, at any depth (nested
; ones are scoped by their parent).
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(function_signature
  name: (identifier) @name) @definition.function

; Module-level (file or namespace body) declarations, exported, `declare`d or not:
; `const f = (...) => ...` and `var f = function () {}` are functions, `const A = class {}`
; a class, any other `const X` a constant. A name an earlier pattern took keeps its kind
; (parse.py lets the first matching pattern win), so the constant pattern only gets the rest.
; `(_ D)` is `const`/`let`/`var` D; `(_ (_ D))` the same under `export` or `declare`.
([(program
   {{js-function-declarators}})
  (internal_module
    body: (statement_block
      {{js-function-declarators}}))
  (module
    body: (statement_block
      {{js-function-declarators}}))])

([(program
   {{js-class-declarators}})
  (internal_module
    body: (statement_block
      {{js-class-declarators}}))
  (module
    body: (statement_block
      {{js-class-declarators}}))])

([(program
   {{js-const-declarators}})
  (internal_module
    body: (statement_block
      {{js-const-declarators}}))
  (module
    body: (statement_block
      {{js-const-declarators}}))])

; Enum members (`Color.Red`), plain or with a value.
(enum_body
  name: (property_identifier) @name @definition.constant)

(enum_assignment
  name: (property_identifier) @name) @definition.constant

; Declaration files (`.d.ts`): an exported ambient `export declare const X: T;` is a
; constant (`let`/`var`: a variable), as the unexported `declare const X: T;` already is.
(program
  (export_statement
    (ambient_declaration
      (lexical_declaration
        kind: "const"
        (variable_declarator
          name: (identifier) @name) @definition.constant))))

(program
  (export_statement
    (ambient_declaration
      [(lexical_declaration
         (variable_declarator
           name: (identifier) @name) @definition.variable)
       (variable_declaration
         (variable_declarator
           name: (identifier) @name) @definition.variable)])))
