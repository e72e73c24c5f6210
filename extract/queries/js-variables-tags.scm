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

; Top-level destructuring, `const { a, b: c } = obj`, `const [x, y] = pair` (ctags
; reports TypeScript's): `const` names are constants, `let`/`var` names variables.
(program
  [(lexical_declaration
     kind: "const"
     (variable_declarator
       name: [(object_pattern
                [(shorthand_property_identifier_pattern) @name
                 (object_assignment_pattern left: (shorthand_property_identifier_pattern) @name)
                 (pair_pattern value: (identifier) @name)])
              (array_pattern [(identifier) @name (assignment_pattern left: (identifier) @name)])]) @definition.constant)
   (export_statement
     (lexical_declaration
       kind: "const"
       (variable_declarator
         name: [(object_pattern
                  [(shorthand_property_identifier_pattern) @name
                   (object_assignment_pattern left: (shorthand_property_identifier_pattern) @name)
                   (pair_pattern value: (identifier) @name)])
                (array_pattern [(identifier) @name (assignment_pattern left: (identifier) @name)])]) @definition.constant))])

(program
  [(_
     (variable_declarator
       name: [(object_pattern
                [(shorthand_property_identifier_pattern) @name
                 (object_assignment_pattern left: (shorthand_property_identifier_pattern) @name)
                 (pair_pattern value: (identifier) @name)])
              (array_pattern [(identifier) @name (assignment_pattern left: (identifier) @name)])]) @definition.variable)
   (export_statement
     (_
       (variable_declarator
         name: [(object_pattern
                  [(shorthand_property_identifier_pattern) @name
                   (object_assignment_pattern left: (shorthand_property_identifier_pattern) @name)
                   (pair_pattern value: (identifier) @name)])
                (array_pattern [(identifier) @name (assignment_pattern left: (identifier) @name)])]) @definition.variable))])
