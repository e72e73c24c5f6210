"""What storing references costs: full `symfind index` time and index size, this checkout
against another commit (before uses were stored), alternating in each run on the same
corpora; then `find_references` latency for names of each corpus on this checkout's index.

    python -m bench.references_cost requests cobra go-stdlib --before 2b048dd --runs 3

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


def unpack(commit: str, into: Path) -> Path:
    """`commit`'s packages under `into/pkg/symfind/` (for PYTHONPATH=`into/pkg`)."""
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
    return into / "pkg"


def index_once(root: Path, python_path: str) -> tuple[float, int]:
    """Seconds of one full `symfind index` into a fresh index directory, and its bytes."""
    with tempfile.TemporaryDirectory(prefix="refs-cost-") as tmp:
        env = {**os.environ, "SYMFIND_INDEX_DIR": tmp, "PYTHONPATH": python_path}
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", tools.cli_module(env), "index", str(root)], env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds = time.perf_counter() - started
        size = sum(f.stat().st_size for f in Path(tmp).rglob("*") if f.is_file())
    return seconds, size


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
    parser.add_argument("--before", required=True, help="the commit to compare with")
    parser.add_argument("--after", default="HEAD", help="the commit measured (default HEAD)")
    parser.add_argument("--latency", nargs="+", metavar=("ROOT", "NAME"), help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5, help="find_references per name")
    args = parser.parse_args(argv)
    if args.latency:  # the child run by `_latency_in`, with the measured commit's packages
        root, *names = args.latency
        print(json.dumps(reference_latency(Path(root), names, args.repeats)))
        return 0
    table = corpora.load_table()
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="refs-before-") as tmp:
        before = str(unpack(args.before, Path(tmp) / "before"))
        after = str(unpack(args.after, Path(tmp) / "after"))
        for corpus in corpora.select(table, args.corpora):
            root = corpora.fetch(corpus)
            sides: dict[str, list[tuple[float, int]]] = {"before": [], "after": []}
            loads = [os.getloadavg()]
            for _ in range(args.runs):
                sides["before"].append(index_once(root, before))
                sides["after"].append(index_once(root, after))
                loads.append(os.getloadavg())
            medians = {side: (statistics.median(s for s, _ in runs),
                              statistics.median(b for _, b in runs))
                       for side, runs in sides.items()}
            results[corpus.name] = {
                "runs": sides, "loads": loads,
                "time_ratio": medians["after"][0] / medians["before"][0],
                "size_ratio": medians["after"][1] / medians["before"][1],
                "medians": medians,
                "references": _latency_in(after, root, NAMES.get(corpus.name, []),
                                          args.repeats),
            }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "references-cost.json").write_text(json.dumps(results, indent=1) + "\n",
                                              encoding="utf-8")
    print(f"`python -m bench.references_cost {' '.join(argv or sys.argv[1:])}`\n")
    print("| corpus | index s before | after | × | index MB before | after | × | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, result in results.items():
        (tb, bb), (ta, ba) = result["medians"]["before"], result["medians"]["after"]
        load = (f"{min(avg[0] for avg in result['loads']):.1f}–"
                f"{max(avg[0] for avg in result['loads']):.1f}")
        print(f"| {name} | {tb:.2f} | {ta:.2f} | {result['time_ratio']:.2f} | {bb / 1e6:.2f} "
              f"| {ba / 1e6:.2f} | {result['size_ratio']:.2f} | {load} |")
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
