"""Where the tests find the real packages some of them check: small corpora pinned by
version in `bench/corpora.toml` or `bench/coverage_corpora.toml`, fetched once by
`.ci/run`'s set-up into a cache kept between runs, outside the clone (a developer's
`bench/corpora/` is looked at too)."""

from __future__ import annotations

import os
from pathlib import Path

#: What the tests fetch is kept here, between runs (never symfind's own cache).
TEST_CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "symfind-tests"
#: `.ci/run` fetches into this (`python3 -m bench.corpora … --into TEST_CORPORA_DIR …`).
TEST_CORPORA_DIR = TEST_CACHE_DIR / "corpora"
