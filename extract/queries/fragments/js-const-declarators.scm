[(lexical_declaration
   kind: "const"
   (variable_declarator
     name: (identifier) @name) @definition.constant)
 (_ (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name) @definition.constant))]
