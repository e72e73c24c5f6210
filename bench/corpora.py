"""Fetch the benchmark corpora: real code, pinned by exact version, from package registries.

The table is `bench/corpora.toml`. Each corpus is unpacked to
`bench/corpora/<name>-<version>/` (gitignored); that directory is the repository the tools
search. A corpus already there is skipped, so re-runs are cheap; a fetch is unpacked in a
temporary directory and renamed into place, so a half-done fetch never counts as present.

Usage:
    python -m bench.corpora --list                 # the table, and which are present
    python -m bench.corpora                        # fetch all but `scale` (skips present ones)
    python -m bench.corpora requests tokio         # fetch some
    python -m bench.corpora --role relevance       # fetch one role
    python -m bench.corpora linux                  # the Linux kernel (scale bench, ~1.3 GB)
    python -m bench.corpora --table bench/coverage_corpora.toml --into DIR mobx
                                                   # another table, into another directory

Sources: PyPI sdists (pip), npm tarballs (npm pack), Debian binary packages (apt-get
download + dpkg-deb -x) and Debian source packages (apt-get source, through a private
deb-src list kept under `bench/corpora/.apt/`, so the system's apt setup is not changed).
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("bench.corpora")

BENCH = Path(__file__).resolve().parent
TABLE = BENCH / "corpora.toml"
CORPORA_DIR = BENCH / "corpora"
APT_DIR = CORPORA_DIR / ".apt"
#: The deb-src line for `apt-get source` (bookworm, as the machine's own binary list).
DEB_SRC_LINE = "deb-src http://deb.debian.org/debian bookworm main\n"


@dataclass(frozen=True)
class Corpus:
    """One row of `corpora.toml`."""

    name: str
    version: str
    language: str
    source: str
    package: str
    root: str
    role: str = "relevance"
    #: A tarball inside the unpacked package (e.g. `usr/src/linux-source-6.1.tar.xz`) to
    #: unpack in turn; `root` is then a path inside that tarball.
    archive: str = ""
    #: Lines to drop from the root `.gitignore`: what a packager added (Debian's kernel
    #: tree ignores `/*`, everything at the top level, because its packaging repo is apart).
    gitignore_drop: tuple[str, ...] = ()

    @property
    def dirname(self) -> str:
        """`<name>-<version>` with characters unsafe in paths replaced."""
        return f"{self.name}-{self.version}".replace(":", "_").replace("/", "_")

    @property
    def path(self) -> Path:
        """Where the corpus lives once fetched: the repository root."""
        return CORPORA_DIR / self.dirname

    @property
    def present(self) -> bool:
        return self.path.is_dir()


def load_table(table: Path = TABLE) -> list[Corpus]:
    """Read the corpus table."""
    with table.open("rb") as handle:
        data = tomllib.load(handle)
    return [Corpus(**{k: tuple(v) if isinstance(v, list) else v for k, v in row.items()})
            for row in data["corpus"]]


def select(corpora: list[Corpus], names: list[str], role: str | None = None) -> list[Corpus]:
    """The corpora named (all when `names` is empty), optionally of one role."""
    known = {c.name: c for c in corpora}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown corpora: {', '.join(unknown)} (see --list)")
    chosen = [known[n] for n in names] if names else list(corpora)
    return [c for c in chosen if role is None or c.role == role]


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    log.debug("run: %s (in %s)", " ".join(cmd), cwd)
    subprocess.run(cmd, cwd=cwd, check=True, env=env, stdout=subprocess.DEVNULL)


def _unpack_single(download_dir: Path, dest: Path, pattern: str) -> None:
    archives = sorted(download_dir.glob(pattern))
    if len(archives) != 1:
        raise RuntimeError(f"expected one {pattern} in {download_dir}, got {archives}")
    shutil.unpack_archive(archives[0], dest)


def _fetch_pypi(corpus: Corpus, work: Path, dest: Path) -> None:
    download = work / "download"
    _run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
         "--no-binary", ":all:", "-d", str(download), f"{corpus.package}=={corpus.version}"],
        cwd=work,
    )
    _unpack_single(download, dest, "*.zip" if list(download.glob("*.zip")) else "*.tar.gz")


def _fetch_npm(corpus: Corpus, work: Path, dest: Path) -> None:
    download = work / "download"
    download.mkdir()
    _run(["npm", "pack", "--silent", f"{corpus.package}@{corpus.version}",
          "--pack-destination", str(download)], cwd=work)
    _unpack_single(download, dest, "*.tgz")


def _fetch_deb(corpus: Corpus, work: Path, dest: Path) -> None:
    download = work / "download"
    download.mkdir()
    _run(["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root",
          f"{corpus.package}={corpus.version}"], cwd=download)
    debs = sorted(download.glob("*.deb"))
    if len(debs) != 1:
        raise RuntimeError(f"expected one .deb for {corpus.package}, got {debs}")
    _run(["dpkg-deb", "-x", str(debs[0]), str(dest)], cwd=work)


def _apt_source_options() -> list[str]:
    """apt options that use our private deb-src list and state, updating it once."""
    lists = APT_DIR / "lists"
    options = [
        "-o", f"Dir::Etc::SourceList={APT_DIR / 'sources.list'}",
        "-o", "Dir::Etc::SourceParts=/nonexistent",
        "-o", f"Dir::State::Lists={lists}",
        "-o", f"Dir::Cache={APT_DIR / 'cache'}",
        "-o", "APT::Sandbox::User=root",
    ]
    if not any(lists.glob("*Sources*")):
        (lists / "partial").mkdir(parents=True, exist_ok=True)
        (APT_DIR / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        (APT_DIR / "sources.list").write_text(DEB_SRC_LINE, encoding="utf-8")
        log.info("apt-get update of the private deb-src list in %s", APT_DIR)
        _run(["apt-get", "-q", *options, "update"], cwd=APT_DIR)
    return options


def _fetch_debsrc(corpus: Corpus, work: Path, dest: Path) -> None:
    dest.mkdir()
    _run(["apt-get", "-q", *_apt_source_options(), "source",
          f"{corpus.package}={corpus.version}"], cwd=dest)
    # Debian's packaging (debian/) and quilt's copies of unpatched files (.pc/) are not
    # upstream code; .pc/ would duplicate definitions.
    for tree in dest.iterdir():
        for packaging in (tree / "debian", tree / ".pc"):
            if packaging.is_dir():
                shutil.rmtree(packaging)


def _unpack_inner(archive: Path, dest: Path) -> Path:
    """Unpack a tarball shipped inside a package (`linux-source-*` ships one)."""
    if not archive.is_file():
        raise RuntimeError(f"{archive.name}: not in the package")
    dest.mkdir()
    _run(["tar", "-xf", str(archive), "-C", str(dest)], cwd=dest)
    archive.unlink()  # the tarball is as large as the tree: do not keep both
    return dest


def _drop_ignore_lines(gitignore: Path, lines: tuple[str, ...]) -> None:
    text = gitignore.read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if line.strip() not in lines]
    gitignore.write_text("\n".join(kept) + "\n", encoding="utf-8")


FETCHERS = {"pypi": _fetch_pypi, "npm": _fetch_npm, "deb": _fetch_deb, "debsrc": _fetch_debsrc}


def fetch(corpus: Corpus, into: Path = CORPORA_DIR) -> Path:
    """Fetch one corpus into `into` unless present there; return its directory (the
    repository root), `<into>/<name>-<version>`."""
    path = into / corpus.dirname
    if path.is_dir():
        log.info("%s: present at %s", corpus.dirname, path)
        return path
    if corpus.source not in FETCHERS:
        raise ValueError(f"{corpus.name}: unknown source {corpus.source!r}")
    into.mkdir(parents=True, exist_ok=True)
    log.info("%s: fetching %s %s from %s", corpus.dirname, corpus.package, corpus.version,
             corpus.source)
    with tempfile.TemporaryDirectory(dir=into, prefix=".fetch-") as tmp:
        work = Path(tmp)
        unpacked = work / "unpacked"
        FETCHERS[corpus.source](corpus, work, unpacked)
        if corpus.archive:
            unpacked = _unpack_inner(unpacked / corpus.archive, work / "inner")
        root = unpacked / corpus.root
        if not root.is_dir():
            found = sorted(p.name for p in unpacked.iterdir())
            raise RuntimeError(f"{corpus.name}: {corpus.root!r} not in the package ({found})")
        if corpus.gitignore_drop:
            _drop_ignore_lines(root / ".gitignore", corpus.gitignore_drop)
        os.rename(root, path)
    log.info("%s: %d files", corpus.dirname, count_files(path))
    return path


def count_files(path: Path) -> int:
    """Regular files under `path`."""
    return sum(1 for p in path.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpora to fetch (default: all)")
    parser.add_argument("--list", action="store_true", help="print the table and exit")
    parser.add_argument("--role", choices=["relevance", "speed", "scale"], help="only this role")
    parser.add_argument("--table", type=Path, default=TABLE, help="the corpus table (corpora.toml)")
    parser.add_argument("--into", type=Path, default=CORPORA_DIR,
                        help="where to unpack them (bench/corpora)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    chosen = select(load_table(args.table), args.names, args.role)
    if args.list:
        print("| name | version | language | source | package | role | present |")
        print("|---|---|---|---|---|---|---|")
        for c in chosen:
            print(f"| {c.name} | {c.version} | {c.language} | {c.source} | {c.package} "
                  f"| {c.role} | {'yes' if c.present else 'no'} |")
        return 0
    for corpus in chosen:
        if corpus.role == "scale" and not args.names and args.role is None:
            continue  # the kernel (~1.5 GB) only when asked for by name or role
        fetch(corpus, args.into.expanduser().resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
