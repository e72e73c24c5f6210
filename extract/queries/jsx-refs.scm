; JSX (JavaScript and TSX): a capitalised element is a component used; a lower-case one
; is HTML, and a closing tag repeats its opening one.
(jsx_opening_element name: (identifier) @ref.call)
(jsx_self_closing_element name: (identifier) @ref.call)
(jsx_opening_element name: (member_expression object: (_) @receiver property: (property_identifier) @ref.call.member))
(jsx_self_closing_element name: (member_expression object: (_) @receiver property: (property_identifier) @ref.call.member))
(jsx_opening_element name: (identifier) @skip.lower)
(jsx_self_closing_element name: (identifier) @skip.lower)
(jsx_closing_element name: (_) @skip)
