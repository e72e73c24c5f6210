"""A definition's signature as extraction stores it (`extract.parse`): whole when short;
a long one cut to `SIGNATURE_MAX_CHARS`, keeping what follows its parameter list (the
return type references read) while its last parameters give way to ` ...`."""

from __future__ import annotations

from symfind.extract.parse import SIGNATURE_MAX_CHARS, extract_file


def signature(source: str, language: str = "python") -> str:
    [symbol] = extract_file(f"t.{language}", source.encode(), language=language).symbols
    return symbol.signature


PARAMETERS = ", ".join(f"option_{n}: int = {n}" for n in range(12))


def test_a_short_signature_is_kept_whole() -> None:
    assert signature("def get(self, url: str) -> Response:\n    pass\n") == (
        "def get(self, url: str) -> Response")


def test_a_long_parameter_list_gives_way_before_the_return_type() -> None:
    kept = signature(f"def get(\n    url: str,\n    {PARAMETERS},\n) -> Response:\n    pass\n")
    assert kept == ("def get( url: str, option_0: int = 0, option_1: int = 1, option_2: int = 2,"
                    " option_3: int = 3, option_4: int = 4, option_5: int = 5, option_6: int ="
                    " 6, option_7: int = 7, ...) -> Response")
    assert len(kept) <= SIGNATURE_MAX_CHARS


def test_a_go_signatures_results_are_kept_too() -> None:
    kept = signature(
        "package p\n\nfunc Dial(" + ", ".join(f"option{n} int" for n in range(30))
        + ") (*Conn, error) {\n\treturn nil, nil\n}\n", language="go")
    assert kept.startswith("func Dial(option0 int, option1 int,")
    assert kept.endswith(", ...) (*Conn, error)")
    assert len(kept) <= SIGNATURE_MAX_CHARS


def test_a_tail_too_long_to_keep_is_cut_with_the_rest() -> None:
    returned = " | ".join(f"Result{n}" for n in range(20))
    source = f"def get(url: str, {PARAMETERS}) -> {returned}:\n    pass\n"
    assert signature(source) == f"def get(url: str, {PARAMETERS}) -> {returned}"[
        :SIGNATURE_MAX_CHARS]


def test_a_line_starting_with_a_star_is_code_unless_a_space_follows() -> None:
    """`*args` and a pointer type that start a line of the parameters are kept; a block
    comment's ` * text` between the header and the body is not."""
    assert signature("def get(\n    url,\n    *args,\n    **kwargs,\n):\n    pass\n") == (
        "def get( url, *args, **kwargs, )")
    assert signature(
        "package p\n\nfunc Handle(path string, f func(http.ResponseWriter,\n"
        "\t*http.Request)) *Route {\n\treturn nil\n}\n", language="go") == (
        "func Handle(path string, f func(http.ResponseWriter, *http.Request)) *Route")
    assert signature("int get(int a)\n/* the value\n * of a\n */\n{\n  return a;\n}\n",
                     language="c") == "int get(int a)"
