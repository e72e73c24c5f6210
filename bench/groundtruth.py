"""Ground truth from universal-ctags, and the benchmark queries derived from it.

For one corpus (a directory from `bench.corpora`):

1. Source files: `rg --files` (so `.gitignore`/`.ignore` are honoured and hidden files
   skipped, as users expect), kept when their suffix is one of symfind's 13 languages and
   they are at most `MAX_FILE_BYTES`.
2. Tags: `ctags -L - --sort=no --output-format=json --fields=+nKzSlE` over those files.
   (`--extras=+q` is not used: it repeats every scoped tag under its qualified name; we
   build qualified names from the `scope` field instead.)
3. Definitions: the tags whose (language, ctags kind) is in `KIND_MAP` -- classes,
   structs, interfaces, traits, enums, type aliases, functions, methods, macros, modules,
   constants, enum members, and variables at module/package/namespace level (`X = ...`
   in Python, top-level `var`/`let` in JS, package `var` in Go, `static` in Rust, C
   globals) -- minus anonymous tags and anything defined inside a function body
   (including JS/TS `const`/`let`/`var` declarations that ctags reports unscoped but
   that are indented: locals of callbacks, as in `describe(() => { const x = ... })`,
   and loop variables, `for (const x of xs)`).
   Fields, properties (`this.x = ...` in JS/TS too), class-level variables, parameters,
   locals, imports, packages and `impl` blocks are left out. Every excluded tag is counted by (language, kind, reason)
   in `stats.json`. A TypeScript function or method ctags tags at its first overload
   signature is moved to its implementation (the one with a body, which symfind ranks
   first): that is the definition an agent asks for.
4. Queries, `PER_SHAPE` per shape at most, sampled with a seed fixed per corpus and shape,
   only from UNAMBIGUOUS targets (see `name_key`); the shapes are in `SHAPES`.

Outputs in `bench/out/<corpus>/`: `definitions.jsonl`, `queries.jsonl` (one
`{"shape","query","path","line","name",...}` per line) and `stats.json`.

Usage:
    python -m bench.groundtruth [CORPUS ...] [--per-shape 100]
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import random
import re
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from rapidfuzz.distance import OSA

from bench import corpora
from bench.ctags_errors import SourceFiles, ctags_errors, name_lines_fixed, overloads_implemented

log = logging.getLogger("bench.groundtruth")

OUT_DIR = corpora.BENCH / "out"
CTAGS = "/usr/bin/ctags"
MAX_FILE_BYTES = 1_000_000
PER_SHAPE = 100
SHAPES = ("exact", "lower", "typo1", "typo2", "words", "qualified", "qualified_typo")

#: File suffix -> our language id (symfind's languages and suffixes).
EXTENSIONS = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".php": "php", ".kt": "kotlin", ".kts": "kotlin",
}
#: ctags language name -> our language id.
CTAGS_LANGUAGES = {
    "Python": "python", "JavaScript": "javascript", "TypeScript": "typescript", "Go": "go",
    "Rust": "rust", "Java": "java", "C": "c", "C++": "cpp", "C#": "csharp", "Ruby": "ruby",
    "PHP": "php", "Kotlin": "kotlin",
}
#: Suffixes ctags does not map by default, and `.h` to C (a C++ corpus overrides it).
CTAGS_MAPS = ["--map-Python=+.pyi", "--map-JavaScript=+.cjs", "--map-TypeScript=+.mts",
              "--map-TypeScript=+.cts", "--map-TypeScript=+.tsx", "--map-C++=+.ipp"]
H_AS_C = ["--map-C++=-.h", "--map-C=+.h"]

#: (our language, ctags long kind) -> symfind kind. Anything else is not a definition.
KIND_MAP: dict[tuple[str, str], str] = {}
for _lang, _pairs in {
    "python": {"class": "class", "function": "function", "member": "method",
               "variable": "constant"},
    "javascript": {"class": "class", "function": "function", "generator": "function",
                   "method": "method", "getter": "method", "setter": "method",
                   "constant": "constant", "variable": "constant"},
    "typescript": {"class": "class", "interface": "interface", "enum": "enum",
                   "function": "function", "generator": "function", "method": "method",
                   "alias": "type", "namespace": "module", "constant": "constant",
                   "enumerator": "constant", "variable": "constant"},
    "go": {"func": "function", "struct": "struct", "interface": "interface", "type": "type",
           "talias": "type", "const": "constant", "methodSpec": "method", "var": "constant"},
    "rust": {"struct": "struct", "enum": "enum", "interface": "trait", "function": "function",
             "method": "method", "typedef": "type", "macro": "macro", "module": "module",
             "enumerator": "constant", "variable": "constant"},
    "c": {"function": "function", "struct": "struct", "union": "struct", "enum": "enum",
          "typedef": "type", "macro": "macro", "enumerator": "constant",
          "variable": "constant"},
    "cpp": {"function": "function", "struct": "struct", "union": "struct", "enum": "enum",
            "typedef": "type", "macro": "macro", "enumerator": "constant", "class": "class",
            "namespace": "module", "alias": "type", "variable": "constant"},
    "java": {"class": "class", "interface": "interface", "enum": "enum",
             "annotation": "interface", "method": "method", "enumConstant": "constant"},
    "csharp": {"class": "class", "struct": "struct", "interface": "interface", "enum": "enum",
               "method": "method", "namespace": "module", "enumerator": "constant"},
    "ruby": {"class": "class", "module": "module", "method": "method",
             "singletonMethod": "method", "constant": "constant", "alias": "method",
             "accessor": "method"},
    "php": {"class": "class", "interface": "interface", "trait": "trait",
            "function": "function", "define": "constant", "namespace": "module",
            "variable": "constant"},
    "kotlin": {"class": "class", "interface": "interface", "object": "class",
               "method": "function", "typealias": "type", "constant": "constant",
               "variable": "constant"},
}.items():
    for _ctags_kind, _kind in _pairs.items():
        KIND_MAP[(_lang, _ctags_kind)] = _kind

#: Scope kinds that are function bodies: what is defined inside is local, not a definition.
FUNCTION_SCOPES = frozenset({"function", "func", "method", "member", "singletonMethod",
                             "generator", "getter", "setter"})
#: Methods: a function whose scope is a type. Variables scoped so are fields: left out.
TYPE_SCOPES = frozenset({"class", "struct", "interface", "trait", "implementation", "enum",
                         "object", "union", "type"})
#: ctags kinds that are variables: definitions only at module/package/namespace level.
VARIABLE_KINDS = frozenset({"variable", "var"})
#: JS/TS value declarations (`const`/`let`/`var`): module-level only when at column 0.
JS_VALUE_KINDS = frozenset({"constant", "variable"})
_THIS_ASSIGNMENT = re.compile(r"^/\^\s*this\.")
_INDENTED_DECLARATION = re.compile(r"^/\^\s+(?:export\s+|.*[\s(])?(?:const|let|var)\s")
#: Separator of a `qualified` query per language (`Server.Serve`, `Runtime::block_on`).
SEPARATORS = {"rust": "::", "cpp": "::", "c": "::", "ruby": "::", "php": "::"}
_SCOPE_SPLIT = re.compile(r"::|\.|\\|#")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*[?!]?$")
#: Words of an identifier; digits stay with the word before them (`v6`, `sgr0`, `base64`).
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])[0-9]*|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")


@dataclass(frozen=True)
class Definition:
    """One ground-truth definition (`line` is 1-based, the line of the name)."""

    name: str
    kind: str
    ctags_kind: str
    language: str
    path: str
    line: int
    scope: str = ""
    scope_kind: str = ""

    @property
    def scope_last(self) -> str:
        """The innermost scope part (`Server` of `http.Server`), "" when none."""
        return _SCOPE_SPLIT.split(self.scope)[-1] if self.scope else ""

    @property
    def separator(self) -> str:
        return SEPARATORS.get(self.language, ".")

    @property
    def qualified(self) -> str:
        """`<scope's last part><separator><name>`, "" without a usable scope."""
        last = self.scope_last
        if not last or last.startswith("__anon") or not _IDENTIFIER.match(last):
            return ""
        return f"{last}{self.separator}{self.name}"


# --------------------------------------------------------------------------- files, tags


def source_files(root: Path, max_bytes: int = MAX_FILE_BYTES) -> list[str]:
    """Supported source files under `root` (relative, sorted), ignore files honoured."""
    listed = subprocess.run(["rg", "--files", "--no-require-git", "--sort", "path"], cwd=root,
                            check=True, capture_output=True, text=True, encoding="utf-8").stdout
    files = []
    for rel in listed.splitlines():
        suffix = Path(rel).suffix.lower()
        if suffix in EXTENSIONS and (root / rel).stat().st_size <= max_bytes:
            files.append(rel)
    return files


def run_ctags(root: Path, files: list[str], h_as_c: bool) -> list[dict]:
    """ctags' JSON tags for `files` (relative to `root`), in file then position order."""
    cmd = [CTAGS, "-L", "-", "--sort=no", "--output-format=json", "--fields=+nKzSlE",
           "-f", "-", *CTAGS_MAPS, *(H_AS_C if h_as_c else [])]
    out = subprocess.run(cmd, cwd=root, input="\n".join(files) + "\n", check=True,
                         capture_output=True, text=True, encoding="utf-8",
                         errors="replace").stdout
    # split("\n"), not splitlines(): names and patterns may hold U+2028 and the like.
    tags = (json.loads(line) for line in out.split("\n") if line)
    return [tag for tag in tags if tag.get("_type") == "tag"]


