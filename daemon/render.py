"""Human-readable output of the CLI: result tables, status, progress. Imports: `storage`."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from storage import SearchResponse


def _why(channels: dict[str, object]) -> str:
    parts = []
    for name, match in channels.items():
        rank = getattr(match, "rank", "?")
        distance = getattr(match, "distance", None)
        parts.append(f"{name}#{rank}" + (f"(d{distance})" if distance is not None else ""))
    return " ".join(parts)


def format_response(response: SearchResponse) -> str:
    """A compact table: rank, kind, qualname, location, and why it ranked."""
    if not response.results:
        lines = [f"no results: {response.empty_reason}"]
        if response.suggestions:
            lines.append("did you mean: " + ", ".join(response.suggestions))
        return "\n".join(lines)
    rows = [
        (
            str(rank),
            str(result.kind),
            result.qualname,
            f"{result.path}:{result.line}",
            _why(result.why.channels),  # type: ignore[arg-type]
        )
        for rank, result in enumerate(response.results, start=1)
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)).rstrip()
        for row in rows
    ]
    pending = response.freshness.pending
    footer = f"[{response.route}; {response.took_ms:.1f} ms"
    footer += f"; {pending} changes not indexed yet]" if pending else "]"
    return "\n".join([*lines, footer])


class ProgressBar:
    """A one-line progress bar on a terminal; silent when the stream is not a TTY."""

    def __init__(self, label: str, stream: TextIO = sys.stderr) -> None:
        self.label = label
        self.stream = stream
        self.enabled = stream.isatty()
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        width = 30
        filled = width * done // max(total, 1)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
