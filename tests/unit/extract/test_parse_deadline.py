"""A parse the deadline cancels leaves nothing behind in the parser that the next file
would be read with (tree-sitter resumes a cancelled parse unless the parser is reset)."""

from __future__ import annotations

import pytest

from symfind.extract import ParseTimeout, extract_symbols


def test_the_file_after_a_cancelled_parse_is_read_as_itself() -> None:
    big = b"".join(b"class Big%d:\n    def m(self):\n        return 1\n" % i for i in range(50_000))
    with pytest.raises(ParseTimeout):
        extract_symbols("big.py", big, deadline_s=0.001)
    symbols = extract_symbols("small.py", b"class Small1Class:\n    def run(self):\n        pass\n")
    assert [(s.qualname, s.line) for s in symbols] == [("Small1Class", 1), ("Small1Class.run", 2)]
