; C++ namespace-scope variables, read after cpp-tags.scm and c-typedefs-tags.scm, before
; c-variables-tags.scm (languages.py).

; Namespace-scope variables (ctags `variable`), in a namespace or `extern "C"` body,
; directly or one `#if`/`#ifdef` (or its `#else`/`#elif`) deep; file-scope ones are in
; c-variables-tags.scm.
(declaration_list
  {{c-variable-declaration}}
  (#not-match? @definition.variable "^extern\\b"))

(declaration_list
  [(preproc_if {{c-variable-declaration}})
   (preproc_ifdef {{c-variable-declaration}})
   (_ [(preproc_else {{c-variable-declaration}})
       (preproc_elif {{c-variable-declaration}})])]
  (#not-match? @definition.variable "^extern\\b"))
