"""Indexing a real directory: what is indexed, what is skipped and why, incremental runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import sync_repository, update_index
from symfind.daemon.walk import IgnoreRules
from symfind.storage import IndexLocked, IndexWriter, Searcher, read_manifest
from tests.integration.second_user import as_nobody, nobody_cwd, runs_as_nobody

PY_CLASS = "class {name}:\n    def run(self):\n        pass\n"


def write(root: Path, relative: str, content: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def make_config(repo: Path, index_dir: Path, **options: int) -> Config:
    return Config(repo=repo, index_dir=index_dir, options=IndexOptions(**options), workers=1)


def qualnames(config: Config) -> list[tuple[str, str]]:
    return [(s.path, s.qualname) for s in Searcher(config.index_dir).all_symbols()]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


@pytest.fixture
def config(repo: Path, tmp_path: Path) -> Config:
    return make_config(repo, tmp_path / "index", max_file_bytes=64_000)


def test_bad_files_are_skipped_with_reasons_and_lose_nothing_else(
    repo: Path, config: Config, tmp_path: Path
) -> None:
    write(repo, "good.py", PY_CLASS.format(name="Good"))
    write(repo, "binary.py", b"class Bin:\n    pass\n\x00\x01\x02")
    write(repo, "big.py", "x = 1\n" * 11_000)  # 66 KB > the 64 KB cap of this config
    write(repo, "min.js", "var a=1;" * 800)  # one 6,400-char line
    # A long literal among lines of code is no minified file: its definitions are kept.
    write(repo, "literal.ts", "const emoji = '" + "x" * 6_000 + "';\n"
          + "".join(f"function f{n}() {{\n  return {n};\n}}\n" for n in range(12)))
    write(repo, "latin1.py", b"# caf\xe9\nclass Caf\xe9Latin:\n    pass\n")
    write(repo, "broken.py", "class Broken(:\n    pass\n\ndef still_found():\n    return 1\n")
    write(repo, "deep.py", "x = " + "[\n" * 5000 + "]\n" * 5000 + "def after_deep():\n    pass\n")
    outside = write(tmp_path, "outside.py", PY_CLASS.format(name="Outside"))
    (repo / "link.py").symlink_to(outside)
    (repo / "linkdir").symlink_to(tmp_path, target_is_directory=True)
    os.mkfifo(repo / "fifo.py")

    report = update_index(config)

    assert qualnames(config) == [
        ("broken.py", "Broken"),
        ("broken.py", "still_found"),
        ("deep.py", "x"),
        ("deep.py", "after_deep"),
        ("good.py", "Good"),
        ("good.py", "Good.run"),
        ("latin1.py", "CaféLatin"),
        ("literal.ts", "emoji"),
        *(("literal.ts", f"f{n}") for n in range(12)),
    ]
    assert read_manifest(config.index_dir).skipped == {
        "big.py": "too_large",
        "binary.py": "binary",
        "fifo.py": "not_regular",
        "link.py": "symlink",
        "min.js": "minified",
    }
    assert (report.files, report.symbols, report.skipped) == (
        5, 20, {"too_large": 1, "binary": 1, "not_regular": 1, "symlink": 1, "minified": 1},
    )


def test_incremental_runs_touch_only_what_changed(repo: Path, config: Config) -> None:
    write(repo, "a.py", PY_CLASS.format(name="Alpha"))
    write(repo, "b.py", PY_CLASS.format(name="Beta"))
    write(repo, "c.py", PY_CLASS.format(name="Gamma"))
    assert update_index(config).indexed == 3

    write(repo, "a.py", PY_CLASS.format(name="AlphaRenamed"))
    (repo / "b.py").rename(repo / "sub_b.py")
    (repo / "c.py").unlink()
    os.utime(repo / "sub_b.py")
    report = update_index(config)

    assert (report.indexed, report.deleted, report.files) == (2, 2, 2)
    assert qualnames(config) == [
        ("a.py", "AlphaRenamed"),
        ("a.py", "AlphaRenamed.run"),
        ("sub_b.py", "Beta"),
        ("sub_b.py", "Beta.run"),
    ]


def test_commits_come_at_intervals_that_double_up_to_the_cap(repo: Path, config: Config) -> None:
    for number in range(30):
        write(repo, f"m{number:02}.py", PY_CLASS.format(name=f"C{number}"))
    commits_after: list[int] = []  # files done when the generation moved
    with IndexWriter(config.index_dir, repo_root=repo, options_hash="test") as writer:

        def progress(done: int, _total: int) -> None:
            if writer.header.generation != generations[-1]:
                generations.append(writer.header.generation)
                commits_after.append(done)

        generations = [writer.header.generation]
        report = sync_repository(writer, config, IgnoreRules(repo), progress=progress,
                                 commit_every=2, commit_every_max=8)
    # 0 files done: the empty index committed first, so that searches work at once.
    assert commits_after == [0, 2, 6, 14, 22, 30]
    assert (report.indexed, report.files) == (30, 30)


def test_a_touched_but_unchanged_file_is_not_re_extracted(repo: Path, config: Config) -> None:
    path = write(repo, "a.py", PY_CLASS.format(name="Alpha"))
    update_index(config)
    os.utime(path, ns=(1, 1))
    report = update_index(config)
    assert (report.indexed, report.unchanged, report.symbols) == (0, 1, 2)
    assert read_manifest(config.index_dir).files["a.py"].mtime_ns == 1


def test_ignore_rules_default_skips_and_secrets(repo: Path, config: Config) -> None:
    write(repo, ".gitignore", "*.gen.py\n/generated/\n!keep.gen.py\n")
    write(repo, "pkg/.gitignore", "local_only.py\n")
    for path in [
        "main.py", "x.gen.py", "keep.gen.py", "generated/out.py", "pkg/mod.py",
        "pkg/local_only.py", "node_modules/dep/index.js", ".git/hooks/hook.py",
        "build/lib/built.py", "src/build/builder.py", "env/lib/site.py", ".venv/x.py",
        ".env.py", "id_rsa.py", "certs/server.key", "deep/__pycache__/x.py",
    ]:
        write(repo, path, PY_CLASS.format(name="Thing"))
    write(repo, "env/pyvenv.cfg", "home = /usr/bin\n")

    update_index(config)

    manifest = read_manifest(config.index_dir)
    # `.env.py` and `id_rsa.py` are Python source: credential rules are about key files.
    assert sorted(manifest.files) == [
        ".env.py", "id_rsa.py", "keep.gen.py", "main.py", "pkg/mod.py", "src/build/builder.py",
    ]
    assert manifest.skipped == {"certs/server.key": "secret"}
    assert manifest.excluded == {
        ".git/": "default_dir", ".venv/": "default_dir", "build/": "default_dir",
        "deep/__pycache__/": "default_dir", "env/": "virtualenv", "generated/": "ignored",
        "node_modules/": "default_dir", "pkg/local_only.py": "ignored", "x.gen.py": "ignored",
    }


def test_reindex_rebuilds_from_scratch(repo: Path, config: Config) -> None:
    write(repo, "a.py", PY_CLASS.format(name="Alpha"))
    update_index(config)
    report = update_index(config, fresh=True)
    assert (report.indexed, report.files, report.symbols) == (1, 1, 2)
    assert qualnames(config) == [("a.py", "Alpha"), ("a.py", "Alpha.run")]


def test_a_second_writer_is_refused_and_nothing_breaks(repo: Path, config: Config) -> None:
    write(repo, "a.py", PY_CLASS.format(name="Alpha"))
    update_index(config)
    with IndexWriter(config.index_dir, repo_root=repo, options_hash=config.options.fingerprint()):
        with pytest.raises(IndexLocked, match="another symfind process is writing the index"):
            update_index(config)
    assert qualnames(config) == [("a.py", "Alpha"), ("a.py", "Alpha.run")]


def test_changed_options_rebuild_the_index(repo: Path, tmp_path: Path) -> None:
    write(repo, "a.py", PY_CLASS.format(name="Alpha"))
    write(repo, "big.py", "x = 1\n" * 1000)
    index_dir = tmp_path / "index"
    update_index(make_config(repo, index_dir, max_file_bytes=100_000))
    report = update_index(make_config(repo, index_dir, max_file_bytes=4096))
    assert (report.indexed, report.files, report.skipped) == (1, 1, {"too_large": 1})


@runs_as_nobody
@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_unreadable_file_is_skipped_not_fatal() -> None:
    # Root reads everything, so as root the indexing process drops to `nobody` once it
    # has loaded what it reads of symfind (second_user.py says why).
    base = Path(tempfile.mkdtemp(prefix="symfind-perm-"))
    try:
        base.chmod(0o777)
        repo = base / "repo"
        write(repo, "ok.py", PY_CLASS.format(name="Readable"))
        locked = write(repo, "locked.py", PY_CLASS.format(name="Locked"))
        locked.chmod(0o000)
        (base / "index").mkdir(mode=0o777)
        (base / "index").chmod(0o777)
        command = as_nobody(
            f"r = update_index(Config(repo=Path({str(repo)!r}),"
            f" index_dir=Path({str(base / 'index')!r}), options=IndexOptions(), workers=1))\n"
            "print(msgspec.json.encode(r.skipped).decode(), r.files)\n",
            before_drop="import msgspec\n",
        )
        result = subprocess.run(command, capture_output=True, text=True, cwd=nobody_cwd(),
                                check=False)
        assert (result.returncode, result.stdout) == (0, '{"unreadable":1} 1\n'), result.stderr
    finally:
        shutil.rmtree(base, ignore_errors=True)
