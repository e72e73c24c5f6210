"""Search several repositories' indexes at once and fuse their answers into one ranking.

Each repository is searched by a callable (`RepoSearch`) that the caller supplies: an
`IndexSource`'s `search` reads an index directory in-process; the CLI passes one that asks
the repository's daemon over its socket first (`storage` never imports `daemon`). A repository that cannot be searched — no index, another schema version, any
other storage failure — gets a status of its own and the others still answer.

Fusion: every repository answers the same query with the same router, channel weights and
RRF `k`, so its fused scores, `Σ w_c / (k + rank_c)`, are on one scale. They are built from
ranks *within* that repository, never from raw BM25 scores (whose IDF depends on each
index's size and vocabulary), so a 100-symbol repository and a 100,000-symbol one are
scored alike: the best exact match scores the same in both. The fused list orders results
by that score. Reciprocal Rank Fusion over the repositories' own result ranks
(`1 / (k + rank_in_repo)`) was rejected: each result appears in exactly one repository's
list, so it degenerates to a round-robin of the repositories, and a weak first result of a
repository with nothing relevant would tie with an exact match elsewhere.

Rank-based scores tie often across repositories — every repository has a first result,
and a scope-less `handleError` is first in its repository for `Layer.handle_error` as the
right one is in its own — so equal scores break by how well the result itself matches the
query, which means the same in every repository: the name exactly (case, `_`, `-`
ignored), then how many scope segments of a qualified query its qualified name or path
holds, then the fuzzy channel's edit distance to the name (`_seg_42` before `set2` for
`_set_42`), then how many query words its qualified name holds. Remaining ties go to the
repository given first. The lists are merged head by head, so a result never overtakes
one its own repository ranked above it, and the output is deterministic.
"""

from __future__ import annotations

import enum
import heapq
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import PurePath, PurePosixPath

import msgspec

from symfind.storage.errors import IndexMissing, SchemaMismatch, StorageError
from symfind.storage.query import SearchQuery
from symfind.storage.records import Freshness, SearchResponse, SearchResult
from symfind.storage.router import Plan
from symfind.storage.search import SUGGESTIONS
from symfind.storage.words import qualifier_parts, split_text, squash

logger = logging.getLogger(__name__)

#: The edit distance of a result the fuzzy channel did not find (farther than any it finds).
_FAR = 99


class RepoState(enum.StrEnum):
    """Whether one repository answered a federated search."""

    OK = "ok"
    MISSING = "missing index"
    MISMATCH = "schema mismatch"
    ERROR = "error"


#: Answers a query for one repository, given the plan `query.check()` returned (checked
#: once, before any repository is asked). Raises `StorageError` (`IndexMissing`,
#: `SchemaMismatch`, ...) when the repository cannot be searched.
RepoSearch = Callable[[SearchQuery, Plan], SearchResponse]


@dataclass(frozen=True, slots=True)
class Repo:
    """One repository of a federated search.

    Attributes:
        label: Short unique name shown on its results (see `repo_labels`).
        root: Absolute path of the repository, as the user gave it when it does not resolve.
        search: How to search it.
    """

    label: str
    root: str
    search: RepoSearch


class RepoStatus(msgspec.Struct, frozen=True, kw_only=True):
    """How one repository answered.

    Attributes:
        repo: Its label, as on its results.
        root: Its absolute path.
        status: `ok`, `missing index`, `schema mismatch` or `error`.
        message: Why it did not answer, and what to do (empty when `ok`).
        took_ms: Time spent on it, failed or not.
        results: Results it returned before fusion (its share of the fused list may be smaller).
        freshness: Its index's generation, files and pending changes (when `ok`).
        failures: Channels that failed in it (the others still answered).
    """

    repo: str
    root: str
    status: RepoState
    message: str = ""
    took_ms: float = 0.0
    results: int = 0
    freshness: Freshness | None = None
    failures: dict[str, str] = {}


class RepoResult(SearchResult, frozen=True, kw_only=True):
    """A `SearchResult` of a federated search, naming its repository (a `RepoStatus.repo`)."""

    repo: str


class FederatedResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The answer of several repositories to one query.

    Attributes:
        route, channels, plan: How the query was read (`SearchResponse`'s); the same in
            every repository.
        took_ms: Wall time of the whole search.
        results: The fused ranking, best first.
        repos: One status per repository, in the order they were given.
        empty_reason: Why nothing was found (only when `results` is empty).
        suggestions: Nearest names across repositories (only when `results` is empty).
    """

    query: str
    route: str
    channels: dict[str, float]
    took_ms: float
    results: list[RepoResult]
    repos: list[RepoStatus]
    empty_reason: str = ""
    suggestions: list[str] = []
    plan: str = ""

    @property
    def answered(self) -> int:
        """How many repositories answered (status `ok`)."""
        return sum(status.status is RepoState.OK for status in self.repos)


def repo_labels(roots: Sequence[str | PurePath]) -> list[str]:
    """Short, unique, deterministic labels: each root's last path component, with as many
    parent components as it takes to tell apart roots that share a name."""
    parts = [PurePath(root).parts or (str(root),) for root in roots]
    depth = [1] * len(parts)
    while True:
        labels = ["/".join(p[-d:]) for p, d in zip(parts, depth, strict=True)]
        clashes = {label for label in labels if labels.count(label) > 1}
        grow = [i for i, label in enumerate(labels) if label in clashes and depth[i] < len(parts[i])]
        if not grow:
            return labels
        for i in grow:
            depth[i] += 1


def search_repos(
    repos: Sequence[Repo], query: SearchQuery, *, executor: Executor | None = None
) -> FederatedResponse:
    """Search every repository and fuse their answers into one ranking (see the module doc).

    Filters apply in each repository before it ranks, as in a one-repository search, and
    the limit to the fused list: each repository is asked for `query.limit` results, all
    the fused list can take from it.

    Args:
        repos: The repositories, in priority order (the first wins ties).
        query: The query; its path filter is relative to each repository's root.
        executor: Searches the repositories concurrently when given (a thread pool: Tantivy
            releases the GIL while it searches, and daemons answer in their own
            processes); the answer is the same either way.

    Raises:
        QueryError: The query does not pass `SearchQuery.check` — the same in every
            repository, so the whole search fails rather than each repository.
    """
    started = time.perf_counter()
    plan = query.check()
    asked = _ask_all(repos, query, plan, executor)
    statuses = [answer.status for answer in asked]
    answers = [
        (repo.label, answer.response)
        for repo, answer in zip(repos, asked, strict=True)
        if answer.response is not None
    ]
    results = fuse_answers(answers, plan, query.limit)
    empty_reason, suggestions = ("", []) if results else _explain_empty(answers, statuses)
    return FederatedResponse(
        **plan.answer_fields(query.text, started),
        results=results,
        repos=statuses,
        empty_reason=empty_reason,
        suggestions=suggestions,
    )


def search_repo(repo: Repo, query: SearchQuery) -> SearchResponse:
    """`search_repos` over a list of one, answered in the one-repository form: that
    repository's own response, or the error it raised.

    Raises:
        QueryError: The query does not pass `SearchQuery.check`.
        StorageError: The repository cannot be searched (`IndexMissing`, `SchemaMismatch`,
            ...), as its search raised it.
    """
    (answer,) = _ask_all([repo], query, query.check(), None)
    if answer.error is not None:
        raise answer.error
    assert answer.response is not None
    return answer.response


@dataclass(frozen=True, slots=True)
class _Answer:
    """How one repository answered: its response, or the error it raised."""

    response: SearchResponse | None
    status: RepoStatus
    error: StorageError | None = None


def _ask_all(
    repos: Sequence[Repo], query: SearchQuery, plan: Plan, executor: Executor | None
) -> list[_Answer]:
    """Ask every repository. Why nothing was found, and the nearest names, take a second
    search in each repository: asked for (when `query.explain`) only once every answer is
    known to be empty — at once when there is only one repository."""
    request = msgspec.structs.replace(query, explain=query.explain and len(repos) == 1)

    def ask_each(request: SearchQuery) -> list[_Answer]:
        def ask(repo: Repo) -> _Answer:
            return _ask(repo, request, plan)

        return list(executor.map(ask, repos) if executor is not None else map(ask, repos))

    asked = ask_each(request)
    if query.explain and not request.explain:
        answered = [answer.response for answer in asked if answer.response is not None]
        if answered and not any(response.results for response in answered):
            asked = ask_each(query)
    return asked


def fuse_answers(
    answers: Sequence[tuple[str, SearchResponse]], plan: Plan, limit: int
) -> list[RepoResult]:
    """Merge per-repository answers (label, response), in priority order, into one ranking.

    Merges the lists head by head: the best head by score, then by match quality for
    `plan` (see the module doc), then by repository order.
    """
    quality = _match_quality(plan)

    def head(position: int, index: int) -> tuple[tuple[float, int, int, int, int], int, int]:
        result = answers[position][1].results[index]
        return (-result.score, *quality(result)), position, index

    heap = [head(position, 0) for position, (_, r) in enumerate(answers) if r.results]
    heapq.heapify(heap)
    fused: list[RepoResult] = []
    while heap and len(fused) < limit:
        _, position, index = heapq.heappop(heap)
        label, response = answers[position]
        fused.append(RepoResult(repo=label, **msgspec.structs.asdict(response.results[index])))
        if index + 1 < len(response.results):
            heapq.heappush(heap, head(position, index + 1))
    return fused


def _match_quality(plan: Plan) -> Callable[[SearchResult], tuple[int, int, int, int]]:
    """A sort key (smaller is better) of how well a result matches the query, from the
    result alone, so that it means the same in every repository."""
    words = set(plan.words)
    scope = [squash(segment) for segment in plan.scope]

    def quality(result: SearchResult) -> tuple[int, int, int, int]:
        exact = bool(plan.key) and squash(result.name) == plan.key
        scope_hits = 0
        if scope:
            terms = {squash(part) for part in qualifier_parts(result.qualname)[:-1]}
            terms.update(squash(PurePosixPath(part).stem) for part in result.path.split("/"))
            scope_hits = sum(segment in terms for segment in scope)
        fuzzy = result.why.channels.get("fuzzy")
        distance = fuzzy.distance if fuzzy is not None and fuzzy.distance is not None else _FAR
        covered = len(words.intersection(split_text(result.qualname))) if words else 0
        return (-exact, -scope_hits, distance, -covered)

    return quality


def _ask(repo: Repo, request: SearchQuery, plan: Plan) -> _Answer:
    started = time.perf_counter()
    try:
        response = repo.search(request, plan)
    except StorageError as exc:  # includes a QueryError only this repository raised
        took_ms = round((time.perf_counter() - started) * 1000, 3)
        state = (RepoState.MISSING if isinstance(exc, IndexMissing)
                 else RepoState.MISMATCH if isinstance(exc, SchemaMismatch) else RepoState.ERROR)
        logger.info("%s: %s", repo.label, exc)
        status = RepoStatus(repo=repo.label, root=repo.root, status=state, message=str(exc),
                            took_ms=took_ms)
        return _Answer(None, status, exc)
    took_ms = round((time.perf_counter() - started) * 1000, 3)
    return _Answer(response, RepoStatus(
        repo=repo.label, root=repo.root, status=RepoState.OK, took_ms=took_ms,
        results=len(response.results), freshness=response.freshness, failures=response.failures,
    ))


def _explain_empty(
    answers: Sequence[tuple[str, SearchResponse]], statuses: Sequence[RepoStatus]
) -> tuple[str, list[str]]:
    if not answers:
        return f"none of the {len(statuses)} repositories could be searched", []
    reasons = dict.fromkeys(r.empty_reason for _, r in answers if r.empty_reason)
    names = dict.fromkeys(name for _, r in answers for name in r.suggestions)
    return "; ".join(reasons), list(names)[:SUGGESTIONS]
