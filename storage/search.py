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

from symfind.extract.records import Symbol, head_fields
from symfind.storage.channels import (
    CHANNELS,
    RECORDS_KEPT,
    Candidate,
    ChannelContext,
    farther_slips,
    known_closeness,
    new_candidate,
    typed_order,
)
from symfind.storage.contract.daemons import DaemonStatus
from symfind.storage.errors import IndexDamaged, ModelUnavailable
from symfind.storage.freshness import assess, describe, is_partial
from symfind.storage.fusion import Fused, blend, contribution, fuse
from symfind.storage.globs import glob_to_regex
from symfind.storage.index import (
    check_index,
    damaged,
    open_tantivy,
    read_through_view,
    verify_index,
    wait_for_meta_lock,
)
from symfind.storage.integrity import Stamp
from symfind.storage.manifest import (
    DamagedLog,
    LogCheck,
    ManifestHeader,
    ManifestReader,
    manifest_path,
    read_header,
)
from symfind.storage.priors import (
    HYBRID,
    HYBRID_TEXT_SHARE,
    TEST_CODE_FACTOR,
    TEST_CODE_REASON,
    asks_for_tests,
    is_test_code,
)
from symfind.storage.query import SearchQuery
from symfind.storage.records import (
    ChannelMatch,
    Freshness,
    Manifest,
    SearchResponse,
    SearchResult,
    Why,
)
from symfind.storage.references import (
    ReferencesAnswer,
    ReferencesQuery,
    UseIndex,
    classified_uses,
    find_references,
)
from symfind.storage.router import Channel, Plan, Route
from symfind.storage.schema import SPLITS_FIELD, decode_record
from symfind.storage.scoring import Statistics
from symfind.storage.words import learn_stored_splits, squash

logger = logging.getLogger(__name__)

