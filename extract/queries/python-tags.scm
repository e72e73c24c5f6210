; Python definitions (tags.scm convention of tree-sitter grammars, as in aider's queries).
; Docstrings are read by parse.py from the first statement of the body.
(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; Module-level assignments (what ctags calls variables): API constants and aliases,
; `a, b = ...` and `(a, b) = ...` too, however deep in `if`/`try`/`with`/`while`/`for`
; blocks (`try: import x` / `except ImportError: x = None`, `if __name__ == "__main__":`
; scripts); inside a def or class body an assignment is a local or an attribute.
((assignment
   left: [(identifier) @name
          (pattern_list (identifier) @name)
          (tuple_pattern (identifier) @name)]) @definition.constant
  (#set! outside "function_definition class_definition"))
