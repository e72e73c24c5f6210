"""Daemon benchmarks: save → searchable latency, branch switch, idle cost, socket overhead.

Usage:
    python -m bench.daemon_bench CORPUS_DIR [--edits 200] [--switch-files 5000]
        [--idle-s 30] [--runs 3] [--watch auto|polling] [--measure idle,latency,queries,switch]

CORPUS_DIR is a directory of real code (see bench/corpora.py); each run copies it to a
temp dir first and never modifies it. The daemon runs as a separate process (`python -m
daemon daemon run`), as users run it, with its log kept in the temp dir.

- idle: CPU time and RSS of the daemon over `--idle-s` seconds after its catch-up.
- latency: append a new definition to a random file (in the file's language), poll the
  daemon's search until it is found; p50/p95/max over `--edits` edits.
- queries: the same warm queries through the socket and in-process, interleaved.
- switch: a real `git checkout` between two branches that differ in `--switch-files`
  files (4/5 rewritten with a new definition each, 1/5 renamed), both ways; time until
  the manifest matches every file on disk, peak RSS of the daemon and its workers, and
  whether the daemon's symbols then equal a fresh `reindex` of the same tree. The
  yardstick, timed in the same run: a fresh full index of a tree holding only the files
  the checkout changed (issue 14: consistent within 1.5x of it).

Every figure is printed as Markdown with the command line; `--runs N` repeats the whole
measurement on a fresh copy and a fresh daemon and prints each run and the median.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from symfind.daemon.client import request
from symfind.daemon.config import Config, IndexOptions
from symfind.daemon.indexer import update_index
from symfind.daemon.protocol import DaemonStatus, SearchReply, SearchRequest, StatusReply, StatusRequest
from symfind.daemon.walk import walk_repository
from symfind.storage import Searcher, SearchQuery, index_dir_for, read_manifest

ROOT = Path(__file__).resolve().parents[1]
_TICKS = os.sysconf("SC_CLK_TCK")
_GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost",
        "-c", "core.autocrlf=false", "-c", "gc.auto=0"]
# A new top-level definition per language, by file suffix: {name} is the probe's name.
_PROBES = {
    ".py": "\n\ndef {name}():\n    pass\n",
    ".go": "\n\nfunc {name}() {{}}\n",
    ".rs": "\n\nfn {name}() {{}}\n",
    ".c": "\n\nint {name}(void) {{ return 0; }}\n",
    ".js": "\n\nfunction {name}() {{}}\n",
    ".ts": "\n\nfunction {name}(): void {{}}\n",
    ".java": "\n\nclass {name} {{}}\n",
    ".rb": "\n\ndef {name}\nend\n",
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def proc_kib(pid: int, field: str = "VmRSS") -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text(encoding="utf-8")
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def status(index_dir: Path) -> DaemonStatus | None:
    reply = request(index_dir, StatusRequest(), timeout_s=60)
    return reply.status if isinstance(reply, StatusReply) else None


def wait(index_dir: Path, predicate: Callable[[DaemonStatus], bool],
         timeout_s: float = 3600.0) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        current = status(index_dir)
        if current is not None and predicate(current):
            return time.monotonic() - started
        time.sleep(0.01)
    raise TimeoutError("daemon never reached the expected state")


def idle(s: DaemonStatus) -> bool:
    return s.state == "idle" and s.pending == 0


def note(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3])


def probe_files(repo: Path) -> list[Path]:
    """Indexed source files a probe can be appended to (test data is often invalid code)."""
    return [repo / p for p in walk_repository(repo)
            if Path(p).suffix in _PROBES and "testdata" not in p.split("/")]


def save_latency(repo: Path, index_dir: Path, edits: int) -> list[float]:
    """Append a new definition to a random file; poll search until it is found."""
    rng = random.Random(1)
    files = probe_files(repo)
    latencies = []
    for i in range(edits):
        path = rng.choice(files)
        name = f"SymfindProbe{i}x{rng.randrange(10**9)}"
        started = time.monotonic()
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(_PROBES[path.suffix].format(name=name))
        while True:
            reply = request(index_dir, SearchRequest(SearchQuery(text=name, limit=1)))
            if isinstance(reply, SearchReply) and reply.response.results and \
                    reply.response.results[0].name == name:
                break
            if time.monotonic() - started > 60:
                raise TimeoutError(f"{name} appended to {path} never became searchable")
            time.sleep(0.002)
        latencies.append((time.monotonic() - started) * 1000)
    return latencies


def query_latency(index_dir: Path, names: list[str]) -> tuple[list[float], list[float]]:
    socket_ms, direct_ms = [], []
    searcher = Searcher(index_dir)
    for name in names * 3:
        started = time.perf_counter()
        request(index_dir, SearchRequest(SearchQuery(text=name, limit=10)))
        socket_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        searcher.search(SearchQuery(text=name, limit=10))
        direct_ms.append((time.perf_counter() - started) * 1000)
    return socket_ms, direct_ms


def git(repo: Path, *args: str) -> None:
    subprocess.run([*_GIT, *args], cwd=repo, check=True, stdout=subprocess.DEVNULL)


def prepare_branches(repo: Path, count: int) -> int:
    """Commit the corpus as `main`; on `switch`, rewrite 4/5 of `count` source files (a
    new definition each) and rename 1/5. Leaves `main` checked out; returns the count."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "corpus")
    git(repo, "checkout", "-q", "-b", "switch")
    files = probe_files(repo)
    random.Random(2).shuffle(files)
    files = files[:count]
    renamed = len(files) // 5
    for n, path in enumerate(files[renamed:]):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(_PROBES[path.suffix].format(name=f"SymfindSwitched{n}"))
    moves = [(str(p.relative_to(repo)), str(p.with_name("sw_" + p.name).relative_to(repo)))
             for p in files[:renamed]]
    for source, target in moves:
        os.rename(repo / source, repo / target)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "switch")
    git(repo, "checkout", "-q", "main")
    return len(files)


