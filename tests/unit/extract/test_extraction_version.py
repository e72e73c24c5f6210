"""`EXTRACTION_VERSION` moves with extraction's output: the language fixtures' whole
extraction (symbols, error counts, occurrences, imports) is compared with a golden stored
with the version that made it, so that output changing under the same version fails, and
an edit that changes no output (a comment) keeps every user's index.

After a change of output: bump `EXTRACTION_VERSION` (extract/version.py), then
`.venv/bin/python -m pytest tests/unit/extract/test_extraction_version.py --update-goldens`
and review the golden's diff by eye."""

from __future__ import annotations

import hashlib
from pathlib import Path

import msgspec
import pytest

from symfind.extract import EXTRACTION_VERSION, extract_file
from tests.fixtures.regen import readable

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "languages"
GOLDEN = Path(__file__).resolve().parent / "goldens" / "extraction.json"
CHANGED = "extraction output changed: bump EXTRACTION_VERSION and regenerate with --update-goldens"


class Golden(msgspec.Struct, frozen=True, kw_only=True):
    """The whole output of one version, and its hash."""

    extraction_version: int
    sha256: str
    files: dict[str, object]


def extract_fixtures() -> dict[str, object]:
    """Each language fixture's whole `Extraction`, by path, its symbols' fields by name
    (`readable`: a `Symbol` encodes as an array), as the golden reads back."""
    output: dict[str, object] = {}
    for source in sorted(FIXTURES.glob("*/sample.*")):
        language = source.parent.name
        path = f"{language}/{source.name}"
        extraction = extract_file(path, source.read_bytes(), language=language)
        fields = msgspec.json.decode(msgspec.json.encode(extraction))
        output[path] = {**fields, "symbols": readable(extraction.symbols)}
    return output


def digest(files: dict[str, object]) -> str:
    return hashlib.sha256(msgspec.json.encode(files, order="sorted")).hexdigest()


def changed_paths(now: dict[str, object], before: dict[str, object]) -> list[str]:
    return sorted(p for p in now.keys() | before.keys() if now.get(p) != before.get(p))


def test_extraction_output_changes_only_with_the_extraction_version(update_goldens: bool) -> None:
    output = extract_fixtures()
    assert len(output) == len(list(FIXTURES.iterdir())), "a language without a sample"
    golden = msgspec.json.decode(GOLDEN.read_bytes(), type=Golden) if GOLDEN.exists() else None
    if golden is not None:
        assert golden.sha256 == digest(golden.files), f"{GOLDEN} was edited by hand"
        assert EXTRACTION_VERSION >= golden.extraction_version, (
            f"EXTRACTION_VERSION went back from {golden.extraction_version} to "
            f"{EXTRACTION_VERSION}")
        if EXTRACTION_VERSION == golden.extraction_version and output != golden.files:
            pytest.fail(f"{CHANGED} (changed: {', '.join(changed_paths(output, golden.files))})")
    if update_goldens:
        made = Golden(extraction_version=EXTRACTION_VERSION, sha256=digest(output), files=output)
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_bytes(msgspec.json.format(msgspec.json.encode(made, order="sorted"),
                                               indent=1) + b"\n")
        return
    assert golden is not None, f"no golden: make it with --update-goldens ({GOLDEN})"
    assert golden.extraction_version == EXTRACTION_VERSION, (
        f"EXTRACTION_VERSION is {EXTRACTION_VERSION}, the golden was made by version "
        f"{golden.extraction_version}: regenerate it with --update-goldens")
    assert output == golden.files

