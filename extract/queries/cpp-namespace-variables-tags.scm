; C++ namespace-scope variables, read after cpp-tags.scm and c-typedefs-tags.scm, before
; c-variables-tags.scm (languages.py).

; Namespace-scope variables (ctags `variable`), in a namespace or `extern "C"` body,
; directly or one `#if`/`#ifdef` (or its `#else`/`#elif`) deep; file-scope ones are in
; c-variables-tags.scm.
(declaration_list
  (declaration
      declarator: [
        (identifier) @name
        (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
        (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])
        (init_declarator declarator: [
          (identifier) @name
          (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
          (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])])]) @definition.variable
  (#not-match? @definition.variable "^extern\\b"))

(declaration_list
  [(preproc_if
     (declaration
         declarator: [
           (identifier) @name
           (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
           (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])
           (init_declarator declarator: [
             (identifier) @name
             (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
             (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])])]) @definition.variable)
   (preproc_ifdef
     (declaration
         declarator: [
           (identifier) @name
           (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
           (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])
           (init_declarator declarator: [
             (identifier) @name
             (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
             (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])])]) @definition.variable)
   (_ [(preproc_else
         (declaration
             declarator: [
               (identifier) @name
               (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
               (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])
               (init_declarator declarator: [
                 (identifier) @name
                 (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
                 (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])])]) @definition.variable)
       (preproc_elif
         (declaration
             declarator: [
               (identifier) @name
               (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
               (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])
               (init_declarator declarator: [
                 (identifier) @name
                 (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
                 (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (identifier) @name)])])]) @definition.variable)])]
  (#not-match? @definition.variable "^extern\\b"))
