"""Run a query against an index: route, run channels, fuse, explain.

Imports: tantivy, `extract.records`, `storage` modules. Raw query text never
reaches Tantivy's query parser: every Tantivy query is built from parsed terms.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import tantivy

from symfind.extract.records import Symbol
from symfind.storage.channels import CHANNELS, Candidate, ChannelContext, closeness, typed_order
from symfind.storage.errors import SchemaMismatch
from symfind.storage.fusion import contribution, fuse
from symfind.storage.globs import glob_to_regex
from symfind.storage.index import check_index, open_tantivy
from symfind.storage.manifest import ManifestHeader, ManifestReader, manifest_path, read_header
from symfind.storage.query import SearchQuery
from symfind.storage.records import (
    ChannelMatch,
    Freshness,
    Manifest,
    SearchResponse,
    SearchResult,
    Why,
)
from symfind.storage.router import Channel, Plan, Route
from symfind.storage.schema import decode_record
from symfind.storage.words import squash

logger = logging.getLogger(__name__)

SUGGESTIONS = 5
# Names made of the same words are put in the order typed among the best this many
# (`typed_order`): the same first results whatever the limit asked for, up to it.
TYPED_ORDER_WINDOW = 50


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


class Searcher:
    """Searches one index directory; cheap to keep open, `refresh()` picks up commits."""

    def __init__(self, index_dir: Path) -> None:
        """Open the index for reading.

        Raises:
            IndexMissing: No index at `index_dir`.
            SchemaMismatch: The index was built by another schema version; reindex.
        """
        self.index_dir = index_dir
        self._manifest_stamp = _stamp(manifest_path(index_dir))
        self.header: ManifestHeader = check_index(index_dir)
        self._manifests = ManifestReader(index_dir)
        self._index = open_tantivy(index_dir)
        self._schema = self._index.schema
        self._searcher = self._index.searcher()

    def refresh(self) -> bool:
        """Reload if a newer commit exists; True when it did.

        The manifest header is rewritten by rename at every commit, so an unchanged (inode,
        size, mtime) means no commit; a changed one costs decoding a few hundred bytes.
        """
        stamp = _stamp(manifest_path(self.index_dir))
        if stamp == self._manifest_stamp:
            return False
        self._manifest_stamp = stamp
        header = read_header(self.index_dir)
        if header is None or header.generation == self.header.generation:
            return False
        self.header = check_index(self.index_dir)
        self._index.reload()
        self._searcher = self._index.searcher()
        return True

    @property
    def manifest(self) -> Manifest:
        """The whole manifest (file states) of the commit searched; read from the log only
        when asked, and then only the changes since the last time.

        Raises:
            SchemaMismatch: The file table is damaged; reindex.
        """
        for _attempt in range(3):
            manifest = self._manifests.manifest(self.header)
            if manifest is not None:
                return manifest
            self.refresh()  # a newer commit replaced the log: follow it
        raise SchemaMismatch(f"index at {self.index_dir} is damaged — run `symfind reindex`")

    @property
    def num_symbols(self) -> int:
        return self._searcher.num_docs

    def freshness(self, pending: int = 0) -> Freshness:
        return Freshness(
            generation=self.header.generation,
            updated_at=self.header.updated_at,
            files=self.header.file_count,
            pending=pending,
        )

    def search(self, query: SearchQuery, *, pending: int = 0) -> SearchResponse:
        """Find the definitions `query` most likely means, best first.

        Args:
            query: What to look for, how many results, and the filters.
            pending: Changes the caller knows are not indexed yet (reported as is).

        Raises:
            QueryError: The query does not pass `SearchQuery.check`.
        """
        started = time.perf_counter()
        plan = query.check()
        filters = self._filters(query)
        rankings, found, failures = self._run(plan, filters)
        fused = fuse(rankings, plan.weights, tiebreak=_tiebreak(plan, found.symbols),
                     top=max(query.limit, TYPED_ORDER_WINDOW))
        order = typed_order(plan, [found.symbols[item.key] for item in fused])
        fused = [fused[position] for position in order][:query.limit]
        results = [_result(item.key, item.score, item.ranks, plan, found) for item in fused]
        empty_reason, suggestions = "", []
        if not results and query.explain:
            empty_reason, suggestions = self._explain_empty(plan, filters)
        return SearchResponse(
            query=query.text,
            route=str(plan.route),
            channels=dict(plan.weights),
            took_ms=round((time.perf_counter() - started) * 1000, 3),
            results=results,
            freshness=self.freshness(pending),
            empty_reason=empty_reason,
            suggestions=suggestions,
            failures=failures,
        )

    def all_symbols(self) -> list[Symbol]:
        """Every indexed symbol, sorted by path, line and name (for checks and exports)."""
        count = self._searcher.num_docs
        if count == 0:
            return []
        hits = self._searcher.search(tantivy.Query.all_query(), count, count=False).hits
        symbols = [decode_record(self._searcher.doc(address)["record"][0]) for _, address in hits]
        return sorted(symbols, key=lambda s: (s.path, s.line, s.name, s.kind))

    def _filters(self, query: SearchQuery) -> list[tantivy.Query]:
        filters = []
        if query.kind:
            filters.append(tantivy.Query.term_query(self._schema, "kind", query.kind))
        if query.language:
            filters.append(tantivy.Query.term_query(self._schema, "language", query.language))
        if query.path:
            regex = glob_to_regex(query.path)
            filters.append(tantivy.Query.regex_query(self._schema, "path", regex))
        return filters

    def _run(
        self, plan: Plan, filters: list[tantivy.Query]
    ) -> tuple[dict[str, list[tuple[int, int]]], _Found, dict[str, str]]:
        found = _Found()

        def fetch(hits: list[tuple[float, tantivy.DocAddress]]) -> list[Candidate]:
            return [found.candidate(self._searcher, address, score) for score, address in hits]

        ctx = ChannelContext(self._searcher, self._schema, plan, filters, fetch, {})
        rankings: dict[str, list[tuple[int, int]]] = {}
        failures: dict[str, str] = {}
        for channel in plan.weights:
            try:
                ranked = CHANNELS[channel](ctx)
            except ValueError as exc:  # Tantivy reports query failures as ValueError
                logger.warning("channel %s failed: %s", channel, exc)
                failures[channel] = str(exc)
                continue
            rankings[channel] = [c.key for c in ranked]
            if channel == Channel.FUZZY:
                found.distances.update((c.key, c.distance) for c in ranked)
        return rankings, found, failures

    def _explain_empty(self, plan: Plan, filters: list[tantivy.Query]) -> tuple[str, list[str]]:
        if self._searcher.num_docs == 0:
            return "the index holds no symbols yet — run `symfind index`", []
        if filters:
            rankings, found, _ = self._run(plan, [])
            if any(rankings.values()):
                return (
                    "nothing matches with these filters; these match without them",
                    _distinct_names(rankings, found),
                )
        names: list[str] = []
        if plan.key and plan.route is not Route.PROSE:
            wide = Plan(
                route=plan.route, name=plan.name, words=plan.words, max_edits=2,
                weights={Channel.FUZZY: 1.0, Channel.NGRAM: 1.0},
            )
            rankings, found, _ = self._run(wide, [])
            names = _distinct_names(rankings, found)
        target = ".".join((*plan.scope, plan.name)) if plan.name else " ".join(plan.words)
        return f"no indexed definition matches {target!r} closely enough", names


class _Found:
    """Symbols decoded during one search, by document key (each decoded once)."""

    def __init__(self) -> None:
        self.symbols: dict[tuple[int, int], Symbol] = {}
        self.distances: dict[tuple[int, int], int | None] = {}

    def candidate(
        self, searcher: tantivy.Searcher, address: tantivy.DocAddress, score: float
    ) -> Candidate:
        key = (address.segment_ord, address.doc)
        symbol = self.symbols.get(key)
        if symbol is None:
            symbol = self.symbols[key] = decode_record(searcher.doc(address)["record"][0])
        return Candidate(key, symbol, score)


def _distinct_names(rankings: dict[str, list[tuple[int, int]]], found: _Found) -> list[str]:
    names: dict[str, None] = {}
    for keys in rankings.values():
        for key in keys:
            names.setdefault(found.symbols[key].qualname, None)
            if len(names) >= SUGGESTIONS:
                return list(names)
    return list(names)


def _tiebreak(
    plan: Plan, symbols: dict[tuple[int, int], Symbol]
) -> Callable[[tuple[int, int]], tuple[object, ...]]:
    """Equal scores: exact name first, then definition kind, path and line."""

    def order(doc_key: tuple[int, int]) -> tuple[object, ...]:
        symbol = symbols[doc_key]
        return (squash(symbol.name) != plan.key, *closeness(plan, symbol))

    return order


def _result(
    doc_key: tuple[int, int], score: float, ranks: dict[str, int], plan: Plan, found: _Found
) -> SearchResult:
    symbol = found.symbols[doc_key]
    channels = {
        channel: ChannelMatch(
            rank=rank,
            weight=plan.weights[channel],
            contribution=round(contribution(plan.weights[channel], rank), 6),
            distance=found.distances.get(doc_key) if channel == Channel.FUZZY else None,
        )
        for channel, rank in ranks.items()
    }
    return SearchResult(
        name=symbol.name,
        qualname=symbol.qualname,
        kind=symbol.kind,
        language=symbol.language,
        path=symbol.path,
        line=symbol.line,
        end_line=symbol.end_line,
        start_line=symbol.start_line,
        signature=symbol.signature,
        doc=symbol.doc,
        score=round(score, 6),
        why=Why(channels=channels),
    )
