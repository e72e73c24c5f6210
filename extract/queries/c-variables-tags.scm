; C and C++ file-scope variables, read after c-tags.scm or cpp-tags.scm (the first
; matching pattern wins, so earlier kinds stand).

; File-scope variables (ctags `variable`): `int x;`, `static const T name[] = {...};`,
; `char **p = ...;` -- at top level, in a top-level `#if`/`#ifdef` or in its `#else`/`#elif`
; (deeper, or inside a function, a declaration is a local). `extern` declarations and
; prototypes are not definitions.
(translation_unit
  {{c-variable-declaration}}
  (#not-match? @definition.variable "^extern\\b"))

(translation_unit
  [(preproc_if {{c-variable-declaration}})
   (preproc_ifdef {{c-variable-declaration}})
   (_ [(preproc_else {{c-variable-declaration}})
       (preproc_elif {{c-variable-declaration}})])]
  (#not-match? @definition.variable "^extern\\b"))
