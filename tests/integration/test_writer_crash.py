"""A writer killed after Tantivy wrote a commit's files but before it published them
leaves orphans; the next writer must not trip over them.

Tantivy names a segment's delete file `<segment>.<opstamp>.del`. Opstamps restart from the
last published commit, so a new writer that repeats the same operations picks the very
name the dead one left behind and its commit fails with `FileAlreadyExists` -- seen when
the crash test SIGKILLed a daemon mid-commit. The state is rebuilt here exactly: the
index as published after commit 1, plus the files that commit 2 wrote.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec

from symfind.extract.records import Symbol, SymbolKind
from symfind.storage import IndexWriter, Searcher
from symfind.storage.index import TANTIVY_DIR
from symfind.storage.records import FileState


def symbol(path: str, name: str) -> Symbol:
    return Symbol(
        name=name, qualname=name, kind=SymbolKind.FUNCTION, language="python", path=path,
        line=1, end_line=1, start_line=1, signature=f"def {name}()", doc="",
    )


def state(path: str) -> FileState:
    return FileState(size=1, mtime_ns=1, digest=path, language="python")


def open_writer(index_dir: Path) -> IndexWriter:
    return IndexWriter(index_dir, repo_root=Path("/repo"), options_hash="h")


def test_orphan_files_of_a_killed_commit_do_not_block_the_next(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        for i in range(3):
            writer.replace_file(f"m{i}.py", state(f"m{i}.py"), [symbol(f"m{i}.py", f"f{i}")])
        writer.commit()
    published = tmp_path / "published"
    shutil.copytree(index_dir, published)  # the index as commit 1 left it

    with open_writer(index_dir) as writer:  # commit 2 deletes a file's symbols: a .del file
        writer.delete_file("m1.py")
        writer.commit()
    written = {p.name for p in (index_dir / TANTIVY_DIR).iterdir()}
    orphans = written - {p.name for p in (published / TANTIVY_DIR).iterdir()} - {"meta.json"}
    assert any(name.endswith(".del") for name in orphans), sorted(written)
    for name in orphans | {".managed.json"}:  # killed after writing them, before meta.json
        shutil.copy2(index_dir / TANTIVY_DIR / name, published / TANTIVY_DIR / name)

    with open_writer(published) as writer:  # the next daemon repeats the same change
        writer.delete_file("m1.py")
        writer.commit()
        writer.replace_file("m3.py", state("m3.py"), [symbol("m3.py", "f3")])
        writer.commit()
    names = sorted(s.qualname for s in Searcher(published).all_symbols())
    assert names == ["f0", "f2", "f3"]
    assert sorted(msgspec.to_builtins(Searcher(published).all_symbols()), key=str) == sorted(
        msgspec.to_builtins([symbol("m0.py", "f0"), symbol("m2.py", "f2"), symbol("m3.py", "f3")]),
        key=str,
    )
