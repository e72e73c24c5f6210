"""The one record of a search: what to look for, how many results, and the filters.

Every front end builds a `SearchQuery` (the CLI from its flags, the MCP tools from their
parameters, the daemon from the request it received, which wraps one), and every search
path takes it: `Searcher.search`, an `IndexSource`, `search_repos`. Its `check()` is the
only place a limit, a kind or a path filter is validated.
"""

from __future__ import annotations

import msgspec

from symfind.extract.records import SymbolKind
from symfind.storage.errors import QueryError
from symfind.storage.globs import check_path_filter
from symfind.storage.router import Plan, route

#: The most results one search returns.
MAX_LIMIT = 1000


class SearchQuery(msgspec.Struct, frozen=True, kw_only=True):
    """One search.

    Attributes:
        text: A name (typos allowed), a qualified name, or a few words.
        limit: Results wanted, 1..MAX_LIMIT.
        kind: Only this SymbolKind (`class`, `function`, ...).
        language: Only this language id.
        path: Only paths matching this glob (`src/**/*.py`, `tests/`), relative to the
            repository root.
        explain: Say why nothing was found and suggest near names (a second search);
            False leaves `empty_reason` and `suggestions` empty.
    """

    text: str
    limit: int = 10
    kind: str | None = None
    language: str | None = None
    path: str | None = None
    explain: bool = True

    def check(self) -> Plan:
        """Validate the query and return the plan it runs.

        Raises:
            QueryError: Empty or over-long text, a limit out of range, an unknown kind, or
                a path filter that is not a glob relative to the repository root.
        """
        if not 1 <= self.limit <= MAX_LIMIT:
            raise QueryError(f"limit must be between 1 and {MAX_LIMIT}, got {self.limit}")
        plan = route(self.text)
        if self.kind and self.kind not in SymbolKind.__members__.values():
            valid = ", ".join(k.value for k in SymbolKind)
            raise QueryError(f"unknown kind {self.kind!r}; use one of: {valid}")
        if self.path:
            check_path_filter(self.path)
        return plan
