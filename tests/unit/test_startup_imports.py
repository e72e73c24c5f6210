"""What starting symfind costs: the CLI and the search code import no embedding model,
no numpy and no word list; questions in words and indexing load them when they need them."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "wordllama", "threadpoolctl", "wordninja", "tokenizers")


def test_the_cli_and_the_search_code_start_without_the_heavy_modules() -> None:
    code = (
        "import sys\n"
        "import symfind.daemon.cli, symfind.storage, symfind.mcp_server.server\n"
        f"print(sorted(name for name in {HEAVY!r} if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")
