"""Scale benchmark: the Linux kernel (Debian's `linux-source-6.1`, ~55k C files, 1M+ definitions).

Parts, each writing `bench/out/kernel/<part>.json`; `report` renders every part present to
`bench/out/kernel/kernel.md` (also printed):

- `index`: full `symfind index` into a fresh index directory vs `ctags -R -f TMP .` on the
  same tree, `--runs` times each (alternating); wall seconds, peak RSS and PSS of the whole
  process tree (the indexer and its extraction workers, polled from /proc), the largest
  single process (`ru_maxrss`); then the index size on disk vs the source size and bytes
  per definition. The last run's index is kept for the other parts.
- `queries`: ground truth and queries made exactly as the core relevance bench makes them
  (`bench.groundtruth`: ctags definitions, `make_queries` with seeds per corpus and shape),
  run in a separate searcher process (`storage.Searcher`, warm, in-process timing): p50 /
  p95 and R@1 per shape (`bench.relevance.metrics`), and the searcher's RSS after opening
  and after the queries. Then a daemon on the kernel (`symfind daemon start`): RSS and
  CPU when idle.
- `sizes`: latency vs index size: growing subtrees of the kernel indexed as repositories
  (`fs/ext4`, `net`, `drivers/net`, `drivers`, the whole tree), queries generated the same
  way from the ground truth below each subtree; p50 / p95 per subtree, R@1.

Usage:
    python -m bench.kernel                                # fetch, then every part
    python -m bench.kernel index --runs 3                 # ~10 min per run on 2 cores
    python -m bench.kernel queries
    python -m bench.kernel sizes --subtrees fs/ext4 net drivers/net drivers .
    python -m bench.kernel report

The tree is fetched by `bench.corpora` (corpus `linux`). ctags' tags of the kernel do not
fit in memory as one JSON document list, so they are streamed through
`groundtruth.definitions_from_tags` in chunks; the definitions and queries land in
`bench/out/linux-<version>/` as for every corpus, and are reused when present.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import logging
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import corpora, groundtruth, relevance, tools

log = logging.getLogger("bench.kernel")

CORPUS = "linux"
OUT = groundtruth.OUT_DIR / "kernel"
FULL_INDEX_BASE = OUT / "index-full"
SIZES_INDEX_BASE = OUT / "index-sizes"
PER_SHAPE = 200
PASSES = 3
SUBTREES = ("fs/ext4", "net", "drivers/net", "drivers", ".")
POLL_S = 0.2
SHAPES = groundtruth.SHAPES
_TAG_CHUNK = 200_000


# --------------------------------------------------------------------------- measuring


def _descendants(root_pid: int) -> list[int]:
    """`root_pid` and every process below it (from /proc/*/stat)."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="utf-8") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children[ppid].append(int(entry.name))
    found, todo = [], [root_pid]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB, (0, 0) once it is gone."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def status_kib(pid: int) -> dict[str, int]:
    """VmRSS, RssAnon (the process's own heap) and RssFile (mapped files: the index's pages
    in the page cache, shared and reclaimable) from /proc/PID/status, in KiB."""
    out = {}
    with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
        for line in handle:
            key = line.split(":", 1)[0]
            if key in ("VmRSS", "RssAnon", "RssFile"):
                out[key] = int(line.split()[1])
    return out


def tree_memory_kib(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, processes) summed over `pid` and its descendants."""
    pids = _descendants(pid)
    sums = [memory_kib(p) for p in pids]
    return sum(r for r, _ in sums), sum(p for _, p in sums), len(pids)


@dataclasses.dataclass
class Measured:
    """One command's wall time and memory (KiB)."""

    seconds: float
    #: CPU seconds (user + system) of the process and every descendant it waited for:
    #: unlike wall time, not inflated by other processes competing for the cores.
    cpu_seconds: float
    peak_tree_rss_kib: int
    peak_tree_pss_kib: int
    max_single_rss_kib: int
    stdout: str = ""


def run_measured(cmd: list[str], cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> Measured:
    """Run `cmd`, polling its process tree's memory every POLL_S seconds."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.DEVNULL)
        peak_rss = peak_pss = 0
        while True:
            try:
                _, status, usage = os.wait4(proc.pid, os.WNOHANG)
            except ChildProcessError:
                raise RuntimeError(f"lost track of {cmd[0]}") from None
            if _ != 0:
                break
            rss, pss, _n = tree_memory_kib(proc.pid)
            peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
            time.sleep(POLL_S)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise subprocess.CalledProcessError(proc.returncode, cmd)
        out.seek(0)
        text = out.read()
    # ru_maxrss of wait4: the largest of the child and the descendants it waited for.
    return Measured(seconds, usage.ru_utime + usage.ru_stime, peak_rss, peak_pss,
                    usage.ru_maxrss, text)


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _symfind() -> list[str]:
    command = tools.symfind_command()
    if command is None:
        raise SystemExit("symfind not found: pip install -e . or set SYMFIND_BIN")
    return command


def _manifest(index_base: Path, root: Path) -> dict:
    os.environ["SYMFIND_INDEX_DIR"] = str(index_base)
    from symfind.storage import index_dir_for

    from symfind.storage import read_manifest

    index_dir = index_dir_for(root.resolve())
    manifest = read_manifest(index_dir)
    if manifest is None:
        raise SystemExit(f"no readable index in {index_dir}")
    meta = json.loads((index_dir / "tantivy" / "meta.json").read_text(encoding="utf-8"))
    return {"index_dir": str(index_dir), "index_bytes": directory_bytes(index_dir),
            "segments": len(meta["segments"]),
            "files": len(manifest.files),
            "symbols": sum(f.symbols for f in manifest.files.values()),
            "source_bytes": sum(f.size for f in manifest.files.values()),
            "skipped": dict(collections.Counter(manifest.skipped.values()))}


def _save(part: str, data: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{part}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _load(part: str) -> dict | None:
    path = OUT / f"{part}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _machine() -> dict:
    with open("/proc/loadavg", encoding="utf-8") as handle:
        load = handle.read().split()[:3]
    return {"cores": os.cpu_count(), "python": platform.python_version(),
            "loadavg_at_start": " ".join(load),
            "date": time.strftime("%Y-%m-%d %H:%M")}


# --------------------------------------------------------------------------- ground truth


def _stream_tags(root: Path, files: list[str]):
    """ctags' JSON tags for `files`, as `groundtruth.run_ctags` makes them, but streamed."""
    cmd = [groundtruth.CTAGS, "-L", "-", "--sort=no", "--output-format=json",
           "--fields=+nKzSlE", "-f", "-", *groundtruth.CTAGS_MAPS, *groundtruth.H_AS_C]
    with tempfile.TemporaryFile("w+", encoding="utf-8") as listing:
        listing.write("\n".join(files) + "\n")
        listing.seek(0)
        proc = subprocess.Popen(cmd, cwd=root, stdin=listing, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        # Bytes split at b"\n" only: names and patterns may hold U+2028 and the like.
        for raw in proc.stdout:
            line = raw.decode("utf-8", errors="replace")
            if line.strip():
                tag = json.loads(line)
                if tag.get("_type") == "tag":
                    yield tag
        if proc.wait() != 0:
            raise subprocess.CalledProcessError(proc.returncode, cmd)


def ground_truth(corpus: corpora.Corpus, per_shape: int) -> tuple[list, list[dict], dict]:
    """Definitions, queries and stats of the kernel; built once, then read back."""
    dest = groundtruth.out_dir(corpus)
    stats_path = dest / "stats.json"
    if stats_path.exists():
        stats = json.loads(stats_path.read_text(encoding="utf-8"))
        if stats.get("per_shape") == per_shape:
            log.info("ground truth: reusing %s", dest)
            return groundtruth.load_definitions(corpus), groundtruth.load_queries(corpus), stats
    started = time.perf_counter()
    files = groundtruth.source_files(corpus.path)
    defs: list = []
    excluded: collections.Counter = collections.Counter()
    tags = 0
    chunk: list[dict] = []
    for tag in _stream_tags(corpus.path, files):
        chunk.append(tag)
        if len(chunk) == _TAG_CHUNK:
            found, dropped = groundtruth.definitions_from_tags(chunk)
            defs += found
            excluded += dropped
            tags += len(chunk)
            chunk = []
    found, dropped = groundtruth.definitions_from_tags(chunk)
    defs += found
    excluded += dropped
    tags += len(chunk)
    queries, shape_stats = groundtruth.make_queries(defs, corpus.name, per_shape)
    dest.mkdir(parents=True, exist_ok=True)
    groundtruth.write_jsonl(dest / "definitions.jsonl", [dataclasses.asdict(d) for d in defs])
    groundtruth.write_jsonl(dest / "queries.jsonl", queries)
    stats = {"corpus": corpus.name, "version": corpus.version, "files": len(files),
             "tags": tags, "definitions": len(defs), "per_shape": per_shape,
             "seconds": round(time.perf_counter() - started, 1),
             "definitions_by_kind": dict(collections.Counter(d.kind for d in defs)),
             "excluded_by_reason": dict(collections.Counter(
                 {reason: n for (_l, _k, reason), n in excluded.items()})),
             "shapes": shape_stats}
    stats_path.write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
    log.info("ground truth: %d files, %d tags, %d definitions, %d queries in %.0f s",
             len(files), tags, len(defs), len(queries), stats["seconds"])
    return defs, queries, stats


def subtree_queries(defs: list, subtree: str, per_shape: int) -> tuple[list[dict], int]:
    """Queries for `subtree` indexed as a repository: its definitions, paths relative to it,
    sampled by `make_queries` with the corpus name `linux:<subtree>`."""
    if subtree in ("", "."):
        mine = defs
    else:
        prefix = subtree.rstrip("/") + "/"
        mine = [dataclasses.replace(d, path=d.path[len(prefix):])
                for d in defs if d.path.startswith(prefix)]
    queries, _ = groundtruth.make_queries(mine, f"{CORPUS}:{subtree}", per_shape)
    return queries, len(mine)


# --------------------------------------------------------------------------- searching


def searcher_main(argv: list[str]) -> int:
    """Child process: open a Searcher, run the queries warm, report times, ranks and RSS."""
    index_base, root, queries_path, out_path, passes = argv
    os.environ["SYMFIND_INDEX_DIR"] = index_base
    from symfind.storage import Searcher, SearchQuery, index_dir_for

    rss_start = memory_kib(os.getpid())[0]
    searcher = Searcher(index_dir_for(Path(root).resolve()))
    rss_open = memory_kib(os.getpid())[0]
    queries = groundtruth.read_jsonl(Path(queries_path))
    ranked: list[list[list]] = []
    for query in queries:  # warm-up pass; its answers are the ones scored
        response = searcher.search(SearchQuery(text=query["query"], limit=tools.LIMIT))
        ranked.append([[r.path, r.line] for r in response.results])
    times: list[list[float]] = [[] for _ in queries]
    cpu: list[list[float]] = [[] for _ in queries]
    for _ in range(int(passes)):
        for i, query in enumerate(queries):
            started, started_cpu = time.perf_counter(), time.thread_time()
            searcher.search(SearchQuery(text=query["query"], limit=tools.LIMIT))
            cpu[i].append((time.thread_time() - started_cpu) * 1000)
            times[i].append((time.perf_counter() - started) * 1000)
    rss_after = memory_kib(os.getpid())[0]
    Path(out_path).write_text(json.dumps({
        "ranked": ranked, "times_ms": times, "cpu_ms": cpu, "rss_start_kib": rss_start,
        "rss_open_kib": rss_open, "rss_after_kib": rss_after,
        "status_after_kib": status_kib(os.getpid()),
        "symbols": searcher.num_symbols}), encoding="utf-8")
    return 0


def run_queries(index_base: Path, root: Path, queries: list[dict], passes: int) -> dict:
    """Run `queries` in a fresh searcher process; per-shape latency and R@1, and its RSS."""
    with tempfile.TemporaryDirectory(prefix="symfind-kernel-") as tmp:
        queries_path, out_path = Path(tmp) / "queries.jsonl", Path(tmp) / "out.json"
        groundtruth.write_jsonl(queries_path, queries)
        subprocess.run([sys.executable, "-m", "bench.kernel", "_searcher", str(index_base),
                        str(root), str(queries_path), str(out_path), str(passes)],
                       check=True, cwd=corpora.BENCH.parent)
        answer = json.loads(out_path.read_text(encoding="utf-8"))
    rows = []
    for query, ranked, times, cpu in zip(queries, answer["ranked"], answer["times_ms"],
                                         answer["cpu_ms"], strict=True):
        expected = [query["path"], query["line"]]
        rank = ranked.index(expected) + 1 if expected in ranked else 0
        rows.append({**query, "rank": rank, "took_ms": statistics.median(times),
                     "cpu_ms": statistics.median(cpu)})

    def measures(group: list[dict]) -> dict:
        cpu_ms = [r["cpu_ms"] for r in group]
        return relevance.metrics(group) | (
            {"cpu_p50": statistics.median(cpu_ms), "cpu_p95": percentile(cpu_ms, 0.95)}
            if group else {})

    by_shape = {shape: measures([r for r in rows if r["shape"] == shape]) for shape in SHAPES}
    return {"by_shape": by_shape, "all": measures(rows),
            "rss_open_kib": answer["rss_open_kib"], "rss_after_kib": answer["rss_after_kib"],
            "rss_start_kib": answer["rss_start_kib"], "symbols": answer["symbols"],
            "status_after_kib": answer["status_after_kib"],
            "passes": passes,
            "misses": [{k: r[k] for k in ("shape", "query", "name", "path", "line", "rank")}
                       for r in rows if r["rank"] != 1][:200]}


def daemon_idle(index_base: Path, root: Path, idle_s: float = 10.0) -> dict:
    """Start a daemon on the indexed tree, wait for it to be idle, measure RSS and CPU."""
    symfind = _symfind()
    env = tools.symfind_env(index_base)
    started = time.perf_counter()
    # --force: a release tarball has no .git and more files than symfind takes for a repository.
    subprocess.run([*symfind, "daemon", "start", "--force", str(root)], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    try:
        status: dict = {}
        deadline = time.monotonic() + 1200
        while time.monotonic() < deadline:
            proc = subprocess.run([*symfind, "daemon", "status", str(root), "--json"], env=env,
                                  capture_output=True, text=True)
            status = json.loads(proc.stdout) if proc.returncode == 0 else {}
            if status.get("state") == "idle":
                break
            time.sleep(1)
        ready_s = time.perf_counter() - started
        pid = int(status["pid"])
        ticks = os.sysconf("SC_CLK_TCK")

        def cpu_s() -> float:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / ticks

        time.sleep(2)
        cpu_before = cpu_s()
        time.sleep(idle_s)
        cpu_used = cpu_s() - cpu_before
        rss, pss, processes = tree_memory_kib(pid)
        return {"ready_s": round(ready_s, 1), "idle_rss_kib": rss, "idle_pss_kib": pss,
                "processes": processes, "idle_cpu_percent": round(100 * cpu_used / idle_s, 2),
                "idle_s": idle_s, "files": status.get("files"),
                "symbols": status.get("symbols")}
    finally:
        subprocess.run([*symfind, "daemon", "stop", str(root)], env=env,
                       stdout=subprocess.DEVNULL, check=False)


# --------------------------------------------------------------------------- parts


def part_index(corpus: corpora.Corpus, runs: int) -> dict:
    """Full index vs ctags -R, `runs` times each; keeps the last index in FULL_INDEX_BASE."""
    root = corpus.path
    symfind = _symfind()
    attempts = []
    scratch = OUT / "index-run"
    for run in range(runs):
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
        sym = run_measured([*symfind, "index", "--json", "--force", str(root)],
                           env=tools.symfind_env(scratch))
        report = json.loads(sym.stdout)
        with tempfile.TemporaryDirectory(prefix="symfind-kernel-ctags-") as tmp:
            ctags = run_measured([groundtruth.CTAGS, "-R", "-f", str(Path(tmp) / "tags"), "."],
                                 cwd=root)
            tags_bytes = (Path(tmp) / "tags").stat().st_size
        attempts.append({"symfind": dataclasses.asdict(sym) | {"stdout": ""}, "report": report,
                         "ctags": dataclasses.asdict(ctags) | {"stdout": ""},
                         "ctags_tags_bytes": tags_bytes})
        log.info("index run %d: symfind %.0f s (peak tree RSS %.0f MiB, PSS %.0f MiB), "
                 "ctags -R %.0f s, %d symbols", run + 1, sym.seconds,
                 sym.peak_tree_rss_kib / 1024, sym.peak_tree_pss_kib / 1024, ctags.seconds,
                 report["symbols"])
    shutil.rmtree(FULL_INDEX_BASE, ignore_errors=True)
    os.replace(scratch, FULL_INDEX_BASE)
    symfind_s = [a["symfind"]["seconds"] for a in attempts]
    ctags_s = [a["ctags"]["seconds"] for a in attempts]
    symfind_cpu = [a["symfind"]["cpu_seconds"] for a in attempts]
    ctags_cpu = [a["ctags"]["cpu_seconds"] for a in attempts]
    data = {"machine": _machine(), "runs": attempts,
            "symfind_median_s": statistics.median(symfind_s),
            "ctags_median_s": statistics.median(ctags_s),
            "ratio": statistics.median(symfind_s) / statistics.median(ctags_s),
            "cpu_ratio": statistics.median(symfind_cpu) / statistics.median(ctags_cpu),
            "peak_tree_rss_kib": max(a["symfind"]["peak_tree_rss_kib"] for a in attempts),
            "peak_tree_pss_kib": max(a["symfind"]["peak_tree_pss_kib"] for a in attempts),
            "max_single_rss_kib": max(a["symfind"]["max_single_rss_kib"] for a in attempts),
            "tree_bytes": directory_bytes(root),
            "index": _manifest(FULL_INDEX_BASE, root)}
    _save("index", data)
    return data


def part_queries(corpus: corpora.Corpus, per_shape: int, passes: int) -> dict:
    if not (FULL_INDEX_BASE.exists()):
        raise SystemExit("no kernel index yet: run `python -m bench.kernel index` first")
    defs, queries, stats = ground_truth(corpus, per_shape)
    data = {"machine": _machine(), "definitions": len(defs), "queries": len(queries),
            "groundtruth": {k: stats[k] for k in ("files", "tags", "definitions", "shapes")}}
    del defs
    data["search"] = run_queries(FULL_INDEX_BASE, corpus.path, queries, passes)
    log.info("queries: p50 %.2f ms, p95 %.2f ms, R@1 %.3f", data["search"]["all"]["ms_p50"],
             data["search"]["all"]["ms_p95"], data["search"]["all"]["r1"])
    data["index"] = _manifest(FULL_INDEX_BASE, corpus.path)
    _save("queries", data)
    return data


def part_daemon(corpus: corpora.Corpus) -> dict:
    """A daemon on the kernel's index: time to idle, idle RSS and CPU. Run last: a daemon
    whose extraction code differs from the index's rebuilds it (committing every 1,000
    files, so the index it leaves has more segments)."""
    if not FULL_INDEX_BASE.exists():
        raise SystemExit("no kernel index yet: run `python -m bench.kernel index` first")
    data = {"machine": _machine(), "daemon": daemon_idle(FULL_INDEX_BASE, corpus.path)}
    log.info("daemon idle: RSS %.0f MiB", data["daemon"]["idle_rss_kib"] / 1024)
    _save("daemon", data)
    return data


def part_sizes(corpus: corpora.Corpus, subtrees: list[str], per_shape: int,
               passes: int) -> dict:
    defs, _, _ = ground_truth(corpus, per_shape)
    symfind = _symfind()
    full = _load("index")
    shutil.rmtree(SIZES_INDEX_BASE, ignore_errors=True)
    rows = []
    for subtree in subtrees:
        root = corpus.path if subtree in ("", ".") else corpus.path / subtree
        queries, n_defs = subtree_queries(defs, subtree, per_shape)
        if root == corpus.path and full and FULL_INDEX_BASE.exists():
            # The whole tree: the `index` part's index and its median time.
            base, index_s, index_cpu_s = FULL_INDEX_BASE, full["symfind_median_s"], None
        else:
            base = SIZES_INDEX_BASE
            measured = run_measured([*symfind, "index", "--json", "--force", str(root)],
                                    env=tools.symfind_env(base))
            index_s, index_cpu_s = measured.seconds, measured.cpu_seconds
        search = run_queries(base, root, queries, passes)
        rows.append({"subtree": subtree, "definitions": n_defs, "queries": len(queries),
                     "index_s": index_s, "index_cpu_s": index_cpu_s,
                     "index": _manifest(base, root),
                     "search": {k: v for k, v in search.items() if k != "misses"}})
        log.info("%s: %d definitions, p50 %.2f ms, p95 %.2f ms, R@1 %.3f", subtree, n_defs,
                 search["all"]["ms_p50"], search["all"]["ms_p95"], search["all"]["r1"])
    data = {"machine": _machine(), "subtrees": rows}
    _save("sizes", data)
    return data


# --------------------------------------------------------------------------- report


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _mib(kib: float) -> str:
    return f"{kib / 1024:,.0f} MiB"


def render() -> str:
    lines = ["## Kernel", ""]
    index, queries, sizes = _load("index"), _load("queries"), _load("sizes")
    if index:
        runs = index["runs"]
        idx = index["index"]
        symfind_cpu = statistics.median(r["symfind"]["cpu_seconds"] for r in runs)
        ctags_cpu = statistics.median(r["ctags"]["cpu_seconds"] for r in runs)
        ctags_defs = queries["definitions"] if queries else None
        lines += [
            f"`python -m bench.kernel index --runs {len(runs)}` ({index['machine']['date']}, "
            f"{index['machine']['cores']} cores, load at start "
            f"{index['machine']['loadavg_at_start']}):", "",
            "| measure | symfind | ctags -R | ratio / note |", "|---|---:|---:|---|",
            f"| full index, median of {len(runs)} (s) | {index['symfind_median_s']:.0f} "
            f"| {index['ctags_median_s']:.0f} | {index['ratio']:.2f}x |",
            "| runs (s) | " + ", ".join(f"{r['symfind']['seconds']:.0f}" for r in runs)
            + " | " + ", ".join(f"{r['ctags']['seconds']:.0f}" for r in runs) + " | |",
            f"| CPU time, user + system, whole process tree (s) | {symfind_cpu:.0f} "
            f"| {ctags_cpu:.0f} | {symfind_cpu / ctags_cpu:.2f}x (symfind may use every "
            "core, ctags one) |",
            f"| peak memory while indexing, process tree | RSS {_mib(index['peak_tree_rss_kib'])}"
            f", PSS {_mib(index['peak_tree_pss_kib'])} | "
            f"{_mib(max(r['ctags']['peak_tree_rss_kib'] for r in runs))} | largest single "
            f"process {_mib(index['max_single_rss_kib'])} |",
            f"| files indexed / symbols | {idx['files']:,} / {idx['symbols']:,} | | "
            f"skipped: {', '.join(f'{k} {v}' for k, v in sorted(idx['skipped'].items()))} |",
            f"| index on disk | {idx['index_bytes'] / 1e6:,.0f} MB | tags file "
            f"{runs[-1]['ctags_tags_bytes'] / 1e6:,.0f} MB | source indexed "
            f"{idx['source_bytes'] / 1e6:,.0f} MB "
            f"({idx['index_bytes'] / idx['source_bytes']:.2f}x); "
            f"whole tree {index['tree_bytes'] / 1e6:,.0f} MB |",
            f"| bytes per definition | {idx['index_bytes'] / idx['symbols']:.0f} per symbol"
            + (f", {idx['index_bytes'] / ctags_defs:.0f} per ctags definition" if ctags_defs
               else "") + " | | |",
            ""]
    if queries:
        search = queries["search"]
        segments = queries.get("index", {}).get("segments", "?")
        lines += [
            f"`python -m bench.kernel queries` ({queries['machine']['date']}): "
            f"{queries['definitions']:,} ctags definitions, {queries['queries']} queries "
            f"({PER_SHAPE} per shape at most, `groundtruth.make_queries`), in one searcher "
            f"process on the index above ({segments} segments); latency = median of "
            f"{search['passes']} warm passes per query, wall and CPU (thread) time.", "",
            "| shape | N | p50 (ms) | p95 (ms) | CPU p50 (ms) | CPU p95 (ms) | R@1 | R@5 | MRR |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for shape in [*SHAPES, "all"]:
            m = search["all"] if shape == "all" else search["by_shape"][shape]
            if not m.get("n"):
                continue
            lines.append(f"| {shape} | {m['n']} | {m['ms_p50']:.2f} | {m['ms_p95']:.2f} "
                         f"| {m['cpu_p50']:.2f} | {m['cpu_p95']:.2f} "
                         f"| {m['r1']:.3f} | {m['r5']:.3f} | {m['mrr']:.3f} |")
        status = search.get("status_after_kib", {})
        lines += ["", f"Searcher process: RSS {_mib(search['rss_open_kib'])} after opening the "
                  f"index, {_mib(search['rss_after_kib'])} after the queries"
                  + (f", of which {_mib(status['RssFile'])} are pages of the index files "
                     f"(page cache, shared, reclaimable) and {_mib(status['RssAnon'])} its "
                     "own heap" if status else "") + ".", ""]
    daemon = (_load("daemon") or {}).get("daemon")
    if daemon:
        lines += [f"`python -m bench.kernel daemon`: a daemon on the kernel is idle "
                  f"{daemon['ready_s']:.0f} s after `daemon start` ({daemon['files']:,} files, "
                  f"{daemon['symbols']:,} symbols); idle RSS {_mib(daemon['idle_rss_kib'])} "
                  f"(PSS {_mib(daemon['idle_pss_kib'])}), idle CPU "
                  f"{daemon['idle_cpu_percent']} % over {daemon['idle_s']:.0f} s.", ""]
    if sizes:
        lines += [f"`python -m bench.kernel sizes` ({sizes['machine']['date']}): each subtree "
                  "indexed as a repository; queries from its ctags definitions.", "",
                  "| subtree | ctags definitions | symfind symbols | index (MB, segments) "
                  "| index (s) | p50 (ms) | p95 (ms) | CPU p50 (ms) | CPU p95 (ms) "
                  "| worst shape, CPU p95 (ms) | R@1 |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
        for row in sizes["subtrees"]:
            m, by = row["search"]["all"], row["search"]["by_shape"]
            worst = max((s for s in by if by[s].get("n")), key=lambda s: by[s]["cpu_p95"])
            lines.append(
                f"| `{row['subtree']}` | {row['definitions']:,} | {row['index']['symbols']:,} "
                f"| {row['index']['index_bytes'] / 1e6:,.0f} ({row['index'].get('segments', '?')}) "
                f"| {_seconds(row['index_s'])} | {m['ms_p50']:.2f} "
                f"| {m['ms_p95']:.2f} | {m['cpu_p50']:.2f} | {m['cpu_p95']:.2f} "
                f"| {worst} {by[worst]['cpu_p95']:.2f} | {m['r1']:.3f} |")
        lines.append("")
    text = "\n".join(lines)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "kernel.md").write_text(text, encoding="utf-8")
    return text


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_searcher"]:
        return searcher_main(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", nargs="?", default="all",
                        choices=["all", "index", "queries", "sizes", "daemon", "report"])
    parser.add_argument("--runs", type=int, default=1, help="index runs (each ~10 min)")
    parser.add_argument("--per-shape", type=int, default=PER_SHAPE)
    parser.add_argument("--passes", type=int, default=PASSES, help="timed query passes")
    parser.add_argument("--subtrees", nargs="+", default=list(SUBTREES))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                        "%(message)s")
    (corpus,) = corpora.select(corpora.load_table(), [CORPUS])
    if args.part != "report":
        corpora.fetch(corpus)
    if args.part in ("all", "index"):
        part_index(corpus, args.runs)
    if args.part in ("all", "queries"):
        part_queries(corpus, args.per_shape, args.passes)
    if args.part in ("all", "sizes"):
        part_sizes(corpus, args.subtrees, args.per_shape, args.passes)
    if args.part in ("all", "daemon"):
        part_daemon(corpus)
    print(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