def _language(tag: dict) -> str | None:
    language = CTAGS_LANGUAGES.get(tag.get("language", ""))
    if language == "typescript" and tag["path"].lower().endswith(".tsx"):
        return "tsx"
    return language


def _excluded(tag: dict, language: str | None) -> str:
    """Why a tag is not a definition ("" when it is one)."""
    if language is None:
        return "language"
    kind_language = "typescript" if language == "tsx" else language
    if (kind_language, tag["kind"]) not in KIND_MAP:
        return "kind"
    if "anonymous" in tag.get("extras", "") or tag["name"].startswith("__anon"):
        return "anonymous"
    if tag.get("scopeKind") in FUNCTION_SCOPES:
        return "local"
    if tag["kind"] in VARIABLE_KINDS and tag.get("scopeKind") in TYPE_SCOPES:
        return "field"
    if (kind_language in ("javascript", "typescript") and tag["kind"] in JS_VALUE_KINDS
            and not tag.get("scope") and _INDENTED_DECLARATION.match(tag.get("pattern", ""))):
        # ctags loses the scope inside callbacks (`describe(() => { const x = 1 })`) and
        # reports such locals unscoped; a module-level declaration starts at column 0
        # (an indented name alone is the next declarator of `var a = 1,\n    b = 2`).
        return "local"
    if kind_language in ("javascript", "typescript") and _THIS_ASSIGNMENT.match(tag.get("pattern", "")):
        return "field"  # `this.x = ...` in a constructor or method: a property
    return ""


