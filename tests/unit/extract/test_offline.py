"""Every supported language parses with networking unavailable.

tree-sitter-language-pack 1.x downloads grammars at first use; 0.13.x bundles them. A
fresh interpreter (no grammar loaded yet) parses each language's fixture while any
network use is refused: through an audit hook that fails every socket call, and, where
the kernel allows it, inside a new network namespace with no interfaces (`unshare -rn`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from symfind.extract import LANGUAGES

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = """
import sys
def refuse_network(event, args):
    if event.startswith("socket."):
        raise PermissionError(f"network use during parsing: {event}")
sys.addaudithook(refuse_network)
from pathlib import Path
from symfind.extract import LANGUAGES, extract_symbols
fixtures = Path("tests/fixtures/languages")
for language in sorted(LANGUAGES):
    (source,) = [p for p in (fixtures / language).iterdir() if p.name.startswith("sample.")]
    symbols = extract_symbols(source.name, source.read_bytes(), language=language)
    print(language, len(symbols))
"""

EXPECTED = sorted(LANGUAGES)


def run_offline(prefix: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HTTPS_PROXY": "http://127.0.0.9:9",
           "HTTP_PROXY": "http://127.0.0.9:9"}
    return subprocess.run([*prefix, sys.executable, "-c", SCRIPT], capture_output=True,
                          text=True, cwd=ROOT, env=env, check=False, timeout=300)


def parsed_languages(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert all(int(count) > 0 for _, count in rows), rows
    return [language for language, _ in rows]


def test_every_language_parses_with_sockets_refused() -> None:
    assert parsed_languages(run_offline([])) == EXPECTED


def _can_unshare_network() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    return subprocess.run([unshare, "-rn", "true"], capture_output=True, check=False).returncode == 0


@pytest.mark.skipif(not _can_unshare_network(), reason="no unshare -rn here (user namespaces off)")
def test_every_language_parses_in_a_network_namespace_without_interfaces() -> None:
    assert parsed_languages(run_offline(["unshare", "-rn"])) == EXPECTED
