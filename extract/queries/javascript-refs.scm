; JavaScript's own: parameters and base classes (js-refs.scm has the rest).
(formal_parameters [(identifier) @bind (assignment_pattern) @bind.all (object_pattern) @bind.all
                    (array_pattern) @bind.all (rest_pattern) @bind.all])
(class_heritage (identifier) @ref.inherit)
(class_heritage (member_expression object: (_) @receiver property: (property_identifier) @ref.inherit.member))
; A class's base: the type of `super` in it.
(class_heritage [(identifier) (member_expression)] @base)
