[(_ (variable_declarator
      name: (identifier) @name
      value: (class)) @definition.class)
 (_ (_ (variable_declarator
         name: (identifier) @name
         value: (class)) @definition.class))]
