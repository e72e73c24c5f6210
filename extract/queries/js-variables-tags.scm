; JavaScript and TypeScript (and TSX) module-level `let`/`var` and destructured names,
; read after javascript-tags.scm or typescript-tags.scm (languages.py): the first
; matching pattern wins, so a name those files gave a kind keeps it.

; Top-level `let` and `var` (ctags `variable`): module state people look up too. After
; the patterns above, so a function or class value keeps its kind.
(program
  [(lexical_declaration
     (variable_declarator
       name: (identifier) @name) @definition.variable)
   (variable_declaration
     (variable_declarator
       name: (identifier) @name) @definition.variable)
   (_ (lexical_declaration
        (variable_declarator
          name: (identifier) @name) @definition.variable))
   (_ (variable_declaration
        (variable_declarator
          name: (identifier) @name) @definition.variable))])

; `var` in a block of the top level (`if (win32) { var root = ..., lib32 = ... }`): `var`
; is function-scoped, so outside any function it is a module variable however deep the
; block. Not in loops (`for (var i = 0; ...)`: counters, not what people look up).
((variable_declaration
   (variable_declarator
     name: (identifier) @name) @definition.variable)
  (#set! outside "function_declaration function_expression arrow_function method_definition generator_function_declaration generator_function class_body for_statement for_in_statement while_statement do_statement"))

; Top-level destructuring, `const { a, b: c } = obj`, `const [x, y] = pair` (ctags
; reports TypeScript's): `const` names are constants, `let`/`var` names variables.
(program
  [(lexical_declaration
     kind: "const"
     (variable_declarator
       name: {{js-destructured-names}}) @definition.constant)
   (export_statement
     (lexical_declaration
       kind: "const"
       (variable_declarator
         name: {{js-destructured-names}}) @definition.constant))])

(program
  [(_
     (variable_declarator
       name: {{js-destructured-names}}) @definition.variable)
   (export_statement
     (_
       (variable_declarator
         name: {{js-destructured-names}}) @definition.variable))])
