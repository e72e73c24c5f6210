"""Run symfind's code as another user (`nobody`) from wherever the checkout lives.

Root reads everything, so tests of permissions run Python as root, load everything the
code under test reads of symfind's installation, then drop to `nobody`. The checkout,
its venv and the interpreter may all sit where `nobody` cannot read (a clone inside a
`mktemp -d` directory, mode 0700; pyenv under /root): after the drop, `nobody` needs only
the test's own files. What the installation provides is loaded first — the modules, the
Python grammar and its tag query, and the extraction fingerprint, which reads every
query file and lists the grammar pack — so nothing of it is opened after the drop.
"""

from __future__ import annotations

import os
import sys

import pytest

NOBODY = 65534

#: Marks a test that runs code as `nobody`: the suite's worker processes run such tests one
#: at a time, on one worker, because one of them takes every inotify instance `nobody` may
#: have, which a daemon another worker runs as `nobody` meanwhile would then lack.
runs_as_nobody = pytest.mark.xdist_group("user-nobody")

_PRELUDE = """\
import os
from pathlib import Path
import psutil, subprocess  # symfind imports these where it first needs them
from symfind.storage.words import load_word_list
load_word_list()  # read at the first name split
from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index
from symfind.daemon.service import Daemon
from symfind.extract import extract_symbols
extract_symbols('warm.py', b'pass')
IndexOptions().fingerprint()
"""

_DROP = """\
if os.geteuid() == 0:
    os.setgroups([]); os.setgid({uid}); os.setuid({uid})
"""


def as_nobody(body: str, *, before_drop: str = "") -> list[str]:
    """The command running `body` as `nobody` (when root) after loading symfind as root.

    `before_drop` runs as root after the prelude (e.g. to take resources as root). The
    prelude imports `os`, `Path`, `Config`, `IndexOptions`, `update_index` and `Daemon`.
    """
    script = _PRELUDE + before_drop + _DROP.format(uid=NOBODY) + body
    # -P: the current directory (the checkout) must not shadow the installed package.
    return [sys.executable, "-P", "-c", script]


def nobody_cwd() -> str:
    """A working directory `nobody` may be in (the checkout may be closed to it)."""
    return os.sep
