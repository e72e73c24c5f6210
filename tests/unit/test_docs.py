"""The docs that map the code name what exists: every path and Python name that
ARCHITECTURE.md and CONTRIBUTING.md put in backticks resolves, and no file of the
repository cites a document the repository does not hold.

What counts as a name (CONTRIBUTING.md, "Docs"): a backticked token with a `/` or a file
extension is a path from the repository root (globs allowed); a `SYMFIND_…` variable must
be read somewhere in our code; a dotted or bare identifier is a Python name; anything else
(a command with its arguments, a query, a snippet) is left alone. A name whose head is an
importable module (our packages without `symfind.`, or any installed one:
`socket.SOMAXCONN`) is imported and its tail looked up attribute by attribute; otherwise
the head must be one of our modules' names (`watcher`), a name that one of our modules or
the tests' conftest modules defines, or an attribute of one of our classes (`catch_up`),
and the tail is looked up on it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = ("extract", "storage", "daemon", "mcp_server", "cli")
MAPS = ("ARCHITECTURE.md", "CONTRIBUTING.md")
CONFTESTS = ("tests.conftest", "tests.integration.conftest")

_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_TICKED = re.compile(r"`([^`]+)`")
_PATH = re.compile(r"[\w.*-]+(?:/[\w.*-]*)+|[\w*-][\w.*-]*\.(?:py|md|scm|toml|txt|json|jsonl|sh)")
_VARIABLE = re.compile(r"SYMFIND_[A-Z_]+")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_MISSING = object()


def backticked(text: str) -> list[str]:
    """Inline code spans outside fenced blocks, their line breaks read as spaces."""
    return [" ".join(span.split()) for span in _TICKED.findall(_FENCE.sub("", text))]


@cache
def our_modules() -> dict[str, ModuleType]:
    """Every module of ours, imported, by its dotted name in the repository (`cli.program`),
    and the tests' conftest modules (their fixtures)."""
    modules = {}
    for package in OURS:
        root = importlib.import_module(f"symfind.{package}")
        modules[package] = root
        for info in pkgutil.walk_packages(root.__path__, prefix=f"symfind.{package}."):
            if not info.name.endswith(".__main__"):
                modules[info.name.removeprefix("symfind.")] = importlib.import_module(info.name)
    for conftest in CONFTESTS:
        modules[conftest] = importlib.import_module(conftest)
    return modules


@cache
def our_names() -> dict[str, list[object]]:
    """Each module's own name (`watcher`), each name a module defines and each attribute of
    a class of ours → the objects it may mean."""
    names: dict[str, list[object]] = {}
    for dotted, module in our_modules().items():
        names.setdefault(dotted.rsplit(".", 1)[-1], []).append(module)
        for name, value in vars(module).items():
            names.setdefault(name, []).append(value)
            if inspect.isclass(value) and value.__module__ == module.__name__:
                for member in dir(value):
                    names.setdefault(member, []).append(getattr(value, member, None))
    return names


def _lookup(value: object, attributes: list[str]) -> object:
    for attribute in attributes:
        value = getattr(value, attribute, _MISSING)
        if value is _MISSING:
            return _MISSING
    return value


def _imported(dotted: str) -> ModuleType | None:
    name = f"symfind.{dotted}" if dotted.split(".")[0] in OURS else dotted
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def name_resolves(name: str) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module = _imported(".".join(parts[:cut]))
        if module is not None:
            return _lookup(module, parts[cut:]) is not _MISSING
    return any(_lookup(value, parts[1:]) is not _MISSING for value in our_names().get(parts[0], []))


def path_exists(path: str) -> bool:
    pattern = path.rstrip("/")
    return any(ROOT.glob(pattern)) if "*" in pattern else (ROOT / pattern).exists()


@cache
def _our_source() -> str:
    return "\n".join(path.read_text(encoding="utf-8")
                     for package in OURS for path in sorted((ROOT / package).rglob("*.py")))


def variable_is_read(variable: str) -> bool:
    """Our code names the variable in a string (`os.environ.get("SYMFIND_WORKERS")`)."""
    return re.search(rf"[\"']{variable}[\"']", _our_source()) is not None


def unresolved(text: str) -> list[str]:
    """The backticked paths, variables and names of `text` that do not exist, in order."""
    wrong = []
    for token in backticked(text):
        if _VARIABLE.fullmatch(token):
            exists = variable_is_read(token)
        elif _PATH.fullmatch(token):
            exists = path_exists(token)
        elif _NAME.fullmatch(token):
            exists = name_resolves(token)
        else:
            continue
        if not exists:
            wrong.append(token)
    return wrong


@pytest.mark.parametrize("document", MAPS)
def test_every_backticked_path_and_name_exists(document: str) -> None:
    assert unresolved((ROOT / document).read_text(encoding="utf-8")) == []


