; C and C++ typedefs and macros, read after c-tags.scm or cpp-tags.scm (languages.py).

; Typedefs: `typedef T name;`, `typedef T *name;`, `typedef T name[N];`,
; `typedef int (*name)(int);`, `typedef void (name)(int);`, `typedef void *name(int);`. (`ssize_t` and the like
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

; A function type returning a pointer: `typedef void *d2i_of_void(void **, long);`.
(type_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (type_identifier) @name))) @definition.type

(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (type_identifier) @name))) @definition.type

; Macros: function-like ones are macros, object-like ones constants.
(preproc_function_def
  name: (identifier) @name) @definition.macro

(preproc_def
  name: (identifier) @name) @definition.constant
