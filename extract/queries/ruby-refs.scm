; Ruby uses of names (occurrences) and requires: the captures are explained in
; extract/occurrences.py. Our own query: the grammar ships no reference tags. A bare name
; that no scope binds is a method called on self.

; --- Scopes: methods, blocks and lambdas.
(method) @scope
(singleton_method) @scope
(block) @scope
(do_block) @scope
(lambda) @scope

; --- Local bindings: parameters, assignments, loop, block and rescue names.
(method_parameters (identifier) @bind)
(lambda_parameters (identifier) @bind)
(block_parameters (identifier) @bind)
(optional_parameter name: (identifier) @bind)
(keyword_parameter name: (identifier) @bind)
(splat_parameter name: (identifier) @bind)
(hash_splat_parameter name: (identifier) @bind)
(block_parameter name: (identifier) @bind)
(destructured_parameter (identifier) @bind)
(assignment left: (identifier) @bind)
(assignment left: (left_assignment_list (identifier) @bind))
(operator_assignment left: (identifier) @bind)
(for pattern: [(identifier) @bind (left_assignment_list (identifier) @bind)])
(exception_variable (identifier) @bind)
(rescue_modifier handler: (match_pattern pattern: (identifier) @bind))

; --- Not uses: hash keys, the names `attr_reader` and friends are given as symbols.
(pair key: (hash_key_symbol) @skip)

; --- Uses.
(superclass [(constant) @ref.inherit
             (scope_resolution scope: (_) @receiver name: (constant) @ref.inherit.member)])

(call receiver: (_) @receiver method: [(identifier) (constant)] @ref.attribute_call)
(call !receiver method: (identifier) @ref.call)
(scope_resolution scope: (_) @receiver name: (constant) @ref.plain.member)
(constant) @ref.plain
(identifier) @ref.plain

; --- Receiver types: `x = C.new`, `@x = C.new` (self's @x).
(assignment left: (identifier) @hint.var
  right: (call receiver: [(constant) (scope_resolution)] @hint.new method: (identifier) @hint.ctor)) @hint
(assignment left: (instance_variable) @hint.member
  right: (call receiver: [(constant) (scope_resolution)] @hint.new method: (identifier) @hint.ctor)) @hint

; --- Imports: `require "x"`, `require_relative "x"`, `load "x"` bind no name.
(call !receiver method: (identifier) @import.callee
  arguments: (argument_list . (string (string_content) @import.module) .)) @import
