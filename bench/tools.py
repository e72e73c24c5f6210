"""The tools under test: three baselines and symfind, each answering the same queries.

Every tool gets a corpus root, its ground-truth definitions (the baselines use them as
their "index"; symfind builds its own), and a list of queries; it returns, per query, a
ranked list of up to `LIMIT` (path, line) pairs and the time the query took.

- `FuzzyScan`: rapidfuzz `process.extract(query, choices, scorer=fuzz.WRatio,
  processor=default_process, limit=10)` over every definition's name AND qualified name
  (`Scope.name` / `Scope::name`), case-insensitive like Fuse.js.
- `CtagsLookup`: case-insensitive exact lookup of the name in the ctags definitions (a
  query with a separator `.` `::` `#` `\\` is looked up as scope's last part + name);
  ties in tag order (file order, then position).
- `Ripgrep`: `rg -n -i` with a definition regex built from the query's name part
  (`definition_regex`), files sorted by path; wall time per query includes process start.
- `Symfind`: `symfind index ROOT`, then one `symfind search --queries-from FILE --repo ROOT
  --limit 10 --json` process for all the queries of a corpus (the CLI's JSONL contract).
"""

from __future__ import annotations

import compileall
import functools
import importlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from rapidfuzz import fuzz, process, utils

from bench.groundtruth import EXTENSIONS, MAX_FILE_BYTES, OUT_DIR, Definition

log = logging.getLogger("bench.tools")

LIMIT = 10
Location = tuple[str, int]
_SEPARATORS = re.compile(r"::|\.|#|\\|->|/")


@dataclass
class Answer:
    """One tool's answer to one query."""

    ranked: list[Location]
    took_ms: float
    #: What ranked first, as the tool names it (for the misses report).
    first: str = ""
    extra: dict = field(default_factory=dict)


def name_part(query: str) -> str:
    """The last segment of a qualified query; words joined (`http client` -> httpclient)."""
    return _SEPARATORS.split(query.strip())[-1].replace(" ", "")


def _unique(locations: list[Location], limit: int = LIMIT) -> list[Location]:
    return list(dict.fromkeys(locations))[:limit]


class Tool:
    """A search tool. `prepare` once per corpus, then `run` the queries."""

    name = "tool"

    def prepare(self, root: Path, defs: list[Definition]) -> None:
        self.root = root
        self.labels = {(d.path, d.line): d.name for d in defs}

    def run(self, queries: list[str]) -> list[Answer]:
        raise NotImplementedError

    def label(self, ranked: list[Location]) -> str:
        if not ranked:
            return "(nothing)"
        path, line = ranked[0]
        return f"{self.labels.get((path, line), '?')} {path}:{line}"


class FuzzyScan(Tool):
    """A fuzzy scan over all names, as a Fuse.js-style symbol picker would do."""

    name = "fuzzy-scan"

    def prepare(self, root: Path, defs: list[Definition]) -> None:
        super().prepare(root, defs)
        choices: dict[str, list[Location]] = defaultdict(list)
        for d in defs:
            choices[d.name].append((d.path, d.line))
            if d.qualified:
                choices[d.qualified].append((d.path, d.line))
        self.choices = dict(choices)
        self.keys = list(self.choices)
        self.processed = [utils.default_process(k) for k in self.keys]

    def run(self, queries: list[str]) -> list[Answer]:
        answers = []
        for query in queries:
            started = time.perf_counter()
            matches = process.extract(utils.default_process(query), self.processed,
                                      scorer=fuzz.WRatio, limit=LIMIT, processor=None)
            ranked = _unique([loc for _, _, i in matches for loc in self.choices[self.keys[i]]])
            took = (time.perf_counter() - started) * 1000
            answers.append(Answer(ranked, took, self.label(ranked)))
        return answers