def definitions_from_tags(tags: list[dict]) -> tuple[list[Definition], collections.Counter]:
    """The definitions among `tags`, and a count of the rest by (language, kind, reason)."""
    defs: list[Definition] = []
    excluded: collections.Counter = collections.Counter()
    for tag in tags:
        language = _language(tag)
        reason = _excluded(tag, language)
        if reason:
            excluded[(language or tag.get("language", "?"), tag["kind"], reason)] += 1
            continue
        kind = KIND_MAP[("typescript" if language == "tsx" else language, tag["kind"])]
        if kind == "function" and tag.get("scopeKind") in TYPE_SCOPES:
            kind = "method"
        defs.append(Definition(
            name=tag["name"], kind=kind, ctags_kind=tag["kind"], language=language,
            path=tag["path"], line=int(tag["line"]), scope=tag.get("scope", ""),
            scope_kind=tag.get("scopeKind", ""),
        ))
    return defs, excluded


# --------------------------------------------------------------------------- query shapes

_QWERTY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _qwerty_neighbours() -> dict[str, str]:
    """Keys next to each letter on a QWERTY keyboard (same row, and the rows above/below)."""
    where = {ch: (r, c) for r, row in enumerate(_QWERTY_ROWS) for c, ch in enumerate(row)}
    out = {}
    for ch, (r, c) in where.items():
        near = []
        for other, (r2, c2) in where.items():
            if other != ch and abs(r - r2) <= 1 and (
                (r2 == r and abs(c2 - c) == 1) or (r2 == r - 1 and c2 in (c, c + 1))
                or (r2 == r + 1 and c2 in (c - 1, c))
            ):
                near.append(other)
        out[ch] = "".join(sorted(near))
    return out


