"""What checking an index's checksums costs when it is opened, against `cksum` (the CRC a
user would run by hand) over the same files in the same run.

    python -m bench.integrity PATH/TO/INDEX_DIR/tantivy [--runs 7]

Prints the size checked, the median (min–max) of `verify_files` from nothing, of a
re-check where nothing changed (what a long-lived reader pays), and of `cksum`, with the
ratio. Page cache warm: every run reads the same files.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from pathlib import Path

from symfind.storage.integrity import segment_files, verify_files


def _times(action: object, runs: int) -> list[float]:
    result = []
    for _ in range(runs):
        started = time.perf_counter()
        action()  # type: ignore[operator]
        result.append(time.perf_counter() - started)
    return result


def _show(label: str, times: list[float]) -> str:
    return (f"{label}: median {statistics.median(times) * 1e3:.1f} ms "
            f"({min(times) * 1e3:.1f}–{max(times) * 1e3:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tantivy_dir", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    directory: Path = args.tantivy_dir
    files = [directory / name for name in segment_files(directory)]
    size = sum(path.stat().st_size for path in files)
    full = _times(lambda: verify_files(directory, {}), args.runs)
    verified: dict[str, tuple[int, int, int]] = {}
    verify_files(directory, verified)
    again = _times(lambda: verify_files(directory, verified), args.runs)
    cksum = _times(lambda: subprocess.run(["cksum", *map(str, files)], check=True,
                                          stdout=subprocess.DEVNULL), args.runs)
    print(f"{size / 1e6:.1f} MB in {len(files)} files")
    print(_show("verify_files, nothing checked yet", full))
    print(_show("verify_files, nothing changed", again))
    print(_show("cksum over the same files", cksum))
    print(f"ratio verify_files / cksum: {statistics.median(full) / statistics.median(cksum):.2f}")


if __name__ == "__main__":
    main()
