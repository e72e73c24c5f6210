"""Ground truth for the references benchmark: what each language's own tool says uses.

For every corpus of `bench/references.toml`, definitions are drawn by a fixed seed from
the corpus's product code (test files left out, and those symfind does not index: a
root `vendor/`), in three kind groups: class/type, function, method. For each, the
language's oracle is asked for its references: jedi for
Python, gopls for Go (`gopls references`), the TypeScript compiler's LanguageService for
TypeScript (`bench/ts_references.js`), clangd for C. The answer, without
the definition itself, is written to `bench/references/truth-<corpus>.json` (kept in git,
so that the comparison needs no oracle):

    {"corpus", "language", "oracle", "oracle_version",
     "seeds": [{"name", "qualname", "kind", "group", "path", "line", "column",
                "uses": [[path, line, column], ...], "error": "",
                "aside": {"declaration": [...], "other_class": [...]}}]}

`aside` (TypeScript only) holds those of the oracle's uses that the oracle itself shows
to be none (`bench/ts_references.js`): the names of other members' declarations (an
override, an interface's member, an object literal's key), and uses the type checker
resolves to a member of a class unrelated to the seed's (another implementation of the
same interface).

Paths are relative to the repository (the corpus, or its `subdir`); lines and columns are
1-based. Oracles miss uses (jedi and gopls through receivers whose type they cannot infer,
clangd in code its compile flags leave out): `bench/references_audit.toml` records, by
hand, which side each disagreement with symfind falls on, and `bench.references` applies
it.

Usage:
    python -m bench.reference_truth                  # every corpus of the table
    python -m bench.reference_truth requests cobra   # some
    python -m bench.reference_truth --held-out DIR --language go   # a repository
                                                     # outside the table (held out)
    python -m bench.reference_truth --held-out DIR --language c --define HAVE_STDINT_H
                                                     # with what its build defines

Needs: `pip install jedi` (the `bench` extra), Debian's `gopls` and `golang-go`, `clangd`,
and typescript@5 from npm (installed under `bench/out/node` on first use).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from bench import corpora

log = logging.getLogger("bench.reference_truth")

BENCH = Path(__file__).resolve().parent
TABLE = BENCH / "references.toml"
OUT = BENCH / "references"
HELD_OUT = BENCH / "out" / "references" / "held-out"
#: The oracle of each language, for a held-out repository.
ORACLE_OF = {"python": "jedi", "go": "gopls", "typescript": "tsserver", "c": "clangd"}
SEED = 33
GROUPS = {
    "class": "type", "struct": "type", "interface": "type", "trait": "type", "enum": "type",
    "type": "type", "function": "function", "method": "method",
}
_TEST_PATH = re.compile(r"(^|/)(tests?|testing|testdata|__tests__|spec)(/|$)|(_test\.go|\.test\.ts|\.spec\.ts)$"
                        r"|(^|/)test_[^/]*\.py$")


@dataclass(frozen=True)
class Entry:
    corpus: corpora.Corpus
    subdir: str
    language: str
    oracle: str
    seeds: int

    @property
    def root(self) -> Path:
        """The repository, symbolic links resolved (the oracles report resolved paths)."""
        return (self.corpus.path / self.subdir if self.subdir else self.corpus.path).resolve()

    @property
    def name(self) -> str:
        return self.corpus.name

    @property
    def truth(self) -> Path:
        return OUT / f"truth-{self.name}.json"


@dataclass(frozen=True)
class HeldOut:
    """A repository outside the corpora table (`--held-out DIR`), seeded and asked as a
    corpus is; its truth is kept under `bench/out/references/held-out/`, out of git (code
    the benchmark's tables never use)."""

    root: Path
    language: str
    oracle: str
    name: str
    truth: Path
    seeds: int = 12
    #: C: the macros the package's own build defines (its configure step's `HAVE_*`),
    #: without which clangd reads another program than the one built.
    defines: tuple[str, ...] = ()


def held_out(directory: Path, language: str, defines: tuple[str, ...] = ()) -> HeldOut:
    """The held-out repository at `directory`, asked of its language's oracle."""
    root = directory.resolve()
    return HeldOut(root, language, ORACLE_OF[language], root.name,
                   HELD_OUT / f"truth-{root.name}.json", defines=defines)


def load_table() -> list[Entry]:
    table = {c.name: c for c in corpora.load_table()}
    with TABLE.open("rb") as f:
        rows = tomllib.load(f)["corpus"]
    return [Entry(table[r["corpus"]], r.get("subdir", ""), r["language"], r["oracle"],
                  int(r["seeds"])) for r in rows]


def is_test_path(path: str) -> bool:
    return bool(_TEST_PATH.search(path))


def source_files(root: Path, language: str) -> list[str]:
    """The repository's files of `language` that symfind indexes (repository-relative):
    none in a directory its walk passes over (a root `vendor/`), nor one it ignores."""
    from symfind.daemon.walk import IgnoreRules, directory_excluded, file_exclusion
    from symfind.extract import language_for_path

    rules = IgnoreRules(root)
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            rel = path.relative_to(root).as_posix()
            directory = rel.rpartition("/")[0]
            if language_for_path(rel) == language and not (
                    directory and directory_excluded(directory, rules)) and (
                    file_exclusion(rel, rules) is None):
                found.append(rel)
    return found


def draw_seeds(entry: Entry | HeldOut) -> list[dict]:
    """`entry.seeds` definitions per kind group, from product code, by a fixed seed."""
    from symfind.extract import extract_symbols

    by_group: dict[str, list[dict]] = {"type": [], "function": [], "method": []}
    for rel in source_files(entry.root, entry.language):
        if is_test_path(rel):
            continue
        source = (entry.root / rel).read_bytes()
        lines = source.decode("utf-8", "replace").splitlines()
        for symbol in extract_symbols(rel, source):
            group = GROUPS.get(str(symbol.kind))
            if (group is None or symbol.name.startswith("__") or len(symbol.name) < 3
                    or symbol.name == "constructor"):
                continue  # a constructor's uses are its class's
            if any(c["qualname"] == symbol.qualname and c["path"] == rel
                   for c in by_group[group][-8:]):
                continue  # overloads of one definition: seeded once
            column = _name_column(lines, symbol.line, symbol.name,
                                  after_receiver=entry.language == "go" and group == "method")
            if column:
                by_group[group].append({
                    "name": symbol.name, "qualname": symbol.qualname, "kind": str(symbol.kind),
                    "group": group, "path": rel, "line": symbol.line, "column": column})
    rng = random.Random(f"{SEED}:{entry.name}")
    chosen = []
    for group, candidates in by_group.items():
        chosen += rng.sample(candidates, min(entry.seeds, len(candidates)))
    return chosen


def _name_column(lines: list[str], line: int, name: str, after_receiver: bool = False) -> int:
    """1-based column of `name` as a whole word on `line`, 0 when it is not there.

    `after_receiver`: a Go method's name is looked for after its receiver, which may be
    of a type of the same name (`func (e *Error) Error() string`)."""
    if not 0 < line <= len(lines):
        return 0
    text = lines[line - 1]
    start = text.find(")") + 1 if after_receiver and text.lstrip().startswith("func (") else 0
    match = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])").search(text, start)
    return match.start() + 1 if match else 0


