"""Read a query's shape and decide which channels run, with which weights.

Imports: msgspec and `storage` modules (no Tantivy: plans are plain data, tested as a table).

Routes:
- `identifier`: one identifier (`HtppClient`, `parse_header_links`) → exact, ngram,
  fuzzy (when long enough), words.
- `qualified`: identifiers joined by `.` `::` `#` `/` `->` `\\` (`AsyncClient#send`,
  `pkg.mod.func`) → the same channels on the last segment; every channel also scores
  the scope segments against the symbol's qualname and path, a typo allowed in each.
- `words`: two to four plain words that read as a name's (`http client`) → exact on the
  words joined (`httpclient` = `HttpClient` = `http_client`), words, text.
- `prose`: a question or description however short (`where are redirects followed`,
  `how to retry`, `does it retry uploads`: `reads_as_question`), and anything longer →
  text and vector (no fuzzy: edit distance on prose is noise), and exact on the words
  joined when they are plain words (a long name typed as words).

Names and words may be in any script (`привет_мир`, `计算总和`, `ｆｕｌｌｗｉｄｔｈ`): the
query is taken in NFC, the form names are stored in, and read through the character
stand-ins of `storage/words.py`, so a letter is a letter whatever its script.
"""

from __future__ import annotations

import enum
import re
import time
import unicodedata
from typing import Any

import msgspec

from symfind.storage.errors import QueryError
from symfind.storage.words import (
    CASELESS,
    CONTINUES,
    DIGIT,
    LOWER,
    QUALIFIER,
    UPPER,
    shape_of,
    split_identifier,
    split_text,
    squash,
)

MAX_QUERY_CHARS = 512
MIN_FUZZY_CHARS = 3
# Names of at least this many characters tolerate two edits, shorter ones one.
TWO_EDITS_FROM_CHARS = 6
MAX_WORDS_ROUTE = 4

#: Words that open a question (`where are redirects followed`, `how to retry`). A name
#: may start with one (`whereClause`, `whenReady`), so a question word opens a question
#: only with two more words after it, or a function word right after it (`how to`).
QUESTION_WORDS = frozenset("how what when where which who whom whose why".split())
#: Verbs that open a yes-no question (`does it retry uploads`, `is there a limit`), which
#: names open too (`isEmpty`, `canRetry`): only with a pronoun or article after them.
AUXILIARIES = frozenset(
    "am are can could did do does has have is may might must shall should was were will would"
    .split())
#: Words a sentence holds and a name seldom does: pronouns, articles, auxiliaries after
#: a question word, the infinitive's `to`.
FUNCTION_WORDS = frozenset(
    "a an the it its we i you they there this that these those our my your their to"
    .split()) | AUXILIARIES


class Channel(enum.StrEnum):
    EXACT = "exact"
    NGRAM = "ngram"
    FUZZY = "fuzzy"
    WORDS = "words"
    TEXT = "text"
    VECTOR = "vector"
    ABBREV = "abbrev"


class Route(enum.StrEnum):
    IDENTIFIER = "identifier"
    QUALIFIED = "qualified"
    WORDS = "words"
    PROSE = "prose"


#: The one weight table (documented by the `help` tool and docs/search.md).
WEIGHTS: dict[Route, dict[Channel, float]] = {
    Route.IDENTIFIER: {
        Channel.EXACT: 3.0,
        Channel.FUZZY: 2.0,
        Channel.ABBREV: 2.0,
        Channel.NGRAM: 0.7,
        Channel.WORDS: 0.7,
    },
    Route.QUALIFIED: {
        Channel.EXACT: 3.0,
        Channel.FUZZY: 2.0,
        Channel.ABBREV: 2.0,
        Channel.NGRAM: 0.7,
        Channel.WORDS: 0.7,
    },
    Route.WORDS: {Channel.EXACT: 3.0, Channel.WORDS: 1.5, Channel.TEXT: 0.5},
    Route.PROSE: {Channel.EXACT: 3.0, Channel.TEXT: 1.0, Channel.VECTOR: 1.0},
}

# Matched against the query's stand-ins (`words.shape_of`), where any letter is ASCII or
# a stand-in, and so is any digit.
_LETTER = f"A-Za-z{UPPER}{LOWER}{CASELESS}"
_SEGMENT = rf"[{_LETTER}_$~][{_LETTER}0-9{DIGIT}{CONTINUES}_$~]*[!?=]?"
_IDENTIFIER = re.compile(rf"^(?:{_SEGMENT})(?:(?:::|->|[.#/\\]){_SEGMENT})*$")
_PLAIN_WORD = re.compile(rf"^[{_LETTER}][{_LETTER}0-9{DIGIT}{CONTINUES}]*$")
# What a word of a name typed as words can be: letters and digits (`colour flag 256`).
_NAME_PART = re.compile(rf"^[{_LETTER}0-9{DIGIT}{CONTINUES}]+$")


