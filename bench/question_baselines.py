"""Two baselines for questions in plain words, over the definitions symfind indexed.

Each definition is one document: the words of its name, its scope (the qualified name's
other parts), its doc and its signature -- what a BM25 over "names, signatures and
docstrings" (the usual MCP peer) sees. In the blanked variant the docs are empty.

- `Bm25`: bm25s (Lucene's BM25, k1 1.5, b 0.75) over those words, lower-cased, English
  stop words dropped, identifiers split into their words (`parseRetryAfter` -> parse,
  retry, after) and kept whole too.
- `WordLlama`: wordllama 0.4.0.post1's static embedding (`l2_supercat`, 256-d, shipped
  inside its wheel), cosine between the query and the same text. Loaded strictly offline:
  every file from the installed package, downloads disabled, and an audit hook that turns
  any socket connection or name lookup during loading and embedding into an error.

Imports: bm25s, wordllama, numpy (the `bench` extra of pyproject.toml), `bench.tools`.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from pathlib import Path

from bench.groundtruth import _WORD  # an identifier's words: HTTPServer -> HTTP, Server
from bench.tools import LIMIT, Answer, Tool

log = logging.getLogger("bench.question_baselines")

_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")
_SCOPE_SPLIT = re.compile(r"::|\.|\\|#|->")


def words(text: str, whole: bool = True) -> list[str]:
    """Lower-cased words of `text`, each identifier split into its parts (and kept whole
    too, with `whole`)."""
    out: list[str] = []
    for identifier in _IDENTIFIER.findall(text):
        parts = [p.lower() for p in _WORD.findall(identifier)]
        out.extend(parts)
        joined = identifier.lower().strip("_")
        if whole and joined and parts != [joined]:
            out.append(joined)
    return out


def document(symbol) -> str:  # noqa: ANN001 -- a symfind Symbol
    """The text a baseline searches for one definition."""
    scope = _SCOPE_SPLIT.split(symbol.qualname)[:-1]
    return " ".join((symbol.name, " ".join(scope), symbol.doc, symbol.signature))


class _Baseline(Tool):
    """Ranks the definitions it was prepared with; `score` gives one row per query."""

    def prepare(self, root: Path, defs: list) -> None:
        super().prepare(root, defs)
        self.locations = [(d.path, d.line) for d in defs]
        self.names = [f"{d.qualname} [{d.kind}] {d.path}:{d.line}" for d in defs]

    def _answer(self, scores, took_ms: float) -> Answer:  # noqa: ANN001 -- numpy row
        import numpy as np

        order = np.argsort(-scores, kind="stable")
        ranked: list[tuple[str, int]] = []
        top: list[str] = []
        for i in order:
            if scores[i] <= 0 and self.name == "bm25":
                break  # no query word in it: not an answer
            if self.locations[i] not in ranked:
                ranked.append(self.locations[i])
                top.append(self.names[i])
            if len(ranked) == LIMIT:
                break
        return Answer(ranked, took_ms, top[0] if top else "(nothing)", {"top": top[:3]})


class Bm25(_Baseline):
    name = "bm25"

    def prepare(self, root: Path, defs: list) -> None:
        import bm25s

        # bm25s sets its logger to DEBUG on import, and logs every index it builds.
        logging.getLogger("bm25s").setLevel(logging.WARNING)
        super().prepare(root, defs)
        self.stop = set(bm25s.stopwords.STOPWORDS_EN)
        self.retriever = bm25s.BM25()
        self.retriever.index([self._tokens(document(d)) for d in defs], show_progress=False)

    def _tokens(self, text: str) -> list[str]:
        return [w for w in words(text) if w not in self.stop]

    def run(self, queries: list[str]) -> list[Answer]:
        answers = []
        for query in queries:
            started = time.perf_counter()
            scores = self.retriever.get_scores(self._tokens(query))
            answers.append(self._answer(scores, (time.perf_counter() - started) * 1000))
        return answers


class NetworkAttempt(RuntimeError):
    """The static model tried to reach the network."""


_NETWORK_EVENTS = frozenset({"socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
                             "socket.gethostbyaddr", "socket.sendto", "socket.sendmsg"})
_offline = {"on": False}


def _no_network(event: str, args: tuple) -> None:
    if _offline["on"] and event in _NETWORK_EVENTS:
        raise NetworkAttempt(f"wordllama attempted the network: {event} {args!r}")


class WordLlama(_Baseline):
    name = "wordllama"
    _model = None

    @classmethod
    def model(cls):  # noqa: ANN206 -- wordllama's WordLlamaInference
        """The model, loaded once per process from the wheel's own files only."""
        if cls._model is None:
            sys.addaudithook(_no_network)  # audit hooks cannot be removed: it checks a flag
            _offline["on"] = True
            try:
                import wordllama

                # The wheel holds the weights (wordllama/weights/) and the tokenizer
                # (wordllama/tokenizers/); its loader looks for the tokenizer in a cache
                # directory's tokenizers/ only, so the package directory is that cache.
                package = Path(wordllama.__file__).parent
                cls._model = wordllama.WordLlama.load(dim=256, disable_download=True,
                                                      cache_dir=package)
            finally:
                _offline["on"] = False
        return cls._model

    def _embed(self, texts: list[str]):  # noqa: ANN202 -- numpy array
        _offline["on"] = True
        try:
            return self.model().embed(texts, norm=True)
        finally:
            _offline["on"] = False

    def prepare(self, root: Path, defs: list) -> None:
        super().prepare(root, defs)
        # Identifiers split into words: the model knows English words, not `parseUrl`.
        self.vectors = self._embed([" ".join(words(document(d), whole=False)) for d in defs])

    def run(self, queries: list[str]) -> list[Answer]:
        started = time.perf_counter()
        vectors = self._embed(queries)
        each_ms = (time.perf_counter() - started) * 1000 / max(len(queries), 1)
        answers = []
        for vector in vectors:
            started = time.perf_counter()
            scores = self.vectors @ vector
            answers.append(self._answer(scores, each_ms + (time.perf_counter() - started) * 1000))
        return answers
