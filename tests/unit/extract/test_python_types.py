"""The class a Python function's signature says it returns (`extract/python_types.py`)."""

from __future__ import annotations

from symfind.extract.python_types import (
    item_type,
    mapping_types,
    return_type,
    returns_self,
    returns_self_type,
    tuple_item,
)

SIGNATURES = {
    "def make() -> Session": "Session",
    "async def make(self, *, n: int = 1) -> Session": "Session",
    "def make() -> 'Session'": "Session",
    'def make() -> "models.Session"': "models.Session",
    "def make() -> Session | None": "Session",
    "def make() -> None | Session": "Session",
    "def make() -> Optional[Session]": "Session",
    "def make() -> typing.Optional['Session']": "Session",
    "def make() -> Union[Session, None]": "Session",
    "def make() -> Session[T]": "Session",
    "def make(f: Callable[[int], str] = (lambda x: x)) -> Session": "Session",
    "def make() -> list[Session]": "list",
    "def make() -> Session | Pool": "",  # two classes: no one of them
    "def make() -> Union[Session, Pool]": "",
    "def make() -> None": "",
    "def make() -> Self": "",  # the receiver's class: not the call's to say
    "def make() -> type[Session]": "",  # a class, not an instance of it
    "def make() -> Any": "",
    "def make()": "",
    "def make(": "",  # cut short
    "def make(x) -> Callable[[], Session]": "Callable",
}


def test_the_returned_class_is_read_from_the_annotation() -> None:
    assert {signature: return_type(signature) for signature in SIGNATURES} == SIGNATURES


ENTERS = {
    "def __enter__(self)": True,  # unannotated: most `return self`
    "def __enter__(self) -> Self": True,
    "def __enter__(self) -> typing.Self:": True,
    "async def __aenter__(self: T_Stream) -> T_Stream": True,
    "async def __aenter__(self: T_Stream) -> T_Other": False,
    "def __enter__(self) -> str": False,
    "def __enter__(self) -> 'Pool'": False,  # a class: `return_type` names it
    "def __enter__(": False,  # cut short
}


def test_an_enter_method_returns_its_receiver_unless_its_annotation_says_otherwise() -> None:
    assert {signature: returns_self(signature) for signature in ENTERS} == ENTERS


def test_only_an_annotation_says_a_classmethod_returns_its_class() -> None:
    assert [returns_self_type(signature) for signature in (
        "def load(cls) -> Self", "def load(cls) -> 'typing.Self'", "def load(cls)",
        "def load(cls) -> Config", "def load(")] == [True, True, False, False, False]


def test_an_annotations_items_by_position_and_by_key() -> None:
    assert [tuple_item(written, 1) for written in (
        "tuple[A, B]", "Tuple['A', 'B'] | None", "tuple[C, ...]", "tuple[A]", "list[A]")] == [
        "B", "'B'", "C", "", ""]
    assert [mapping_types(written) for written in (
        "dict[str, Conn]", "t.Mapping[K, 'V'] | None", "list[Conn]", "dict[str]")] == [
        ("str", "Conn"), ("K", "'V'"), None, None]
    assert [item_type(written, iterated) for written, iterated in (
        ("list[Conn]", True), ("dict[str, Conn]", True), ("dict[str, Conn]", False),
        ("Optional[Sequence[Conn]]", False), ("A | B", True))] == [
        "Conn", "str", "Conn", "Conn", ""]
