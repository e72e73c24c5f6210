"""The index's fingerprint of extraction (`extraction_fingerprint`, stored in every
index: another one rebuilds it) follows `EXTRACTION_VERSION`, not extract/'s source: a
copy of the package with a comment added gives the same fingerprint, one with the version
bumped another (each imported in a process of its own)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from symfind.extract import EXTRACTION_VERSION, parse

def test_the_index_fingerprint_follows_the_extraction_version_not_the_source(
    tmp_path: Path,
) -> None:
    # A copy of extract/ with a comment added, and another with the version bumped.
    package = Path(parse.__file__).resolve().parent
    fingerprints = {}
    for edit, old, new in (("comment", "\nimport functools\n", "\n# a comment\nimport functools\n"),
                           ("bump", f"EXTRACTION_VERSION = {EXTRACTION_VERSION}\n",
                            f"EXTRACTION_VERSION = {EXTRACTION_VERSION + 1}\n")):
        copy = tmp_path / edit / "symfind"
        shutil.copytree(package, copy / "extract", ignore=shutil.ignore_patterns("__pycache__"))
        (copy / "__init__.py").write_text("", encoding="utf-8")  # wins over the install's
        module = copy / "extract" / ("parse.py" if edit == "comment" else "version.py")
        text = module.read_text(encoding="utf-8")
        assert text.count(old) == 1
        module.write_text(text.replace(old, new), encoding="utf-8")
        fingerprints[edit] = subprocess.run(
            [sys.executable, "-c", "import symfind.extract as e; print(e.__file__, "
             "e.extraction_fingerprint())"],
            env={**os.environ, "PYTHONPATH": str(copy.parent)}, capture_output=True, text=True,
            check=True, cwd=tmp_path,
        ).stdout.split()
    assert fingerprints == {
        "comment": [str(tmp_path / "comment/symfind/extract/__init__.py"),
                    parse.extraction_fingerprint()],
        "bump": [str(tmp_path / "bump/symfind/extract/__init__.py"),
                 fingerprints["bump"][1]],
    }
    assert fingerprints["bump"][1] != parse.extraction_fingerprint()
