"""Human-readable output of the CLI: result tables, status, progress. Imports: `storage`.

Every text that comes from a repository (names, paths, labels, suggestions, reasons that
quote a query) is shown through `escape_line`: on a terminal a control character in a
file name is a command (ESC sequences) or a forged row (a newline).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from symfind.storage import (
    FederatedResponse,
    ReferencesAnswer,
    SearchResponse,
    SearchResult,
    escape_line,
    is_partial,
)


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
        return _no_results(response.empty_reason, response.suggestions,
                           final=not is_partial(response.freshness))
    rows = [
        (str(rank), *_cells(result)) for rank, result in enumerate(response.results, start=1)
    ]
    pending = response.freshness.pending
    footer = f"[{response.route}; {response.took_ms:.1f} ms"
    footer += f"; {pending} changes not indexed yet]" if pending else "]"
    return "\n".join([*_table(rows), footer])


def format_federated(response: FederatedResponse) -> str:
    """The table of a search over several repositories: a repository column after the rank.

    Repositories that did not answer are not shown here (the CLI reports them on stderr);
    the footer counts them.
    """
    searched = f"{response.answered}/{len(response.repos)} repositories"
    if not response.results:
        final = not any(s.freshness is not None and is_partial(s.freshness)
                        for s in response.repos)
        return (_no_results(response.empty_reason, response.suggestions, final=final)
                + f"\n[{searched}]")
    rows = [
        (str(rank), escape_line(result.repo), *_cells(result))
        for rank, result in enumerate(response.results, start=1)
    ]
    pending = sum(s.freshness.pending for s in response.repos if s.freshness is not None)
    footer = f"[{response.route}; {searched}; {response.took_ms:.1f} ms"
    footer += f"; {pending} changes not indexed yet]" if pending else "]"
    return "\n".join([*_table(rows), footer])


def _cells(result: SearchResult) -> tuple[str, str, str, str]:
    return (
        escape_line(str(result.kind)),
        escape_line(result.qualname),
        escape_line(f"{result.path}:{result.line}"),
        escape_line(_why(result.why.channels)),  # type: ignore[arg-type]
    )


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows with every column but the last (the explanation) padded to its widest cell."""
    last = len(rows[0]) - 1
    widths = [max(len(row[i]) for row in rows) for i in range(last)]
    return [
        "  ".join(cell.ljust(widths[i]) if i < last else cell for i, cell in enumerate(row)).rstrip()
        for row in rows
    ]


def _no_results(reason: str, suggestions: list[str], *, final: bool) -> str:
    """An empty answer: why. Not `final` when the index is being built, is behind or
    fails to be updated (the reason says which): the definition may yet turn up."""
    lines = [f"{'no results' if final else 'not found so far'}: {escape_line(reason)}"]
    if suggestions:
        lines.append("did you mean: " + ", ".join(map(escape_line, suggestions)))
    return "\n".join(lines)


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


def format_references(answer: ReferencesAnswer) -> str:
    """Counts first, then the resolved uses by file and enclosing definition, then the
    possible ones by receiver, what belongs elsewhere, and what was not checked."""
    target = answer.target
    if target is None:
        lines = [escape_line(answer.empty_reason)]  # "no definition named … is indexed"
        lines += [f"  did you mean {escape_line(a.qualname)}  {escape_line(a.path)}:{a.line}"
                  for a in answer.alternatives]
        return "\n".join(lines)
    lines = [f"{escape_line(target.qualname)} ({target.kind})  {escape_line(target.path)}:"
             f"{target.line} — {answer.resolved:,} resolved in {_files(answer.resolved_files)}, "
             f"{answer.possible:,} possible, {answer.elsewhere:,} elsewhere"]
    same_line = [a for a in answer.alternatives
                 if (a.path, a.line) == (target.path, target.line)]
    if same_line:  # `typedef enum { LITERAL, URL } cmark_escaping;` asked by path:line
        lines.append("  also defined on that line (give its name for one of them): "
                     + ", ".join(escape_line(a.qualname) for a in same_line[:5]))
    elsewhere = [a for a in answer.alternatives if a not in same_line]
    if elsewhere:
        lines.append("  other definitions of that name (give path:line for one of them): "
                     + ", ".join(f"{escape_line(a.qualname)} {escape_line(a.path)}:{a.line}"
                                 for a in elsewhere[:5]))
    if answer.empty_reason:
        lines.append(f"  {escape_line(answer.empty_reason)}")
    for group in answer.groups:
        holder = (f"in {escape_line(group.enclosing.qualname)}" if group.enclosing
                  else "at module level")
        lines.append(f"{escape_line(group.path)}  {holder}")
        lines += [f"  {site.line:>6}  {site.kind:<15} {escape_line(site.receiver)}"
                  .rstrip() for site in group.sites]
    if answer.next_cursor:
        lines.append(f"(more resolved uses: --cursor {answer.next_cursor})")
    for possible in answer.possible_groups:
        lines.append(f"possible: {escape_line(possible.receiver) or '(bare name)'} "
                     f"×{possible.count} in {_files(possible.files)} — "
                     f"{escape_line(possible.reason)}; e.g. "
                     + ", ".join(escape_line(s) for s in possible.samples))
    for elsewhere in answer.elsewhere_groups:
        lines.append(f"elsewhere: ×{elsewhere.count} {escape_line(elsewhere.of)} "
                     f"({escape_line(elsewhere.reason)})")
    if answer.partial:
        lines.append(f"partial: {escape_line(answer.partial)}")
    lines += [f"not checked: {escape_line(note)}" for note in answer.unchecked]
    lines.append(f"[references; {_files(answer.files_read)} read; {answer.took_ms:.1f} ms]")
    return "\n".join(lines)


def _files(count: int) -> str:
    return f"{count:,} file" + ("" if count == 1 else "s")
