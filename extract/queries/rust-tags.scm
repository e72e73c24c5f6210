; Rust definitions (tags.scm convention of tree-sitter grammars, adapted: written for
; symfind, following what universal-ctags reports).
; Doc comments are the `///` or `/** */` block right above (attributes in between are part
; of the item), read by parse.py.

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(trait_item
  name: (type_identifier) @name) @definition.trait

; Type aliases, including associated types (`type Item;` in a trait, `type Item = T;`).
(type_item
  name: (type_identifier) @name) @definition.type

(associated_type
  name: (type_identifier) @name) @definition.type

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.constant

(macro_definition
  name: (identifier) @name) @definition.macro

; `mod m { ... }` scopes what it holds (`m::Type::method`); `mod m;` names a file.
(mod_item
  name: (identifier) @name) @definition.module

; Functions; inside a trait or an `impl` block parse.py makes them methods (`Type::f`).
(function_item
  name: (identifier) @name) @definition.function

; Bodiless trait methods and `extern` block functions.
(function_signature_item
  name: (identifier) @name) @definition.function

; `impl Type`, `impl Trait for Type`: a scope named after the implementing type.
(impl_item
  type: (_) @scope.name) @scope

; Enum variants (`Ordering::Less`): API names users look up.
(enum_variant
  name: (identifier) @name) @definition.constant
