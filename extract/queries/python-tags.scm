; Python definitions (tags.scm convention of tree-sitter grammars, as in aider's queries).
; Docstrings are read by parse.py from the first statement of the body.
(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; Module-level assignments (what ctags calls variables): API constants and aliases.
(module
  (assignment left: (identifier) @name) @definition.constant)
