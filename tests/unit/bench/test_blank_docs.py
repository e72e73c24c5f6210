"""bench.blank_docs: a corpus copy with every doc blanked, read by symfind's real extractor."""

from __future__ import annotations

from pathlib import Path

from bench import blank_docs
from symfind.extract import extract_symbols

PYTHON = '''\
"""Module docstring: not a definition's doc."""


def only_docstring():
    """Returns nothing at all.

    Second paragraph.
    """


class Fetcher:
    """Fetches pages."""

    # Retries a failed fetch.
    def retry(self):
        # a comment inside the body stays
        return 1
'''

# Blanked text: "·" marks a space (trailing spaces would not survive an editor).
PYTHON_BLANKED = '''\
"""Module docstring: not a definition's doc."""


def only_docstring():
    ""························

·····················
·······


class Fetcher:
    ""··················

·····························
    def retry(self):
        # a comment inside the body stays
        return 1
'''.replace("·", " ")

RUST = '''\
/// Waits until the descriptor is readable.
#[allow(clippy::needless_lifetimes)] // elision does not work here
pub fn readable() {}
'''

RUST_BLANKED = '''\
···········································
#[allow(clippy::needless_lifetimes)]······························
pub fn readable() {}
'''.replace("·", " ")

GO = '''\
package p

// Execute runs the command.
func Execute() {}
'''

GO_BLANKED = '''\
package p

····························
func Execute() {}
'''.replace("·", " ")


def test_every_doc_is_blanked_and_every_definition_keeps_its_line(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    files = {"a.py": (PYTHON, PYTHON_BLANKED), "src/r.rs": (RUST, RUST_BLANKED),
             "g.go": (GO, GO_BLANKED)}
    for path, (text, _) in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    (root / "README").write_text("not code\n", encoding="utf-8")

    report = blank_docs.blank_corpus(root, tmp_path / "copy", files)

    for path, (_, blanked) in files.items():
        assert (tmp_path / "copy" / path).read_text(encoding="utf-8") == blanked
    assert (tmp_path / "copy" / "README").read_text(encoding="utf-8") == "not code\n"
    compile(PYTHON_BLANKED, "a.py", "exec")  # a body whose only statement was the docstring
    assert (report.files, report.files_blanked, report.docs) == (3, 3, 5)
    assert (report.differing, report.missing, report.added, report.kept_doc, report.failed) == (
        0, [], [], [], [])
    for path, (text, blanked) in files.items():
        before = [(s.name, s.line) for s in extract_symbols(path, text.encode())]
        after = extract_symbols(path, blanked.encode())
        assert [(s.name, s.line) for s in after] == before
        assert [s.doc for s in after] == [""] * len(after)


def test_a_file_the_extractor_refuses_is_copied_as_is_and_reported(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "notes.txt").write_text("// not a language symfind reads\n", encoding="utf-8")

    report = blank_docs.blank_corpus(root, tmp_path / "copy", ["notes.txt"])

    assert (tmp_path / "copy" / "notes.txt").read_text(encoding="utf-8") == (
        "// not a language symfind reads\n")
    assert report.failed == [("notes.txt", "UnsupportedLanguage: no language for 'notes.txt'")]
    assert report.files_blanked == 0