# -- oracles ---------------------------------------------------------------------------

def jedi_uses(root: Path, seeds: list[dict]) -> tuple[str, list[list[list]]]:
    import jedi
    import jedi.inference.references

    # jedi stops looking for references after parsing 30 files that hold the name (and
    # opening 2,000): an editor's budget, not an oracle's. A class used in more files
    # would lose the uses in the rest, and symfind's uses there would read as wrong.
    jedi.inference.references._PARSED_FILE_LIMIT = 1_000_000
    jedi.inference.references._OPENED_FILE_LIMIT = 1_000_000
    # A `src/` layout's package is importable where it is installed, not from the root:
    # without it on the path, jedi resolves no test's `from pkg import X`.
    src = root / "src"
    project = jedi.Project(str(root), added_sys_path=[str(src)] if src.is_dir() else ())
    answers = []
    for seed in seeds:
        script = jedi.Script(path=str(root / seed["path"]), project=project)
        names = script.get_references(seed["line"], seed["column"] - 1, include_builtins=False)
        uses = []
        for name in names:
            if name.module_path is None or (name.is_definition() and not _is_import(name)):
                continue
            try:
                rel = Path(name.module_path).resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                continue  # outside the repository (the standard library, site-packages)
            uses.append([rel, name.line, name.column + 1])
        answers.append(sorted(uses))
    return f"jedi {jedi.__version__}", answers


