(declaration
  declarator: [
    (identifier) @name
    (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
    (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])
    (init_declarator declarator: [
      (identifier) @name
      (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
      (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])])]) @definition.variable
