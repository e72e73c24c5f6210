; C and C++ file-scope variables, read after c-tags.scm or cpp-tags.scm (the first
; matching pattern wins, so earlier kinds stand).

; File-scope variables (ctags `variable`): `int x;`, `static const T name[] = {...};`,
; `char **p = ...;` -- at top level or in conditional groups (inside a function, a
; declaration is a local). `extern` declarations and prototypes are not definitions.
(translation_unit
  {{c-variable-declaration}}
  (#not-match? @definition.variable "^extern\\b"))

; In an `extern "C" { ... }` block (a C header's `#ifdef __cplusplus` guard around all of
; it): still file scope (json-c's `JSON_EXPORT json_object_delete_fn json_object_free_userdata;`).
(linkage_specification
  (declaration_list {{c-variable-declaration}})
  (#not-match? @definition.variable "^extern\\b"))

; In a conditional group at any depth (`#ifdef _WIN32` then `#if _MSC_VER < 1900`), at
; file or namespace scope: no function body, class body or ERROR node holds it.
([(preproc_if {{c-variable-declaration}})
  (preproc_ifdef {{c-variable-declaration}})
  (preproc_else {{c-variable-declaration}})
  (preproc_elif {{c-variable-declaration}})]
  (#set! outside "compound_statement field_declaration_list function_definition ERROR")
  (#not-match? @definition.variable "^extern\\b"))