GOCODE = Path("/usr/share/gocode/src")


def go_workspace(root: Path) -> Path:
    """A copy of the Go module at `root` whose dependencies resolve offline: each required
    module is replaced by a copy of the source Debian installs under /usr/share/gocode
    (`apt-get install golang-…-dev`), given a go.mod when it has none."""
    import shutil
    import tempfile

    work = Path(tempfile.mkdtemp(prefix="refs-go-"))
    copy = work / "module"
    shutil.copytree(root, copy, symlinks=True)
    go_mod = (copy / "go.mod").read_text(encoding="utf-8")
    pending, replaces, seen = _required(go_mod), [], set()
    while pending:  # the dependencies' own requirements too: go checks the whole graph
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        source = GOCODE / module
        dep = work / "deps" / module
        if source.is_dir():
            shutil.copytree(source, dep, symlinks=True)
        else:
            # Not installed: an empty module stands in (the test-only requirements of
            # dependencies, never imported by the corpus; a corpus import of it would
            # show as a gopls error on that definition).
            log.info("go: %s is not under %s: an empty module stands in", module, GOCODE)
            dep.mkdir(parents=True)
        dep_mod = dep / "go.mod"
        if dep_mod.exists():
            pending += _required(dep_mod.read_text(encoding="utf-8"))
        else:
            dep_mod.write_text(f"module {module}\n", encoding="utf-8")
        (dep / "go.sum").unlink(missing_ok=True)
        replaces.append(f"replace {module} => {dep}\n")
    (copy / "go.mod").write_text(go_mod + "\n" + "".join(replaces), encoding="utf-8")
    (copy / "go.sum").unlink(missing_ok=True)
    # Let go settle go.mod itself (a dependency may require a newer version of another):
    # gopls loads read-only. Everything is replaced locally, so nothing is downloaded.
    subprocess.run(["go", "list", "-mod=mod", "-e", "./..."], cwd=copy, env=_go_env(),
                   capture_output=True, check=False)
    return copy


def _required(go_mod: str) -> list[str]:
    return re.findall(r'^\s*(?:require\s+)?"?([\w.-]+\.[\w./-]+)"?\s+v[\w.+-]+', go_mod, re.M)


def _is_import(name: object) -> bool:
    """Whether a jedi name that defines something is the name an import binds (a use of
    the imported definition, as the other oracles count imports)."""
    tree_name = getattr(getattr(name, "_name", None), "tree_name", None)
    node = tree_name
    while node is not None and node.type not in ("import_from", "import_name", "file_input"):
        node = node.parent
    return node is not None and node.type in ("import_from", "import_name")


#: `gopls references` runs per seed, their answers' union taken: a call through an
#: interface the seed's type implements is listed in some runs and not in others (a
#: three-file module: the calls in its `_test.go` files were in 3 of 7 identical runs;
#: in larger repositories most such calls in test files are in none).
GOPLS_RUNS = 3


