; C uses of names (occurrences) and includes, also read for C++ (cpp-refs.scm adds its
; own): the captures are explained in extract/occurrences.py. Our own query.

; --- Scopes: functions, prototypes and a function-like macro (their parameters).
(function_definition) @scope
(declaration declarator: (function_declarator)) @scope
(declaration declarator: (pointer_declarator declarator: (function_declarator))) @scope
(field_declaration declarator: (function_declarator)) @scope
(type_definition declarator: (function_declarator)) @scope
(preproc_function_def) @scope

; --- Local bindings: parameters and declarations inside a function (a declarator's
; name, through pointers, arrays and initialisers).
(parameter_declaration declarator: [
  (identifier) @bind
  (pointer_declarator declarator: (identifier) @bind)
  (array_declarator declarator: (identifier) @bind)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @bind))
  [(function_declarator) (parenthesized_declarator)
   (pointer_declarator declarator: (pointer_declarator declarator: (_ (_))))] @bind.all])
(declaration declarator: [
  (identifier) @bind
  (init_declarator declarator: (identifier) @bind)
  (pointer_declarator declarator: (identifier) @bind)
  (array_declarator declarator: (identifier) @bind)
  (init_declarator declarator: [(pointer_declarator declarator: (identifier) @bind)
                                (array_declarator declarator: (identifier) @bind)])
  [(function_declarator) (parenthesized_declarator)
   (pointer_declarator declarator: (pointer_declarator declarator: (_)))
   (init_declarator declarator: [(function_declarator) (parenthesized_declarator)
                                 (pointer_declarator declarator: (pointer_declarator))])] @bind.all])
(declaration declarator: (function_declarator declarator: (identifier) @bind.outer))
(declaration declarator: (pointer_declarator declarator: (function_declarator
  declarator: (identifier) @bind.outer)))
(preproc_params (identifier) @bind)

; --- Not uses: enumerators and designated initialisers' fields, labels.
(enumerator name: (identifier) @skip)
; `#if 0`: what it holds is compiled out (its `#else` is not). The condition's text is
; read in Python (`occurrences._compiled_out`), not by a predicate.
(preproc_if condition: (number_literal) @skip.if_zero)

; --- Uses. A receiver is captured once, by the `field_expression` pattern
; below that matches every one: each capture costs (a node made for Python).
(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression
  argument: (_) field: (field_identifier) @ref.attribute_call))
(field_expression argument: (_) @receiver field: (field_identifier) @ref.attribute)
(type_identifier) @ref.type
(identifier) @ref.plain

; --- Receiver types: a declared name's type (`struct list *l`, `node_t n`).
(parameter_declaration type: (_) @hint.type
  declarator: [(identifier) @hint.var
               (pointer_declarator declarator: (identifier) @hint.var)
               (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @hint.var))]) @hint
(declaration type: (_) @hint.type
  declarator: [(identifier) @hint.var
               (pointer_declarator declarator: (identifier) @hint.var)
               (init_declarator declarator: [(identifier) @hint.var
                                             (pointer_declarator declarator: (identifier) @hint.var)])]) @hint

; --- Includes: they bind no name.
(preproc_include path: (_) @import.module) @import
