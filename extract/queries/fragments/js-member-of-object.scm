(member_expression
  object: (identifier) @receiver
  property: (property_identifier) @name)