class Plan(msgspec.Struct, frozen=True, kw_only=True):
    """What to search for and how.

    Attributes:
        route: The query's shape.
        name: The (last) identifier as typed; for `words` the words joined.
        scope: Scope segments before the name, as typed (qualified route only).
        words: Lowercase words for the words/text channels.
        max_edits: Edit distance the fuzzy channel allows (0 = fuzzy does not run).
        weights: Channel → weight, only for channels that run.
    """

    route: Route
    name: str
    scope: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    max_edits: int = 0
    weights: dict[str, float] = {}

    @property
    def key(self) -> str:
        """The squashed name channels compare against (`HtppClient` → `htppclient`)."""
        return squash(self.name)

    @property
    def target(self) -> str:
        """What the query looks for, as shown: the (qualified) name, or the words as read
        (`http client`, not the `httpclient` the exact channel compares)."""
        if self.route in (Route.IDENTIFIER, Route.QUALIFIED):
            return ".".join((*self.scope, self.name))
        return " ".join(self.words)

    def __str__(self) -> str:
        target = self.target
        steps = " ".join(
            f"{channel}{'≤' + str(self.max_edits) if channel == Channel.FUZZY else ''}×{weight:g}"
            for channel, weight in self.weights.items()
        )
        return f"{self.route} {target!r} → {steps}"

    def answer_fields(self, query: str, started: float) -> dict[str, Any]:
        """What every answer to this plan opens with (`SearchResponse`, `FederatedResponse`):
        the query as typed, how it was read, and the wall time since `started`
        (`time.perf_counter()`)."""
        return {
            "query": query,
            "route": str(self.route),
            "channels": dict(self.weights),
            "took_ms": round((time.perf_counter() - started) * 1000, 3),
            "plan": str(self),
        }


def reads_as_question(words: list[str]) -> bool:
    """Whether a few plain words (lowercase) ask a question rather than spell a name:
    they open with a question word followed by two more words or by a function word
    (`where are redirects followed`, `what retries uploads`, `how to retry`; not
    `where clause`), or with an auxiliary followed by a pronoun or article (`does it
    retry`, `is there a limit`; not `is empty`, `can retry upload`)."""
    if len(words) < 2:
        return False
    first, second = words[0], words[1]
    if first in QUESTION_WORDS:
        return len(words) >= 3 or second in FUNCTION_WORDS
    return first in AUXILIARIES and second in FUNCTION_WORDS - AUXILIARIES and len(words) >= 3


def max_edits_for(key: str) -> int:
    """Edits tolerated for a squashed name of this length (0 = too short for fuzzy)."""
    if len(key) < MIN_FUZZY_CHARS:
        return 0
    return 2 if len(key) >= TWO_EDITS_FROM_CHARS else 1


def route(query: str) -> Plan:
    """Turn raw query text into a Plan.

    Raises:
        QueryError: The query is empty, too long, or has nothing searchable in it.
    """
    text = " ".join(query.split())
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    if not text:
        raise QueryError("empty query — type a name (`HttpClient`), `Class.method` or a few words")
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(f"query is {len(text)} characters; the limit is {MAX_QUERY_CHARS}")

    form = shape_of(text)
    if " " not in text and _IDENTIFIER.match(form):
        segments = [segment for segment in QUALIFIER.split(text) if segment]
        name, scope = segments[-1], tuple(segments[:-1])
        shape = Route.QUALIFIED if scope else Route.IDENTIFIER
        edits = max_edits_for(squash(name))
        words = tuple(split_identifier(name))
        weights = {
            str(channel): weight
            for channel, weight in WEIGHTS[shape].items()
            # fuzzy and abbreviations need a few characters; words adds nothing to a
            # one-word name
            if (channel not in (Channel.FUZZY, Channel.ABBREV) or edits)
            and (channel != Channel.WORDS or len(words) > 1)
        }
        return Plan(
            route=shape,
            name=name,
            scope=scope,
            words=words,
            max_edits=edits,
            weights=weights,
        )

    words = tuple(split_text(text))
    if not words:
        raise QueryError(
            f"nothing searchable in {text[:60]!r} — use letters or digits; symfind has no query operators"
        )
    tokens = text.split(" ")
    if (len(tokens) <= MAX_WORDS_ROUTE and all(_PLAIN_WORD.match(t) for t in form.split(" "))
            and not reads_as_question([token.lower() for token in tokens])):
        weights = {str(c): w for c, w in WEIGHTS[Route.WORDS].items()}
        return Plan(route=Route.WORDS, name="".join(tokens), words=words, weights=weights)
    # Many plain words may still spell one long name (`first meta element with charset
    # should be used for decoding`, a test's): the exact channel looks for it, and only a
    # name of exactly those words matches, which no question's words make by chance.
    spelled = all(_NAME_PART.match(t) for t in form.split(" "))
    weights = {str(c): w for c, w in WEIGHTS[Route.PROSE].items()
               if c != Channel.EXACT or spelled}
    return Plan(route=Route.PROSE, name="".join(tokens) if spelled else "", words=words,
                weights=weights)
