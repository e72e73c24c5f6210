[(_ (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)
 (_ (_ (variable_declarator
         name: (identifier) @name
         value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))]
