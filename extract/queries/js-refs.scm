; JavaScript, TypeScript and TSX uses of names (occurrences) and imports, what their
; grammars share: the captures are explained in extract/occurrences.py. Our own query.

; --- Scopes: functions, methods, classes (their type parameters), loops and catch
; clauses (their `let` and `const`).
(function_declaration) @scope
(generator_function_declaration) @scope
(function_expression) @scope
(generator_function) @scope
(arrow_function) @scope
(method_definition) @scope
(class_declaration) @scope
(class) @scope
(for_statement) @scope
(for_in_statement) @scope
(catch_clause) @scope

; --- Local bindings.
(variable_declarator name: [(identifier) @bind (object_pattern) @bind.all (array_pattern) @bind.all])
(for_in_statement left: [(identifier) @bind (_ (_)) @bind.all])
(catch_clause parameter: [(identifier) @bind (_ (_)) @bind.all])
(arrow_function parameter: (identifier) @bind)
(function_expression name: (identifier) @bind)
(function_declaration name: (identifier) @bind.outer)
(generator_function_declaration name: (identifier) @bind.outer)

; --- Not uses: default and namespace import names, export aliases, `require` itself.
(import_clause (identifier) @skip)
(namespace_import (identifier) @skip)
(namespace_export (identifier) @skip)
(import_specifier alias: (identifier) @skip)
(export_specifier alias: (identifier) @skip)

; --- Uses. A receiver is captured once, by the `member_expression` pattern
; below that matches every one: each capture costs (a node made for Python).
(import_specifier name: (identifier) @ref.import)
(export_statement (export_clause (export_specifier name: (identifier) @ref.import)) source: (_))

(decorator (identifier) @ref.decorator)
(decorator (member_expression object: (_) property: (property_identifier) @ref.decorator.member))
(decorator (call_expression function: (identifier) @ref.decorator))
(decorator (call_expression function: (member_expression
  object: (_) property: (property_identifier) @ref.decorator.member)))

(call_expression function: (member_expression
  object: (_)
  property: [(property_identifier) (private_property_identifier)] @ref.attribute_call))
; `await a.f<T>()` reads as a call of `await a.f` in TypeScript's grammar.
(call_expression function: (await_expression (member_expression
  object: (_)
  property: [(property_identifier) (private_property_identifier)] @ref.attribute_call)))
(call_expression function: (identifier) @ref.call)
(new_expression constructor: (identifier) @ref.call)
(new_expression constructor: (member_expression
  object: (_) property: (property_identifier) @ref.call.member))
(member_expression
  object: (_) @receiver
  property: [(property_identifier) (private_property_identifier)] @ref.attribute)
; `const { router, req: request } = opts`: each name read out of `opts` is a use of
; its member (the names bound stay bindings).
(variable_declarator
  name: (object_pattern [(shorthand_property_identifier_pattern) @destructured
                         (pair_pattern key: (property_identifier) @destructured)
                         (object_assignment_pattern
                           left: (shorthand_property_identifier_pattern) @destructured)])
  value: [(identifier) (member_expression) (this)])
; A member named by a key in quotes: `obj['name']()`, `obj["name"]`.
(call_expression function: (subscript_expression
  object: (_) index: (string (string_fragment) @ref.attribute_call @skip.key)))
(subscript_expression object: (_) @receiver index: (string (string_fragment) @ref.attribute @skip.key))

(shorthand_property_identifier) @ref.plain
(identifier) @ref.plain

; --- Receiver types: names assigned `new C()`.
(variable_declarator name: (identifier) @hint.var
  value: (new_expression constructor: (_) @hint.new)) @hint
(assignment_expression left: [(identifier) (member_expression)] @hint.var
  right: (new_expression constructor: (_) @hint.new)) @hint

; --- Imports: `import X from`, `import {a as b} from`, `import * as ns from`,
; `import "m"` (a statement's module alone counts when it binds nothing else),
; `require("m")`.
(import_statement (import_clause (identifier) @import.default) source: (string (string_fragment) @import.source)) @import
(import_statement (import_clause (named_imports (import_specifier
  name: (_) @import.name alias: (_)? @import.alias))) source: (string (string_fragment) @import.source)) @import
; `export { a as b } from "m"`: a re-export, read as an import of `a` from "m" (the module
; that re-exports provides the name to its importers).
(export_statement (export_clause (export_specifier
  name: (_) @import.name alias: (_)? @import.alias)) source: (string (string_fragment) @import.source)) @import
; `export * from "m"`: every name of "m", re-exported (a wildcard import); `export * as
; ns from "m"`: the module, bound as `ns`.
(export_statement "*" @import.wildcard source: (string (string_fragment) @import.source)) @import
(export_statement (namespace_export (identifier) @import.alias)
  source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (namespace_import (identifier) @import.alias))
  source: (string (string_fragment) @import.module)) @import
(import_statement source: (string (string_fragment) @import.module)) @import
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression function: (identifier) @import.callee
                          arguments: (arguments . (string (string_fragment) @import.module) .)))
  @import
(variable_declarator
  name: (object_pattern [(shorthand_property_identifier_pattern) @import.name
                         (pair_pattern key: (property_identifier) @import.name
                                       value: (identifier) @import.alias)])
  value: (call_expression function: (identifier) @import.callee
                          arguments: (arguments . (string (string_fragment) @import.source) .)))
  @import
