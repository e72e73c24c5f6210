; Go definitions (tags.scm convention of tree-sitter grammars, adapted: written for symfind,
; following what universal-ctags reports). Qualnames are `pkg.Func`, `pkg.Type` and
; `pkg.Type.Method`; package-level `var`s are not extracted.
; Doc comments are the `//` block right above, read by parse.py.

(package_clause
  (package_identifier) @package)

(function_declaration
  name: (identifier) @name) @definition.function

; `func (s *Server[T]) Serve()`: parse.py reduces the receiver type to `Server`.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: (_) @receiver))
  name: (field_identifier) @name) @definition.method

; A lone `type X ...` is its whole declaration (so its doc comment is the one above
; `type`); in a `type ( ... )` group each spec is one definition. The first matching
; pattern wins, so the lone forms come first and each group ends with a catch-all.
(type_declaration
  .
  (type_spec
    name: (type_identifier) @name
    type: (struct_type))
  .) @definition.struct

(type_declaration
  .
  (type_spec
    name: (type_identifier) @name
    type: (interface_type))
  .) @definition.interface

(type_declaration
  .
  [(type_spec
     name: (type_identifier) @name)
   (type_alias
     name: (type_identifier) @name)]
  .) @definition.type

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

[(type_spec
   name: (type_identifier) @name)
 (type_alias
   name: (type_identifier) @name)] @definition.type

; Interface methods: `Store.Get`; not those of an interface written in place, which is
; no type of its own (`func F(l interface{ Printf(string) })`, a struct's field typed so).
[(type_spec
   type: (interface_type
     (method_elem
       name: (field_identifier) @name) @definition.method))
 (type_alias
   type: (interface_type
     (method_elem
       name: (field_identifier) @name) @definition.method))]

; Package-level constants, alone or in a `const ( ... )` group.
(source_file
  (const_declaration
    .
    (const_spec
      name: (identifier) @name)
    .) @definition.constant)

(source_file
  (const_declaration
    (const_spec
      name: (identifier) @name) @definition.constant))

; Package-level variables, alone or in a `var ( ... )` group (ctags `var`).
(source_file
  (var_declaration
    (var_spec
      name: (identifier) @name) @definition.variable))

(source_file
  (var_declaration
    (var_spec_list
      (var_spec
        name: (identifier) @name) @definition.variable)))
