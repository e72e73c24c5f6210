"""Imports follow the layers (CONTRIBUTING.md, "Layers"), checked on the source with `ast`;
so do the `Imports:` sentences of module docstrings, which must not drift.

Run as a module, it prints the graph of our modules' imports, which tools that draw import
graphs cannot see (every import is `symfind.…`, and no folder is named `symfind`):

    python -m tests.unit.test_layering          # one line per module: what it imports
    python -m tests.unit.test_layering --dot    # the same for Graphviz (`| dot -Tsvg`)
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = {"extract", "storage", "daemon", "mcp_server", "cli"}

#: package → (our packages it may import, our modules it may import, third parties it owns)
ALLOWED = {
    "extract": (set(), set()),
    "storage": (set(), {"extract.records", "extract.go_types", "extract.python_types",
                        "extract.c_types"}),
    "daemon": ({"extract", "storage"}, set()),
    "mcp_server": ({"storage"}, set()),
    "cli": ({"daemon", "mcp_server", "storage", "extract"}, set()),
}
#: third-party packages a module docstring's `Imports:` sentence names
THIRD_PARTIES = {"anyio", "h11", "httpx2", "mcp", "msgspec", "platformdirs", "pydantic",
                 "rapidfuzz", "starlette", "tantivy", "tree_sitter", "tree_sitter_language_pack",
                 "uvicorn", "watchdog"}
#: third-party packages confined to one of ours (the HTTP stack comes with mcp, and stays
#: with it)
CONFINED = {"tree_sitter": "extract", "tree_sitter_language_pack": "extract",
            "tantivy": "storage", "watchdog": "daemon", "mcp": "mcp_server",
            **dict.fromkeys(("anyio", "h11", "httpx2", "starlette", "uvicorn"), "mcp_server")}


def imported_modules(path: Path) -> list[str]:
    """Absolute imports, with our packages named as in the repository (`symfind.` dropped)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return [name.removeprefix("symfind.") for name in names]


@pytest.mark.parametrize("package", sorted(OURS))
def test_our_packages_are_imported_only_under_symfind(package: str) -> None:
    """`import storage` would find whatever else is installed under that generic name."""
    bare = []
    code = [p for folder in (*OURS, "tests", "bench") for p in sorted((ROOT / folder).rglob("*.py"))]
    # Fixtures, and the benchmarks' fetched third-party corpora (gitignored), are not ours.
    not_ours = {"fixtures", "corpora", "out"}
    for path in [p for p in code if not_ours.isdisjoint(p.relative_to(ROOT).parts)]:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                       else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0
                       else [])
            bare += [f"{path.relative_to(ROOT)} imports {m}" for m in modules
                     if m and m.split(".")[0] == package]
    assert bare == []


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(OURS))
def test_package_imports_only_what_its_layer_allows(package: str) -> None:
    allowed_packages, allowed_modules = ALLOWED[package]
    violations = []
    for path in sources(package):
        for module in imported_modules(path):
            top = module.split(".")[0]
            if top in OURS and top != package:
                ok = top in allowed_packages or any(
                    module == m or module.startswith(m + ".") for m in allowed_modules
                )
                if not ok:
                    violations.append(f"{path.relative_to(ROOT)} imports {module}")
            if top in CONFINED and CONFINED[top] != package:
                violations.append(f"{path.relative_to(ROOT)} imports {module} (confined)")
    assert violations == []


def test_every_package_has_sources() -> None:
    assert all(sources(package) for package in OURS)


def _named(text: str, names: Iterable[str]) -> set[str]:
    """The names that `text` mentions as whole words (`mcp` is not in `mcp_server`)."""
    return {name for name in names if re.search(rf"(?<![\w.]){name}(?!\w)", text)}


@pytest.mark.parametrize("package", sorted(OURS))
def test_imports_sentences_name_what_modules_import(package: str) -> None:
    """A module's `Imports:` sentence names the third-party packages and our other
    packages it imports, no more, no fewer (a package's `__init__` states its layer's rule
    instead, which the tests above check)."""
    wrong = []
    for path in sources(package):
        if path.name == "__init__.py":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        claim = re.search(r"Imports:(.*?)(?:\.(?:\s|$)|$)", " ".join(doc.split()))
        if claim is None:
            continue
        tops = {module.split(".")[0] for module in imported_modules(path)}
        imported = (tops & THIRD_PARTIES) | (tops & OURS) - {package}
        said = _named(claim.group(1), THIRD_PARTIES | OURS - {package})
        if said != imported:
            wrong.append(f"{path.relative_to(ROOT)} says {sorted(said)}, imports {sorted(imported)}")
    assert wrong == []


def module_name(path: Path) -> str:
    """`cli/program.py` → `cli.program`; a package's `__init__.py` → the package."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, list[str]]:
    """Each of our modules → the modules of ours it imports, as the repository names them.

    `from symfind.storage import schema` counts as importing `storage.schema`; `from
    symfind.storage import search_repo` as importing the package `storage`.
    """
    ours = {module_name(path) for package in sorted(OURS) for path in sources(package)}
    graph = {}
    for package in sorted(OURS):
        for path in sources(package):
            imported = set()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
                if isinstance(node, ast.Import):
                    imported |= {alias.name.removeprefix("symfind.") for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    module = node.module.removeprefix("symfind.")
                    imported |= {f"{module}.{alias.name}" if f"{module}.{alias.name}" in ours
                                 else module for alias in node.names}
            graph[module_name(path)] = sorted((imported & ours) - {module_name(path)})
    return graph


def test_the_import_graph_between_packages_is_the_layers() -> None:
    """The graph printed for readers, folded to packages, is exactly the layers: every
    allowed edge is used, and no other one exists."""
    edges = {(module.split(".")[0], target.split(".")[0])
             for module, targets in import_graph().items() for target in targets}
    between = {(source, target) for source, target in edges if source != target}
    assert between == {("storage", "extract"), ("daemon", "extract"), ("daemon", "storage"),
                       ("mcp_server", "storage"), ("cli", "extract"), ("cli", "daemon"), ("cli", "mcp_server"),
                       ("cli", "storage")}


def main(argv: list[str]) -> None:
    graph = import_graph()
    if argv == ["--dot"]:
        edges = [f'  "{module}" -> "{target}";' for module, targets in graph.items()
                 for target in targets]
        sys.stdout.write("digraph symfind {\n" + "\n".join(edges) + "\n}\n")
    elif not argv:
        sys.stdout.writelines(f"{module} -> {', '.join(targets) or '(none of ours)'}\n"
                              for module, targets in graph.items())
    else:
        sys.exit("usage: python -m tests.unit.test_layering [--dot]")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        sys.stderr.close()
