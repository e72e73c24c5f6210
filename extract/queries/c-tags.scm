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
