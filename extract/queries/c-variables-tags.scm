; C and C++ file-scope variables, read after c-tags.scm or cpp-tags.scm (the first
; matching pattern wins, so earlier kinds stand).

; File-scope variables (ctags `variable`): `int x;`, `static const T name[] = {...};`,
; `char **p = ...;` -- at top level, in a top-level `#if`/`#ifdef` or in its `#else`/`#elif`
; (deeper, or inside a function, a declaration is a local). `extern` declarations and
; prototypes are not definitions.
(translation_unit
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

(translation_unit
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