class CtagsLookup(Tool):
    """Exact, case-insensitive lookup in the tags, as `:tag name` / `readtags` would."""

    name = "ctags-lookup"

    def prepare(self, root: Path, defs: list[Definition]) -> None:
        super().prepare(root, defs)
        self.by_name: dict[str, list[Location]] = defaultdict(list)
        self.by_qualified: dict[str, list[Location]] = defaultdict(list)
        for d in defs:
            self.by_name[d.name.casefold()].append((d.path, d.line))
            if d.qualified:
                self.by_qualified[self._qualified_key(d.qualified)].append((d.path, d.line))

    @staticmethod
    def _qualified_key(text: str) -> str:
        return ".".join(_SEPARATORS.split(text.casefold()))

    def run(self, queries: list[str]) -> list[Answer]:
        answers = []
        for query in queries:
            started = time.perf_counter()
            if _SEPARATORS.search(query):
                found = self.by_qualified.get(self._qualified_key(query), [])
            else:
                found = self.by_name.get(query.casefold(), [])
            ranked = _unique(found)
            answers.append(Answer(ranked, (time.perf_counter() - started) * 1000,
                                  self.label(ranked)))
        return answers


#: Keywords that introduce a definition, in the languages symfind supports.
DEFINITION_KEYWORDS = (
    "def|class|func|fn|function|struct|interface|type|enum|trait|impl|module|mod|const|let"
    "|var|static|union|typedef|namespace|object|fun|typealias|alias|macro_rules!|#\\s*define"
)
#: Modifiers that may precede a method name in a class body (Java, JS/TS, C++, Kotlin, PHP).
MODIFIERS = ("public|private|protected|internal|static|final|abstract|async|override|export"
             "|default|synchronized|native|inline|virtual|get|set|readonly|\\*")


def definition_regex(name: str) -> str:
    """An `rg -i` regex for lines that define `name` (Rust regex syntax: no lookaround).

    Alternatives: a keyword then the name (`def x`, `func (r T) x`, `def self.x`,
    `#define x`); a C/C++-style header `type name(...` at column 0 (GNU `name(` too), not
    ending in `;` (prototypes); an indented method header ending in `{` (`  public
    static String x(int a) {`, `  async x() {`); an assignment at column 0 (`X = ...`).
    `(?-u)`: ASCII classes and case folding (identifiers are ASCII); with Unicode ones
    this alternation under `-i` is 15-20x slower on a large tree, same matches.
    """
    word = re.escape(name)
    end = r"\b" if re.match(r"\w", name[-1:]) else ""
    return "(?-u)" + "|".join((
        rf"\b(?:{DEFINITION_KEYWORDS})\s+(?:\([^)]*\)\s*)?(?:self\.)?{word}{end}",
        rf"^(?:[A-Za-z_][^;=()]*[\s*&:])?{word}\s*\([^;]*$",
        rf"^\s+(?:(?:{MODIFIERS})\s+)*(?:[\w<>\[\],.?]+\s+)?{word}\s*\([^;]*\{{\s*$",
        rf"^{word}\s*=[^=]",
    ))


class Ripgrep(Tool):
    """`rg` with a definition regex per query: what people do without an index."""

    name = "ripgrep"

    def prepare(self, root: Path, defs: list[Definition]) -> None:
        super().prepare(root, defs)
        self.globs = [arg for ext in sorted(EXTENSIONS) for arg in ("-g", f"*{ext}")]

    def run(self, queries: list[str]) -> list[Answer]:
        answers = []
        for query in queries:
            name = name_part(query)
            cmd = ["rg", "-n", "-i", "--no-heading", "--null", "--color", "never",
                   "--no-require-git", "--sort", "path",
                   "--max-filesize", str(MAX_FILE_BYTES), *self.globs,
                   "-e", definition_regex(name)]
            started = time.perf_counter()
            proc = subprocess.run(cmd, cwd=self.root, capture_output=True, text=True,
                                  encoding="utf-8", errors="replace")
            took = (time.perf_counter() - started) * 1000
            if proc.returncode not in (0, 1):  # 1: no match
                raise RuntimeError(f"rg failed on {query!r}: {proc.stderr}")
            ranked = []
            for out_line in proc.stdout.splitlines():
                path, _, rest = out_line.partition("\0")
                ranked.append((path, int(rest.split(":", 1)[0])))
                if len(ranked) == LIMIT:
                    break
            answers.append(Answer(ranked, took, self.label(ranked)))
        return answers


def symfind_command() -> list[str] | None:
    """How to run symfind: `$SYMFIND_BIN`, the venv's `symfind`, or None if absent."""
    if os.environ.get("SYMFIND_BIN"):
        return os.environ["SYMFIND_BIN"].split()
    beside = Path(sys.executable).parent / "symfind"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("symfind")
    return [found] if found else None


