; JavaScript and TypeScript (and TSX) object literals and function expressions, read after
; javascript-tags.scm or typescript-tags.scm (languages.py). `#set! outside` keeps a match
; no function body, class body or call argument holds (parse.py).

; A top-level object literal scopes its methods: `const api = { get() {}, put: () => {} }`
; gives `api.get` and `api.put`.
(program
  [(_ (variable_declarator
        name: (identifier) @scope.name
        value: (object)) @scope)
   (_ (_ (variable_declarator
           name: (identifier) @scope.name
           value: (object)) @scope))])

; Functions in object literals, however deeply nested, when no function, class body or
; call holds the object: `const api = { get() {}, put: () => {} }`, `jQuery.event = {
; special: { click: { setup: function () {} } } }`, `wrappers[".x"] = { f: function () {} }`
; (a call's argument is an option bag: not a definition, as ctags has it too).
([(method_definition
    name: (property_identifier) @name)
  (pair
    key: (property_identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])] @definition.method
  (#set! outside {{js-function-bodies}}))

; A nested object scopes its members: `jQuery.event.special.click.setup`.
((pair
   key: (property_identifier) @scope.name
   value: (object)) @scope
  (#set! outside {{js-function-bodies}}))

; A function expression set on an object under another name is found by its own name
; too, the one stack traces show: `Field.d = function decorateField() {}` is `Field.d`
; and `decorateField` (`Field.e = function e()` only `Field.e`). Not `#not-eq? @name
; @_property`: py-tree-sitter's comparison of two captures corrupts memory (a later query
; crashes), so parse.py compares them (`unless-named-as`).
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        property: (property_identifier) @_property)
      right: (function_expression
        name: (identifier) @name) @definition.function))
  (#set! detached)
  (#set! unless-named-as "_property"))

; A named function handed to a call at the top level: `export default
; React.forwardRef(function ServerContainer() {})`.
(program
  [(expression_statement
     (call_expression
       arguments: (arguments
         (function_expression
           name: (identifier) @name) @definition.function)))
   (export_statement
     value: (call_expression
       arguments: (arguments
         (function_expression
           name: (identifier) @name) @definition.function)))])
