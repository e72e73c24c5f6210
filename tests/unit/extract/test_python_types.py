"""The class a Python function's signature says it returns (`extract/python_types.py`)."""

from __future__ import annotations

from symfind.extract.python_types import return_type

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
