; C++'s own uses of names and imports (c-refs.scm has what C++ shares with C): the
; captures are explained in extract/occurrences.py. Our own query.

; --- Scopes: lambdas, templates (their parameters).
(lambda_expression) @scope
(template_declaration) @scope

; --- Local bindings: references, defaulted parameters, template parameters, range-for
; and structured bindings.
(parameter_declaration declarator: (reference_declarator (identifier) @bind))
(optional_parameter_declaration declarator: (_) @bind.all)
(variadic_parameter_declaration declarator: (_) @bind.all)
(declaration declarator: (reference_declarator (identifier) @bind))
(init_declarator declarator: (reference_declarator (identifier) @bind))
(for_range_loop declarator: (_) @bind.all)
(type_parameter_declaration (type_identifier) @bind.type)
(variadic_type_parameter_declaration (type_identifier) @bind.type)
(optional_type_parameter_declaration name: (type_identifier) @bind.type)
(template_template_parameter_declaration (type_parameter_declaration (type_identifier) @bind.type))
(lambda_capture_specifier (identifier) @skip)

; --- Not uses: `using namespace` names (imports), destructors' and operators' names.
(using_declaration "namespace" (_) @skip)
(destructor_name) @skip
(operator_name) @skip

; --- Uses.
(using_declaration (qualified_identifier name: (identifier) @ref.import))

(base_class_clause (type_identifier) @ref.inherit)
(base_class_clause (template_type name: (type_identifier) @ref.inherit))
(base_class_clause (qualified_identifier scope: (_) @receiver
  name: [(type_identifier) @ref.inherit.member
         (template_type name: (type_identifier) @ref.inherit.member)]))

(call_expression function: (qualified_identifier scope: (_) @receiver
  name: [(identifier) @ref.call.member
         (template_function name: (identifier) @ref.call.member)]))
(call_expression function: (template_function name: (identifier) @ref.call))
(call_expression function: (field_expression argument: (_) @receiver
  field: (template_method name: (field_identifier) @ref.attribute_call)))
(new_expression type: [(type_identifier) @ref.call
                       (template_type name: (type_identifier) @ref.call)])
(new_expression type: (qualified_identifier scope: (_) @receiver
  name: [(type_identifier) @ref.call.member
         (template_type name: (type_identifier) @ref.call.member)]))
(qualified_identifier scope: (_) @receiver
  name: [(type_identifier) @ref.type.member
         (template_type name: (type_identifier) @ref.type.member)])
(qualified_identifier scope: (_) @receiver name: (identifier) @ref.plain.member)

; --- Receiver types: `auto x = T(...)` / `new T` (a declared type is c-refs.scm's).
(declaration type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [(identifier) @hint.var (pointer_declarator declarator: (identifier) @hint.var)]
    value: [(call_expression function: [(identifier) (qualified_identifier)] @hint.call)
            (new_expression type: (_) @hint.new)])) @hint

; --- Imports: `using ns::name;`, `using namespace ns;`.
(using_declaration (qualified_identifier scope: (_) @import.source name: (_) @import.name)) @import
(using_declaration "namespace" (_) @import.source @import.wildcard) @import
