"""A second look, by jedi itself, at the Python sites symfind resolves and jedi's
references leave out: jedi's `goto` at the seed's name on each such line.

`python -m bench.references --held-out DIR --language python --disagreements` lists, per
seed, the sites symfind resolves that jedi's `get_references` does not return. jedi's
references search misses uses its own `goto` resolves (a receiver typed through a
`with` target's `__enter__(self: T) -> T`, for one). For each such site this asks
`goto` at every occurrence of the seed's name on the line and prints a `[[verdict]]`
`use` for `bench/references_audit.toml` when one lands on the seed's definition; the
others are printed as comments, to be read by hand. Nothing is written: the verdicts are
pasted after reading each site.

Usage:
    python -m bench.goto_audit DIR     # the held-out repository given to --held-out
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from bench.reference_truth import held_out
from bench.references import OUT

_SEED = re.compile(r"## (\S+) \((\w+), (.+):(\d+)\)")
_RESOLVED_ONLY = re.compile(r"- resolved, not in truth: (.+):(\d+)")


def main(argv: list[str] | None = None) -> int:
    import jedi

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the held-out repository")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    entry = held_out(root, "python")
    truth = json.loads(entry.truth.read_text(encoding="utf-8"))
    seeds = {f"{s['qualname']}|{s['path']}:{s['line']}": s for s in truth["seeds"]}
    listed = (OUT / f"disagreements-{entry.name}.md").read_text(encoding="utf-8")
    source_root = root / "src" if (root / "src").is_dir() else root
    project = jedi.Project(str(root), added_sys_path=[str(source_root)])
    seed = None
    for line in listed.splitlines():
        heading = _SEED.match(line)
        if heading:
            seed = seeds.get(f"{heading[1]}|{heading[3]}:{heading[4]}")
            continue
        site = _RESOLVED_ONLY.match(line)
        if site is None or seed is None:
            continue
        path, row = site[1], int(site[2])
        text = (root / path).read_text(encoding="utf-8")
        written = text.splitlines()[row - 1]
        script = jedi.Script(text, path=str(root / path), project=project)
        landed = any(
            str(found.module_path or "").endswith(seed["path"]) and found.line == seed["line"]
            for name in re.finditer(rf"\b{re.escape(seed['name'])}\b", written)
            for found in script.goto(row, name.start()))
        print(f"# {seed['qualname']} {path}:{row} goto {'lands' if landed else 'does not'}"
              f": {written.strip()[:90]}")
        if landed:
            print(f'[[verdict]]\ncorpus = "{entry.name}"\ndefinition = "{seed["qualname"]}"\n'
                  f'site = "{path}:{row}"\nverdict = "use"\n'
                  f'why = "jedi\'s own goto at `{seed["name"]}` on this line gives '
                  f'{seed["qualname"]} ({seed["path"]}:{seed["line"]}); its references leave '
                  f'the site out"\n')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
