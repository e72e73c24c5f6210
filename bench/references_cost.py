"""What storing references costs: full `symfind index` time and index size, this checkout
against another commit (before uses were stored), alternating in each run on the same
corpora; then `find_references` latency for names of each corpus on this checkout's index.

    python -m bench.references_cost requests cobra go-stdlib --before 2b048dd --runs 3
    python -m bench.references_cost go-stdlib --before 2b048dd --after 3b00285 HEAD
    python -m bench.references_cost DIR --subdir drivers/net --before 2b048dd --no-latency
    python -m bench.references_cost go-stdlib --without-uses --no-latency
    python -m bench.references_cost DIR/linux-6.1.192-2 --without-uses --force --no-latency

`--without-uses` compares the measured commit with itself with the extraction of uses
switched off (a `sitecustomize` on its `PYTHONPATH` makes `occurrences_and_imports`
return nothing, in every process, extraction workers included): what references cost
alone, whatever else changed since the commit before them.

Several `--after` commits are each measured against the same "before" runs, all
alternating (before, after 1, after 2, before...). A corpus is a name of
`bench/corpora.toml` or a directory (the kernel fetched elsewhere: `bench.corpora linux
--into DIR`); `--subdir` indexes one directory of it. Time is wall and CPU (the
`symfind index` process and its extraction workers, `RUSAGE_CHILDREN`).

The other commit is unpacked with `git archive` into a temporary directory and run with
its packages first on `PYTHONPATH` (`python -m symfind.cli index`, or `symfind.daemon`
in commits before the command line had a package of its own), so both sides run
the same interpreter and dependencies. Index size is every file under the index
directory. Prints Markdown (medians, ratios after/before, load averages) and writes the
numbers to `bench/out/references-cost.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import corpora, tools

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
PACKAGES = ("extract", "storage", "daemon", "mcp_server", "cli")
#: Names asked of each corpus's index (a hot one first).
NAMES = {
    "requests": ["get", "Session.request", "to_native_string"],
    "rich": ["print", "Console", "Segment"],
    "cobra": ["Command", "Execute"],
    "go-stdlib": ["Reader.Read", "Errorf"],
}


#: Loaded at start-up from `PYTHONPATH` by every process of the side without uses.
WITHOUT_USES = """from symfind.extract import parse
parse.occurrences_and_imports = lambda *args, **kwargs: ([], [])
"""


def unpack(commit: str, into: Path, without_uses: bool = False) -> Path:
    """`commit`'s packages under `into/pkg/symfind/` (for PYTHONPATH=`into/pkg`), with
    the extraction of uses switched off when `without_uses`."""
    src = into / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    package = into / "pkg" / "symfind"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name in PACKAGES:
        if (src / name).is_dir():
            (package / name).symlink_to(src / name)
    if without_uses:
        (into / "pkg" / "sitecustomize.py").write_text(WITHOUT_USES, encoding="utf-8")
    return into / "pkg"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def index_once(root: Path, python_path: str, force: bool = False) -> tuple[float, float, int]:
    """Wall and CPU seconds of one full `symfind index` (`--force` when `force`) into a
    fresh index directory, and its bytes."""
    with tempfile.TemporaryDirectory(prefix="refs-cost-") as tmp:
        env = {**os.environ, "SYMFIND_INDEX_DIR": tmp, "PYTHONPATH": python_path}
        started, cpu = time.perf_counter(), _children_cpu()
        subprocess.run([sys.executable, "-m", tools.cli_module(env), "index", str(root),
                        *["--force"] * force], env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu
        size = sum(f.stat().st_size for f in Path(tmp).rglob("*") if f.is_file())
    return seconds, cpu, size


def _latency_in(python_path: str, root: Path, names: list[str], repeats: int) -> dict:
    """`reference_latency` in a process running the measured commit's packages."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.references_cost", "x", "--before", "x", "--repeats",
         str(repeats), "--latency", str(root), *names],
        env={**os.environ, "PYTHONPATH": f"{python_path}:{ROOT}"}, cwd=ROOT, check=True,
        capture_output=True, text=True)
    return json.loads(done.stdout)


def reference_latency(root: Path, names: list[str], repeats: int) -> dict[str, dict]:
    """Median `find_references` time per name (in-process, warm), with the answer's counts."""
    from symfind.storage import ReferencesQuery, Searcher, index_dir_for

    with tempfile.TemporaryDirectory(prefix="refs-cost-") as tmp:
        env = {**os.environ, "SYMFIND_INDEX_DIR": tmp}
        subprocess.run([sys.executable, "-m", "symfind.cli", "index", str(root)], env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.environ["SYMFIND_INDEX_DIR"] = tmp
        searcher = Searcher(index_dir_for(root.resolve()))
        out = {}
        for name in names:
            times, answer = [], None
            for _ in range(repeats):
                started = time.perf_counter()
                answer = searcher.find_references(ReferencesQuery(target=name))
                times.append((time.perf_counter() - started) * 1000)
            assert answer is not None
            out[name] = {"median_ms": round(statistics.median(times), 1),
                         "resolved": answer.resolved, "possible": answer.possible,
                         "elsewhere": answer.elsewhere, "files_using": answer.files_using,
                         "partial": answer.partial,
                         "target": answer.target.qualname if answer.target else None}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+")
    parser.add_argument("--before", help="the commit to compare with")
    parser.add_argument("--without-uses", action="store_true",
                        help="compare with the last --after commit without uses extracted")
    parser.add_argument("--after", nargs="+", default=["HEAD"],
                        help="the commits measured (default HEAD)")
    parser.add_argument("--subdir", default="", help="index this directory of each corpus")
    parser.add_argument("--force", action="store_true",
                        help="index with --force: a tree as large as the kernel, without .git")
    parser.add_argument("--no-latency", action="store_true",
                        help="index time and size only, no find_references latency")
    parser.add_argument("--latency", nargs="+", metavar=("ROOT", "NAME"), help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5, help="find_references per name")
    args = parser.parse_args(argv)
    if args.latency:  # the child run by `_latency_in`, with the measured commit's packages
        root, *names = args.latency
        print(json.dumps(reference_latency(Path(root), names, args.repeats)))
        return 0
    if (args.before is None) == (not args.without_uses):
        parser.error("give --before COMMIT or --without-uses")
    table = corpora.load_table()
    named = [name for name in args.corpora if not Path(name).is_dir()]
    roots = [(Path(name).name, Path(name)) for name in args.corpora if Path(name).is_dir()]
    roots += [(corpus.name, corpora.fetch(corpus)) for corpus in corpora.select(table, named)
              if named]
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="refs-before-") as tmp:
        packages = {"before": str(unpack(args.before or args.after[-1], Path(tmp) / "before",
                                         without_uses=args.without_uses))}
        for number, commit in enumerate(args.after):
            packages[commit] = str(unpack(commit, Path(tmp) / f"after{number}"))
        for name, root in roots:
            root = root / args.subdir if args.subdir else root
            sides: dict[str, list[tuple[float, float, int]]] = {side: [] for side in packages}
            loads = [os.getloadavg()]
            for _ in range(args.runs):
                for side, python_path in packages.items():
                    sides[side].append(index_once(root, python_path, args.force))
                loads.append(os.getloadavg())
            medians = {side: tuple(statistics.median(run[i] for run in runs) for i in range(3))
                       for side, runs in sides.items()}
            results[name] = {
                "runs": sides, "loads": loads, "medians": medians,
                "ratios": {side: [m / b for m, b in zip(medians[side], medians["before"])]
                           for side in args.after},
                "references": {} if args.no_latency else _latency_in(
                    packages[args.after[-1]], root, NAMES.get(name, []), args.repeats),
            }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "references-cost.json").write_text(json.dumps(results, indent=1) + "\n",
                                              encoding="utf-8")
    print(f"`python -m bench.references_cost {' '.join(argv or sys.argv[1:])}`\n")
    print("| corpus | side | index s (wall) | × | CPU s | × | index MB | × | load |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for name, result in results.items():
        load = (f"{min(avg[0] for avg in result['loads']):.1f}–"
                f"{max(avg[0] for avg in result['loads']):.1f}")
        for side, (wall, cpu, size) in result["medians"].items():
            ratios = result["ratios"].get(side, [1.0, 1.0, 1.0])
            print(f"| {name} | {side} | {wall:.2f} | {ratios[0]:.2f} | {cpu:.2f} | "
                  f"{ratios[1]:.2f} | {size / 1e6:.2f} | {ratios[2]:.2f} | {load} |")
    if args.no_latency:
        return 0
    print("\n| corpus | name | target | median ms | resolved | possible | elsewhere | "
          "files using | partial |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for name, result in results.items():
        for asked, found in result["references"].items():
            print(f"| {name} | `{asked}` | `{found['target']}` | {found['median_ms']} | "
                  f"{found['resolved']} | {found['possible']} | {found['elsewhere']} | "
                  f"{found['files_using']} | {found['partial'] or '—'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
