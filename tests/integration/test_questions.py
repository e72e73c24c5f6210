"""Questions in words: the prose route's full text and vector channels, end to end.

A small real repository is written to disk, indexed by the real CLI and searched by it
(`symfind search --json`), with the real embedding model from the wordllama package; one
search runs with the network taken away (`unshare -n`, a new network namespace with no
interface but a down loopback) to show that the model loads from the installed files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCES = {
    "shop/storage.py": '''\
"""Object storage for uploaded product images."""


class BlobStore:
    """Keeps product images in a bucket."""

    def __init__(self, bucket):
        self.bucket = bucket

    def purge(self, key):
        """Erase one stored object for good."""
        self.bucket.remove(key)

    def fetch(self, key):
        """Download one object's bytes."""
        return self.bucket.get(key)


def resend_upload(client, payload, attempts=3):
    for attempt in range(attempts):
        try:
            return client.put(payload)
        except ConnectionError:
            backoff_sleep(attempt)
    raise UploadFailed(payload)


def backoff_sleep(attempt):
    # wait longer after every failure
    time.sleep(2 ** attempt)


class UploadFailed(Exception):
    pass


def merge_cookies(request, cookies):
    """Merge cookies into the request's cookie jar."""
    for name, value in cookies.items():
        request.jar[name] = value
    return request


def parse_retry_after(headers):
    value = headers.get("Retry-After")
    return int(value) if value else None
''',
    "tests/test_storage.py": '''\
from shop.storage import merge_cookies, resend_upload


def test_merge_cookies():
    """Merge cookies into a request and check the jar."""
    request = merge_cookies(Request(), {"a": "1"})
    assert request.jar["a"] == "1"


def test_resend_upload_retries():
    assert resend_upload(FlakyClient(), b"x")
