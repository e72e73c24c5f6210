"""Brackets in a signature's text, for reading types as a language writes them
(`extract/go_types.py`, `extract/python_types.py`): where a bracket closes, and the parts
of a list at its top level.

Imports: the standard library only.
"""

from __future__ import annotations

_OPENING = "([{"
_CLOSING = ")]}"


def closing(text: str, at: int) -> int:
    """The index of the bracket closing the one at `at`, or -1."""
    depth = 0
    for index in range(at, len(text)):
        if text[index] in _OPENING:
            depth += 1
        elif text[index] in _CLOSING:
            depth -= 1
            if not depth:
                return index
    return -1


def top_level_parts(text: str, separators: str = ",") -> list[str]:
    """`text` split at the `separators` outside any bracket (`A, B[C, D]` → `A`,
    ` B[C, D]`), each part as written."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
        elif char in separators and not depth:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts
