; Go uses of names (occurrences) and imports: the captures are explained in
; extract/occurrences.py. Our own query: the grammar ships no reference tags.

; --- Scopes: functions, methods, function literals, interface methods and function
; types (their parameters' names); a generic type's parameters.
(function_declaration) @scope
(method_declaration) @scope
(func_literal) @scope
(method_elem) @scope
(function_type) @scope
(type_spec type_parameters: (_)) @scope
; The statements that are blocks of their own, headers included, and cases: a name bound
; in one (`for _, c := range subs`, `if err := f(); ...`, `case v := <-ch:`) is local to
; it, and the same name bound in another to a value of another type keeps both. Their
; bodies' blocks are not scopes apart (each capture costs): only a bare `{ ... }` is.
(statement_list (block) @scope)
(if_statement) @scope
(for_statement) @scope
(expression_switch_statement) @scope
(type_switch_statement) @scope
(select_statement) @scope
(expression_case) @scope
(type_case) @scope
(default_case) @scope
(communication_case) @scope

; --- Local bindings: parameters and results, receivers and their type parameters,
; `:=`, `var`, `const`, `range` and type-switch names. A `var` or `const` name needs no
; `@skip`: every binding's own name is no use, a package-level one too (each capture
; costs).
(parameter_declaration name: (identifier) @bind)
(variadic_parameter_declaration name: (identifier) @bind)
; A type parameter is a type (`[]T`) and a value's name (`T(x)`, a conversion): bound
; as both, since a type's name is told apart by its syntax (`_Rules.type_namespace`).
(type_parameter_declaration name: (identifier) @bind @bind.type)
(method_declaration receiver: (parameter_list (parameter_declaration
  type: [(generic_type type_arguments: (type_arguments
           (type_elem (type_identifier) @bind @bind.type)))
         (pointer_type (generic_type
           type_arguments: (type_arguments (type_elem (type_identifier) @bind @bind.type))))])))
(short_var_declaration left: (expression_list (identifier) @bind))
(var_spec name: (identifier) @bind)
(const_spec name: (identifier) @bind)
(range_clause left: (expression_list (identifier) @bind))
(type_switch_statement alias: (expression_list (identifier) @bind))
(receive_statement left: (expression_list (identifier) @bind))
; A local type's name.
(type_spec name: (type_identifier) @bind.outer)

; --- Not uses: struct keys in composite literals, the blank identifier.
(keyed_element key: (literal_element (identifier) @skip))

; --- Uses. A receiver is captured once, by the `selector_expression` and
; `qualified_type` patterns that match every one: each capture costs (a node made for
; Python), and a third of all would be the same receivers again.
(call_expression function: (identifier) @ref.call)
(call_expression function: (selector_expression
  operand: (_) field: (field_identifier) @ref.attribute_call))
(call_expression function: (index_expression operand: (identifier) @ref.call))
(call_expression function: (index_expression operand: (selector_expression
  operand: (_) field: (field_identifier) @ref.attribute_call)))
(selector_expression operand: (_) @receiver field: (field_identifier) @ref.attribute)

; Composite literals construct: `T{}`, `pkg.T{}`.
(composite_literal type: (type_identifier) @ref.call)
(composite_literal type: (qualified_type package: (_) name: (type_identifier) @ref.call.member))
(composite_literal type: (generic_type type: (type_identifier) @ref.call))
(composite_literal type: (generic_type
  type: (qualified_type package: (_) name: (type_identifier) @ref.call.member)))

; Embedded fields and interfaces.
(field_declaration !name type: [(type_identifier) @ref.inherit.member
                                 (pointer_type (type_identifier) @ref.inherit.member)
                                 (qualified_type package: (_)
                                                 name: (type_identifier) @ref.inherit.member)
                                 (pointer_type (qualified_type package: (_)
                                                               name: (type_identifier) @ref.inherit.member))])
(interface_type (type_elem (type_identifier) @ref.inherit))
(interface_type (type_elem (qualified_type package: (_)
                                           name: (type_identifier) @ref.inherit.member)))

(qualified_type package: (_) @receiver name: (type_identifier) @ref.type.member)
(type_identifier) @ref.type
(identifier) @ref.plain

