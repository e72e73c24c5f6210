; Kotlin uses of names (occurrences) and imports: the captures are explained in
; extract/occurrences.py. Our own query: the grammar ships no reference tags.

; --- Scopes: functions, lambdas, constructors, accessors, classes (their type
; parameters and constructor parameters), loops and catch blocks.
(function_declaration) @scope
(lambda_literal) @scope
(anonymous_function) @scope
(secondary_constructor) @scope
(getter) @scope
(setter) @scope
(class_declaration) @scope
(object_declaration) @scope
(for_statement) @scope
(catch_block) @scope

; --- Local bindings: parameters, a function's or lambda's own properties, loop, lambda
; and catch names, constructor parameters that are no properties; type parameters.
(parameter (simple_identifier) @bind)
(class_parameter . (simple_identifier) @bind)
(statements (property_declaration (variable_declaration (simple_identifier) @bind)))
(statements (property_declaration (multi_variable_declaration (variable_declaration (simple_identifier) @bind))))
(for_statement (variable_declaration (simple_identifier) @bind))
(for_statement (multi_variable_declaration (variable_declaration (simple_identifier) @bind)))
(lambda_parameters (variable_declaration (simple_identifier) @bind))
(lambda_parameters (multi_variable_declaration (variable_declaration (simple_identifier) @bind)))
(catch_block (simple_identifier) @bind)
(type_parameter (type_identifier) @bind.type)

; --- Not uses: package and import paths, named arguments, members' own names.
(package_header (_) @skip)
(import_header (identifier (simple_identifier) @skip.weak))
(import_alias) @skip
(value_argument . (simple_identifier) @skip . "=")
(class_parameter (simple_identifier) @skip)
(class_body (property_declaration (variable_declaration (simple_identifier) @skip)))
(source_file (property_declaration (variable_declaration (simple_identifier) @skip)))

; --- Uses.
(import_header (identifier (simple_identifier) @ref.import .) .)
(import_header (identifier (simple_identifier) @ref.import .) (import_alias))

(annotation [(user_type (type_identifier) @ref.decorator)
             (constructor_invocation (user_type (type_identifier) @ref.decorator))])
(delegation_specifier [(user_type (type_identifier) @ref.inherit)
                       (constructor_invocation (user_type (type_identifier) @ref.inherit))])

(call_expression . (navigation_expression (_) @receiver
  . (navigation_suffix (simple_identifier) @ref.attribute_call)))
(call_expression . (simple_identifier) @ref.call)
(navigation_expression (_) @receiver . (navigation_suffix (simple_identifier) @ref.attribute))
(callable_reference (simple_identifier) @ref.attribute)
(type_identifier) @ref.type
(simple_identifier) @ref.plain

; --- Receiver types: declared types, constructor calls, and properties (this.x).
(parameter (simple_identifier) @hint.var (user_type) @hint.type) @hint
(statements (property_declaration (variable_declaration (simple_identifier) @hint.var (user_type) @hint.type))) @hint
(statements (property_declaration (variable_declaration (simple_identifier) @hint.var)
  (call_expression . (simple_identifier) @hint.call))) @hint
(class_parameter (binding_pattern_kind) (simple_identifier) @hint.member (user_type) @hint.type) @hint
(class_body (property_declaration (variable_declaration (simple_identifier) @hint.member (user_type) @hint.type))) @hint
(class_body (property_declaration (variable_declaration (simple_identifier) @hint.member)
  (call_expression . (simple_identifier) @hint.call))) @hint

; --- Imports: `import a.b.C`, `import a.b.C as D`, `import a.b.*`.
(import_header (identifier) @import.path .) @import
(import_header (identifier) @import.path (import_alias (type_identifier) @import.alias)) @import
(import_header (identifier) @import.source (wildcard_import) @import.wildcard) @import
