; Python definitions (tags.scm convention of tree-sitter grammars, as in aider's queries).
; Docstrings are read by parse.py from the first statement of the body.
(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; Module-level assignments (what ctags calls variables): API constants and aliases,
; `a, b = ...` too, also one `if`/`try`/`with`/`while`/`for` block deep (`try: import x`
; / `except ImportError: x = None`, `if TYPE_CHECKING:`); inside a def or class body an
; assignment is a local or an attribute.
(module
  [(assignment left: [(identifier) @name (pattern_list (identifier) @name)]) @definition.constant
   (if_statement (block (assignment left: [(identifier) @name (pattern_list (identifier) @name)]) @definition.constant))
   (if_statement (_ (block (assignment left: [(identifier) @name (pattern_list (identifier) @name)]) @definition.constant)))
   (try_statement (block (assignment left: [(identifier) @name (pattern_list (identifier) @name)]) @definition.constant))
   (try_statement (_ (block (assignment left: [(identifier) @name (pattern_list (identifier) @name)]) @definition.constant)))
   (with_statement (block (assignment left: [(identifier) @name (pattern_list (identifier) @name)]) @definition.constant))
   (while_statement (block (assignment left: [(identifier) @name (pattern_list (identifier) @name)]) @definition.constant))
   (for_statement (block (assignment left: [(identifier) @name (pattern_list (identifier) @name)]) @definition.constant))])
