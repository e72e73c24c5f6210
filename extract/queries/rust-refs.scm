; Rust uses of names (occurrences) and imports: the captures are explained in
; extract/occurrences.py. Our own query: the grammar ships no reference tags.

; --- Scopes: functions, closures, and items with type parameters (impl, struct, enum,
; trait, type alias, function signatures).
(function_item) @scope
(function_signature_item) @scope
(closure_expression) @scope
(impl_item) @scope
(struct_item) @scope
(enum_item) @scope
(union_item) @scope
(trait_item) @scope
(type_item) @scope
(match_arm) @scope

; --- Local bindings: parameters, let, for, closures, match and if-let patterns; type
; parameters (types have names of their own).
(parameter pattern: [(identifier) @bind (_ (_)) @bind.all])
(let_declaration pattern: [(identifier) @bind (_ (_)) @bind.all])
(let_condition pattern: [(identifier) @bind (_ (_)) @bind.all])
(for_expression pattern: [(identifier) @bind (_ (_)) @bind.all])
(closure_parameters [(identifier) @bind (_ (_)) @bind.all])
(match_arm pattern: (match_pattern [(identifier) @bind (_ (_)) @bind.all]))
(type_parameter name: (type_identifier) @bind.type)
(const_parameter name: (identifier) @bind)

; --- Not uses: use paths, aliases, module names.
(use_declaration argument: (scoped_identifier path: (_) @skip))
(scoped_use_list path: (_) @skip)
(use_as_clause path: (scoped_identifier path: (_) @skip))
(use_as_clause alias: (_) @skip)
(use_wildcard (_) @skip)
(mod_item name: (identifier) @skip)
(extern_crate_declaration) @skip

; --- Uses. A receiver is captured once, by the `field_expression`, `scoped_identifier`
; and `scoped_type_identifier` patterns below that match every one: each capture costs
; (a node made for Python).
(use_declaration argument: (scoped_identifier name: (identifier) @ref.import))
(use_list (identifier) @ref.import)
(use_as_clause path: [(identifier) @ref.import (scoped_identifier name: (identifier) @ref.import)])

(attribute . (identifier) @ref.decorator)
(attribute . (scoped_identifier path: (_) name: (identifier) @ref.decorator.member))
(impl_item trait: [(type_identifier) @ref.inherit
                   (generic_type type: (type_identifier) @ref.inherit)
                   (scoped_type_identifier path: (_) name: (type_identifier) @ref.inherit.member)])

(call_expression function: (field_expression value: (_)
  field: (field_identifier) @ref.attribute_call))
(call_expression function: (generic_function function: (field_expression value: (_)
  field: (field_identifier) @ref.attribute_call)))
(call_expression function: (identifier) @ref.call)
(call_expression function: (generic_function function: (identifier) @ref.call))
(call_expression function: (scoped_identifier path: (_) name: (identifier) @ref.call.member))
(call_expression function: (generic_function function: (scoped_identifier path: (_)
  name: (identifier) @ref.call.member)))
(macro_invocation macro: (identifier) @ref.call)
(macro_invocation macro: (scoped_identifier path: (_) name: (identifier) @ref.call.member))
(struct_expression name: [(type_identifier) @ref.call
                           (generic_type_with_turbofish type: (type_identifier) @ref.call)])
(struct_expression name: (scoped_type_identifier path: (_) name: (type_identifier) @ref.call.member))
(field_expression value: (_) @receiver field: (field_identifier) @ref.attribute)
(scoped_identifier path: (_) @receiver name: (identifier) @ref.plain.member)
(scoped_type_identifier path: (_) @receiver name: (type_identifier) @ref.type.member)
(type_identifier) @ref.type
(identifier) @ref.plain

; --- Receiver types: declared types, `T::new()`-like constructors, struct literals, and
; a struct's fields (self.field).
(parameter pattern: (identifier) @hint.var type: (_) @hint.type) @hint
(let_declaration pattern: (identifier) @hint.var type: (_) @hint.type) @hint
(let_declaration pattern: (identifier) @hint.var value: (struct_expression name: (_) @hint.new)) @hint
(let_declaration pattern: (identifier) @hint.var
  value: [(call_expression function: (scoped_identifier path: (_) @hint.new name: (identifier) @hint.ctor))
          (try_expression (call_expression
            function: (scoped_identifier path: (_) @hint.new name: (identifier) @hint.ctor)))])
  @hint
(field_declaration name: (field_identifier) @hint.member type: (_) @hint.type) @hint

; --- Imports: `use a::b::C;`, `use a::b::{C, D as E};`, `use a::b::C as D;`, `use a::*;`.
(use_declaration argument: (scoped_identifier path: (_) @import.source name: (identifier) @import.name)) @import
(use_declaration argument: (identifier) @import.module) @import
(use_declaration argument: (use_as_clause
  path: (scoped_identifier path: (_) @import.source name: (identifier) @import.name)
  alias: (identifier) @import.alias)) @import
(use_declaration argument: (scoped_use_list path: (_) @import.source
  list: (use_list [(identifier) @import.name
                   (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)]))) @import
(use_declaration argument: (use_wildcard (_) @import.source) @import.wildcard) @import
