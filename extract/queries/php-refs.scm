; PHP uses of names (occurrences) and imports: the captures are explained in
; extract/occurrences.py. Our own query: the grammar ships no reference tags. A variable
; (`$x`) is never a use: PHP's variables are local to their function.

; --- Scopes: functions, methods, closures.
(function_definition) @scope
(method_declaration) @scope
(anonymous_function) @scope
(arrow_function) @scope

; --- Local bindings (for their types only): parameters and assignments.
(simple_parameter name: (variable_name) @bind)
(assignment_expression left: (variable_name) @bind)

; --- Not uses: variables, namespace and import paths, properties' own names, named
; arguments, `X::class`.
(variable_name) @skip
(namespace_definition name: (_) @skip)
(namespace_use_declaration (namespace_name) @skip)
(qualified_name prefix: (_) @skip)
(namespace_use_clause alias: (name) @skip)
(argument name: (name) @skip)
(class_constant_access_expression (_) (name) @skip.lower .)

; --- Uses.
(namespace_use_clause [(name) @ref.import (qualified_name (name) @ref.import .)] .)
(namespace_use_clause . [(name) @ref.import (qualified_name (name) @ref.import .)] alias: (_))

(attribute [(name) @ref.decorator (qualified_name (name) @ref.decorator.member .)])
(base_clause [(name) @ref.inherit (qualified_name (name) @ref.inherit.member .)])
(class_interface_clause [(name) @ref.inherit (qualified_name (name) @ref.inherit.member .)])
(use_declaration [(name) @ref.inherit (qualified_name (name) @ref.inherit.member .)])

(member_call_expression object: (_) @receiver name: (name) @ref.attribute_call)
(nullsafe_member_call_expression object: (_) @receiver name: (name) @ref.attribute_call)
(scoped_call_expression scope: (_) @receiver name: (name) @ref.attribute_call)
(member_access_expression object: (_) @receiver name: (name) @ref.attribute)
(nullsafe_member_access_expression object: (_) @receiver name: (name) @ref.attribute)
(class_constant_access_expression (_) @receiver . (name) @ref.attribute .)
(function_call_expression function: [(name) @ref.call (qualified_name (name) @ref.call.member .)])
(object_creation_expression [(name) @ref.call (qualified_name (name) @ref.call.member .)])
(named_type [(name) @ref.type (qualified_name (name) @ref.type.member .)])
(qualified_name prefix: (_) @receiver)
(qualified_name (name) @ref.plain.member .)
(name) @ref.plain

; --- Receiver types: typed parameters, `$x = new C()`.
(simple_parameter type: (_) @hint.type name: (variable_name) @hint.var) @hint
(assignment_expression left: (variable_name) @hint.var
  right: (object_creation_expression [(name) (qualified_name)] @hint.new)) @hint

; --- Imports: `use A\B\C;`, `use A\B\C as D;`, `use A\B\{C, D as E};`, `use function`.
(namespace_use_declaration (namespace_use_clause
  . [(name) @import.name
   (qualified_name prefix: (_) @import.source (name) @import.name .)]
  alias: (name)? @import.alias)) @import
(namespace_use_declaration (namespace_name) @import.source
  body: (namespace_use_group (namespace_use_clause . (name) @import.name alias: (name)? @import.alias)))
  @import
