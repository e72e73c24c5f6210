; Java definitions (tags.scm convention of tree-sitter grammars, adapted: written for
; symfind, following what universal-ctags reports). Qualnames are `Outer.Inner.method`,
; without the package. Javadoc is the comment block right above, read by parse.py.

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

; Methods (abstract and interface ones too), constructors, record compact constructors,
; annotation elements.
(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.method

(compact_constructor_declaration
  name: (identifier) @name) @definition.method

(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

; `static final` fields and interface fields (implicitly static final) are constants;
; other fields are not extracted.
(field_declaration
  (modifiers
    ["static" "final"]
    ["static" "final"])
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.constant

(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.constant

; Enum constants (`TimeUnit.SECONDS`).
(enum_constant
  name: (identifier) @name) @definition.constant
