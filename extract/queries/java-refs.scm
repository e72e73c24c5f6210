; Java uses of names (occurrences) and imports: the captures are explained in
; extract/occurrences.py. Our own query: the grammar ships no reference tags.

; --- Scopes: methods, constructors, lambdas, and classes (their type parameters).
(method_declaration) @scope
(constructor_declaration) @scope
(compact_constructor_declaration) @scope
(lambda_expression) @scope
(class_declaration) @scope
(interface_declaration) @scope
(record_declaration) @scope
(catch_clause) @scope
(enhanced_for_statement) @scope

; --- Local bindings: parameters, local variables, loop, catch and resource names,
; lambda parameters, patterns; type parameters (types have names of their own).
(formal_parameter name: (identifier) @bind)
(spread_parameter (variable_declarator name: (identifier) @bind))
(catch_formal_parameter name: (identifier) @bind)
(local_variable_declaration declarator: (variable_declarator name: (identifier) @bind))
(enhanced_for_statement name: (identifier) @bind)
(resource name: (identifier) @bind)
(lambda_expression parameters: (identifier) @bind)
(inferred_parameters (identifier) @bind)
(type_pattern (identifier) @bind)
(type_parameter (type_identifier) @bind.type)

; --- Not uses: package and import paths, annotation element names, fields' own names.
(package_declaration (_) @skip)
(import_declaration (scoped_identifier scope: (_) @skip))
(import_declaration (identifier) @skip)
(import_declaration (scoped_identifier name: (identifier) @skip) (asterisk))
(element_value_pair key: (identifier) @skip)
(field_declaration declarator: (variable_declarator name: (identifier) @skip))
; A qualified type's package names (`org.jsoup.nodes.Node`): no types.
(scoped_type_identifier . (type_identifier) @skip.lower)
(scoped_type_identifier . (scoped_type_identifier (type_identifier) @skip.lower .))

; --- Uses. A receiver is captured once, by the `scoped_type_identifier` pattern
; below that matches every one: each capture costs (a node made for Python).
(import_declaration (scoped_identifier name: (identifier) @ref.import) .)

(marker_annotation name: (identifier) @ref.decorator)
(annotation name: (identifier) @ref.decorator)
(marker_annotation name: (scoped_identifier scope: (_) @receiver name: (identifier) @ref.decorator.member))
(annotation name: (scoped_identifier scope: (_) @receiver name: (identifier) @ref.decorator.member))

(superclass [(type_identifier) @ref.inherit
             (generic_type (type_identifier) @ref.inherit)
             (scoped_type_identifier (_) . (type_identifier) @ref.inherit.member .)])
(super_interfaces (type_list [(type_identifier) @ref.inherit
                              (generic_type (type_identifier) @ref.inherit)]))
(extends_interfaces (type_list [(type_identifier) @ref.inherit
                                (generic_type (type_identifier) @ref.inherit)]))

(method_invocation object: (_) @receiver name: (identifier) @ref.attribute_call)
(method_invocation !object name: (identifier) @ref.call)
(object_creation_expression type: [(type_identifier) @ref.call
                                   (generic_type (type_identifier) @ref.call)])
(object_creation_expression type: (scoped_type_identifier (_) . (type_identifier) @ref.call.member .))
(field_access object: (_) @receiver field: (identifier) @ref.attribute)
(method_reference (_) @receiver . (identifier) @ref.attribute .)
(scoped_type_identifier (_) @receiver . (type_identifier) @ref.type.member .)
(type_identifier) @ref.type
(identifier) @ref.plain

; --- Receiver types: declared types (`var` gives way to `new T()`), fields (this.x).
(formal_parameter type: (_) @hint.type name: (identifier) @hint.var) @hint
(local_variable_declaration type: (_) @hint.type
  declarator: (variable_declarator name: (identifier) @hint.var)) @hint
(local_variable_declaration
  declarator: (variable_declarator name: (identifier) @hint.var
                                   value: (object_creation_expression type: (_) @hint.new))) @hint
(enhanced_for_statement type: (_) @hint.type name: (identifier) @hint.var) @hint
(field_declaration type: (_) @hint.type
  declarator: (variable_declarator name: (identifier) @hint.member)) @hint

; --- Imports: `import a.b.C;`, `import a.b.*;`, `import static a.B.m;`.
(import_declaration (scoped_identifier scope: (_) @import.source name: (identifier) @import.name) .) @import
(import_declaration (scoped_identifier) @import.source (asterisk) @import.wildcard) @import
