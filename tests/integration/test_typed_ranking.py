"""What was typed decides between names the channels cannot tell apart (issue 21, item 16).

Each case is a small repository under `tests/fixtures/typed_ranking/`, shaped like the
real code where held-out queries missed, indexed by the real indexer; every assertion
is the whole result list.

- A lower-case query is a name typed without its capitals: `pollfuture` means
  `PollFuture`, not `poll_future`, which matches only once its `_` is dropped.
- Words that spell a name exactly mean that name: `crt sig v 4 auth` is `CrtSigV4Auth`,
  even where the text channel prefers `CrtSigV4QueryAuth`, whose signature
  `class CrtSigV4QueryAuth(CrtSigV4Auth)` holds every word twice.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index
from symfind.storage import Searcher, SearchQuery

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "typed_ranking"


@pytest.fixture(scope="module")
def searchers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Searcher]:
    """One index per fixture repository, built from a copy of its files."""
    opened = {}
    for fixture in sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()):
        repo = tmp_path_factory.mktemp(fixture) / "repo"
        shutil.copytree(FIXTURES / fixture, repo)
        index_dir = tmp_path_factory.mktemp(f"{fixture}-index")
        update_index(Config(repo=repo, index_dir=index_dir, options=IndexOptions(), workers=1))
        opened[fixture] = Searcher(index_dir)
    return opened


def ranking(searcher: Searcher, query: str) -> list[str]:
    return [f"{r.qualname} {r.path}:{r.line}"
            for r in searcher.search(SearchQuery(text=query, limit=50)).results]


TASK = [
    "PollFuture harness.rs:23",
    "poll_future harness.rs:31",
    "PollFuture::Notified harness.rs:24",
    "PollFuture::Complete harness.rs:25",
    "PollFuture::Dealloc harness.rs:26",
    "PollFuture::Done harness.rs:27",
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # Equal to `PollFuture` ignoring case; `poll_future` only without its `_`.
        ("pollfuture", TASK[:2]),
        # As typed, each of the two comes first.
        ("PollFuture", TASK),
        ("poll_future", [TASK[1], TASK[0], *TASK[2:]]),
    ],
)
def test_a_name_typed_in_lower_case_means_the_name_equal_to_it_ignoring_case(
    searchers: dict[str, Searcher], query: str, expected: list[str]
) -> None:
    assert ranking(searchers["task"], query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("file_access_information", [
            "FILE_ACCESS_INFORMATION winapi.h:20",  # the same name, ignoring case
            "_FILE_ACCESS_INFORMATION winapi.h:18",  # one `_` more
            "_FILE_INFORMATION_CLASS::FileAccessInformation winapi.h:9",  # two `_` fewer
            "PFILE_ACCESS_INFORMATION winapi.h:20",
            "FILE_INFORMATION_CLASS winapi.h:11",
            "_FILE_INFORMATION_CLASS winapi.h:6",
            "PFILE_INFORMATION_CLASS winapi.h:11",
            "_FILE_INFORMATION_CLASS::FileBasicInformation winapi.h:8",
            "FILE_BASIC_INFORMATION winapi.h:16",
            "_FILE_BASIC_INFORMATION winapi.h:13",
            "PFILE_BASIC_INFORMATION winapi.h:16",
            "FILE_MODE_INFORMATION winapi.h:24",
            "_FILE_MODE_INFORMATION winapi.h:22",
            "_FILE_INFORMATION_CLASS::FileModeInformation winapi.h:10",
            "PFILE_MODE_INFORMATION winapi.h:24",
            "_FILE_INFORMATION_CLASS::FileDirectoryInformation winapi.h:7",
        ]),
        ("fileaccessinformation", [
            "_FILE_INFORMATION_CLASS::FileAccessInformation winapi.h:9",  # equal ignoring case
            "FILE_ACCESS_INFORMATION winapi.h:20",
            "_FILE_ACCESS_INFORMATION winapi.h:18",
            "PFILE_ACCESS_INFORMATION winapi.h:20",
            "FILE_INFORMATION_CLASS winapi.h:11",
            "_FILE_INFORMATION_CLASS winapi.h:6",
            "PFILE_INFORMATION_CLASS winapi.h:11",
            "_FILE_INFORMATION_CLASS::FileBasicInformation winapi.h:8",
            "FILE_BASIC_INFORMATION winapi.h:16",
            "_FILE_BASIC_INFORMATION winapi.h:13",
            "PFILE_BASIC_INFORMATION winapi.h:16",
            "_FILE_INFORMATION_CLASS::FileModeInformation winapi.h:10",
            "FILE_MODE_INFORMATION winapi.h:24",
            "_FILE_MODE_INFORMATION winapi.h:22",
            "PFILE_MODE_INFORMATION winapi.h:24",
            "_FILE_INFORMATION_CLASS::FileDirectoryInformation winapi.h:7",
        ]),
    ],
)
def test_a_lower_case_name_means_the_name_equal_to_it_ignoring_case_whatever_its_separators(
    searchers: dict[str, Searcher], query: str, expected: list[str]
) -> None:
    assert ranking(searchers["winapi"], query) == expected


SIGNERS_METHODS = [
    "CrtSigV4Auth.add_auth auth.py:11",
    "CrtSigV4Auth._modify_request_before_signing auth.py:14",
    "CrtS3SigV4Auth._should_sha256_sign_payload auth.py:19",
    "BaseSigner.add_auth base.py:4",
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # Five tokens, one of them a digit: a question's route (text and vector), so
        # ranks 2-6, each one word off the name, follow the blend of the two channels.
        ("crt sig v 4 auth", [
            "CrtSigV4Auth auth.py:8",
            "CrtS3SigV4Auth auth.py:18",
            "CrtSigV4QueryAuth auth.py:31",
            "CrtSigV4AsymQueryAuth auth.py:27",
            "CrtS3SigV4QueryAuth auth.py:35",
            "CrtSigV4AsymAuth auth.py:23",
            *SIGNERS_METHODS,
        ]),
        ("crt sig v 4 query auth", [
            "CrtSigV4QueryAuth auth.py:31",
            "CrtS3SigV4QueryAuth auth.py:35",
            "CrtSigV4AsymQueryAuth auth.py:27",
            "CrtS3SigV4Auth auth.py:18",
            "CrtSigV4Auth auth.py:8",
            "CrtSigV4AsymAuth auth.py:23",
            *SIGNERS_METHODS,
        ]),
        # Four plain words: the words route, whose words channel orders ranks 2-6 by
        # the words each name adds.
        ("crt sig v4 auth", [
            "CrtSigV4Auth auth.py:8",
            "CrtSigV4QueryAuth auth.py:31",
            "CrtSigV4AsymAuth auth.py:23",
            "CrtS3SigV4Auth auth.py:18",
            "CrtSigV4AsymQueryAuth auth.py:27",
            "CrtS3SigV4QueryAuth auth.py:35",
            *SIGNERS_METHODS,
        ]),
    ],
)
def test_words_that_spell_a_name_exactly_mean_that_name(
    searchers: dict[str, Searcher], query: str, expected: list[str]
) -> None:
    assert ranking(searchers["signers"], query) == expected
