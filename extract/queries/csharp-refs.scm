; C# uses of names (occurrences) and imports: the captures are explained in
; extract/occurrences.py. Our own query: the grammar ships no reference tags. C#'s grammar
; reads a type's name as an identifier: where it stands says it is a type.

; --- Scopes: methods, constructors, local functions, lambdas, accessors, types (their
; type parameters), loops and catch clauses.
(method_declaration) @scope
(constructor_declaration) @scope
(local_function_statement) @scope
(lambda_expression) @scope
(anonymous_method_expression) @scope
(accessor_declaration) @scope
(operator_declaration) @scope
(class_declaration) @scope
(struct_declaration) @scope
(interface_declaration) @scope
(record_declaration) @scope
(foreach_statement) @scope
(for_statement) @scope
(catch_clause) @scope
(using_statement) @scope

; --- Local bindings.
(parameter name: (identifier) @bind)
(implicit_parameter) @bind
(local_declaration_statement (variable_declaration (variable_declarator name: (identifier) @bind)))
(for_statement (variable_declaration (variable_declarator name: (identifier) @bind)))
(using_statement (variable_declaration (variable_declarator name: (identifier) @bind)))
(foreach_statement left: (identifier) @bind)
(catch_declaration name: (identifier) @bind)
(declaration_expression name: (identifier) @bind)
(declaration_pattern name: (identifier) @bind)
(local_function_statement name: (identifier) @bind.outer)
(type_parameter name: (identifier) @bind.type)

; --- Not uses: using and namespace names, named arguments, fields' own names.
(using_directive (_) @skip)
(namespace_declaration name: (_) @skip)
(file_scoped_namespace_declaration name: (_) @skip)
(argument name: (identifier) @skip)
(field_declaration (variable_declaration (variable_declarator name: (identifier) @skip)))
(property_declaration name: (identifier) @skip)
(attribute_argument name: (identifier) @skip)
; A qualified name's namespaces (`System.IO.File`): no types.
(qualified_name qualifier: (identifier) @skip)
(qualified_name qualifier: (qualified_name name: (identifier) @skip))

; --- Uses.
(attribute name: (identifier) @ref.decorator)
(attribute name: (qualified_name qualifier: (_) @receiver name: (identifier) @ref.decorator.member))
(base_list [(identifier) @ref.inherit
            (generic_name (identifier) @ref.inherit)
            (qualified_name qualifier: (_) @receiver name: (identifier) @ref.inherit.member)])
(base_list (primary_constructor_base_type type: (identifier) @ref.inherit))

(invocation_expression function: (member_access_expression
  expression: _ @receiver
  name: [(identifier) @ref.attribute_call (generic_name (identifier) @ref.attribute_call)]))
(invocation_expression function: [(identifier) @ref.call (generic_name (identifier) @ref.call)])
(object_creation_expression type: [(identifier) @ref.call (generic_name (identifier) @ref.call)])
(object_creation_expression type: (qualified_name qualifier: (_) @receiver
  name: [(identifier) @ref.call.member (generic_name (identifier) @ref.call.member)]))
(member_access_expression expression: _ @receiver
  name: [(identifier) @ref.attribute (generic_name (identifier) @ref.attribute)])

; Types: declared, returned, cast, generic arguments, qualified.
(variable_declaration type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(parameter type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(method_declaration returns: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(property_declaration type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(local_function_statement type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(type_argument_list [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(cast_expression type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(typeof_expression type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(nullable_type type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(array_type type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(type_parameter_constraint type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(foreach_statement type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(catch_declaration type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(declaration_pattern type: [(identifier) @ref.type (generic_name (identifier) @ref.type)])
(type_parameter_constraints_clause . (identifier) @ref.type)
(qualified_name qualifier: (_) @receiver name: (identifier) @ref.type.member)
(identifier) @ref.plain

; --- Receiver types: declared types (`var` gives way to `new T()`), fields and properties.
(parameter type: (_) @hint.type name: (identifier) @hint.var) @hint
(variable_declaration type: (_) @hint.type (variable_declarator name: (identifier) @hint.var)) @hint
(variable_declaration (variable_declarator name: (identifier) @hint.var
  (object_creation_expression type: (_) @hint.new))) @hint
(field_declaration (variable_declaration type: (_) @hint.type
  (variable_declarator name: (identifier) @hint.member))) @hint
(property_declaration type: (_) @hint.type name: (identifier) @hint.member) @hint

; --- Imports: `using A.B;` (every name of A.B), `using X = A.B;`, `using static A.B;`.
(using_directive !name [(identifier) (qualified_name)] @import.source @import.wildcard) @import
(using_directive name: (identifier) @import.alias [(identifier) (qualified_name)] @import.module) @import
