"""The manifest as a header and a log of changes: a commit writes what it changed, readers
see exactly the committed table, and a writer killed between the log and the header
leaves nothing that the next one trusts."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from symfind.extract.records import Symbol, SymbolKind
from symfind.storage import IndexDamaged, IndexWriter, Searcher, read_manifest
from symfind.storage import manifest as manifest_module
from symfind.storage import search as search_module
from symfind.storage.index import IndexState, index_state
from symfind.storage.manifest import (
    FileChanges,
    ManifestReader,
    manifest_path,
    read_changes,
    read_header,
)
from symfind.storage.records import FileState


def symbol(path: str, name: str) -> Symbol:
    return Symbol(
        name=name, qualname=name, kind=SymbolKind.FUNCTION, language="python", path=path,
        line=1, end_line=1, start_line=1, signature=f"def {name}()", doc="",
    )


def state(path: str, version: int = 0) -> FileState:
    return FileState(size=version, mtime_ns=version, digest=f"{path}@{version}",
                     language="python")


def open_writer(index_dir: Path, *, fresh: bool = False) -> IndexWriter:
    return IndexWriter(index_dir, repo_root=Path("/repo"), options_hash="h", fresh=fresh)


def last_frame(index_dir: Path) -> FileChanges:
    header = read_header(index_dir)
    assert header is not None
    return list(read_changes(index_dir / header.log_name, 0, header.log_bytes))[-1]


def test_a_commit_logs_only_the_paths_it_changed(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        for i in range(200):
            writer.replace_file(f"m{i}.py", state(f"m{i}.py"), [symbol(f"m{i}.py", f"f{i}")])
        writer.commit()
        writer.replace_file("m7.py", state("m7.py", 1), [symbol("m7.py", "g7"), symbol("m7.py", "h7")])
        writer.skip_file("m8.py", "too_large")
        writer.delete_file("m9.py")
        header = writer.commit()
    assert last_frame(index_dir) == FileChanges(
        files={"m7.py": FileState(size=1, mtime_ns=1, digest="m7.py@1", symbols=2,
                                  language="python")},
        skipped={"m8.py": "too_large"},
        removed=["m9.py"],
    )
    assert (header.file_count, header.symbol_count, header.generation) == (198, 199, 2)
    manifest = read_manifest(index_dir)
    assert manifest is not None
    expected = {f"m{i}.py": FileState(size=0, mtime_ns=0, digest=f"m{i}.py@0", symbols=1,
                                      language="python") for i in range(200)}
    expected["m7.py"] = last_frame(index_dir).files["m7.py"]
    del expected["m8.py"], expected["m9.py"]
    assert (manifest.files, manifest.skipped, manifest.pending) == (
        expected, {"m8.py": "too_large"}, [])


def test_readers_follow_commits_and_compactions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A log replaced by a snapshot every few commits, so that the reader crosses several.
    monkeypatch.setattr(manifest_module, "_COMPACT_SLACK_BYTES", 0)
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        writer.replace_file("keep.py", state("keep.py"), [symbol("keep.py", "keep")])
        writer.commit()
        reader = ManifestReader(index_dir)
        searcher = Searcher(index_dir)
        logs = set()
        for round_ in range(1, 40):
            path = f"m{round_ % 7}.py"
            if round_ % 5 == 0:
                writer.skip_file(path, "binary")
            elif round_ % 3 == 0:
                writer.delete_file(path)
            else:
                writer.replace_file(path, state(path, round_), [symbol(path, f"f{round_}")])
            header = writer.commit()
            logs.add(header.log_name)
            followed = reader.manifest(header)
            assert followed == read_manifest(index_dir)
            assert followed is not None and followed.files == writer.files
            assert followed.skipped == writer.skipped
            assert searcher.refresh()
            assert searcher.manifest == followed
            assert searcher.freshness().files == len(writer.files)
    assert len(logs) > 3  # compactions happened
    assert [p.name for p in index_dir.glob("files-*.log")] == [header.log_name]


def test_a_commit_cut_short_leaves_its_paths_to_re_check(tmp_path: Path) -> None:
    """Killed after appending a commit's changes, before the header that counts them:
    readers keep the previous table, and the next writer re-checks the commit's paths,
    recording them in the header until its own next commit."""
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        writer.replace_file("a.py", state("a.py"), [symbol("a.py", "a")])
        writer.commit()
    published = tmp_path / "published"
    shutil.copytree(index_dir, published)  # the index as commit 1 left it
    before = read_manifest(published)
    with open_writer(index_dir) as writer:
        writer.replace_file("b.py", state("b.py"), [symbol("b.py", "b")])
        writer.delete_file("a.py")
        writer.commit()
    header = read_header(published)
    assert header is not None
    shutil.copy2(index_dir / header.log_name, published / header.log_name)  # commit 2's frame
    assert read_manifest(published) == before
    with open_writer(published) as writer:
        assert (writer.files, writer.suspect) == (before.files, {"a.py", "b.py"})  # type: ignore[union-attr]
        assert read_header(published).pending == ["a.py", "b.py"]  # type: ignore[union-attr]
    with open_writer(published) as writer:  # killed again before committing: still known
        assert writer.suspect == {"a.py", "b.py"}
        writer.replace_file("c.py", state("c.py"), [symbol("c.py", "c")])
        writer.commit()
    manifest = read_manifest(published)
    assert manifest is not None and (sorted(manifest.files), manifest.pending) == (["a.py", "c.py"], [])
    with open_writer(published) as writer:
        assert writer.suspect == frozenset()


def test_a_damaged_log_is_reported_not_read_as_empty(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        writer.replace_file("a.py", state("a.py"), [symbol("a.py", "a")])
        writer.commit()
    header = read_header(index_dir)
    assert header is not None
    with open(index_dir / header.log_name, "r+b") as handle:
        handle.truncate(header.log_bytes - 1)
    assert index_state(index_dir) is IndexState.CORRUPT
    with pytest.raises(IndexDamaged) as raised:
        Searcher(index_dir)
    assert str(raised.value) == (
        f"index at {index_dir} is damaged (the manifest's log of file states is missing or cut "
        "short) — run `symfind reindex`"
    )
    assert read_manifest(index_dir) is None
    with open_writer(index_dir) as writer:  # a writer starts again from nothing
        assert writer.files == {}
        writer.commit()
    assert index_state(index_dir) is IndexState.OK


def test_the_excluded_record_is_logged_only_when_it_changes(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        writer.replace_file("a.py", state("a.py"), [symbol("a.py", "a")])
        writer.set_excluded({"node_modules/": "default_dir"})
        writer.commit()
        assert last_frame(index_dir).excluded == {"node_modules/": "default_dir"}
        writer.set_excluded({"node_modules/": "default_dir"})
        assert not writer.excluded_staged
        writer.replace_file("b.py", state("b.py"), [symbol("b.py", "b")])
        writer.commit()
        assert last_frame(index_dir).excluded is None
    with open_writer(index_dir) as writer:
        assert writer.excluded == {"node_modules/": "default_dir"}
    manifest = read_manifest(index_dir)
    assert manifest is not None and manifest.excluded == {"node_modules/": "default_dir"}


def _between_commit_and_header(tmp_path: Path) -> tuple[Path, bytes]:
    """An index as a reader finds it between a writer's Tantivy commit (generation 2, two
    symbols) and the rename of that commit's header (generation 1's, empty, still in
    place); and generation 2's header, as the writer renames it next."""
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        writer.commit()  # an empty index, as `symfind index` starts
        first = manifest_path(index_dir).read_bytes()
        writer.replace_file("a.py", state("a.py"), [symbol("a.py", "a"), symbol("a.py", "b")])
        writer.commit()
    second = manifest_path(index_dir).read_bytes()
    _put_header(index_dir, first)
    return index_dir, second


