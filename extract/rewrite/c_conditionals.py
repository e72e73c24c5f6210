"""C and C++ conditional groups read as their first branch, where reading them all derails
tree-sitter (a part of the macro blanking: c_macros.py).

Imports: the standard library and `extract` modules only.
"""

from __future__ import annotations

from symfind.extract.rewrite.c_tokens import (
    COMMENT, CONTEXT_BYTES, LinePattern, previous_code_line, tokens,
)

# Conditional groups whose first branch opens a block the others open again
# (protobuf's `#ifdef PROTOBUF_FORCE_COPY_IN_SWAP\n if (a &&\n b) {\n #else\n if (b) {\n
# #endif`): both branches read as code leave a brace unclosed and the class around them
# is lost. As ctags does, such a group is read as its first branch alone: the directives
# and the other branches are blanked. So is a group of alternative heads of one block
# (`class a : public base` or `class b : public base`, then `{` after the `#endif`).
_CONDITIONAL = LinePattern(
    rb"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(?:[^\n]*\\\r?\n)*[^\n]*"
)
_OPENING = {b"{": 1, b"(": 1, b"}": -1, b")": -1}


def _unbalanced(code: bytes) -> bool:
    """Whether `code` opens or closes more braces and parentheses than it closes or opens."""
    return sum(_OPENING.get(token.group(), 0) for token in tokens(code)) != 0


def first_branches_only(source: bytes) -> list[tuple[int, int]]:
    """The spans to blank so that each unbalanced conditional group is its first branch."""
    if b"#" not in source:
        return []  # most files (a scan for directives costs more than this look)
    spans: list[tuple[int, int]] = []
    groups: list[list[int]] = []  # per open group: its directive's span, where #else starts
    for directive in _CONDITIONAL.finditer(source):
        kind = directive.group(1)
        if kind.startswith(b"if"):
            groups.append([directive.start(), directive.end(), -1])
        elif not groups:
            continue  # an #else or #endif without its #if (the file starts mid-group)
        elif kind in (b"elif", b"else"):
            if groups[-1][2] < 0:
                groups[-1][2] = directive.start()
        else:
            start, end, other = groups.pop()
            if other >= 0 and (_unbalanced(source[end:other])
                               or _alternative_heads(source, end, other, directive.end())):
                spans += [(start, end), (other, directive.end())]
    return spans


def _alternative_heads(source: bytes, end: int, other: int, after: int) -> bool:
    """Whether each branch of a conditional group is a head of the block opened after
    its `#endif` (`#if defined(__APPLE__)` / `class apple_scheduler : public base` /
    `#else` / `class linux_scheduler : public base` / `#endif` / `{`): the first
    branch ends mid-declaration and the code after the group starts with `{`."""
    following = source[after : after + CONTEXT_BYTES].lstrip()
    if following.startswith(b"/"):  # a comment first (rare: strip comments only then)
        following = COMMENT.sub(b" ", following).lstrip()
    if not following.startswith(b"{"):
        return False
    first = previous_code_line(source[end:other].rstrip())
    return bool(first) and not first.endswith((b";", b"{", b"}", b",", b"\\"))

