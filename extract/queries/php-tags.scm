; PHP definitions: the tags.scm convention of tree-sitter grammars, adapted to the kinds
; universal-ctags reports by default (namespaces, classes, interfaces, traits, functions,
; constants and `define()`s), plus enums, methods and enum cases.
; Properties and variables are not extracted.

; `namespace App\Http;` prefixes the rest of the file and is itself a module; a
; `namespace Name { ... }` block scopes its body.
(namespace_definition
  name: (namespace_name) @name @package
  !body) @definition.module

(namespace_definition
  name: (namespace_name) @name
  body: (compound_statement)) @definition.module

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

; Methods, with or without a body (interface and abstract members are their only
; definition), and functions.
(method_declaration
  name: (name) @name) @definition.method

(function_definition
  name: (name) @name) @definition.function

; Class, interface, trait and enum constants and enum cases: `Cls::NAME`.
(declaration_list
  (const_declaration
    (const_element
      (name) @name @member)) @definition.constant)

(enum_declaration_list
  (const_declaration
    (const_element
      (name) @name @member)) @definition.constant)

(enum_case
  name: (name) @name @member) @definition.constant

; Namespace-level `const NAME = ...;` (one symbol per element).
(const_declaration
  (const_element
    (name) @name)) @definition.constant

; `define('NAME', value)`.
(function_call_expression
  function: (name) @_define
  arguments: (arguments
    .
    (argument
      [(string (string_content) @name) (encapsed_string (string_content) @name)]))
  (#eq? @_define "define")) @definition.constant