; --- Receiver types: declared types, composite literals, `new(T)`, a call's result
; (`NewT()`, read from the function's signature when the query runs).
(parameter_declaration name: (identifier) @hint.var type: (_) @hint.type) @hint
(var_spec . name: (identifier) @hint.var . type: (_) @hint.type) @hint
; A value's kinds are patterns apart, not one alternation: with it, the cursor's
; captures also held the root and name of declarations none of them matched (`x := a.b`),
; each matched again for nothing (`_hints`).
(var_spec . name: (identifier) @hint.var .
  value: (expression_list . (composite_literal type: (_) @hint.new) .)) @hint
(var_spec . name: (identifier) @hint.var .
  value: (expression_list . (unary_expression
    operand: (composite_literal type: (_) @hint.new)) .)) @hint
(var_spec . name: (identifier) @hint.var .
  value: (expression_list . (call_expression
    function: [(identifier) (selector_expression)] @hint.call) .)) @hint
(short_var_declaration
  left: (expression_list . (identifier) @hint.var .)
  right: (expression_list . (composite_literal type: (_) @hint.new) .)) @hint
(short_var_declaration
  left: (expression_list . (identifier) @hint.var .)
  right: (expression_list . (unary_expression
    operand: (composite_literal type: (_) @hint.new)) .)) @hint
(short_var_declaration
  left: (expression_list . (identifier) @hint.var .)
  right: (expression_list . (call_expression
    function: [(identifier) (selector_expression)] @hint.call) .)) @hint
(short_var_declaration
  left: (expression_list . (identifier) @hint.var .)
  right: (expression_list . (call_expression
    function: (identifier) @hint.call
    arguments: (argument_list . (_) @hint.arg .)) .)) @hint
; `c := x.(*T)`, `c, ok := x.(*T)`: the first name takes the asserted type.
(short_var_declaration
  left: (expression_list . (identifier) @hint.var)
  right: (expression_list . (type_assertion_expression type: (_) @hint.type) .)) @hint
; `b, err := NewBridge(c)`: the first name takes the call's first result.
(short_var_declaration
  left: (expression_list . (identifier) @hint.var (identifier))
  right: (expression_list . (call_expression
    function: [(identifier) (selector_expression)] @hint.call) .)) @hint

; `r := NewRouter().StrictSlash(true)`, `sub := r.PathPrefix("/").Subrouter()`: a method's
; result on a call's, read step by step (`_GoTypes.type_of`).
(short_var_declaration
  left: (expression_list . (identifier) @hint.var .)
  right: (expression_list . (call_expression
    function: (selector_expression operand: (call_expression))) @hint.expression .)) @hint

; `l := s.logger`, `x := n.items[i]`: the field's or the element's type.
(short_var_declaration
  left: (expression_list . (identifier) @hint.var .)
  right: (expression_list .
    [(selector_expression) (index_expression)] @hint.expression .)) @hint
; `flag, ok := f.formal[name]`: a map's element and whether it was there.
(short_var_declaration
  left: (expression_list . (identifier) @hint.var (identifier) .)
  right: (expression_list . (index_expression) @hint.expression .)) @hint

; `c := make(chan Collector, n)`: the type made.
(short_var_declaration
  left: (expression_list . (identifier) @hint.var .)
  right: (expression_list . (call_expression
    function: (identifier) @hint.call
    arguments: (argument_list . [(channel_type) (map_type) (slice_type)] @hint.new)) .)) @hint

; `m := <-ch`, `case m := <-ch:`: a value received, of the channel's elements (as a
; `range` over it gives).
(short_var_declaration
  left: (expression_list . (identifier) @hint.var .)
  right: (expression_list . (unary_expression operator: "<-" operand: (_) @hint.range) .)) @hint
(receive_statement
  left: (expression_list . (identifier) @hint.var .)
  right: (unary_expression operator: "<-" operand: (_) @hint.range)) @hint

; `for s := range i.sinks`: one name, a map's keys, a channel's elements (a slice's index).
(range_clause
  left: (expression_list . (identifier) @hint.var .)
  right: (_) @hint.keys) @hint

; `for _, sub := range c.Commands()`: the value, the type of the elements.
(range_clause
  left: (expression_list . (_) . (identifier) @hint.var .)
  right: (_) @hint.range) @hint

; --- The fields of named structs, for receivers such as `b.logger` (`_GoTypes`).
(type_spec type: (struct_type (field_declaration_list (field_declaration) @struct.field)))

; --- Imports: `"net/http"` binds `http`, `h "net/http"` binds `h`, `. "strings"` all.
(import_spec !name path: (_) @import.module) @import
(import_spec name: (package_identifier) @import.alias path: (_) @import.module) @import
(import_spec name: (dot) path: (_) @import.source @import.wildcard) @import