def disk_state(repo: Path) -> dict[str, tuple[int, int]]:
    state = {}
    for path in walk_repository(repo):
        info = os.lstat(repo / path)
        state[path] = (info.st_mtime_ns, info.st_size)
    return state


def consistent(index_dir: Path, repo: Path, expected: dict[str, tuple[int, int]]) -> bool:
    """Whether the manifest lists exactly the files on disk, each as it is now. Files the
    walk passes over but the manifest accounts for (secrets: `symfind status --skipped`)
    count when they are on disk."""
    manifest = read_manifest(index_dir)
    if manifest is None or manifest.pending:
        return False
    accounted = set(manifest.skipped) - set(expected)
    if set(manifest.files) | set(manifest.skipped) != set(expected) | accounted:
        return False
    if not all((repo / path).exists() for path in accounted):
        return False
    return all(expected[p] == (s.mtime_ns, s.size) for p, s in manifest.files.items())


def symbols(index_dir: Path) -> list[tuple[object, ...]]:
    return [(s.path, s.line, s.end_line, s.qualname, s.kind, s.signature)
            for s in Searcher(index_dir).all_symbols()]


def copy_of(repo: Path, paths: list[str], target: Path) -> Path:
    """A tree holding only `paths` of `repo` (what a branch switch changed)."""
    for path in paths:
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / path, target / path)
    return target


def index_seconds(repo: Path, index_dir: Path) -> float:
    """Wall seconds of a fresh full index of `repo`, as `symfind index` builds it."""
    config = Config(repo=repo, index_dir=index_dir, options=IndexOptions(),
                    workers=os.cpu_count() or 1)
    started = time.monotonic()
    update_index(config, fresh=True)
    return time.monotonic() - started