SUGGESTIONS = 5
#: A long-lived searcher (the daemon's, the MCP server's) looks this often at whether the
#: index's files were rewritten since their checksums were checked (a few `fstat`s; the
#: checksum again only for a file that changed). Damage Tantivy trips over is caught at
#: once (`_raise_if_damaged`); this catches what it would read silently.
RECHECK_FILES_S = 1.0
#: A long-lived searcher opens Tantivy's index anew after this many reloads: each reload
#: (`Index.reload` and a new `searcher()`) leaves 1–2 KB inside Tantivy's `Index` that
#: only dropping it frees: 1.8 MB over 1,100 commits in-process, 0.3 MB with a fresh index
#: every 200 reloads (bench/history/memory.md, "The server's memory under edits"). Files
#: already checked are not read again.
RELOADS_PER_OPEN = 200
#: A writer commits Tantivy's index and then renames the manifest header over the old one:
#: a reader that opens the index between the two would search the new commit under the
#: old commit's header, and its answer's freshness would count files and symbols that are
#: not the ones searched (`0 files indexed` beside results). It waits for the header to
#: follow, this long at most (a writer cut short between the two leaves them apart until
#: its next writer commits: then the reader goes on with the header it has).
HEADER_FOLLOW_S = 0.25
HEADER_FOLLOW_STEP_S = 0.005
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
            IndexDamaged: The index's files are damaged; reindex.
            IndexHeld: A stopped process holds Tantivy's meta lock (`wait_for_meta_lock`).
        """
        self.index_dir = index_dir
        self._manifest_stamp = _stamp(manifest_path(index_dir))
        self.header: ManifestHeader = check_index(index_dir)
        self._log_check = LogCheck(index_dir)
        self._check_log()
        self._manifests = ManifestReader(index_dir)
        # Segment files found intact (their checksums), so a refresh checks only new ones.
        self._verified: dict[str, Stamp] = {}
        self._index = open_tantivy(index_dir, verified=self._verified)
        self._reloads = 0
        self._checked_at = time.monotonic()
        self._schema = self._index.schema
        self._searcher = self._index.searcher()
        self._stats = Statistics(self._searcher, self._schema)
        self._forget_records()
        self._follow_header()

    def refresh(self) -> bool:
        """Reload if a newer commit exists; True when it did.

        The manifest header is rewritten by rename at every commit, so an unchanged (inode,
        size, mtime) means no commit; a changed one costs decoding a few hundred bytes. A
        rebuilt index (`symfind reindex`: a new Tantivy directory) is opened anew.

        Raises:
            SchemaMismatch: The index is now of another schema version; reindex.
            IndexDamaged: The new commit's files are damaged; reindex.
        """
        stamp = _stamp(manifest_path(self.index_dir))
        if time.monotonic() - self._checked_at >= RECHECK_FILES_S:
            verify_index(self.index_dir, self._verified)
            self._check_log()
            self._checked_at = time.monotonic()
        if stamp == self._manifest_stamp:
            return False
        self._manifest_stamp = stamp
        header = read_header(self.index_dir)
        if header is None or header.generation == self.header.generation:
            return False
        # A new build, or an index read through a view of links (which lacks the new files).
        rebuilt = header.index_id != self.header.index_id or read_through_view(self.index_dir)
        self._load_commit(rebuilt)
        self._follow_header()
        return True

    def _load_commit(self, rebuilt: bool) -> None:
        """Take the index's current header and Tantivy's last commit: reloaded, or opened
        anew when `rebuilt` (or every RELOADS_PER_OPEN reloads); new files checked.

        Raises:
            SchemaMismatch, IndexDamaged, IndexHeld: As `refresh` and `__init__`.
        """
        self.header = check_index(self.index_dir)
        self._reloads += 1
        if rebuilt or self._reloads >= RELOADS_PER_OPEN:
            if rebuilt:
                self._verified.clear()
            self._reloads = 0
            self._index = open_tantivy(self.index_dir, verified=self._verified)
            self._schema = self._index.schema
        else:
            wait_for_meta_lock(self.index_dir)
            self._index.reload()
            verify_index(self.index_dir, self._verified)
        self._check_log()
        self._searcher = self._index.searcher()
        self._stats = Statistics(self._searcher, self._schema)
        self._forget_records()  # document keys name other records in another commit

    def _forget_records(self) -> None:
        self._records: dict[tuple[int, int], Symbol] = {}
        #: The stored splits of records kept (`SPLITS_FIELD`) that no search has needed yet.
        self._splits: dict[tuple[int, int], str] = {}

    def _follow_header(self) -> None:
        """Make `header` the one of the commit Tantivy's reader sees (their symbol counts
        agree), waiting up to HEADER_FOLLOW_S for a writer's header to follow its commit.

        Raises:
            SchemaMismatch, IndexDamaged, IndexHeld: As `refresh` and `__init__`.
        """
        deadline = time.monotonic() + HEADER_FOLLOW_S
        while (self._searcher.num_docs != self.header.symbol_count
               and time.monotonic() < deadline):
            stamp = _stamp(manifest_path(self.index_dir))
            header = read_header(self.index_dir)
            if header is not None and header.index_id != self.header.index_id:
                return  # rebuilt meanwhile: the next refresh opens the new index
            if header is None or header.generation == self.header.generation:
                time.sleep(HEADER_FOLLOW_STEP_S)  # the writer renames it next
                continue
            self._manifest_stamp = stamp
            self._load_commit(rebuilt=False)
        if self._searcher.num_docs != self.header.symbol_count:
            logger.info("%s: the header of generation %d counts %d symbols, the commit "
                        "searched holds %d", self.index_dir, self.header.generation,
                        self.header.symbol_count, self._searcher.num_docs)

    def _check_log(self) -> None:
        """Check the file log against the header's checksum, as Tantivy's files are.

        Raises:
            IndexDamaged: It is shorter than counted or fails its checksum.
        """
        try:
            self._log_check.check(self.header)
        except FileNotFoundError:
            pass  # a newer commit replaced it: the refresh that follows checks the new one
        except DamagedLog as exc:
            raise damaged(self.index_dir, str(exc)) from None

    @property
    def manifest(self) -> Manifest:
        """The whole manifest (file states) of the commit searched; read from the log only
        when asked, and then only the changes since the last time.

        Raises:
            IndexDamaged: The file table is damaged; reindex.
        """
        for _attempt in range(3):
            manifest = self._manifests.manifest(self.header)
            if manifest is not None:
                return manifest
            self.refresh()  # a newer commit replaced the log: follow it
        raise damaged(self.index_dir, "the manifest's log of file states does not decode")

    @property
    def num_symbols(self) -> int:
        return self._searcher.num_docs

    def freshness(self, daemon: DaemonStatus | None = None) -> Freshness:
        """How current the commit searched is, given the live daemon's status (None: no
        daemon runs for this index)."""
        return assess(self.header, daemon)

    def search(
        self, query: SearchQuery, plan: Plan | None = None, *, daemon: DaemonStatus | None = None
    ) -> SearchResponse:
        """Find the definitions `query` most likely means, best first.

        Args:
            query: What to look for, how many results, and the filters.
            plan: What `query.check()` returned, when the caller checked the query already
                (`search_repos` checks it once for every repository); None: checked here.
            daemon: The status of the daemon keeping the index, None when none runs: what
                the answer's freshness (and an empty answer's reason) says it may miss.

        Raises:
            QueryError: The query does not pass `SearchQuery.check`.
        """
        started = time.perf_counter()
        plan = query.check() if plan is None else plan
        filters = self._filters(query)
        rankings, found, failures = self._run(plan, filters)
        window = max(query.limit, TYPED_ORDER_WINDOW)
        # A question's test code may fall below the window once demoted: fuse twice as many.
        votes = dict(plan.weights)
        if plan.route is Route.PROSE:
            _blend_question(plan, rankings, votes, found)
        fused = fuse(rankings, votes, tiebreak=_tiebreak(plan, found),
                     top=window * 2 if plan.route is Route.PROSE else window)
        demoted = _demote_tests(plan, fused, found.symbols)
        fused = fused[:window]
        order = typed_order(plan, [found.symbols[item.key] for item in fused])
        fused = [fused[position] for position in order][:query.limit]
        results = [_result(item.key, item.score, item.ranks, plan, found,
                           _adjustments(item.key, demoted, found)) for item in fused]
        fresh = self.freshness(daemon)
        empty_reason, suggestions = "", []
        if not results and query.explain:
            empty_reason, suggestions = self._explain_empty(plan, filters, fresh)
        return SearchResponse(
            **plan.answer_fields(query.text, started),
            results=results,
            freshness=fresh,
            empty_reason=empty_reason,
            suggestions=suggestions,
            failures=failures,
        )

    def find_references(
        self, query: ReferencesQuery, *, daemon: DaemonStatus | None = None
    ) -> ReferencesAnswer:
        """Where the definition `query` names is used, in tiers (`storage/references.py`).

        Raises:
            QueryError: The query is refused, or its path and line name no definition.
            IndexDamaged: The file table is damaged; reindex.
        """
        return find_references(
            query, UseIndex(self._searcher, self._schema, self.manifest),
            search=lambda search: self.search(search, daemon=daemon),
            freshness=self.freshness(daemon),
        )

    def reference_sites(self, query: ReferencesQuery) -> dict[str, list[tuple[str, int, int]]]:
        """Every use of the definition `query` names, by tier, unpaged (to measure
        `find_references`: `storage.references.classified_uses`).

        Raises:
            QueryError: The query is refused, or names no definition.
        """
        return classified_uses(query, UseIndex(self._searcher, self._schema, self.manifest),
                               search=self.search)

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
        if len(self._records) > RECORDS_KEPT:
            self._forget_records()
        # Only a question's words are scored with the splits of names' words.
        learns = Channel.TEXT in plan.weights or Channel.VECTOR in plan.weights
        found = _Found(self._records, self._splits, learns)

        def fetch(hits: list[tuple[float, tantivy.DocAddress]]) -> list[Candidate]:
            return found.candidates(self._searcher, hits)

        ctx = ChannelContext(self._searcher, self._schema, plan, filters, fetch, {}, self._stats,
                             {}, found.closeness, {})
        rankings: dict[str, list[tuple[int, int]]] = {}
        failures: dict[str, str] = {}
        slipped: dict[str, list[Candidate]] = {}  # the fuzzy and abbreviation channels'
        for channel in plan.weights:
            try:
                ranked = CHANNELS[channel](ctx)
            except ModelUnavailable as exc:  # a broken install: the other channels answer
                logger.warning("channel %s failed: %s", channel, exc)
                failures[channel] = str(exc)
                continue
            except ValueError as exc:  # Tantivy reports query failures as ValueError
                self._raise_if_damaged(exc)
                logger.warning("channel %s failed: %s", channel, exc)
                failures[channel] = str(exc)
                continue
            except BaseException as exc:
                if type(exc).__name__ != "PanicException":  # pyo3's: a BaseException
                    raise
                self._raise_if_damaged(exc)
                raise damaged(self.index_dir, f"Tantivy panicked reading it: {exc}") from exc
            rankings[channel] = [c.key for c in ranked]
            if channel in (Channel.FUZZY, Channel.ABBREV):
                slipped[channel] = ranked
            if channel in _BLENDED and plan.route is Route.PROSE:
                found.scores[channel] = {c.key: c.score for c in ranked}
            if channel == Channel.FUZZY:
                found.distances.update((c.key, c.distance) for c in ranked)
            elif channel in _MATCHING:
                found.matched.update((c.key, c.matched) for c in ranked)
        for channel in farther_slips(plan, slipped.get(Channel.FUZZY, []),
                                     slipped.get(Channel.ABBREV, [])):
            rankings[channel] = []
        return rankings, found, failures

    def _raise_if_damaged(self, exc: BaseException) -> None:
        """Tantivy failed reading: when the index's files were damaged since they were
        checked, say so instead of answering without them.

        Raises:
            IndexDamaged: A file fails its checksum now.
        """
        try:
            verify_index(self.index_dir, self._verified)
        except IndexDamaged as damage:
            raise damage from exc

    def _explain_empty(
        self, plan: Plan, filters: list[tantivy.Query], fresh: Freshness
    ) -> tuple[str, list[str]]:
        """Why nothing was found, and the nearest names. While the index is being built,
        is behind or fails to be updated, that comes first: the answer is not final."""
        if not is_partial(fresh):
            return self._nothing_matches(plan, filters)
        if self._searcher.num_docs == 0:
            return describe(fresh), []
        reason, names = self._nothing_matches(plan, filters)
        return f"{describe(fresh)}; in what is indexed so far, {reason}", names

    def _nothing_matches(
        self, plan: Plan, filters: list[tantivy.Query]
    ) -> tuple[str, list[str]]:
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
        return f"no indexed definition matches {plan.target!r} closely enough", names


class _Found:
    """Symbols met during one search, by document key: each taken from `records`, the
    searcher's records of its commit, or decoded once and kept there.

    How a record's words split into English words (`SPLITS_FIELD`) is kept in `splits`
    until a search that `learns` meets it: only the full text and vector channels score
    with those splits (`words.compound_parts`), and teaching them to `words` cost a
    name search a sixth of its time."""

    def __init__(self, records: dict[tuple[int, int], Symbol], splits: dict[tuple[int, int], str],
                 learns: bool) -> None:
        self._records = records
        self._splits = splits
        self._learns = learns
        #: The symbols met, by document key: a search that learns no splits (one for a
        #: name) meets them in the searcher's records themselves, which stay as they are
        #: until the next search (`Searcher._run`), without copying each one met here.
        self.symbols: dict[tuple[int, int], Symbol] = {} if learns else records
        #: `channels.closeness` of the symbols ranked, by document key: the channels'
        #: tie-break, the fusion's too.
        self.closeness: dict[tuple[int, int], tuple[object, ...]] = {}
        self.distances: dict[tuple[int, int], int | None] = {}
        self.matched: dict[tuple[int, int], tuple[str, ...]] = {}
        # A question's full text and vector scores (`_BLENDED`): the fusion ranks their
        # blend, with their weights' sum; `why` shows each one's own rank and share.
        self.scores: dict[str, dict[tuple[int, int], float]] = {}
        self.ranks: dict[str, dict[tuple[int, int], int]] = {}
        self.shares: dict[str, dict[tuple[int, int], float]] = {}
        self.hybrid_weight = 0.0

    def candidates(
        self, searcher: tantivy.Searcher, hits: list[tuple[float, tantivy.DocAddress]]
    ) -> list[Candidate]:
        """The candidates of Tantivy's `hits`, each with Tantivy's score (a loop of its
        own: a BM25 channel reads up to `channels.SCORE_ALL_MATCHES`).

        The records not kept are read in the order of the documents, not of the hits:
        neighbours share the store's compressed blocks, the last few of which Tantivy
        keeps decompressed (4,000 of go-stdlib's records at random, ~7 µs each; in
        order, ~5 µs)."""
        symbols, records, splits = self.symbols, self._records, self._splits
        keys = [(address.segment_ord, address.doc) for _, address in hits]
        unread = {key: address for key, (_, address) in zip(keys, hits) if key not in records}
        for key in sorted(unread):
            document = searcher.doc(unread[key])
            records[key] = decode_record(document["record"][0])
            stored = document.get_first(SPLITS_FIELD)
            splits[key] = stored.decode() if stored else ""
        if symbols is records:  # nothing to learn: each is its record (`__init__`)
            return [new_candidate(key, records[key], score) for (score, _), key in zip(hits, keys)]
        found = []
        for (score, _), key in zip(hits, keys):
            symbol = symbols.get(key)
            if symbol is None:
                symbol = records[key]
                if self._learns and key in splits:
                    # How its words split, which scoring its `text` takes: read, not redone.
                    learn_stored_splits(symbol.qualname, splits.pop(key))
                symbols[key] = symbol
            found.append(new_candidate(key, symbol, score))
        return found


def _distinct_names(rankings: dict[str, list[tuple[int, int]]], found: _Found) -> list[str]:
    names: dict[str, None] = {}
    for keys in rankings.values():
        for key in keys:
            names.setdefault(found.symbols[key].qualname, None)
            if len(names) >= SUGGESTIONS:
                return list(names)
    return list(names)


def _tiebreak(plan: Plan, found: _Found) -> Callable[[tuple[int, int]], tuple[object, ...]]:
    """Equal scores: exact name first, then definition kind, path and line."""
    symbols, known = found.symbols, found.closeness

    def order(doc_key: tuple[int, int]) -> tuple[object, ...]:
        symbol = symbols[doc_key]
        return (squash(symbol.name) != plan.key,
                *known_closeness(plan, known, doc_key, symbol))

    return order


def _demote_tests(plan: Plan, fused: list[Fused], symbols: dict) -> set[tuple[int, int]]:
    """For a question in words that does not ask for tests, scale test code's scores down
    (`storage/priors.py`) and re-sort `fused` in place; the keys demoted."""
    if plan.route is not Route.PROSE or asks_for_tests(plan.words):
        return set()
    demoted = {item.key for item in fused if is_test_code(symbols[item.key])}
    if demoted:
        for item in fused:
            if item.key in demoted:
                item.score *= TEST_CODE_FACTOR
        fused.sort(key=lambda item: -round(item.score, 12))  # stable: ties keep their order
    return demoted


#: The channels whose results say what they matched (`ChannelMatch.matched`): the vector
#: channel's words, the abbreviation channel's alignment.
_MATCHING = (Channel.VECTOR, Channel.ABBREV)

#: The channels a question blends by score (`fusion.blend`), and each one's share.
_BLENDED = {Channel.TEXT: HYBRID_TEXT_SHARE, Channel.VECTOR: 1.0 - HYBRID_TEXT_SHARE}


def _blend_question(
    plan: Plan, rankings: dict[str, list[tuple[int, int]]], votes: dict[str, float],
    found: _Found,
) -> None:
    """A question's full text and vector rankings replaced by their blend (`HYBRID`), which
    the fusion weighs as the two together."""
    blended = [channel for channel in _BLENDED if channel in found.scores]
    if len(blended) < len(_BLENDED):  # one failed (no model): the other ranks on its own
        return
    ranking = blend({channel: found.scores[channel] for channel in blended}, _BLENDED,
                    tiebreak=_tiebreak(plan, found))
    rankings[HYBRID] = [key for key, _ in ranking]
    votes[HYBRID] = found.hybrid_weight = sum(votes.pop(channel) for channel in blended)
    for channel in blended:
        found.ranks[channel] = {key: rank for rank, key in enumerate(rankings.pop(channel), 1)}
        best = max(found.scores[channel].values(), default=0.0) or 1.0
        found.shares[channel] = {key: _BLENDED[channel] * score / best
                                 for key, score in found.scores[channel].items()}


def _adjustments(doc_key: tuple[int, int], demoted: set[tuple[int, int]], found: _Found) -> str:
    """What `why.adjusted` says of one result: the priors that moved it."""
    return TEST_CODE_REASON if doc_key in demoted else ""


def _result(
    doc_key: tuple[int, int], score: float, ranks: dict[str, int], plan: Plan, found: _Found,
    adjusted: str = "",
) -> SearchResult:
    symbol = found.symbols[doc_key]
    channels = {}
    for channel, rank in ranks.items():
        weight = found.hybrid_weight if channel == HYBRID else plan.weights[channel]
        channels[channel] = ChannelMatch(
            rank=rank, weight=weight, contribution=round(contribution(weight, rank), 6),
            distance=found.distances.get(doc_key) if channel == Channel.FUZZY else None,
            matched=found.matched.get(doc_key, ()) if channel in _MATCHING else (),
        )
    for channel, blended_ranks in found.ranks.items():  # its share of the blend
        if doc_key in blended_ranks:
            channels[channel] = ChannelMatch(
                rank=blended_ranks[doc_key], weight=_BLENDED[channel],
                contribution=round(found.shares[channel][doc_key], 6),
                matched=found.matched.get(doc_key, ()) if channel == Channel.VECTOR else (),
            )
    return SearchResult(
        **head_fields(symbol),
        start_line=symbol.start_line,
        signature=symbol.signature,
        doc=symbol.doc,
        score=round(score, 6),
        why=Why(channels=channels, adjusted=adjusted),
    )
