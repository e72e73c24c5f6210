[(object_pattern
   [(shorthand_property_identifier_pattern) @name
    (object_assignment_pattern left: (shorthand_property_identifier_pattern) @name)
    (pair_pattern value: (identifier) @name)])
 (array_pattern [(identifier) @name (assignment_pattern left: (identifier) @name)])]