def branch_switch(repo: Path, index_dir: Path, pid: int, branch: str, work: Path) -> dict:
    """`git checkout branch`; time until the index matches the disk; compare with a
    fresh index of the same tree."""
    peak_daemon = peak_total = 0
    before = disk_state(repo)
    started = time.monotonic()
    git(repo, "checkout", "-q", branch)
    checkout_s = time.monotonic() - started
    expected = disk_state(repo)
    while not consistent(index_dir, repo, expected):
        daemon_rss = proc_kib(pid)
        peak_daemon = max(peak_daemon, daemon_rss)
        peak_total = max(peak_total, daemon_rss + sum(proc_kib(c) for c in children(pid)))
        if time.monotonic() - started > 3600:
            raise TimeoutError("the index never matched the disk")
        time.sleep(0.02)
    seconds = time.monotonic() - started
    wait(index_dir, idle)
    changed = [path for path, state in expected.items() if before.get(path) != state]
    changed_index_s = index_seconds(copy_of(repo, changed, work / f"changed-{branch}"),
                                    work / f"changed-index-{branch}")
    fresh = Config(repo=repo, index_dir=work / f"fresh-{branch}", options=IndexOptions(),
                   workers=os.cpu_count() or 1)
    tree_index_s = index_seconds(repo, fresh.index_dir)
    ours, theirs = symbols(index_dir), symbols(fresh.index_dir)
    shutil.rmtree(fresh.index_dir, ignore_errors=True)
    return {"branch": branch, "checkout_s": round(checkout_s, 2), "consistent_s": round(seconds, 2),
            "changed_files": len(changed), "index_changed_files_s": round(changed_index_s, 2),
            "index_tree_s": round(tree_index_s, 2),
            "ratio_to_index_of_changed": round(seconds / changed_index_s, 2),
            "peak_rss_daemon_mib": round(peak_daemon / 1024),
            "peak_rss_with_workers_mib": round(peak_total / 1024),
            "identical_to_reindex": ours == theirs, "symbols": len(ours),
            "symbols_reindex": len(theirs)}


