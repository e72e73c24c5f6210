; TypeScript's own (and TSX's): parameters, types, base classes and interfaces, type
; parameters, annotated names (js-refs.scm has the rest).

; --- Scopes and bindings: interfaces and type aliases hold their type parameters.
(interface_declaration) @scope
(type_alias_declaration) @scope
(abstract_class_declaration) @scope
(function_signature) @scope
(method_signature) @scope
(abstract_method_signature) @scope
(required_parameter pattern: [(identifier) @bind (object_pattern) @bind.all (array_pattern) @bind.all (rest_pattern) @bind.all])
(optional_parameter pattern: [(identifier) @bind (object_pattern) @bind.all (array_pattern) @bind.all (rest_pattern) @bind.all])
(type_parameter name: (type_identifier) @bind)
(class_declaration name: (type_identifier) @bind.outer)

; --- Uses: bases and interfaces, then every type name.
(extends_clause value: (identifier) @ref.inherit)
(extends_clause value: (member_expression object: (_) @receiver property: (property_identifier) @ref.inherit.member))
(implements_clause (type_identifier) @ref.inherit)
(implements_clause (generic_type name: (type_identifier) @ref.inherit))
(implements_clause (generic_type name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @ref.inherit.member)))
(implements_clause (nested_type_identifier module: (_) @receiver name: (type_identifier) @ref.inherit.member))
(extends_type_clause type: (type_identifier) @ref.inherit)
(extends_type_clause type: (generic_type name: (type_identifier) @ref.inherit))
(nested_type_identifier module: (_) @receiver name: (type_identifier) @ref.type.member)
(type_identifier) @ref.type
; A member's type looked up by its key: `ParentConfig<T>['addGlobalAttributes']`.
(lookup_type (_) @receiver (literal_type (string (string_fragment) @ref.attribute @skip.key)))

; --- Receiver types: annotated parameters, variables and class fields; a class's base
; (the type of `super`).
(extends_clause value: [(identifier) (member_expression)] @base)
(required_parameter pattern: (identifier) @hint.var type: (type_annotation (_) @hint.type)) @hint
(optional_parameter pattern: (identifier) @hint.var type: (type_annotation (_) @hint.type)) @hint
(variable_declarator name: (identifier) @hint.var type: (type_annotation (_) @hint.type)) @hint
(public_field_definition name: (property_identifier) @hint.member
  type: (type_annotation (_) @hint.type)) @hint
(public_field_definition name: (property_identifier) @hint.member
  value: (new_expression constructor: (_) @hint.new)) @hint
(required_parameter (accessibility_modifier) pattern: (identifier) @hint.member
  type: (type_annotation (_) @hint.type)) @hint
(required_parameter "readonly" pattern: (identifier) @hint.member
  type: (type_annotation (_) @hint.type)) @hint
