"""The built wheel as users install it: one top-level package, beside python-daemon, and
through `uv tool install`, `uvx --from` and `pipx install`.

Real installs into fresh environments under `tmp_path`, with packages from PyPI (uv's and
pip's caches make reruns fast). The source is copied first: building writes `build/` and
`*.egg-info` next to it, which must not land in the checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import re
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.integration.test_cli import FIXTURE_REPO, ROOT, symfind

pytestmark = pytest.mark.slow

_VENV_BIN = str(Path(sys.executable).parent)
UV = shutil.which("uv", path=_VENV_BIN) or shutil.which("uv")
UVX = shutil.which("uvx", path=_VENV_BIN) or shutil.which("uvx")
PIPX = shutil.which("pipx", path=_VENV_BIN) or shutil.which("pipx")
#: The folders and files a build needs (the rest of the checkout is tests, bench, docs).
SOURCE = ("extract", "storage", "daemon", "mcp_server", "cli", "pyproject.toml", "README.md",
          "schema_version.txt")
SEARCH = ("search", "AsyncClinet", "--limit", "3")


def run(*args: str | Path, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, check=False,
                            env={**os.environ, **(env or {})}, cwd=cwd)
    assert result.returncode == 0, f"{args}: {result.stderr[-2000:]}"
    return result


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("source") / "symfind"
    for name in SOURCE:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, copy / name,
                            ignore=shutil.ignore_patterns("__pycache__"), symlinks=True)
        else:
            shutil.copy2(ROOT / name, copy / name, follow_symlinks=False)
    return copy


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, source)
    (built,) = out.glob("symfind-*.whl")
    return built


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("packaging") / "repo"
    shutil.copytree(FIXTURE_REPO, path)
    (path / ".git").mkdir()
    return path


def test_the_wheel_installs_one_top_level_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    top = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert top == {"symfind"}
    packages = sorted({"/".join(name.split("/")[:2]) for name in names
                       if name.endswith("/__init__.py")})
    assert packages == ["symfind/cli", "symfind/daemon", "symfind/extract", "symfind/mcp_server",
                        "symfind/storage"]
    assert "symfind/storage/schema_version.txt" in names
    assert "symfind/storage/neighbours.npz" in names


def _symfind_works(bin_dir: Path, repo: Path, index_base: Path) -> None:
    """The installed `symfind` indexes `repo` and searches it as the checkout's does."""
    env = {"SYMFIND_INDEX_DIR": str(index_base)}
    run(bin_dir / "symfind", "index", repo, env=env)
    installed = run(bin_dir / "symfind", *SEARCH, repo, env=env).stdout
    ours = symfind(*SEARCH, str(repo), env=env)
    assert ours.returncode == 0, ours.stderr
    # (All but the last line, which says how long the search took.)
    assert installed.splitlines()[:-1] == ours.stdout.splitlines()[:-1]
    assert installed.splitlines()[0].split()[:4] == [
        "1", "class", "AsyncClient", "httpkit/client.py:24",
    ]


@pytest.mark.skipif(UV is None, reason="uv is a test dependency: pip install -e '.[test]'")
@pytest.mark.parametrize("order", ["python-daemon first", "symfind first"])
def test_python_daemon_and_symfind_share_an_environment(
    tmp_path: Path, wheel: Path, repo: Path, order: str
) -> None:
    venv = tmp_path / "venv"
    python = venv / "bin" / "python"
    run(UV, "venv", "-q", "--python", sys.executable, venv)
    first, second = ("python-daemon", wheel) if order == "python-daemon first" else (
        wheel, "python-daemon")
    for requirement in (first, second):
        run(UV, "pip", "install", "-q", "--python", python, requirement)
    both = ("import daemon, daemon.daemon, symfind.daemon; daemon.DaemonContext; "
            "print(daemon.__file__)")
    where = run(python, "-c", both, cwd=tmp_path).stdout.strip()
    site = f"lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
    assert Path(where) == venv / site / "daemon" / "__init__.py"  # python-daemon's own
    _symfind_works(venv / "bin", repo, tmp_path / "indexes")
    # Uninstalling symfind leaves python-daemon whole.
    run(UV, "pip", "uninstall", "-q", "--python", python, "symfind")
    run(python, "-c", "import daemon; daemon.DaemonContext", cwd=tmp_path)
    check = run(UV, "pip", "check", "--python", python)
    assert "All installed packages are compatible" in check.stdout + check.stderr


def _tool_env(tmp_path: Path) -> dict[str, str]:
    return {"UV_TOOL_DIR": str(tmp_path / "tools"), "UV_TOOL_BIN_DIR": str(tmp_path / "bin"),
            "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "bin"),
            "PIPX_MAN_DIR": str(tmp_path / "man")}


@pytest.mark.skipif(UV is None, reason="uv is a test dependency: pip install -e '.[test]'")
def test_uv_tool_install_from_a_checkout(tmp_path: Path, source: Path, repo: Path) -> None:
    env = _tool_env(tmp_path)
    run(UV, "tool", "install", "-q", "--python", sys.executable, source, env=env)
    _symfind_works(tmp_path / "bin", repo, tmp_path / "indexes")


@pytest.mark.skipif(UVX is None, reason="uv is a test dependency: pip install -e '.[test]'")
def test_uvx_from_a_checkout(tmp_path: Path, source: Path) -> None:
    result = run(UVX, "-q", "--python", sys.executable, "--from", source, "symfind", "--version",
                 env=_tool_env(tmp_path))
    assert result.stdout == f"symfind {_version(source)}\n"


@pytest.mark.skipif(PIPX is None, reason="pipx is a test dependency: pip install -e '.[test]'")
def test_pipx_install_of_the_wheel(tmp_path: Path, wheel: Path, repo: Path) -> None:
    run(PIPX, "install", "--python", sys.executable, wheel, env=_tool_env(tmp_path))
    _symfind_works(tmp_path / "bin", repo, tmp_path / "indexes")


def _version(source: Path) -> str:
    """The version the checkout declares: pyproject.toml takes it from storage/version.py."""
    with open(source / "pyproject.toml", "rb") as file:
        dynamic = tomllib.load(file)["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert dynamic == "symfind.storage.version.VERSION"
    written = re.search(r'^VERSION = "([^"]+)"$', (source / "storage" / "version.py").read_text(),
                        re.M)
    assert written is not None
    return written[1]
