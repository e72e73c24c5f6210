; C definitions: the tags.scm convention of tree-sitter grammars, adapted to the kinds
; universal-ctags reports by default (functions, structs/unions, enums, enumerators,
; typedefs, macros). Prototypes and struct fields are not definitions.

; Functions: the name sits under a function_declarator, itself possibly under pointer
; declarators (`char *\nname(...)`) or a parenthesized one (`int (*name(void))(int)`).
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @name)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name))) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: (identifier) @name)))) @definition.function

(function_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: (function_declarator
          declarator: (identifier) @name))))) @definition.function

; Structs and unions with a body (a bare `struct foo` is a reference).
(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

(enumerator
  name: (identifier) @name) @definition.constant

; Typedefs: `typedef T name;`, `typedef T *name;`, `typedef T name[N];`,
; `typedef int (*name)(int);`, `typedef void (name)(int);`. (`ssize_t` and the like
; parse as primitive types.)
(type_definition
  declarator: [(type_identifier) (primitive_type)] @name) @definition.type

(type_definition
  declarator: (pointer_declarator
    declarator: (type_identifier) @name)) @definition.type

(type_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (type_identifier) @name))) @definition.type

(type_definition
  declarator: (array_declarator
    declarator: (type_identifier) @name)) @definition.type

(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: (type_identifier) @name)))) @definition.type

(type_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator
          declarator: (type_identifier) @name))))) @definition.type

(type_definition
  declarator: (function_declarator
    declarator: (type_identifier) @name)) @definition.type

(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (type_identifier) @name))) @definition.type

; Macros: function-like ones are macros, object-like ones constants.
(preproc_function_def
  name: (identifier) @name) @definition.macro

(preproc_def
  name: (identifier) @name) @definition.constant

