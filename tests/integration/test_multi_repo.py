"""`symfind search --repo A --repo B …`: several real indexes, one fused ranking.

Three small fixture repositories (`tests/fixtures/multi/`: billing in Python, frontend in
TypeScript, tools in Go) are indexed for real. Whole result orders — (repo, qualname, path,
line) for every result — and the per-repository status list are compared, with all three
answering and with one index built by another schema version and one never built.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import msgspec
import pytest

from symfind.cli.program import main
from symfind.cli.commands.search import federated_repos
from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index
from symfind.storage import (
    SCHEMA_VERSION,
    VERSION,
    Plan,
    Repo,
    SearchQuery,
    SearchResponse,
    index_dir_for,
    read_manifest,
    search_repos,
    write_atomically,
)
from tests.integration.test_daemon import Running

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NAMES = ("billing", "frontend", "tools")

Row = tuple[str, str, str, int]

#: Whole fused orders with all three repositories indexed (query → results).
ALL_ANSWER: dict[str, list[Row]] = {
    # exact: both HttpClient classes score alike (each is first in every channel of its
    # repository); billing, listed first, wins the tie; then the rest by score, equal
    # scores by match quality then repository order.
    "HttpClient": [
        ("billing", "HttpClient", "billing/client.py", 17),
        ("frontend", "HttpClient", "src/http.ts", 8),
        ("tools", "ledger.Client", "internal/ledger/ledger.go", 5),
        ("frontend", "HttpClient.constructor", "src/http.ts", 9),
        ("billing", "InvoiceClient", "billing/invoice.py", 17),
        ("billing", "HttpClient.__init__", "billing/client.py", 20),
        ("billing", "HttpClient.send", "billing/client.py", 24),
        ("frontend", "HttpClient.send", "src/http.ts", 11),
        ("billing", "HttpClient.close", "billing/client.py", 29),
    ],
    # typo (transposition): the same two classes first, by fuzzy distance 1. `Htpp` is
    # no word: the words channel, which reads the names holding every word of a name
    # typed, has nothing, and the classes' members are no one's finds.
    "HtppClient": [
        ("billing", "HttpClient", "billing/client.py", 17),
        ("frontend", "HttpClient", "src/http.ts", 8),
        ("tools", "ledger.Client", "internal/ledger/ledger.go", 5),
        ("billing", "InvoiceClient", "billing/invoice.py", 17),
    ],
    # words: three languages' spellings of one name, then the Go structs and functions
    # (`main.main` by its body's words: it calls ParseConfig).
    "parse config": [
        ("billing", "parse_config", "billing/client.py", 33),
        ("frontend", "parseConfig", "src/http.ts", 16),
        ("tools", "main.ParseConfig", "cmd/sync/main.go", 13),
        ("tools", "config.Config", "internal/config/config.go", 5),
        ("tools", "main.Config", "cmd/sync/main.go", 7),
        ("tools", "config.Load", "internal/config/config.go", 11),
        ("tools", "main.main", "cmd/sync/main.go", 23),
        ("tools", "main.SyncInvoices", "cmd/sync/main.go", 18),
    ],
    # exact, defined twice in one repository: its second exact match outranks the other
    # repositories' best (a partial match each). A round-robin of the repositories' own
    # ranks would put billing's and frontend's partial matches second and third.
    "Config": [
        ("tools", "main.Config", "cmd/sync/main.go", 7),
        ("tools", "config.Config", "internal/config/config.go", 5),
        ("billing", "parse_config", "billing/client.py", 33),
        ("frontend", "parseConfig", "src/http.ts", 16),
        ("tools", "main.ParseConfig", "cmd/sync/main.go", 13),
    ],
    "Confgi": [
        ("tools", "main.Config", "cmd/sync/main.go", 7),
        ("tools", "config.Config", "internal/config/config.go", 5),
        ("billing", "parse_config", "billing/client.py", 33),
        ("frontend", "parseConfig", "src/http.ts", 16),
        ("tools", "main.ParseConfig", "cmd/sync/main.go", 13),
    ],
    # qualified: each repository's first result is a `send` method with the same score;
    # those whose scope matches the query's come first, in repository order.
    "HttpClient.send": [
        ("billing", "HttpClient.send", "billing/client.py", 24),
        ("frontend", "HttpClient.send", "src/http.ts", 11),
        ("tools", "ledger.Client.Send", "internal/ledger/ledger.go", 10),
    ],
    # ... so tools, listed last, is first here: only its `Send` is in a `ledger` package.
    "ledger.send": [
        ("tools", "ledger.Client.Send", "internal/ledger/ledger.go", 10),
        ("billing", "HttpClient.send", "billing/client.py", 24),
        ("frontend", "HttpClient.send", "src/http.ts", 11),
        ("billing", "render_invoice", "billing/invoice.py", 24),
    ],
}

#: billing's own ranking: the whole answer when only billing can be searched.
BILLING_ONLY: dict[str, list[Row]] = {
    "HttpClient": [
        ("billing", "HttpClient", "billing/client.py", 17),
        ("billing", "InvoiceClient", "billing/invoice.py", 17),
        ("billing", "HttpClient.__init__", "billing/client.py", 20),
        ("billing", "HttpClient.send", "billing/client.py", 24),
        ("billing", "HttpClient.close", "billing/client.py", 29),
    ],
    "parse config": [("billing", "parse_config", "billing/client.py", 33)],
    "Config": [("billing", "parse_config", "billing/client.py", 33)],
    "HttpClient.send": [("billing", "HttpClient.send", "billing/client.py", 24)],
    "ledger.send": [
        ("billing", "HttpClient.send", "billing/client.py", 24),
        ("billing", "render_invoice", "billing/invoice.py", 24),
    ],
}
BILLING_ONLY["HtppClient"] = BILLING_ONLY["HttpClient"][:2]
BILLING_ONLY["Confgi"] = BILLING_ONLY["Config"]

OK = [("billing", "ok"), ("frontend", "ok"), ("tools", "ok")]


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("multi")
    shutil.copytree(FIXTURES / "multi", base, dirs_exist_ok=True)
    return {name: (base / name).resolve() for name in NAMES}


def index(root: Path) -> Path:
    """Index `root` where the CLI will look for it (under the current SYMFIND_INDEX_DIR)."""
    config = Config(repo=root, index_dir=index_dir_for(root), options=IndexOptions(), workers=1)
    update_index(config)
    return config.index_dir


def make_stale(index_dir: Path) -> None:
    """Record another schema version in the manifest, as an index built by an older symfind."""
    manifest = read_manifest(index_dir)
    assert manifest is not None
    older = msgspec.structs.replace(manifest, schema_version=SCHEMA_VERSION + 1)
    write_atomically(index_dir / "manifest.json", msgspec.json.encode(older))


@pytest.fixture(scope="module")
def all_indexed(tmp_path_factory: pytest.TempPathFactory, roots: dict[str, Path]) -> Path:
    """An index base where all three repositories are indexed."""
    base = tmp_path_factory.mktemp("indexes-all")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(base))
        for root in roots.values():
            index(root)
    return base


@pytest.fixture(scope="module")
def some_broken(tmp_path_factory: pytest.TempPathFactory, roots: dict[str, Path]) -> Path:
    """An index base where billing is indexed, frontend's index has another schema
    version and tools was never indexed."""
    base = tmp_path_factory.mktemp("indexes-broken")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(base))
        index(roots["billing"])
        make_stale(index(roots["frontend"]))
    return base


class Symfind:
    """Runs `symfind` in-process against one index base, returning (exit code, out, err)."""

    def __init__(self, capsys: pytest.CaptureFixture[str], roots: dict[str, Path]) -> None:
        self.capsys = capsys
        self.roots = roots

    def __call__(self, *args: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        code = main(list(args))
        captured = self.capsys.readouterr()
        return code, captured.out, captured.err

    def search(self, query: str, *args: str, repos: tuple[str, ...] = NAMES) -> tuple[int, dict]:
        flags = [part for name in repos for part in ("--repo", str(self.roots[name]))]
        code, out, err = self("search", query, *flags, "--json", *args)
        assert err == "", err
        return code, json.loads(out)


@pytest.fixture
def symfind_all(
    all_indexed: Path, roots: dict[str, Path], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> Symfind:
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(all_indexed))
    return Symfind(capsys, roots)


@pytest.fixture
def symfind_broken(
    some_broken: Path, roots: dict[str, Path], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> Symfind:
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(some_broken))
    return Symfind(capsys, roots)


def rows(answer: dict) -> list[Row]:
    return [(r["repo"], r["qualname"], r["path"], r["line"]) for r in answer["results"]]


def statuses(answer: dict) -> list[tuple[str, str]]:
    return [(s["repo"], s["status"]) for s in answer["repos"]]


@pytest.mark.parametrize("query", list(ALL_ANSWER))
def test_three_repositories_fuse_into_one_ranking(symfind_all: Symfind, query: str) -> None:
    code, answer = symfind_all.search(query)
    assert (code, rows(answer), statuses(answer)) == (0, ALL_ANSWER[query], OK)
    scores = [r["score"] for r in answer["results"]]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("query", list(ALL_ANSWER))
def test_a_stale_and_a_missing_index_are_reported_and_the_rest_answers(
    symfind_broken: Symfind, roots: dict[str, Path], some_broken: Path, query: str
) -> None:
    code, answer = symfind_broken.search(query)
    assert (code, rows(answer)) == (0, BILLING_ONLY[query])
    # The fused ranking keeps each repository's own order: billing's share of the
    # three-repository answer is the start of billing's own answer.
    share = [row for row in ALL_ANSWER[query] if row[0] == "billing"]
    assert share == BILLING_ONLY[query][: len(share)]
    assert [(s["repo"], s["root"], s["status"], s["message"]) for s in answer["repos"]] == [
        ("billing", str(roots["billing"]), "ok", ""),
        ("frontend", str(roots["frontend"]), "schema mismatch",
         (f"index schema v{SCHEMA_VERSION + 1}, symfind needs v{SCHEMA_VERSION}"
          " — run `symfind reindex`")),
        ("tools", str(roots["tools"]), "missing index",
         (f"no index at {index_dir_for_base(some_broken, roots['tools'])}"
          " — run `symfind index` first")),
    ]


def index_dir_for_base(base: Path, root: Path) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMFIND_INDEX_DIR", str(base))
        return index_dir_for(root)


def test_the_table_names_each_repository_and_failures_go_to_stderr(
    symfind_broken: Symfind, roots: dict[str, Path]
) -> None:
    code, out, err = symfind_broken(
        "search", "RetryPolcy", *(f"--repo={roots[name]}" for name in NAMES)
    )
    lines = out.splitlines()
    assert code == 0
    assert [line.split() for line in lines[:-1]] == [
        # `Polcy`: `Policy` with a letter dropped, no word of any name
        ["1", "billing", "class", "RetryPolicy", "billing/client.py:6", "fuzzy#1(d1)",
         "abbrev#1", "ngram#1"],
    ]
    assert lines[-1].startswith("[identifier; 1/3 repositories; ")
    assert [line.split(":")[:2] for line in err.splitlines()] == [
        ["symfind", " frontend"], ["symfind", " tools"],
    ]
    assert "run `symfind reindex`" in err.splitlines()[0]
    assert "run `symfind index` first" in err.splitlines()[1]


def test_no_repository_answering_is_an_index_error(
    symfind_broken: Symfind, roots: dict[str, Path]
) -> None:
    table = symfind_broken("search", "HttpClient", "--repo", str(roots["frontend"]),
                           "--repo", str(roots["tools"]))
    code, answer = symfind_broken.search("HttpClient", repos=("frontend", "tools"))
    assert (table[0], table[1]) == (3, "")
    assert table[2].splitlines()[-1] == "symfind: none of the 2 repositories could be searched"
    assert (code, answer["results"], statuses(answer)) == (
        3, [], [("frontend", "schema mismatch"), ("tools", "missing index")],
    )


def test_the_repository_listed_first_wins_ties(symfind_all: Symfind) -> None:
    _, answer = symfind_all.search("RetryPolicy", "--limit", "2", repos=("frontend", "billing"))
    first, second = answer["results"]
    assert rows(answer) == [
        ("frontend", "RetryPolicy", "src/http.ts", 3),
        ("billing", "RetryPolicy", "billing/client.py", 6),
    ]
    assert first["score"] == second["score"]
    assert statuses(answer) == [("frontend", "ok"), ("billing", "ok")]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--limit", "3"], ALL_ANSWER["HttpClient"][:3]),
        # Filters apply in each repository before it ranks (as with one repository), so
        # each repository's methods are ranked among its methods only.
        (["--kind", "method", "--limit", "3"], [
            ("billing", "HttpClient.__init__", "billing/client.py", 20),
            ("frontend", "HttpClient.constructor", "src/http.ts", 9),
            ("billing", "HttpClient.send", "billing/client.py", 24),
        ]),
        (["--lang", "typescript"], [
            ("frontend", "HttpClient", "src/http.ts", 8),
            ("frontend", "HttpClient.constructor", "src/http.ts", 9),
            ("frontend", "HttpClient.send", "src/http.ts", 11),
        ]),
        (["--path", "billing/invoice.py"], [
            ("billing", "InvoiceClient", "billing/invoice.py", 17),
        ]),
    ],
)
def test_filters_and_limit_apply_to_the_fused_list(
    symfind_all: Symfind, flags: list[str], expected: list[Row]
) -> None:
    code, answer = symfind_all.search("HttpClient", *flags)
    assert (code, rows(answer)) == (0, expected)


def test_the_same_definition_scores_the_same_in_a_small_and_a_large_repository(
    tmp_path: Path, roots: dict[str, Path], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "large": billing's code among every other fixture source (~25x the symbols).
    large = tmp_path / "large"
    shutil.copytree(FIXTURES / "repo", large)
    shutil.copytree(FIXTURES / "languages", large / "languages")
    shutil.copytree(roots["billing"] / "billing", large / "billing")
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(tmp_path / "indexes"))
    index(roots["billing"])
    index(large.resolve())
    run = Symfind(capsys, {**roots, "large": large.resolve()})
    _, small_first = run.search("RetryPolicy", "--limit", "2", repos=("billing", "large"))
    _, large_first = run.search("RetryPolicy", "--limit", "2", repos=("large", "billing"))
    assert rows(small_first) == [
        ("billing", "RetryPolicy", "billing/client.py", 6),
        ("large", "RetryPolicy", "billing/client.py", 6),
    ]
    assert rows(large_first) == rows(small_first)[::-1]
    assert len({r["score"] for r in small_first["results"]}) == 1
    small, large_files = (s["freshness"]["files"] for s in small_first["repos"])
    assert (small, large_files > 6 * small) == (3, True)


def test_queries_from_a_file_answer_one_json_line_each_with_repositories(
    symfind_broken: Symfind, roots: dict[str, Path], tmp_path: Path
) -> None:
    queries = tmp_path / "queries.txt"
    queries.write_text("HtppClient\n\n((((\nparse config\n", encoding="utf-8")
    code, out, err = symfind_broken(
        "search", "--queries-from", str(queries), "--repo", str(roots["billing"]),
        "--repo", str(roots["tools"]), "--limit", "2", "--json",
    )
    answers = [json.loads(line) for line in out.splitlines()]
    assert (code, err) == (0, "")
    assert [(a["query"], a["route"]) for a in answers] == [
        ("HtppClient", "identifier"), ("", "invalid"), ("((((", "invalid"),
        ("parse config", "words"),
    ]
    first = answers[0]
    assert list(first) == ["query", "route", "took_ms", "results", "repos", "symfind_version"]
    assert {a["symfind_version"] for a in answers} == {VERSION}
    assert list(first["results"][0]) == ["repo", "name", "qualname", "kind", "language", "path",
                                         "line", "end_line", "signature", "score", "why"]
    assert rows(first) == BILLING_ONLY["HtppClient"][:2]
    assert rows(answers[3]) == [("billing", "parse_config", "billing/client.py", 33)]
    assert statuses(answers[3]) == [("billing", "ok"), ("tools", "missing index")]
    assert answers[1]["error"].startswith("empty query")
    assert answers[2]["error"].startswith("nothing searchable")


def test_one_repo_answers_exactly_as_before(
    symfind_all: Symfind, roots: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, named, _ = symfind_all("search", "HttpClient", "--repo", str(roots["billing"]), "--json")
    monkeypatch.chdir(roots["billing"])
    _, implicit, _ = symfind_all("search", "HttpClient", "--json")
    one, default = json.loads(named), json.loads(implicit)
    assert "repos" not in one and all("repo" not in r for r in one["results"])
    assert {**one, "took_ms": 0} == {**default, "took_ms": 0}
    assert [(r["qualname"], r["line"]) for r in one["results"]] == [
        (qualname, line) for _, qualname, _, line in BILLING_ONLY["HttpClient"]
    ]


def test_bad_input_fails_the_whole_search_once(symfind_all: Symfind, roots: dict[str, Path]) -> None:
    code, out, err = symfind_all("search", "", "--repo", str(roots["billing"]),
                                 "--repo", str(roots["tools"]))
    assert (code, out, err.startswith("symfind: empty query")) == (2, "", True)


def test_a_path_that_is_not_a_repository_is_one_failing_repository(
    symfind_all: Symfind, roots: dict[str, Path], tmp_path: Path
) -> None:
    missing = tmp_path / "nope"
    code, out, err = symfind_all("search", "parse config", "--repo", str(missing),
                                 "--repo", str(roots["tools"]), "--repo", str(roots["tools"]),
                                 "--json")
    answer = json.loads(out)
    assert (code, err) == (0, "")
    assert rows(answer) == [row for row in ALL_ANSWER["parse config"] if row[0] == "tools"]
    assert [(s["repo"], s["status"], s["message"]) for s in answer["repos"]] == [
        ("nope", "error", f"repository {str(missing)!r} does not exist"),
        ("tools", "ok", ""),  # listed twice, searched once
    ]


def test_nothing_found_anywhere_says_why_and_suggests_names(symfind_all: Symfind) -> None:
    code, answer = symfind_all.search("Zebrafish")
    assert (code, answer["results"], statuses(answer)) == (0, [], OK)
    assert answer["empty_reason"] == "no indexed definition matches 'Zebrafish' closely enough"


@pytest.fixture
def billing_daemon(
    tmp_path: Path, roots: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Running]:
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(tmp_path / "indexes"))
    config = Config(repo=roots["billing"], index_dir=index_dir_for(roots["billing"]),
                    options=IndexOptions(), workers=1)
    running = Running(config).start()  # builds billing's index itself
    yield running
    running.stop()


def test_a_running_daemon_answers_for_its_repository(
    billing_daemon: Running, roots: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    index(roots["frontend"])
    run = Symfind(capsys, roots)
    code, answer = run.search("HttpClient", repos=("billing", "frontend"))
    assert (code, rows(answer)) == (0, [
        ("billing", "HttpClient", "billing/client.py", 17),
        ("frontend", "HttpClient", "src/http.ts", 8),
        ("frontend", "HttpClient.constructor", "src/http.ts", 9),
        ("billing", "InvoiceClient", "billing/invoice.py", 17),
        ("billing", "HttpClient.__init__", "billing/client.py", 20),
        ("billing", "HttpClient.send", "billing/client.py", 24),
        ("frontend", "HttpClient.send", "src/http.ts", 11),
        ("billing", "HttpClient.close", "billing/client.py", 29),
    ])
    assert statuses(answer) == [("billing", "ok"), ("frontend", "ok")]
    # White-box: the daemon opens its searcher on the first search request it serves.
    assert billing_daemon.daemon.keeper.source._searcher is not None


def test_searching_concurrently_gives_the_same_answer(
    all_indexed: Path, roots: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(all_indexed))
    repos = federated_repos([str(roots[name]) for name in NAMES])
    with ThreadPoolExecutor(max_workers=3) as pool:
        for query in ALL_ANSWER:
            alone = search_repos(repos, SearchQuery(text=query))
            together = search_repos(repos, SearchQuery(text=query), executor=pool)
            assert [r.repo for r in together.results] == [r.repo for r in alone.results]
            assert together.results == alone.results


def test_empty_answers_are_explained_only_when_every_repository_has_one(
    all_indexed: Path, roots: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Explaining an empty answer is a second search; a repository whose empty answer the
    # fused list does not show must not pay for it. The real searches, with what each
    # repository was asked recorded.
    monkeypatch.setenv("SYMFIND_INDEX_DIR", str(all_indexed))
    asked: list[tuple[str, bool]] = []
    plans: set[str] = set()  # each repository is given the plan checked once for all

    def recording(repo: Repo) -> Repo:
        def search(query: SearchQuery, plan: Plan) -> SearchResponse:
            asked.append((repo.label, query.explain))
            plans.add(str(plan))
            return repo.search(query, plan)

        return Repo(repo.label, repo.root, search)

    repos = [recording(repo) for repo in federated_repos([str(roots[n]) for n in NAMES])]
    found = search_repos(repos, SearchQuery(text="parse_config"))  # found: no second round
    assert (asked, found.empty_reason, found.suggestions) == (
        [("billing", False), ("frontend", False), ("tools", False)], "", [])
    assert plans == {found.plan} == {str(SearchQuery(text="parse_config").check())}
    asked.clear()
    nothing = search_repos(repos, SearchQuery(text="Zebrafish"))
    assert asked == [(name, explain) for explain in (False, True) for name in NAMES]
    assert nothing.empty_reason == "no indexed definition matches 'Zebrafish' closely enough"
