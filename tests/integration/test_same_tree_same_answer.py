"""Same tree, same answer: an index kept through any history of edits answers every query
exactly as a fresh index of the same files does (whole ranked lists, every field of every
result, `why` included).

Random histories over real packages (`bench/corpora.toml`: requests 2.32.3 in Python,
cobra 1.6.1-1 in Go; test files over `MAX_TEST_FILE_BYTES` left out, for time):
edits inside files, definitions added that share the queries'
names (in the package and in its tests), files deleted, moved and added, and branch
switches that replace a third to half of the files at once. Each history starts from
the package indexed whole and is applied as the daemon applies changes: batches staged in
`IndexWriter` and committed, most from extractions kept per file content (the cost of a
history is then Tantivy's), some through `apply_changes` on real files, one per package
by a real daemon watching the directory. Deleted documents stay in Tantivy's segments
until it merges them, which is what used to sway scores. Seeded: a failure names the
corpus, the seed and the history, and `SYMFIND_HISTORY_SEED=<seed>` replays it alone
(`SYMFIND_HISTORIES=<n>` runs n histories per corpus).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from bench.corpora import load_table
from tests.corpora import TEST_CORPORA_DIR
from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import apply_changes, update_index
from symfind.daemon.walk import IgnoreRules
from symfind.extract import extract_symbols, language_for_path
from symfind.extract.records import Symbol
from symfind.storage import FileState, IndexWriter, Searcher, SearchQuery, channels
from symfind.storage.priors import _TEST_PATH
from tests.integration.test_daemon import Running

HISTORIES = 100  # per corpus
# Every this many histories goes through `apply_changes` on real files, not kept extractions.
ON_DISK_EVERY = 10
QUESTION_EVERY = 5  # the question (the vector channel: the costliest search) this often
MAX_STEPS = 4
# The packages' largest test files are left out (requests' test_requests.py, 104 KB;
# cobra's completions_test.go and command_test.go, 89 and 70 KB): a history's cost
# follows the definitions indexed.
MAX_TEST_FILE_BYTES = 40_000

QUERIES = {
    "requests": [
        "Session", "Response", "get", "merge_setting", "Sesion", "session", "HTTPadapter",
        "requests.Session.get", "sessions.merge_setting", "http adapter", "prepare body",
    ],
    "cobra": [
        "Command", "Execute", "Flags", "AddCommand", "Comand", "command", "flagset",
        "cobra.Command.Execute", "Command.Flags", "flag set", "bash completion",
    ],
}
QUESTIONS = {
    "requests": "how are cookies merged into a request",
    "cobra": "where are the flags of a command parsed",
}
# Definitions a history adds, named as the queries' answers: ties for the tie-breaks.
ADDED = {
    "requests": [
        "class Session:\n    def get(self, url):\n        return url\n",
        "class Response:\n    pass\n",
        "def merge_setting(request_setting, session_setting):\n    return request_setting\n",
        "def get(url, params=None):\n    return url\n",
    ],
    "cobra": [
        "type Command struct{}\n\nfunc (c *Command) Execute() error { return nil }\n",
        "func AddCommand() {}\n",
        "func (c *Command) Flags() int { return 0 }\n",
        "type flagSet struct{}\n",
    ],
}
HEADER = {"requests": "", "cobra": "package cobra\n\n"}
SUFFIX = {"requests": ".py", "cobra": ".go"}


def corpus_root(name: str) -> Path:
    corpus = next(c for c in load_table() if c.name == name)
    fetched = TEST_CORPORA_DIR / corpus.dirname
    if fetched.is_dir():
        return fetched
    if not corpus.present:
        pytest.skip(f"corpus absent: {fetched} (`python3 -m bench.corpora --into "
                    f"{TEST_CORPORA_DIR} {name}` fetches it, as .ci/run does)")
    return corpus.path


Tree = dict[str, bytes]


def is_test_path(path: str) -> bool:
    return _TEST_PATH.search(path) is not None


def original_tree(root: Path) -> Tree:
    tree = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.is_file() and not path.is_symlink() and language_for_path(relative):
            data = path.read_bytes()
            if len(data) <= MAX_TEST_FILE_BYTES or not is_test_path(relative):
                tree[relative] = data
    return tree


class History:
    """A random history of batches over a tree: each batch the new contents of the paths
    it touches (None: deleted)."""

    def __init__(self, corpus: str, original: Tree, seed: int) -> None:
        self.corpus = corpus
        self.original = original
        self.rng = random.Random(f"{corpus}:{seed}")
        self.tree = dict(original)
        self.added = 0
        self.log: list[str] = []

    def batches(self) -> Iterator[dict[str, bytes | None]]:
        for _ in range(self.rng.randint(1, MAX_STEPS)):
            batch: dict[str, bytes | None] = {}
            if self.rng.random() < 0.3:
                self._switch(batch)
            else:
                for _ in range(self.rng.randint(1, 3)):
                    self.rng.choice([self._edit, self._edit, self._add, self._delete,
                                     self._move, self._restore])(batch)
            for path, content in batch.items():
                if content is None:
                    self.tree.pop(path, None)
                else:
                    self.tree[path] = content
            yield batch

    def _pick(self) -> str:
        return self.rng.choice(sorted(self.tree))

    def _cut(self, data: bytes) -> bytes:
        """`data` without a block of its lines (an edit, a branch's other version)."""
        lines = data.split(b"\n")
        start = self.rng.randrange(len(lines))
        return b"\n".join(lines[:start] + lines[start + self.rng.randint(1, max(1, len(lines) // 4)):])

    def _edit(self, batch: dict[str, bytes | None]) -> None:
        path = self._pick()
        current = self.tree[path]
        if self.rng.random() < 0.5:
            batch[path] = self._cut(current)
            self.log.append(f"cut {path}")
        else:
            batch[path] = current + b"\n\n" + self.rng.choice(ADDED[self.corpus]).encode()
            self.log.append(f"append to {path}")

    def _add(self, batch: dict[str, bytes | None]) -> None:
        self.added += 1
        directory = self.rng.choice(["tests/", "", "extra/"])
        stem = "test_added" if directory == "tests/" else "added"
        path = f"{directory}{stem}_{self.added}{SUFFIX[self.corpus]}"
        body = "\n\n".join(self.rng.sample(ADDED[self.corpus], 2))
        batch[path] = (HEADER[self.corpus] + body).encode()
        self.log.append(f"add {path}")

    def _delete(self, batch: dict[str, bytes | None]) -> None:
        path = self._pick()
        batch[path] = None
        self.log.append(f"delete {path}")

    def _move(self, batch: dict[str, bytes | None]) -> None:
        path = self._pick()
        self.added += 1
        target = f"moved_{self.added}/{path.rsplit('/', 1)[-1]}"
        batch[target] = batch.get(path, self.tree[path])
        batch[path] = None
        self.log.append(f"move {path} {target}")

    def _restore(self, batch: dict[str, bytes | None]) -> None:
        path = self.rng.choice(sorted(self.original))
        batch[path] = self.original[path]
        self.log.append(f"restore {path}")

    def _switch(self, batch: dict[str, bytes | None]) -> None:
        paths = sorted(self.original)
        share = self.rng.uniform(0.3, 0.5)
        for path in self.rng.sample(paths, int(len(paths) * share)):
            batch[path] = self._cut(self.original[path]) if self.rng.random() < 0.7 \
                else self.original[path]
        self.log.append(f"switch {len(batch)} files")


class Extractions:
    """Each file content's symbols, extracted once (the tree's files come back often)."""

    def __init__(self) -> None:
        self._symbols: dict[tuple[str, bytes], list[Symbol]] = {}

    def state(self, path: str, data: bytes) -> tuple[FileState, list[Symbol]]:
        symbols = self._symbols.get((path, data))
        if symbols is None:
            symbols = self._symbols[(path, data)] = extract_symbols(path, data)
        digest = str(hash(data))
        return FileState(mtime_ns=0, size=len(data), digest=digest, symbols=len(symbols)), symbols


def stage(writer: IndexWriter, extractions: Extractions, batch: dict[str, bytes | None]) -> None:
    for path, data in sorted(batch.items()):
        if data is None:
            writer.delete_file(path)
        else:
            writer.replace_file(path, *extractions.state(path, data))


def open_writer(index_dir: Path, repo: Path, *, fresh: bool = False) -> IndexWriter:
    return IndexWriter(index_dir, repo_root=repo, options_hash="history", fresh=fresh)


def build(index_dir: Path, repo: Path, extractions: Extractions, tree: Tree) -> None:
    """An index of `tree` built at once, as `symfind index` builds one (one batch)."""
    with open_writer(index_dir, repo, fresh=True) as writer:
        stage(writer, extractions, dict(tree))
        writer.commit()


def write_tree(repo: Path, batch: dict[str, bytes | None]) -> None:
    for path, data in batch.items():
        target = repo / path
        if data is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


@contextlib.contextmanager
def postings_scored(on: bool) -> Iterator[None]:
    """`on`: the name channels score their matches from Tantivy's postings whatever the
    index's size (`storage.postings`; by default only in an index of more documents than
    `channels.POSTINGS_SCORED_FROM`, none here), so the two ways of scoring are held to
    the same answers."""
    scored_from = channels.POSTINGS_SCORED_FROM
    channels.POSTINGS_SCORED_FROM = 0 if on else scored_from
    try:
        yield
    finally:
        channels.POSTINGS_SCORED_FROM = scored_from


def answers(index_dir: Path, queries: list[str], *, from_postings: bool = False
            ) -> dict[str, object]:
    searcher = Searcher(index_dir)
    with postings_scored(from_postings):
        return {query: msgspec.to_builtins(
            searcher.search(SearchQuery(text=query, limit=10)).results) for query in queries}


def channel_lists(index_dir: Path, query: str, *, from_postings: bool = False
                  ) -> dict[str, list[tuple[str, int, str]]]:
    """Each channel's whole ranked list for `query`, as `answers` reads the index."""
    with postings_scored(from_postings):
        rankings, found, _ = Searcher(index_dir)._run(SearchQuery(text=query).check(), [])
    return {channel: [(found.symbols[key].path, found.symbols[key].line,
                       found.symbols[key].qualname) for key in keys]
            for channel, keys in rankings.items()}


def first_difference(kept: dict[str, object], fresh: dict[str, object]) -> str:
    for query in fresh:
        if kept[query] != fresh[query]:
            return (f"{query!r}: kept {[(r['path'], r['line'], r['name']) for r in kept[query]]}"
                    f"\n  fresh {[(r['path'], r['line'], r['name']) for r in fresh[query]]}")
    return ""


def seeds() -> list[int]:
    chosen = os.environ.get("SYMFIND_HISTORY_SEED")
    return [int(chosen)] if chosen else list(range(int(os.environ.get("SYMFIND_HISTORIES",
                                                                       HISTORIES))))


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["requests", "cobra"])
def test_an_index_kept_through_any_history_answers_as_a_fresh_one(
    corpus: str, tmp_path: Path
) -> None:
    original = original_tree(corpus_root(corpus))
    extractions = Extractions()
    repo = tmp_path / "repo"
    write_tree(repo, dict(original))
    start = tmp_path / "start"
    build(start, repo, extractions, original)
    failures = []
    for seed in seeds():
        history = History(corpus, original, seed)
        kept, fresh = tmp_path / f"kept-{seed}", tmp_path / f"fresh-{seed}"
        shutil.copytree(start, kept)
        if seed % ON_DISK_EVERY == 0:  # the daemon's incremental path on real files
            config = Config(repo=repo, index_dir=kept, options=IndexOptions(), workers=1)
            rules = IgnoreRules(repo)
            with IndexWriter(kept, repo_root=repo, options_hash="history") as writer:
                for batch in history.batches():
                    write_tree(repo, batch)
                    apply_changes(writer, config, rules, batch)
                    writer.commit()
            update_index(Config(repo=repo, index_dir=fresh, options=IndexOptions(), workers=1),
                         fresh=True)
            shutil.rmtree(repo)  # back to the package as it is, for the next history
            write_tree(repo, dict(original))
        else:
            with open_writer(kept, repo) as writer:
                for batch in history.batches():
                    stage(writer, extractions, batch)
                    writer.commit()
            build(fresh, repo, extractions, history.tree)
        queries = QUERIES[corpus] + ([QUESTIONS[corpus]] if seed % QUESTION_EVERY == 0 else [])
        # One index read from postings, the other from records, the sides taking turns.
        postings = seed % 2 == 0
        difference = first_difference(answers(kept, queries, from_postings=postings),
                                      answers(fresh, queries, from_postings=not postings))
        if difference:
            failures.append(f"seed {seed} ({'; '.join(history.log)}): {difference}")
        # Freed for the disk's sake only: a searcher of either, not yet collected, may
        # lay Tantivy's meta lock file in it again while the tree is removed.
        shutil.rmtree(kept, ignore_errors=True)
        shutil.rmtree(fresh, ignore_errors=True)
    assert failures == [], f"{len(failures)} of {len(seeds())} histories of {corpus}:\n" + \
        "\n".join(failures[:5])


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["requests", "cobra"])
def test_a_daemon_that_followed_branch_switches_answers_as_a_fresh_index(
    corpus: str, tmp_path: Path
) -> None:
    original = original_tree(corpus_root(corpus))
    repo = (tmp_path / "repo").resolve()
    write_tree(repo, dict(original))
    config = Config(repo=repo, index_dir=tmp_path / "index", options=IndexOptions(), workers=1)
    history = History(corpus, original, seed=1000)
    daemon = Running(config).start()
    try:
        for step in range(4):  # four branch switches, with an edit or two between them
            batch: dict[str, bytes | None] = {}
            history._switch(batch)
            history._edit(batch)
            if step:
                batch[f"sentinel_{step - 1}{SUFFIX[corpus]}"] = None
            sentinel = f"sentinel_{step}{SUFFIX[corpus]}"
            batch[sentinel] = (HEADER[corpus] + ADDED[corpus][step % 4]).encode()
            write_tree(repo, batch)
            history.tree.update({p: d for p, d in batch.items() if d is not None})
            daemon.wait_until_applied(sentinel)
        queries = QUERIES[corpus] + [QUESTIONS[corpus]]
        kept = answers(config.index_dir, queries)
    finally:
        daemon.stop()
    fresh = tmp_path / "fresh"
    update_index(Config(repo=repo, index_dir=fresh, options=IndexOptions(), workers=1), fresh=True)
    assert first_difference(kept, answers(fresh, queries)) == ""
    assert first_difference(answers(config.index_dir, queries, from_postings=True),
                            answers(fresh, queries)) == ""


# More definitions of one name than a channel keeps (`channels.BM25_CANDIDATES`, 50;
# `EXACT_CANDIDATES`, 100), all scoring alike: which of them a channel keeps is the tree's
# choice, not the order their documents were written in.
TIED_FILES = 120


@pytest.mark.parametrize(
    "queries", [["Response", "response handler", "handler", "respons", "response_handler",
                 "tests.response_handler", "tests.handler",
                 # Word prefixes: more names hold the heads than the abbreviation channel
                 # reads, all of one length (`channels._shortest`: the tie at its cut).
                 "ResHan", "tests.ResHan"]])
def test_ties_beyond_a_channels_cut_are_kept_by_the_tree(
    queries: list[str], tmp_path: Path
) -> None:
    tree = {f"tests/test_case_{n:02d}.py": b"def response_handler(sock):\n    return sock\n"
            for n in range(TIED_FILES)}
    tree["src/server.py"] = b"def response_handler(sock):\n    return sock\n"
    # Its words in another order: tied with them in the words channel, after them all
    # for `response_handler` (the name typed comes first), before them in the tree.
    tree["src/client.py"] = b"def handler_response(sock):\n    return sock\n"
    extractions = Extractions()
    repo = tmp_path / "repo"
    kept, fresh = tmp_path / "kept", tmp_path / "fresh"
    build(kept, repo, extractions, tree)
    rewritten = sorted(tree)
    random.Random(TIED_FILES).shuffle(rewritten)
    with open_writer(kept, repo) as writer:  # every file rewritten, in three shuffled batches
        for batch in (rewritten[::3], rewritten[1::3], rewritten[2::3]):
            for path in batch:
                writer.replace_file(path, *extractions.state(path, tree[path]))
            writer.commit()
    build(fresh, repo, extractions, tree)
    assert first_difference(answers(kept, queries), answers(fresh, queries)) == ""
    assert first_difference(answers(kept, queries, from_postings=True),
                            answers(fresh, queries)) == ""
    for query in queries:  # every channel's whole list, beyond the answer's first ten
        assert channel_lists(kept, query, from_postings=True) == channel_lists(fresh, query)
    assert [r["path"] for r in answers(fresh, ["Response"])["Response"]][:4] == [
        "src/client.py", "src/server.py", "tests/test_case_00.py", "tests/test_case_01.py"]
