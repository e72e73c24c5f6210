"""Real, macro-heavy C headers from Debian `-dev` packages (pinned): every definition
universal-ctags finds (the kinds bench/groundtruth.py keeps) is extracted, except the
listed ones, each with its reason. The packages are fetched with `apt-get download`
into ~/.cache/symfind-tests/debs (kept between runs; `.ci/run` installs universal-ctags).
Where apt-get, dpkg-deb or ctags is missing, or the packages cannot be fetched (offline),
the tests are skipped and say why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from symfind.extract import extract_symbols
from tests.corpora import TEST_CACHE_DIR

# One worker runs the whole module: its fixture fetches and unpacks into one shared cache.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("c-headers")]

CACHE = TEST_CACHE_DIR / "debs"
PACKAGES = {  # Debian bookworm
    "libuv1-dev": "1.44.2-1+deb12u1",
    "libevent-dev": "2.1.12-stable-8+deb12u1",
    "zlib1g-dev": "1:1.2.13.dfsg-1",
    "libsqlite3-dev": "3.40.1-2+deb12u2",
    "libssl-dev": "3.0.22-1~deb12u2",
    "libglib2.0-dev": "2.74.6-2+deb12u9",
}
KINDS = {"function", "struct", "union", "enum", "typedef", "macro", "enumerator", "variable"}

# header → (line, name) ctags finds and symfind does not, with why.
CTAGS_ERROR = "ctags' error"
EXPECTED_MISSES: dict[str, dict[tuple[int, str], str]] = {
    "uv.h": {
        # X-macro helpers defined inside enum bodies: tree-sitter's C grammar has no
        # directive there; they are blanked so that the enumerators after them parse.
        (187, "XX"): "#define in an enum", (195, "XX"): "#define in an enum",
        (204, "XX"): "#define in an enum",
        (188, "UV_ERRNO_MAP"): CTAGS_ERROR + ": an X-macro call read as an enumerator",
        (196, "UV_HANDLE_TYPE_MAP"): CTAGS_ERROR + ": an X-macro call read as an enumerator",
        (205, "UV_REQ_TYPE_MAP"): CTAGS_ERROR + ": an X-macro call read as an enumerator",
    },
    "uv/unix.h": {},
    "uv/tree.h": {},
    "openssl/err.h": {},
    # Typedefs of a type a macro call names (`typedef STACK_OF(X509_EXTENSION)
    # X509_EXTENSIONS;`) and of functions returning a pointer (`d2i_of_void`).
    "openssl/asn1.h": {},
    "openssl/cmp.h": {},
    "openssl/crmf.h": {},
    "openssl/encoder.h": {},
    "openssl/x509.h": {},
    "openssl/x509_vfy.h": {
        (266, "STACK_OF"): CTAGS_ERROR + ": a function pointer typedef named by its return type's macro",
        (269, "STACK_OF"): CTAGS_ERROR + ": a function pointer typedef named by its return type's macro",
    },
    "openssl/x509v3.h": {
        (45, "STACK_OF"): CTAGS_ERROR + ": a function pointer typedef named by its return type's macro",
    },
    "event2/event.h": {
        # `struct event_base` + `#ifdef EVENT_IN_DOXYGEN_ {...} #endif`: a declaration
        # with a body only for the documentation tool.
        (217, "event_base"): "body only under #ifdef EVENT_IN_DOXYGEN_",
        (276, "event"): "body only under #ifdef EVENT_IN_DOXYGEN_",
        (295, "event_config"): "body only under #ifdef EVENT_IN_DOXYGEN_",
    },
    "zlib.h": {(81, "voidpf"): CTAGS_ERROR + ": `typedef voidpf (*alloc_func) OF((...))`"},
    "sqlite3.h": {
        (185, "sqlite3_version"): "an extern declaration behind SQLITE_EXTERN",
        (6221, "sqlite3_temp_directory"): "an extern declaration behind SQLITE_EXTERN",
        (6258, "sqlite3_data_directory"): "an extern declaration behind SQLITE_EXTERN",
    },
    "glib-2.0/glib/guri.h": {},
    "glib-2.0/glib/gvariant.h": {},
    "glib-2.0/glib/gmessages.h": {},
    "glib-2.0/glib/gmain.h": {
        (498, "GLIB_AVAILABLE_TYPE_IN_2_64"): CTAGS_ERROR + ": an annotation macro as the name",
    },
    "glib-2.0/gio/gioenums.h": {
        (1731, "GLIB_DEPRECATED_TYPE_IN_2_60"): CTAGS_ERROR + ": an annotation macro as the name",
    },
}


@pytest.fixture(scope="module")
def include_dir() -> Path:
    """The packages' /usr/include, fetched and unpacked once."""
    root = CACHE / "root"
    marker = CACHE / ("fetched-" + "-".join(sorted(PACKAGES)))
    if shutil.which("ctags") is None:
        pytest.skip("universal-ctags is not installed (`apt-get install universal-ctags`)")
    if not marker.exists():
        if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
            pytest.skip("apt-get and dpkg-deb (Debian's) are needed to fetch the headers")
        downloads = CACHE / "downloads"
        downloads.mkdir(parents=True, exist_ok=True)
        fetched = subprocess.run(
            ["apt-get", "download", *(f"{name}={version}" for name, version in PACKAGES.items())],
            cwd=downloads, capture_output=True, text=True,
        )
        if fetched.returncode:
            lines = fetched.stderr.strip().splitlines() or ["no message"]
            pytest.skip(f"the pinned packages could not be fetched: {lines[-1]}")
        for deb in sorted(downloads.glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        marker.touch()
    return root / "usr" / "include"


def ctags_definitions(path: Path) -> set[tuple[int, str]]:
    """(line, name) of universal-ctags' definitions of the kinds the benches keep."""
    done = subprocess.run(
        ["ctags", "--language-force=C", "--output-format=json", "--fields=+nKzS", "-o", "-",
         str(path)],
        capture_output=True, text=True, check=True,
    )
    found: set[tuple[int, str]] = set()
    for line in done.stdout.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or tag["kind"] not in KINDS or tag["name"].startswith("__anon"):
            continue
        if tag.get("scopeKind") == "function" or (
            tag["kind"] == "variable" and tag.get("scopeKind") in ("struct", "union")
        ):
            continue  # locals and fields
        found.add((tag["line"], tag["name"]))
    return found


@pytest.mark.parametrize("header", sorted(EXPECTED_MISSES))
def test_every_definition_ctags_finds_is_extracted(include_dir: Path, header: str) -> None:
    path = include_dir / header
    symbols = extract_symbols(header, path.read_bytes(), language="c")
    spans: dict[str, list[tuple[int, int]]] = {}
    for symbol in symbols:
        spans.setdefault(symbol.name, []).append((symbol.start_line, symbol.end_line))
    missing = {
        (line, name) for line, name in ctags_definitions(path)
        if not any(start <= line <= end for start, end in spans.get(name, []))
    }
    assert sorted(missing) == sorted(EXPECTED_MISSES[header])
