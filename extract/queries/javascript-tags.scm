; JavaScript definitions (tags.scm convention of tree-sitter grammars, adapted: written for
; symfind, following what universal-ctags reports: top-level constants, object-literal
; methods and CommonJS exports included).
; Doc comments are the `/** ... */` or `//` block right above, read by parse.py.
; `(program [(_ D) (_ (_ D))])` is a top-level `const`/`let`/`var` D, bare or exported.

(class_declaration
  name: (identifier) @name) @definition.class

; Methods, getters, setters, static and generator methods of a class body, and fields
; holding a function (`handle = () => {...}`). `#set! parent`, not `(class_body (...))`:
; such a pattern stays under way through the whole class body, and classes nested a
; thousand deep made the query quadratic (parse.py checks the parent).
((method_definition
   name: [(property_identifier) (private_property_identifier)] @name) @definition.method
 (#set! parent "class_body"))

; A method named by a constant, `[kRun]() {}`, is found by the constant's name (`kRun`);
; one named by an expression (`[Symbol.iterator]`) is not.
((method_definition
   name: (computed_property_name (identifier) @name)) @definition.method
 (#set! parent "class_body"))

((field_definition
   property: [(property_identifier) (private_property_identifier)] @name
   value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
 (#set! parent "class_body"))

; Function and generator declarations, at any depth (nested ones are scoped by their parent).
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; Top-level `const f = (...) => ...`, `var f = function () {}`, `const A = class {}`.
(program
  {{js-function-declarators}})

(program
  {{js-class-declarators}})

; Other top-level `const X = ...`. A name an earlier pattern took (a function or class
; value) keeps its kind: parse.py lets the first matching pattern win.
(program
  {{js-const-declarators}})

; CommonJS: `module.exports.f = function () {}`, `exports.f = (...) => ...`.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: [
          (identifier) @_exports
          (member_expression
            object: (identifier) @_module
            property: (property_identifier) @_exports)
        ]
        property: (property_identifier) @name)
      right: [(arrow_function) (function_expression) (generator_function)]) @definition.function)
  (#eq? @_exports "exports")
  (#eq? @_module "module"))

; `module.exports = function name() {}`: the function's own name.
(program
  (expression_statement
    (assignment_expression
      left: [
        (identifier) @_exports
        (member_expression
          object: (identifier) @_module
          property: (property_identifier) @_exports)
      ]
      right: (function_expression
        name: (identifier) @name)) @definition.function)
  (#eq? @_exports "exports")
  (#eq? @_module "module"))

; Prototype members: `Foo.prototype.bar = function () {}` is `Foo.bar`, and so is
; `Foo.prototype.bar = barImpl` (ctags calls both methods).
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (member_expression
          object: (identifier) @receiver
          property: (property_identifier) @_prototype)
        property: (property_identifier) @name)
      right: (_)) @definition.method)
  (#eq? @_prototype "prototype"))

; Functions set on an object: `app.use = function use(fn) {}` is `app.use` (also as a
; module's default export: `export default _.f = function () {}`).
(program
  [(expression_statement
     (assignment_expression
       left: {{js-member-of-object}}
       right: [(arrow_function) (function_expression) (generator_function)]) @definition.method)
   (export_statement
     value: (assignment_expression
       left: {{js-member-of-object}}
       right: [(arrow_function) (function_expression) (generator_function)]) @definition.method)]
  (#not-match? @receiver "^(exports|module)$"))

; An object set on an object: `jQuery.offset = { setOffset: function () {} }` is the
; variable `jQuery.offset`, and it scopes its methods (`jQuery.offset.setOffset`), as a
; top-level `const api = {...}` does. Set on a prototype, `jQuery.Event.prototype = {
; preventDefault() {} }`, it is no variable and gives `jQuery.Event.preventDefault`.
(program
  [(expression_statement
     (assignment_expression
       left: {{js-member-of-object}}
       right: (object)) @definition.variable)
   (export_statement
     value: (assignment_expression
       left: {{js-member-of-object}}
       right: (object)) @definition.variable)]
  (#not-eq? @name "prototype"))

(program
  [(expression_statement
     (assignment_expression
       left: (member_expression
         property: (property_identifier) @_property) @scope.path
       right: (object)) @scope)
   (export_statement
     value: (assignment_expression
       left: (member_expression
         property: (property_identifier) @_property) @scope.path
       right: (object)) @scope)]
  (#not-eq? @_property "prototype"))

(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (_) @scope.path
        property: (property_identifier) @_property)
      right: (object)) @scope)
  (#eq? @_property "prototype"))
