#!/usr/bin/env bash
# The whole benchmark: fetch the corpora -> ctags ground truth -> queries -> the three
# baselines and symfind on the same queries -> tables (bench/out/relevance.md), then the
# speed benchmark on the large corpus (bench/out/speed-go-stdlib.md).
# Needs: universal-ctags, ripgrep, npm, apt-get (Debian), and a Python with rapidfuzz and
# symfind installed (`pip install -e .`). Extra arguments go to bench.relevance
# (e.g. --no-symfind, or corpus names instead of --all).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
"$PYTHON" -m bench.corpora
if [[ $# -eq 0 ]]; then set -- --all; fi
"$PYTHON" -m bench.relevance "$@"
if [[ " $* " != *" --no-symfind "* ]]; then
  "$PYTHON" -m bench.speed go-stdlib
fi
