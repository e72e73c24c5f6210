"""Which directory is the repository, and which trees are refused (`storage.contract.roots`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from symfind.storage import NotARepository, check_root, find_root
from symfind.storage.contract.leases import lease_from_env
from symfind.storage.contract.roots import max_files_allowed


def test_the_nearest_marked_directory_upwards_is_the_root(tmp_path: Path) -> None:
    outer, inner = tmp_path / "outer", tmp_path / "outer" / "vendor" / "inner"
    (outer / ".git").mkdir(parents=True)
    (inner / "src" / "pkg").mkdir(parents=True)
    (inner / ".jj").mkdir()
    assert [find_root(p) for p in (outer / "vendor", inner / "src" / "pkg", inner, outer)] == [
        outer, inner, inner, outer,
    ]


def test_a_worktree_marker_file_counts(tmp_path: Path) -> None:
    (tmp_path / "wt" / "sub").mkdir(parents=True)
    (tmp_path / "wt" / ".git").write_text("gitdir: /elsewhere\n", encoding="utf-8")
    assert find_root(tmp_path / "wt" / "sub") == tmp_path / "wt"


def test_without_any_marker_the_directory_itself_is_the_root(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert find_root(tmp_path / "a" / "b") == tmp_path / "a" / "b"


def test_file_count_limit_counts_every_file_below(tmp_path: Path) -> None:
    for n in range(4):
        (tmp_path / f"d{n}").mkdir()
        (tmp_path / f"d{n}" / "f.txt").write_text("x", encoding="utf-8")
    check_root(tmp_path, max_files=4)
    with pytest.raises(NotARepository, match="more than 3 files"):
        check_root(tmp_path, max_files=3)


@pytest.mark.parametrize(
    ("raw", "lease", "files"), [("", 600.0, 50_000), ("2.5", 2.5, None), ("7", 7.0, 7)]
)
def test_settings_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, raw: str, lease: float, files: int | None
) -> None:
    monkeypatch.setenv("SYMFIND_DAEMON_LEASE", raw)
    monkeypatch.setenv("SYMFIND_MAX_UNMARKED_FILES", raw)
    assert lease_from_env() == lease
    if files is None:
        with pytest.raises(NotARepository, match="must be a positive integer, got '2.5'"):
            max_files_allowed()
    else:
        assert max_files_allowed() == files


@pytest.mark.parametrize("raw", ["0", "-1", "soon"])
def test_a_lease_that_is_not_a_positive_number_is_refused(
    monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    monkeypatch.setenv("SYMFIND_DAEMON_LEASE", raw)
    message = f"SYMFIND_DAEMON_LEASE must be a positive number, got '{raw}'"
    with pytest.raises(ValueError, match=message):
        lease_from_env()
