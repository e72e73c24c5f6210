; Python uses of names (occurrences) and imports: the captures are explained in
; extract/occurrences.py. Our own query: the grammar ships no reference tags.

; --- Scopes: a name bound anywhere in one of these is local to all of it.
(function_definition) @scope
(lambda) @scope
(list_comprehension) @scope
(set_comprehension) @scope
(dictionary_comprehension) @scope
(generator_expression) @scope
; A class's body binds its own names, which its methods and comprehensions do not see.
(class_definition body: (block) @scope.hidden)

; --- Local bindings: parameters, assignment targets, loop, with, except and walrus names.
(parameters (identifier) @bind)
(lambda_parameters (identifier) @bind)
(default_parameter name: (identifier) @bind)
(typed_parameter (identifier) @bind)
(typed_default_parameter name: (identifier) @bind)
(list_splat_pattern (identifier) @bind)
(dictionary_splat_pattern (identifier) @bind)
(assignment left: [(identifier) @bind (pattern_list) @bind.all (tuple_pattern) @bind.all (list_pattern) @bind.all])
(augmented_assignment left: (identifier) @bind.same)
(for_statement left: [(identifier) @bind (pattern_list) @bind.all (tuple_pattern) @bind.all (list_pattern) @bind.all])
(for_in_clause left: [(identifier) @bind (pattern_list) @bind.all (tuple_pattern) @bind.all (list_pattern) @bind.all])
(as_pattern alias: (as_pattern_target (identifier) @bind))
(named_expression name: (identifier) @bind)
(class_definition name: (identifier) @bind)
; A def's name is bound in the scope around the def.
(function_definition name: (identifier) @bind.outer)
(global_statement (identifier) @global @skip)

; --- Not uses: keyword-argument names, a class body's own attributes, import paths.
(keyword_argument name: (identifier) @skip)
(class_definition body: (block (assignment left: (identifier) @skip)))
(import_statement name: (dotted_name (identifier) @skip))
(import_statement name: (aliased_import) @skip)
(import_from_statement module_name: (dotted_name (identifier) @skip))
(import_from_statement module_name: (relative_import (dotted_name (identifier) @skip)))
(aliased_import alias: (identifier) @skip)
(future_import_statement name: (dotted_name (identifier) @skip))
(future_import_statement name: (aliased_import) @skip)

; --- Uses. An attribute's object is captured as its receiver once, by the last
; `attribute` pattern, which matches every one: each capture costs (a node made for
; Python), and a method call's would be captured twice.
(import_from_statement
  module_name: (_) @receiver
  name: [(dotted_name (identifier) @ref.import.member)
         (aliased_import name: (dotted_name (identifier) @ref.import.member))])

(decorator (identifier) @ref.decorator)
(decorator (attribute object: (_) attribute: (identifier) @ref.decorator.member))
(decorator (call function: (identifier) @ref.decorator))
(decorator (call function: (attribute object: (_) attribute: (identifier) @ref.decorator.member)))

(class_definition superclasses: (argument_list (identifier) @ref.inherit))
(class_definition superclasses: (argument_list
  (attribute object: (_) attribute: (identifier) @ref.inherit.member)))
; A generic base: `class TimedSerializer(Serializer[_TSerialized])`.
(class_definition superclasses: (argument_list (subscript value: (identifier) @ref.inherit)))
(class_definition superclasses: (argument_list (subscript
  value: (attribute object: (_) attribute: (identifier) @ref.inherit.member))))

(type (identifier) @ref.type)
(type (attribute object: (_) attribute: (identifier) @ref.type.member))
(type (generic_type (identifier) @ref.type))
(type (binary_operator [(identifier) @ref.type.member
                        (attribute object: (_) attribute: (identifier) @ref.type.member)]))

(call function: (attribute object: (_) attribute: (identifier) @ref.attribute_call))
(call function: (identifier) @ref.call)
(attribute object: (_) @receiver attribute: (identifier) @ref.attribute)
(identifier) @ref.plain

; --- Receiver types: annotated names, names assigned a call, members assigned a
; parameter (`self.stream = stream`: its annotation), `with C(...) as x`, names assigned
; an expression (`c = await pool.get()`, `c = pool.conns[0]`) and the names a `for`
; binds (`for c in pool.connections`, `for name, c in pool.by_name.items()`), names
; unpacked (`a, b = pair()`), `with pool.lease() as c`: those settled with the uses.
(typed_parameter (identifier) @hint.var type: (type) @hint.type) @hint
(typed_default_parameter name: (identifier) @hint.var type: (type) @hint.type) @hint
(assignment left: [(identifier) (attribute)] @hint.var type: (type) @hint.type) @hint
(assignment left: [(identifier) (attribute)] @hint.var
  right: (call function: [(identifier) (attribute)] @hint.call)) @hint
(assignment left: (attribute) @hint.var right: (identifier) @hint.param) @hint
(assignment left: (identifier) @hint.var
  right: [(call function: [(attribute) (call) (subscript)]) (await) (attribute) (subscript)
          (identifier) (list_comprehension)]
  @hint.value) @hint
(assignment left: (attribute) @hint.var right: (list_comprehension) @hint.value) @hint
(for_statement left: [(identifier) @hint.var
                      (pattern_list (identifier) @hint.var)
                      (tuple_pattern (identifier) @hint.var)] right: (_) @hint.items) @hint
(for_in_clause left: [(identifier) @hint.var
                      (pattern_list (identifier) @hint.var)
                      (tuple_pattern (identifier) @hint.var)] right: (_) @hint.items) @hint
(assignment left: [(pattern_list (identifier) @hint.var) (tuple_pattern (identifier) @hint.var)]
  right: [(call) (await) (attribute) (subscript) (identifier)] @hint.value) @hint
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @hint.enter)
                             alias: (as_pattern_target (identifier) @hint.var))) @hint
(with_item value: (as_pattern (call function: (attribute)) @hint.entered
                             alias: (as_pattern_target (identifier) @hint.var))) @hint

; --- What a function returns (`Symbol.returns`), unless it is a generator.
(return_statement (_) @returned)
(yield) @yield

; --- Imports.
(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module
                                        alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: (_) @import.source
  name: [(dotted_name) @import.name
         (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)])
  @import
(import_from_statement
  module_name: (_) @import.source
  (wildcard_import) @import.wildcard) @import
