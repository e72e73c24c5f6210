"""The token store's pure parts: matching a presented token, durations, recording uses."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from symfind.cli.commands.token import duration
from symfind.mcp_server.tokens import Token, TokenStore, digest, match, new_token


def test_match_finds_the_one_token_whose_digest_it_is() -> None:
    tokens = [new_token() for _ in range(20)]
    records = [Token(name=f"t{i}", sha256=digest(t).hex(), created_at=0.0)
               for i, t in enumerate(tokens)]
    assert [match(records, t) for t in tokens] == records
    assert match(records, new_token()) is None
    assert match(records, tokens[3][:-1]) is None
    assert match(records, "") is None
    assert match([], tokens[0]) is None


@pytest.mark.parametrize(("text", "seconds"), [
    ("30d", 30 * 86_400), ("12h", 43_200), ("90m", 5_400), ("2w", 1_209_600), ("3600s", 3_600),
    (" 7d ", 7 * 86_400), ("3650d", 3650 * 86_400),
])
def test_durations(text: str, seconds: int) -> None:
    assert duration(text) == seconds


@pytest.mark.parametrize("text", ["", "30", "d", "0d", "-1d", "1y", "1.5d", "3651d", "30 days"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="not a duration"):
        duration(text)


def test_record_use_never_brings_back_a_revoked_token_nor_goes_back_in_time(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "config")
    kept = store.create("kept", expires_at=None, now=1.0)
    gone = store.create("gone", expires_at=None, now=1.0)
    store.revoke("gone")
    store.record_use({digest(kept).hex(): 50.0, digest(gone).hex(): 50.0})
    assert [(t.name, t.last_used_at) for t in store.read()] == [("kept", 50.0)]
    store.record_use({digest(kept).hex(): 20.0})
    assert [(t.name, t.last_used_at) for t in store.read()] == [("kept", 50.0)]
