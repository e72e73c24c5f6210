; C++ namespace-scope variables, read after cpp-tags.scm and c-typedefs-tags.scm, before
; c-variables-tags.scm (languages.py).

; Namespace-scope variables (ctags `variable`), directly in a namespace or `extern "C"`
; body; those in conditional groups, and file-scope ones, are in c-variables-tags.scm.
(declaration_list
  {{c-variable-declaration}}
  (#not-match? @definition.variable "^extern\\b"))
