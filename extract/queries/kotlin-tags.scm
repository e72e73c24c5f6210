; Kotlin definitions (tags.scm convention of tree-sitter grammars, adapted: written for
; symfind, following what universal-ctags reports). The grammar has no field names, so
; names are the declaration's own identifier child. Qualnames have no package prefix.
; KDoc is the comment block right above, read by parse.py.

; `interface`, `enum class` and other classes share one node type; the keyword tells them
; apart. The first matching pattern wins, so the plain class pattern comes last.
(class_declaration
  "interface"
  (type_identifier) @name) @definition.interface

(class_declaration
  "enum"
  (type_identifier) @name) @definition.enum

(class_declaration
  (type_identifier) @name) @definition.class

; `object X`, `companion object Named` (an unnamed companion adds no scope).
(object_declaration
  (type_identifier) @name) @definition.class

(companion_object
  (type_identifier) @name) @definition.class

; An unnamed `companion object` is `Companion`, as Kotlin itself names it (`A.Companion`);
; its members stay the class's (`A.create`), as callers write them.
(companion_object
  "object" @name
  .
  (class_body)
  (#set! name "Companion")) @definition.class

; Functions; inside a class, object or interface parse.py makes them methods.
(function_declaration
  (simple_identifier) @name) @definition.function

(type_alias
  (type_identifier) @name) @definition.type

; `const val`, top-level or in an object.
(property_declaration
  (modifiers
    (property_modifier) @_const)
  (variable_declaration
    (simple_identifier) @name)
  (#eq? @_const "const")) @definition.constant

; Properties at the top level and in a class or object body (not a function's locals):
; `val` ones are constants, `var` ones variables, as ctags has them. Kotlin properties
; are API (they stand for getters and setters). After `const val`, which keeps its kind.
([(source_file
    (property_declaration
      (binding_pattern_kind) @_val
      (variable_declaration
        (simple_identifier) @name)) @definition.constant)
  (class_body
    (property_declaration
      (binding_pattern_kind) @_val
      (variable_declaration
        (simple_identifier) @name)) @definition.constant)]
  (#eq? @_val "val"))

([(source_file
    (property_declaration
      (binding_pattern_kind) @_var
      (variable_declaration
        (simple_identifier) @name)) @definition.variable)
  (class_body
    (property_declaration
      (binding_pattern_kind) @_var
      (variable_declaration
        (simple_identifier) @name)) @definition.variable)]
  (#eq? @_var "var"))

; Properties declared in a primary constructor, `class Request(val url: String)`.
((class_parameter
   (binding_pattern_kind) @_val
   (simple_identifier) @name) @definition.constant
  (#eq? @_val "val"))

((class_parameter
   (binding_pattern_kind) @_var
   (simple_identifier) @name) @definition.variable
  (#eq? @_var "var"))