''',
}
TEST_CODE = "test code, for a question that does not ask for tests: score × 0.5"


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("shop")
    for relative, text in SOURCES.items():
        (repo / relative).parent.mkdir(parents=True, exist_ok=True)
        (repo / relative).write_text(text, encoding="utf-8")
    env = {"SYMFIND_INDEX_DIR": str(tmp_path_factory.mktemp("indexes"))}
    run(["index", str(repo)], env)
    return repo, env


def run(args: list[str], env: dict[str, str], prefix: tuple[str, ...] = ()) -> str:
    import os

    done = subprocess.run([*prefix, sys.executable, "-P", "-m", "symfind.cli", *args],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout


def ranked(shop: tuple[Path, dict[str, str]], question: str,
           prefix: tuple[str, ...] = ()) -> list[tuple[object, ...]]:
    """The top four: qualname, each channel's rank (and the vector channel's matched
    words), and what adjusted the score."""
    repo, env = shop
    answer = json.loads(run(["search", question, str(repo), "--json", "--limit", "4"], env,
                            prefix))
    assert answer["route"] == "prose"
    return [
        (r["qualname"],
         {name: (m["rank"], *([m["matched"]] if "matched" in m else []))
          for name, m in r["why"]["channels"].items()},
         r["why"].get("adjusted", ""))
        for r in answer["results"]
    ]


def test_a_sentence_of_a_doc_finds_its_definition_first(shop) -> None:
    assert ranked(shop, "Erase one stored object for good.") == [
        ("BlobStore.purge", {"hybrid": (1,), "text": (1,),
                             "vector": (1, ["erase", "one", "stored", "object", "good"])}, ""),
        ("BlobStore.fetch", {"hybrid": (2,), "text": (2,),
                             "vector": (2, ["one", "stored→store", "object"])}, ""),
        ("BlobStore", {"hybrid": (3,), "text": (3,), "vector": (3, ["stored→store"])}, ""),
        ("BlobStore.__init__", {"hybrid": (4,), "text": (4,), "vector": (4, ["stored→store"])}, ""),
    ]


def test_a_question_without_the_names_words_is_found_by_meaning(shop) -> None:
    # `delete` is in no definition: the vector channel finds `purge` first by `remove` in its
    # body, where full text, matching `file` and `bucket` only, puts it third.
    assert ranked(shop, "delete a file from the bucket") == [
        ("BlobStore.__init__", {"hybrid": (1,), "text": (1,), "vector": (3, ["bucket"])}, ""),
        ("BlobStore", {"hybrid": (2,), "text": (2,), "vector": (2, ["bucket"])}, ""),
        ("BlobStore.purge", {"hybrid": (3,), "text": (3,),
                             "vector": (1, ["delete→remove", "bucket"])}, ""),
        ("BlobStore.fetch", {"hybrid": (4,), "text": (4,), "vector": (4, ["bucket"])}, ""),
    ]
    # `retry` is no word of `resend_upload`: its body's `try` is close enough.
    assert ranked(shop, "what parses the Retry-After header") == [
        ("parse_retry_after", {"hybrid": (1,), "text": (1,),
                               "vector": (1, ["parses→parse", "retry", "header→headers"])}, ""),
        ("resend_upload", {"hybrid": (3,), "vector": (2, ["retry→try"])}, ""),
        ("backoff_sleep", {"hybrid": (4,), "text": (3,)}, ""),
        ("test_resend_upload_retries", {"hybrid": (2,), "text": (2,)}, TEST_CODE),
    ]


def test_test_code_ranks_below_the_code_it_tests_unless_tests_are_asked_for(shop) -> None:
    assert ranked(shop, "where are cookies merged into a request") == [
        ("merge_cookies", {"hybrid": (1,), "text": (1,),
                           "vector": (1, ["cookies", "merged→merge", "request"])}, ""),
        ("test_merge_cookies", {"hybrid": (2,), "text": (2,),
                                "vector": (2, ["cookies", "merged→merge", "request"])}, TEST_CODE),
    ]
    assert ranked(shop, "which test checks merging cookies") == [
        ("test_merge_cookies", {"hybrid": (1,), "text": (1,),
                                "vector": (1, ["test", "checks→check", "merging→merge", "cookies"])},
         ""),
        ("merge_cookies", {"hybrid": (2,), "text": (2,), "vector": (2, ["merging→merge", "cookies"])},
         ""),
        ("test_resend_upload_retries", {"hybrid": (3,), "text": (3,),
                                        "vector": (3, ["test", "checks→test"])}, ""),
    ]


def without_network() -> tuple[str, ...] | None:
    """How to run a command with the network taken away: a new network namespace, which
    root makes (`unshare --net`) and another user only inside a user namespace of their
    own (`unshare -rn`, where the kernel allows it); None when neither works here."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    prefix = (unshare, "--net") if os.geteuid() == 0 else (unshare, "--map-root-user", "--net")
    probe = subprocess.run([*prefix, "true"], capture_output=True, check=False, timeout=60)
    return prefix if probe.returncode == 0 else None


WITHOUT_NETWORK = without_network()


@pytest.mark.skipif(WITHOUT_NETWORK is None, reason=(
    "taking the network away needs root (unshare --net), or user namespaces for another "
    "user (unshare -rn): neither works here"))
def test_questions_are_answered_with_no_network(shop) -> None:
    assert WITHOUT_NETWORK is not None
    offline = ranked(shop, "delete a file from the bucket", prefix=WITHOUT_NETWORK)
    assert offline == ranked(shop, "delete a file from the bucket")


def test_a_broken_model_install_leaves_full_text_answering(shop, tmp_path: Path) -> None:
    # A `wordllama` that is not the real one (first on the path, without the model's
    # files): the vector channel fails, says why, and the text channel still answers.
    (tmp_path / "wordllama").mkdir()
    (tmp_path / "wordllama" / "__init__.py").write_text("", encoding="utf-8")
    repo, env = shop
    answer = json.loads(run(["search", "what parses the Retry-After header", str(repo), "--json"],
                            {**env, "PYTHONPATH": str(tmp_path)}))
    assert [r["qualname"] for r in answer["results"]] == [
        "parse_retry_after", "backoff_sleep", "test_resend_upload_retries"]
    assert all(list(r["why"]["channels"]) == ["text"] for r in answer["results"])
    weights = tmp_path / "wordllama" / "weights" / "l2_supercat_256.safetensors"
    assert answer["failures"] == {
        "vector": f"the model's vectors did not load from {weights}: "
                  "FileNotFoundError(2, 'No such file or directory')"}


C_SOURCES = {
    "ldo.c": '''\
