; JavaScript's own: parameters and base classes (js-refs.scm has the rest).
(formal_parameters [(identifier) @bind (_ (_)) @bind.all])
(class_heritage (identifier) @ref.inherit)
(class_heritage (member_expression object: (_) @receiver property: (property_identifier) @ref.inherit.member))