def one_run(args: argparse.Namespace, run_no: int) -> dict:
    measure = set(args.measure.split(","))
    work = Path(tempfile.mkdtemp(prefix="symfind-daemon-bench-"))
    result: dict = {"run": run_no, "load_before": load()}
    try:
        repo = work / "repo"
        shutil.copytree(args.corpus, repo, symlinks=True)
        repo = repo.resolve()
        if "switch" in measure:
            result["switch_files"] = prepare_branches(repo, args.switch_files)
        env = {**os.environ, "SYMFIND_INDEX_DIR": str(work / "indexes"),
               "SYMFIND_WATCH": args.watch}
        os.environ["SYMFIND_INDEX_DIR"] = env["SYMFIND_INDEX_DIR"]
        index_dir = index_dir_for(repo)
        log = work / "daemon.log"
        with open(log, "wb") as stderr:
            daemon = subprocess.Popen(
                [sys.executable, "-P", "-m", "symfind.cli", "-v", "daemon", "run", str(repo)],
                stdout=subprocess.DEVNULL, stderr=stderr, env=env,
            )
        try:
            result["catch_up_s"] = round(wait(index_dir, idle), 1)
            note(f"caught up in {result['catch_up_s']} s")
            current = status(index_dir)
            assert current is not None
            result |= {"files": current.files, "symbols": current.symbols, "watch": current.watch}
            if "idle" in measure:
                time.sleep(2)  # let the catch-up's worker processes exit
                cpu_before = cpu_seconds(daemon.pid)
                time.sleep(args.idle_s)
                result["idle_cpu_pct"] = round(
                    (cpu_seconds(daemon.pid) - cpu_before) / args.idle_s * 100, 3)
                result["idle_rss_mib"] = round(proc_kib(daemon.pid) / 1024)
                note(f"idle: {result['idle_cpu_pct']} % CPU, {result['idle_rss_mib']} MiB")
            if "queries" in measure:
                every = max(1, current.symbols // 100)
                names = [s.name for s in Searcher(index_dir).all_symbols()[::every]][:100]
                socket_ms, direct_ms = query_latency(index_dir, names)
                result |= {"socket_p50_ms": round(statistics.median(socket_ms), 2),
                           "socket_p95_ms": round(percentile(socket_ms, .95), 2),
                           "direct_p50_ms": round(statistics.median(direct_ms), 2),
                           "direct_p95_ms": round(percentile(direct_ms, .95), 2),
                           "socket_adds_p50_ms": round(statistics.median(socket_ms)
                                                       - statistics.median(direct_ms), 2)}
            if "switch" in measure:
                result["switches"] = []
                for branch in ("switch", "main"):
                    figures = branch_switch(repo, index_dir, daemon.pid, branch, work)
                    result["switches"].append(figures)
                    note(f"switch: {result['switches'][-1]}")
            if "latency" in measure:  # last: its edits would stop `git checkout`
                latencies = save_latency(repo, index_dir, args.edits)
                note(f"{len(latencies)} edits: p50 {percentile(latencies, .5):.0f} ms, "
                     f"p95 {percentile(latencies, .95):.0f} ms")
                result |= {"edits": len(latencies),
                           "save_p50_ms": round(percentile(latencies, .5), 1),
                           "save_p95_ms": round(percentile(latencies, .95), 1),
                           "save_max_ms": round(max(latencies), 1)}
        except BaseException:
            if args.keep_failed:
                kept = Path(tempfile.gettempdir()) / f"symfind-bench-failed-{os.getpid()}.log"
                shutil.copy(log, kept)
                note(f"daemon log kept in {kept}")
            raise
        finally:
            daemon.terminate()
            result["exit_code"] = daemon.wait(timeout=300)
        text = log.read_text(encoding="utf-8", errors="replace")
        result["log"] = {
            "resyncs": text.count("re-checked everything"),
            "inotify_overflows": text.count("Inotify queue overflowed; filesystem events"),
            "errors": text.count("ERROR ") + text.count("CRITICAL "),
            # the switches' batches: how a checkout was sliced, and what each slice cost
            "large_batches": [line.split(": ", 1)[1] for line in text.splitlines()
                              if ": batch of " in line
                              and int(line.split("batch of ")[1].split()[0]) >= 100],
        }
        result["load_after"] = load()
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def median_of(runs: list[dict], key: str) -> float | None:
    values = [r[key] for r in runs if key in r]
    return round(statistics.median(values), 3) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--switch-files", type=int, default=5000)
    parser.add_argument("--idle-s", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--watch", choices=["auto", "polling"], default="auto")
    parser.add_argument("--measure", default="idle,latency,queries,switch",
                        help="comma-separated: idle, latency, queries, switch")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    parser.add_argument("--keep-failed", action="store_true",
                        help="copy the daemon log to the temp dir when a run fails")
    args = parser.parse_args()
    print(f"`python -m bench.daemon_bench {shlex.join(sys.argv[1:])}` on {os.cpu_count()} cores")
    runs = []
    for run_no in range(1, args.runs + 1):
        result = one_run(args, run_no)
        runs.append(result)
        print(json.dumps(result), flush=True)
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1), encoding="utf-8")
    keys = ["catch_up_s", "idle_cpu_pct", "idle_rss_mib", "save_p50_ms", "save_p95_ms",
            "save_max_ms", "socket_p50_ms", "direct_p50_ms", "socket_adds_p50_ms"]
    print("\n| measure | median of %d run(s) | each run |\n|---|---|---|" % len(runs))
    for key in keys:
        if any(key in r for r in runs):
            each = ", ".join(str(r.get(key)) for r in runs)
            print(f"| {key} | {median_of(runs, key)} | {each} |")
    for n, branch in enumerate(("switch", "main")):
        switches = [r["switches"][n] for r in runs if "switches" in r]
        if switches:
            each = ", ".join(f"{s['consistent_s']} s" for s in switches)
            peak = max(s["peak_rss_with_workers_mib"] for s in switches)
            same = all(s["identical_to_reindex"] for s in switches)
            print(f"| checkout {branch}: consistent after | "
                  f"{statistics.median(s['consistent_s'] for s in switches)} s | {each}; "
                  f"peak RSS with workers {peak} MiB; identical to reindex: {same} |")
            ratios = [s["ratio_to_index_of_changed"] for s in switches]
            each = ", ".join(f"{s['ratio_to_index_of_changed']}x ({s['consistent_s']} / "
                             f"{s['index_changed_files_s']} s, {s['changed_files']} files)"
                             for s in switches)
            print(f"| checkout {branch}: consistent / full index of the changed files | "
                  f"{statistics.median(ratios)}x | {each} |")


if __name__ == "__main__":
    main()