def symfind_env(index_base: Path) -> dict[str, str]:
    """The environment for symfind runs: its indexes under `index_base`, and its modules
    byte-compiled first (`compile_symfind`)."""
    compile_symfind()
    return {**os.environ, "SYMFIND_INDEX_DIR": str(index_base)}


@functools.cache
def compile_symfind() -> None:
    """Byte-compile symfind's modules, as pip does when it installs a wheel. An editable
    install under PYTHONDONTWRITEBYTECODE (set on this machine) has no `.pyc`: every
    symfind process would compile every module it imports, and a cold CLI search would
    measure that instead of what users see."""
    for package in ("daemon", "storage", "extract", "mcp_server"):
        module = importlib.import_module(f"symfind.{package}")
        compileall.compile_dir(Path(module.__file__ or "").parent, quiet=1)


#: Where the relevance runs keep symfind's indexes (gitignored, reused between runs).
SYMFIND_INDEX_BASE = OUT_DIR / "symfind-indexes"


class Symfind(Tool):
    """symfind through its CLI contract: index, then one JSONL search process per corpus."""

    name = "symfind"

    def __init__(self, command: list[str], index_base: Path = SYMFIND_INDEX_BASE) -> None:
        self.command = command
        self.index_base = index_base

    def prepare(self, root: Path, defs: list[Definition]) -> None:
        super().prepare(root, defs)
        self.index_base.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        subprocess.run([*self.command, "index", str(root)], env=symfind_env(self.index_base),
                       check=True, stdout=subprocess.DEVNULL)
        log.info("symfind index %s: %.1f s", root.name, time.perf_counter() - started)

    def run(self, queries: list[str]) -> list[Answer]:
        if any("\n" in q for q in queries):
            raise ValueError("a query holds a newline")
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt") as handle:
            handle.write("".join(q + "\n" for q in queries))
            handle.flush()
            proc = subprocess.run(
                [*self.command, "search", "--queries-from", handle.name, "--repo",
                 str(self.root), "--limit", str(LIMIT), "--json"],
                env=symfind_env(self.index_base), check=True, capture_output=True, text=True,
                encoding="utf-8")
        replies = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        if len(replies) != len(queries):
            raise RuntimeError(f"symfind answered {len(replies)} of {len(queries)} queries")
        answers = []
        for query, reply in zip(queries, replies, strict=True):
            if reply.get("query") != query:
                raise RuntimeError(f"symfind reply out of order: {reply.get('query')!r}")
            results = reply.get("results", [])
            ranked = _unique([(r["path"], int(r["line"])) for r in results])
            # The first three, with the channels that found them (the misses reports).
            top = [f"{r.get('qualname') or r['name']} [{r.get('kind')}] {r['path']}:{r['line']} "
                   f"{_channels(r)}" for r in results[:3]]
            answers.append(Answer(ranked, float(reply.get("took_ms", 0.0)),
                                  top[0] if top else "(nothing)",
                                  {"route": reply.get("route", ""), "top": top}))
        return answers


def _channels(result: dict) -> str:
    channels = (result.get("why") or {}).get("channels") or {}
    return " ".join(f"{name}#{info.get('rank', '?')}" if isinstance(info, dict) else name
                    for name, info in channels.items())


def available_tools(include_symfind: bool = True) -> list[Tool]:
    """The baselines, plus symfind when it can be run."""
    tools: list[Tool] = [FuzzyScan(), CtagsLookup(), Ripgrep()]
    if include_symfind:
        command = symfind_command()
        if command is None:
            log.warning("symfind not found (set SYMFIND_BIN or pip install -e .): skipped")
        else:
            tools.append(Symfind(command))
    return tools


def cli_module(env: dict[str, str] | None = None) -> str:
    """The command line's module in the symfind `env` (default: this process's) puts first
    on the path: `symfind.cli`, or `symfind.daemon` in commits before the command line had
    a package of its own (a benchmark may run an older commit beside this one). Told by
    the directories of the first symfind package on PYTHONPATH: importing `symfind.cli`
    proves nothing, as this checkout's editable install finds it for a package without."""
    for entry in (env if env is not None else os.environ).get("PYTHONPATH", "").split(os.pathsep):
        package = os.path.join(entry, "symfind")
        if entry and os.path.isdir(package):
            return "symfind.cli" if os.path.isdir(os.path.join(package, "cli")) else "symfind.daemon"
    return "symfind.cli"  # this checkout's