QWERTY_NEIGHBOURS = _qwerty_neighbours()


def _match_case(ch: str, like: str) -> str:
    return ch.upper() if like.isupper() else ch


def one_typo(word: str, rng: random.Random) -> str:
    """`word` with one edit that never touches its first character.

    The edit is one of: swap two adjacent characters, drop one, insert a QWERTY
    neighbour of the next character, or replace a letter by a QWERTY neighbour.
    """
    while True:
        op = rng.choice(("swap", "drop", "insert", "neighbour"))
        if op == "swap" and len(word) >= 3:
            i = rng.randrange(1, len(word) - 1)
            if word[i] != word[i + 1]:
                return word[:i] + word[i + 1] + word[i] + word[i + 2:]
        elif op == "drop" and len(word) >= 3:
            i = rng.randrange(1, len(word))
            return word[:i] + word[i + 1:]
        elif op in ("insert", "neighbour"):
            letters = [i for i in range(1, len(word)) if word[i].lower() in QWERTY_NEIGHBOURS]
            if not letters:
                continue
            i = rng.choice(letters)
            key = _match_case(rng.choice(QWERTY_NEIGHBOURS[word[i].lower()]), word[i])
            if op == "insert":
                return word[:i] + key + word[i:]
            return word[:i] + key + word[i + 1:]


def typo(word: str, edits: int, rng: random.Random, taken: set[str],
         attempts: int = 50) -> str | None:
    """`word` with exactly `edits` edits (OSA distance), not any name in `taken`."""
    for _ in range(attempts):
        out = word
        for _ in range(edits):
            out = one_typo(out, rng)
        if OSA.distance(word, out) == edits and name_key(out) not in taken:
            return out
    return None


def split_words(name: str) -> list[str]:
    """Lowercase words of an identifier: `HTTPServerError` -> http server error,
    `parse_header_links` -> parse header links, `join_multicast_v6` -> join multicast v6."""
    return [w.lower() for w in _WORD.findall(name)]


def name_key(name: str) -> str:
    """What makes two names the same for ambiguity: case, `_`, `-`, `$` ignored.

    (`http_client`, `HttpClient` and the words `http client` all mean the same name.)
    """
    return re.sub(r"[_\-$\s]", "", name).casefold()


def _qualified_key(d: Definition) -> str:
    return f"{name_key(d.scope_last)}/{name_key(d.name)}"


def make_queries(defs: list[Definition], corpus_name: str,
                 per_shape: int = PER_SHAPE) -> tuple[list[dict], dict]:
    """Sample up to `per_shape` queries per shape; return them and per-shape statistics.

    Targets are unambiguous: a name whose `name_key` one definition has (for qualified
    shapes, one (scope's last part, name) pair). Sampling uses `random.Random` seeded with
    `"<corpus>:<shape>"`, over definitions in ctags order, so runs are reproducible.
    """
    by_name = collections.Counter(name_key(d.name) for d in defs)
    by_qualified = collections.Counter(_qualified_key(d) for d in defs if d.qualified)
    taken = set(by_name)

    def eligible(shape: str, d: Definition) -> bool:
        if not _IDENTIFIER.match(d.name) or len(d.name) < 3:
            return False
        return {
            "exact": True,
            "lower": d.name != d.name.lower(),
            "typo1": len(d.name) >= 4,
            "typo2": len(d.name) >= 8,
            "words": len(split_words(d.name)) >= 2,
            "qualified": bool(d.qualified),
            "qualified_typo": bool(d.qualified) and len(d.name) >= 4,
        }[shape]

    def unambiguous(shape: str, d: Definition) -> bool:
        if shape.startswith("qualified"):
            return by_qualified[_qualified_key(d)] == 1
        return by_name[name_key(d.name)] == 1

    queries: list[dict] = []
    stats: dict = {}
    for shape in SHAPES:
        rng = random.Random(f"{corpus_name}:{shape}")
        candidates = [d for d in defs if eligible(shape, d)]
        clear = [d for d in candidates if unambiguous(shape, d)]
        rng.shuffle(clear)
        made, failed = 0, 0
        for d in clear:
            if made >= per_shape:
                break
            text = _query_text(shape, d, rng, taken)
            if text is None:
                failed += 1
                continue
            queries.append({"shape": shape, "query": text, "path": d.path, "line": d.line,
                            "name": d.name, "kind": d.kind, "language": d.language,
                            "corpus": corpus_name})
            made += 1
        stats[shape] = {"eligible": len(candidates), "ambiguous": len(candidates) - len(clear),
                        "typo_failed": failed, "queries": made}
    return queries, stats