def gopls_uses(root: Path, seeds: list[dict]) -> tuple[str, list[list[list]]]:
    version = subprocess.run(["gopls", "version"], capture_output=True, text=True,
                             check=False).stdout.splitlines()[0:1]
    root = go_workspace(root)
    answers: list[list[list] | None] = []
    for seed in seeds:
        position = f"{root / seed['path']}:{seed['line']}:{seed['column']}"
        runs = [_gopls_references(root, position) for _ in range(GOPLS_RUNS)]
        answered = [run for run in runs if run is not None]
        answers.append(sorted(map(list, set().union(*answered))) if answered else None)
    return (version[0] if version else "gopls"), answers


def _gopls_references(root: Path, position: str) -> set[tuple[str, int, int]] | None:
    """One `gopls references` run's uses, or None when it failed."""
    result = subprocess.run(["gopls", "references", position], capture_output=True,
                            text=True, cwd=root, check=False, timeout=600, env=_go_env())
    if result.returncode != 0:
        log.warning("gopls %s: %s", position, result.stderr.strip()[:300])
        return None
    uses = set()
    for line in result.stdout.splitlines():
        match = re.match(r"(.+?):(\d+):(\d+)(?:-\d+)?$", line.strip())
        if not match:
            continue
        try:
            rel = Path(match[1]).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
        uses.add((rel, int(match[2]), int(match[3])))
    return uses


def _go_env() -> dict[str, str]:
    import os

    # Offline: modules come from the local replace directives only.
    return {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GONOSUMDB": "*",
            "GONOSUMCHECK": "1", "GOSUMDB": "off", "GOTOOLCHAIN": "local"}


NODE_DIR = BENCH / "out" / "node"
TYPESCRIPT = "typescript@5"


def tsserver_uses(root: Path, seeds: list[dict]) -> tuple[str, list[list[list]]]:
    package = NODE_DIR / "node_modules" / "typescript"
    if not package.is_dir():
        subprocess.run(["npm", "install", "--silent", "--prefix", str(NODE_DIR), TYPESCRIPT],
                       check=True)
    version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    positions = [{"path": s["path"], "line": s["line"], "column": s["column"]} for s in seeds]
    result = subprocess.run(["node", str(BENCH / "ts_references.js"), str(package), str(root)],
                            input=json.dumps(positions), capture_output=True, text=True,
                            check=True, timeout=3600)
    answers = json.loads(result.stdout)
    return f"typescript {version}", [
        None if a is None else {"uses": sorted(a["uses"]),
                                "aside": {k: sorted(v) for k, v in a["aside"].items()}}
        for a in answers]