static int stackinuse (lua_State *L) {
  return cast_int(L->top - L->stack) + 1;
}

static void shrinkstack (lua_State *L) {
  int inuse = stackinuse(L);
  luaD_reallocstack(L, inuse * 2, 0);
}

void luaD_growstack (lua_State *L, int n) {
  luaD_reallocstack(L, L->size + n, 1);
}
''',
}


@pytest.fixture(scope="module")
def lua(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("lua")
    for relative, text in C_SOURCES.items():
        (repo / relative).write_text(text, encoding="utf-8")
    env = {"SYMFIND_INDEX_DIR": str(tmp_path_factory.mktemp("indexes"))}
    run(["index", str(repo)], env)
    return repo, env


SHRINK_QUESTION = "where do we shrink the stack back down after a deep call"


def test_a_question_finds_a_name_that_runs_its_words_together(lua) -> None:
    # C names often join words with no case change or `_`: `shrinkstack` is indexed with
    # `shrink` and `stack` too, so the question's words find it by full text.
    assert ranked(lua, SHRINK_QUESTION) == [
        ("shrinkstack", {"hybrid": (1,), "text": (1,), "vector": (1, ["shrink", "stack"])}, ""),
        ("stackinuse", {"hybrid": (2,), "text": (2,), "vector": (3, ["stack"])}, ""),
        ("luaD_growstack", {"hybrid": (3,), "text": (3,), "vector": (2, ["shrink→size", "stack"])},
         ""),
    ]


SPLIT_SOURCES = {
    "heap.py": '''\
class Garbage:
    def collect(self):
        """Free the objects nothing reaches."""


def shrinkstack(frames):
    """Give the stack's unused frames back."""
    return frames[:1]


def getbaseline(stack):
    return stack[0]
''',
}

#: A search in a new process: its answer and the words it split (`split_compound`),
#: optionally with the splits the index stored left unread.
SPLITS_PROBE = """
import json, sys
from pathlib import Path
from symfind.storage import SearchQuery, Searcher, compounds, index_dir_for, search
splits = []
split = compounds.split_compound
compounds.split_compound = lambda word: splits.append(word) or split(word)
if sys.argv[2] == "unread":
    search.learn_stored_splits = lambda qualname, stored: None
answer = Searcher(index_dir_for(Path(sys.argv[1]))).search(SearchQuery(text=sys.argv[3]))
print(json.dumps({"splits": sorted(set(splits)), "results": [
    [r.qualname, r.path, r.line, r.score, repr(r.why)] for r in answer.results]}))
"""


def test_a_search_reads_the_splits_the_index_stored(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # Scoring a candidate's `text` takes its words' splits: read from the index (those it
    # splits, and that it splits no other), a search splits no word again (the word list
    # unloaded: a fifth of a question's CPU from the command line) and answers as it does
    # splitting them.
    repo = tmp_path_factory.mktemp("splits")
    for relative, text in SPLIT_SOURCES.items():
        (repo / relative).write_text(text, encoding="utf-8")
    env = {"SYMFIND_INDEX_DIR": str(tmp_path_factory.mktemp("indexes"))}
    run(["index", str(repo)], env)

    def probe(stored: str) -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-P", "-c", SPLITS_PROBE, str(repo.resolve()), stored,
             "where is the stack shrunk and the garbage collected"],
            capture_output=True, text=True, timeout=300, env={**os.environ, **env})
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    read, unread = probe("read"), probe("unread")
    assert read["splits"] == []
    assert unread["splits"] == ["collect", "garbage", "getbaseline", "shrinkstack"]
    assert read["results"] == unread["results"]
    assert {result[0] for result in read["results"]} == {
        "Garbage", "Garbage.collect", "shrinkstack", "getbaseline"}
