"""Imports follow CONVENTIONS.md §1, checked on the source with `ast`; so do the
`Imports:` sentences of module docstrings (CONVENTIONS.md §9), which must not drift."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = {"extract", "storage", "daemon", "mcp_server"}

#: package → (our packages it may import, our modules it may import, third parties it owns)
ALLOWED = {
    "extract": (set(), set()),
    "storage": (set(), {"extract.records"}),
    "daemon": ({"extract", "storage"}, set()),
    "mcp_server": ({"storage"}, set()),
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