def _query_text(shape: str, d: Definition, rng: random.Random, taken: set[str]) -> str | None:
    if shape == "exact":
        return d.name
    if shape == "lower":
        return d.name.lower()
    if shape == "typo1":
        return typo(d.name, 1, rng, taken)
    if shape == "typo2":
        return typo(d.name, 2, rng, taken)
    if shape == "words":
        return " ".join(split_words(d.name))
    if shape == "qualified":
        return d.qualified
    typoed = typo(d.name, 1, rng, taken)
    return None if typoed is None else f"{d.scope_last}{d.separator}{typoed}"


# --------------------------------------------------------------------------- per corpus


def out_dir(corpus: corpora.Corpus) -> Path:
    return OUT_DIR / corpus.dirname


def build(corpus: corpora.Corpus, per_shape: int = PER_SHAPE) -> dict:
    """Tag one (fetched) corpus, write definitions, queries and stats; return the stats."""
    root = corpus.path
    files = source_files(root)
    tags = run_ctags(root, files, h_as_c=corpus.language == "c")
    defs, excluded = definitions_from_tags(tags)
    sources = SourceFiles(root)
    defs = name_lines_fixed(sources, defs)
    # ctags' own errors (a property read as a constant, a macro call as a function) are no
    # definitions to look for: the same rules bench.coverage lists them by.
    wrong = ctags_errors(sources, defs)
    for number in wrong:
        excluded[(defs[number].language, defs[number].ctags_kind, "ctags error")] += 1
    defs = [d for number, d in enumerate(defs) if number not in wrong]
    defs = overloads_implemented(sources, defs)
    queries, shape_stats = make_queries(defs, corpus.name, per_shape)
    dest = out_dir(corpus)
    dest.mkdir(parents=True, exist_ok=True)
    write_jsonl(dest / "definitions.jsonl", [asdict(d) for d in defs])
    write_jsonl(dest / "queries.jsonl", queries)
    stats = {
        "corpus": corpus.name, "version": corpus.version, "language": corpus.language,
        "files": len(files), "tags": len(tags), "definitions": len(defs),
        "files_by_language": dict(collections.Counter(EXTENSIONS[Path(f).suffix.lower()]
                                                      for f in files)),
        "definitions_by_language_kind": _nested_counts(
            collections.Counter((d.language, d.ctags_kind) for d in defs)),
        "excluded_by_language_kind_reason": {
            f"{lang}/{kind}/{reason}": n for (lang, kind, reason), n in excluded.most_common()},
        "shapes": shape_stats,
    }
    (dest / "stats.json").write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
    log.info("%s: %d files, %d tags, %d definitions, %d queries", corpus.dirname, len(files),
             len(tags), len(defs), len(queries))
    return stats


def _nested_counts(counter: collections.Counter) -> dict:
    out: dict = {}
    for (outer, inner), n in sorted(counter.items()):
        out.setdefault(outer, {})[inner] = n
    return out


def write_jsonl(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_definitions(corpus: corpora.Corpus) -> list[Definition]:
    return [Definition(**row) for row in read_jsonl(out_dir(corpus) / "definitions.jsonl")]


def load_queries(corpus: corpora.Corpus) -> list[dict]:
    return read_jsonl(out_dir(corpus) / "queries.jsonl")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpora (default: all relevance corpora)")
    parser.add_argument("--per-shape", type=int, default=PER_SHAPE)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    table = corpora.load_table()
    chosen = corpora.select(table, args.names, None if args.names else "relevance")
    for corpus in chosen:
        corpora.fetch(corpus)
        build(corpus, args.per_shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
