"function_expression" "arrow_function" "function_declaration" "generator_function"
"generator_function_declaration" "method_definition" "class_body" "arguments"