def test_a_wrong_path_or_name_is_reported() -> None:
    text = """`extract/parse.py` and `extract/nope.py`; `tests/fixtures/languages/*/expected.json`
    and `tests/*.nope`; `extract_file` and `extract_flie`; `storage.search.Searcher.search`
    and `storage.search.Searcher.seek`; `watcher._Enqueue.on_any_event` and `watcher.Nope`;
    `socket.SOMAXCONN` and `socket.SOMAXCON`; `catch_up` and `catch_upp`; `full_disk` and
    `full_disc`; `SYMFIND_WORKERS` and `SYMFIND_WORKER`; `symfind reindex` is a command,
    ``x = 1`` a snippet.
    ```
    `not_checked_in_a_fence`
    ```"""
    assert unresolved(text) == ["extract/nope.py", "tests/*.nope", "extract_flie",
                                "storage.search.Searcher.seek", "watcher.Nope",
                                "socket.SOMAXCON", "catch_upp", "full_disc", "SYMFIND_WORKER"]


#: Where the repository's own text lives (fixtures and fetched corpora are other people's).
_TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".sh", ".scm", ".cfg"}
_NOT_OURS = {"fixtures", "corpora", "out", ".venv", "__pycache__", ".pytest_cache"}
#: A project document (`README.md`, `DESIGN.md`), or a page of docs/, named by its path.
_DOCUMENT = re.compile(r"(?<![\w/.-])(?:[\w./-]*/)?(?:docs/[\w-]+|[A-Z][A-Z_-]*)\.md\b")
#: Places outside the repository where notes the code relied on used to live.
_OUTSIDE = re.compile(r"\.\./shared\b|/work/shared\b|\bADR-\d+")


def repository_texts() -> list[Path]:
    files = [p for p in ROOT.iterdir() if p.is_file() and p.suffix in _TEXT_SUFFIXES]
    files.append(ROOT / ".ci" / "run")
    for folder in (*OURS, "tests", "bench", "docs"):
        files += [p for p in sorted((ROOT / folder).rglob("*"))
                  if p.is_file() and p.suffix in _TEXT_SUFFIXES
                  and _NOT_OURS.isdisjoint(p.relative_to(ROOT).parts)]
    # Their texts name documents as data: this file's samples, the glob test's paths.
    samples = {Path(__file__), ROOT / "tests" / "unit" / "storage" / "test_glob.py"}
    return [p for p in files if p not in samples]


def cited_documents_missing(path: Path, text: str) -> list[str]:
    """What `text` cites that the repository lacks: a document found neither from the
    root nor beside `path`, or a place outside the repository."""
    def held(candidate: Path) -> bool:
        return candidate.resolve().is_relative_to(ROOT) and candidate.exists()

    missing = [cited for cited in _DOCUMENT.findall(text)
               if not (held(ROOT / cited) or held(path.parent / cited))]
    return missing + _OUTSIDE.findall(text)


def test_no_file_cites_a_document_the_repository_lacks() -> None:
    missing = [f"{path.relative_to(ROOT)} cites {cited}" for path in repository_texts()
               for cited in cited_documents_missing(path, path.read_text(encoding="utf-8"))]
    assert missing == []


def test_a_citation_of_a_missing_document_is_reported() -> None:
    text = ("see DESIGN.md, ../shared/CONVENTIONS.md (ADR-7), docs/scale.md, docs/nope.md, "
            "README.md, bench/README.md, ../README.md and bench/out/relevance.md")
    assert cited_documents_missing(ROOT / "storage" / "schema.py", text) == [
        "DESIGN.md", "../shared/CONVENTIONS.md", "docs/nope.md", "../shared", "ADR-7"]


#: The documents a reader moves between by their links.
LINKED = ("README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")))
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchor(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    return {anchor(line.lstrip("#")) for line in _FENCE.sub("", text).splitlines()
            if re.match(r"#{1,6} ", line)}


def broken_links(path: Path, text: str) -> list[str]:
    """Links of `text` to a file that does not exist or to a heading it does not have (links
    to the web are left alone)."""
    broken = []
    for link in _LINK.findall(_FENCE.sub("", text)):
        if re.match(r"[a-z]+:", link):
            continue
        target, _, fragment = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        if not (file.is_relative_to(ROOT) and file.exists()):
            broken.append(link)
        elif fragment and not (file.is_file() and fragment in anchors(file.read_text(
                encoding="utf-8"))):
            broken.append(link)
    return broken


@pytest.mark.parametrize("document", LINKED)
def test_every_link_between_documents_arrives(document: str) -> None:
    path = ROOT / document
    assert broken_links(path, path.read_text(encoding="utf-8")) == []


def test_a_broken_link_is_reported() -> None:
    text = ("[a](#quick-start) [b](#no-such-heading) [c](docs/search.md#many-repositories) "
            "[d](docs/search.md#nope) [e](docs/nope.md) [f](https://example.com/x#y) "
            "[g](LICENSE)")
    assert broken_links(ROOT / "README.md", text) == [
        "#no-such-heading", "docs/search.md#nope", "docs/nope.md"]


def test_the_readme_test_command_is_what_ci_runs() -> None:
    """The README tells contributors the command CI runs (`.ci/run`'s last line)."""
    command = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").splitlines()[-1]
    fenced = re.findall(r"^```bash\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"),
                        re.MULTILINE | re.DOTALL)
    assert command in [block.strip("\n") for block in fenced]