def _put_header(index_dir: Path, content: bytes) -> None:
    """Replace the header by rename, as a writer does."""
    staged = index_dir / ".manifest.staged"
    staged.write_bytes(content)
    os.replace(staged, manifest_path(index_dir))


def test_a_reader_opened_before_the_header_follows_its_commit_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opened between the two, a reader would answer from generation 2 with generation
    1's counts (`0 files indexed` beside results): it waits for the header instead."""
    monkeypatch.setattr(search_module, "HEADER_FOLLOW_S", 120.0)  # however busy the machine
    index_dir, second = _between_commit_and_header(tmp_path)
    follows = threading.Timer(0.05, _put_header, (index_dir, second))
    follows.start()
    try:
        searcher = Searcher(index_dir)
    finally:
        follows.join()
    assert (searcher.header.generation, searcher.freshness().files, searcher.num_symbols) == (
        2, 1, 2)


def test_a_reader_goes_on_when_the_header_never_follows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer cut short between its commit and its header: the reader waits a bounded
    time, then answers with the header there is (the next writer's commit pairs them)."""
    monkeypatch.setattr(search_module, "HEADER_FOLLOW_S", 0.05)
    index_dir, _ = _between_commit_and_header(tmp_path)
    searcher = Searcher(index_dir)
    assert (searcher.header.generation, searcher.freshness().files, searcher.num_symbols) == (
        1, 0, 2)