class _Lsp:
    """The least of a Language Server Protocol client: requests in turn over stdio."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.progress_open: set = set()
        self.progress_begun: set = set()

    def send(self, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def read(self) -> dict:
        length = 0
        while (line := self.process.stdout.readline().strip()):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message = json.loads(self.process.stdout.read(length))
        if message.get("method") == "$/progress":
            value = message["params"]["value"]
            token = message["params"]["token"]
            if value.get("kind") == "begin":
                self.progress_open.add(token)
                self.progress_begun.add(token)
            elif value.get("kind") == "end":
                self.progress_open.discard(token)
        elif "id" in message and "method" in message:  # a request of the server's: accept
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        return message

    def request(self, method: str, params: dict) -> object:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.read()
            if message.get("id") == self.next_id and "method" not in message:
                return message.get("result")

    def notify(self, method: str, params: dict) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


BACKGROUND_INDEX = "backgroundIndexProgress"


def _typedef_names(root: Path, seed: dict) -> list[tuple[int, int]]:
    """Where `typedef struct NAME {...} NAME;` names its typedef: clangd keeps the tag and
    the typedef apart, and code uses the typedef, so both are asked (symfind finds the
    definition at the tag)."""
    if seed["group"] != "type":
        return []
    lines = (root / seed["path"]).read_text(encoding="utf-8", errors="replace").splitlines()
    closing = re.compile(rf"^\s*}}\s*({re.escape(seed['name'])})\s*[;,]")
    for number in range(seed["line"], min(len(lines), seed["line"] + 400)):
        match = closing.match(lines[number - 1])
        if match:
            return [(number, match.start(1) + 1)]
    return []


def _compiled_site(lsp: _Lsp, root: Path, seed: dict, database: list[dict],
                   opened_uris: set[str]) -> list[tuple[str, int, int]]:
    """A use of a header's definition in a compiled `.c` file whose definition clangd
    finds at the seed: asked there too. A header that does not include what it needs
    (`PyObject_VAR_HEAD` in a Python extension's `bitarray.h`) parses with errors when
    opened alone, and clangd's references asked at its definition then list the
    header's own uses only; asked at a use in a `.c` file, they list every file's."""
    name = re.compile(rf"\b{re.escape(seed['name'])}\b")
    for entry in database:
        path = Path(entry["file"])
        text = path.read_text(encoding="utf-8", errors="replace")
        found = name.search(text)
        if found is None:
            continue
        uri = path.as_uri()
        if uri not in opened_uris:
            opened_uris.add(uri)
            lsp.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "c", "version": 1, "text": text}})
        line = text.count("\n", 0, found.start())
        character = found.start() - (text.rfind("\n", 0, found.start()) + 1)
        landed = lsp.request("textDocument/definition", {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
        for location in landed if isinstance(landed, list) else [landed] if landed else []:
            target = Path(unquote(location["uri"].removeprefix("file://"))).resolve()
            if (target == (root / seed["path"]).resolve()
                    and location["range"]["start"]["line"] + 1 == seed["line"]):
                return [(uri, line + 1, character + 1)]
    return []


def clangd_uses(root: Path, seeds: list[dict],
                defines: tuple[str, ...] = ()) -> tuple[str, list[list[list]]]:
    """clangd over LSP, after its background index has read every file of a compilation
    database that compiles each C file of the repository with the repository's
    directories on the include path (and `defines`, each as `-D`)."""
    version = subprocess.run(["clangd", "--version"], capture_output=True, text=True,
                             check=False).stdout.splitlines()[0]
    # Every directory holding a source file, and those above it up to the root:
    # `#include <brotli/encode.h>` wants the `include/` above `include/brotli/`.
    directories = {(root / rel).parent for rel in source_files(root, "c")}
    directories |= {above for directory in directories for above in directory.parents
                    if above.is_relative_to(root)}
    includes = sorted(f"-I{directory}" for directory in directories)
    # A Python extension module is built against Python's own headers (`setup.py
    # build_ext` adds them): without them clangd reads every `PyObject` as an error.
    if any(b"Python.h" in (root / rel).read_bytes() for rel in source_files(root, "c")):
        includes.append(f"-I{sysconfig.get_paths()['include']}")
    database = [{"directory": str(root), "file": str(root / rel),
                 "arguments": ["cc", "-c", "-std=gnu11", "-DLUA_USE_LINUX",
                               *(f"-D{define}" for define in defines), *includes,
                               str(root / rel)]}
                for rel in source_files(root, "c") if rel.endswith(".c")]
    (root / "compile_commands.json").write_text(json.dumps(database), encoding="utf-8")
    # clangd keeps its background index under the root and reuses a file's shard while
    # the file is unchanged, even when the compile flags are not: an earlier run's
    # shards (other `defines`) would answer for this one.
    shutil.rmtree(root / ".cache" / "clangd", ignore_errors=True)
    lsp = _Lsp(["clangd", "--background-index", "-j=2", "--log=error"], root)
    try:
        lsp.request("initialize", {"processId": None, "rootUri": root.as_uri(),
                                   "capabilities": {"window": {"workDoneProgress": True}}})
        lsp.notify("initialized", {})
        opened = root / database[0]["file"]
        lsp.notify("textDocument/didOpen", {"textDocument": {
            "uri": opened.as_uri(), "languageId": "c", "version": 1,
            "text": opened.read_text(encoding="utf-8", errors="replace")}})
        # The background index reports its work as progress under its own token: wait
        # until it has begun and ended (other progress, the open file's, comes first).
        while not ({BACKGROUND_INDEX} <= lsp.progress_begun) or lsp.progress_open:
            lsp.read()
        answers = []
        opened_uris = {opened.as_uri()}
        for seed in seeds:
            uri = (root / seed["path"]).as_uri()
            if uri not in opened_uris:  # clangd answers for open documents only
                opened_uris.add(uri)
                lsp.notify("textDocument/didOpen", {"textDocument": {
                    "uri": uri, "languageId": "c", "version": 1,
                    "text": (root / seed["path"]).read_text(encoding="utf-8", errors="replace")}})
            result = []
            asked = [(uri, line, column) for line, column in
                     [(seed["line"], seed["column"]), *_typedef_names(root, seed)]]
            if seed["path"].endswith(".h"):
                asked += _compiled_site(lsp, root, seed, database, opened_uris)
            for at, line, column in asked:
                result += lsp.request("textDocument/references", {
                    "textDocument": {"uri": at},
                    "position": {"line": line - 1, "character": column - 1},
                    "context": {"includeDeclaration": False}}) or []
            uses = set()
            for location in result:
                path = Path(unquote(location["uri"].removeprefix("file://")))
                try:
                    rel = path.resolve().relative_to(root.resolve()).as_posix()
                except ValueError:
                    continue
                start = location["range"]["start"]
                uses.add((rel, start["line"] + 1, start["character"] + 1))
            answers.append(sorted(list(u) for u in uses))
        return version, answers
    finally:
        lsp.close()
        (root / "compile_commands.json").unlink(missing_ok=True)


ORACLES = {"jedi": jedi_uses, "gopls": gopls_uses, "tsserver": tsserver_uses,
           "clangd": clangd_uses}


def build(entry: Entry | HeldOut) -> Path:
    if isinstance(entry, Entry):
        corpora.fetch(entry.corpus)
    seeds = draw_seeds(entry)
    oracle = ORACLES[entry.oracle]
    defines = getattr(entry, "defines", ())
    version, answers = (oracle(entry.root, seeds, defines) if defines
                        else oracle(entry.root, seeds))
    for seed, uses in zip(seeds, answers, strict=True):
        if isinstance(uses, dict):  # the oracle also says which of its uses are none
            seed["aside"] = uses["aside"]
            uses = uses["uses"]
        seed["uses"] = uses if uses is not None else []
        seed["error"] = "" if uses is not None else "the oracle failed on this definition"
    out = entry.truth
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"corpus": entry.name, "language": entry.language,
                               "oracle": entry.oracle, "oracle_version": version,
                               "seeds": seeds}, indent=1) + "\n", encoding="utf-8")
    log.info("%s: %d seeds, %d uses (%s)", entry.name, len(seeds),
             sum(len(s["uses"]) for s in seeds), version)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpora (default: all of the table)")
    parser.add_argument("--held-out", type=Path, metavar="DIR",
                        help="instead, a repository outside the table (its truth is kept "
                             "under bench/out/references/held-out/)")
    parser.add_argument("--language", default="go", help="the held-out repository's language")
    parser.add_argument("--define", action="append", default=[], metavar="NAME[=VALUE]",
                        help="C, held out: a macro the package's own build defines "
                             "(`HAVE_STDINT_H`), passed to clangd as -D (repeatable)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.define and not (args.held_out and args.language == "c"):
        parser.error("--define is for a held-out C repository (--held-out DIR --language c)")
    if args.held_out:
        build(held_out(args.held_out, args.language, tuple(args.define)))
        return 0
    entries = [e for e in load_table() if not args.names or e.corpus.name in args.names]
    for entry in entries:
        if entry.oracle not in ORACLES:
            log.warning("%s: oracle %s not wired yet", entry.corpus.name, entry.oracle)
            continue
        build(entry)
    return 0


if __name__ == "__main__":
    sys.exit(main())
