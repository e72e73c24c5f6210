"""The help tool: how to use the tools and how search works, read from the running code.

Imports: mcp, `storage`, `mcp_server` modules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from symfind.mcp_server import render
from symfind.mcp_server.calls import answer, repository, roots
from symfind.mcp_server.models import (
    HelpOutput,
    IndexContents,
    IndexStatus,
    QueryShape,
    ReposHelpOutput,
    RouteWeights,
    StatusName,
    ToolGuide,
)
from symfind.mcp_server.read_tool import READ_DEFAULT_BYTES, READ_MAX_BYTES
from symfind.mcp_server.search_tool import KINDS, MAX_RESULTS
from symfind.mcp_server.status_tool import status_of
from symfind.storage import MAX_QUERY_CHARS, RRF_K, WEIGHTS, Channel, route
from symfind.storage.priors import HYBRID_TEXT_SHARE

CHANNEL_TEXT = {
    Channel.EXACT: "the whole name, ignoring case, `_`, `-` and `$` (http_client = HttpClient)",
    Channel.NGRAM: "2–3-character pieces of the name: substrings, prefixes",
    Channel.FUZZY: "names within 1–2 typing edits of the query (HtppClient → HttpClient), "
    "closest first; identifiers only, never prose",
    Channel.WORDS: "identifier words split at camelCase, snake_case and digits "
    "(`http server error` → HTTPServerError)",
    Channel.TEXT: "full text (BM25) over signatures, docstrings/leading comments, qualified "
    "names and path words, and at half weight over the words of bodies (calls, names used, "
    "comments, strings) and of the enclosing class's doc",
    Channel.ABBREV: "abbreviated names, matched as an IDE's symbol finder does: each part of "
    "the query starts a word of the name, in order, words may be skipped — camel humps "
    "(ABIFW), word prefixes (admbigint, AdmBigInt), dropped vowels (AdmnBgIntgr), a word "
    "forgotten or two swapped: all AdminBigIntegerFieldWidget; why.channels.abbrev shows "
    "the words matched",
    Channel.VECTOR: "meaning: each question word's closest word in a definition (cosine of "
    "static word embeddings from a model shipped inside the wordllama package, offline), "
    "weighted by rarity, over candidates found with the question's words and their "
    "nearest neighbours in the model (mandatory → required); questions in words only",
}

QUERY_SHAPES = (
    ("HtppClient", "a name, typos and any case allowed"),
    ("http client", "a few words that make up a name"),
    ("AsyncClient#send", "a qualified name: a member of a class"),
    ("pkg.mod.func", "a dotted path: module, then name"),
    ("ns::Type", "a C++/Rust path"),
    ("ABIFW", "an abbreviated name: camel humps, word prefixes (`admbigint`), dropped vowels, "
     "a word forgotten or two swapped (AdminBigIntegerFieldWidget)"),
    ("where do we retry a failed upload?", "a question or description in your own words: "
     "full text and vector channels, fused (hybrid)"),
)

TOOL_GUIDE = (
    (
        "codebase_search",
        (
            "find where a symbol is defined: by name, typo'd name, qualified name or a few "
            "words; results carry a handle"
        ),
    ),
    ("read_symbol", "read one result's full source by its handle"),
    ("find_references", "find where a definition is used (callers, imports, subclasses): "
     "resolved, possible and elsewhere uses, counted, grouped by file"),
    ("index_status", "check whether the index is built and current"),
    ("help", "this guide"),
)
#: What the tools do differently on a server with several repositories.
SEVERAL_GUIDE = {
    "codebase_search": "; all repositories are searched and fused into one ranking: each "
    "result names its `repo`, and `repos` says how each repository answered",
    "read_symbol": " (the handle knows its repository)",
    "find_references": ", in each repository that defines it (a handle: its own)",
    "index_status": ", for each repository",
}
#: Index statuses, best first (several indexes together have the best of theirs).
_STATUS_ORDER: tuple[StatusName, ...] = tuple(StatusName)


def show_help(ctx: Context) -> Annotated[CallToolResult, HelpOutput]:
    """Use when unsure how to query: explains the tools, the query shapes that work (names
    with typos, `Class#method`, `pkg.mod.func`, `ns::Type`, a few words), how search ranks
    results (channels, routing, the fusion weights), and what this repository's index holds
    (languages, kinds).
    """
    out = HelpOutput(**_guide(TOOL_GUIDE), index=_contents([status_of(repository(ctx))]))
    return answer(out, render.help_text(out))


def show_help_repos(ctx: Context) -> Annotated[CallToolResult, ReposHelpOutput]:
    """help on a server with several repositories (its description is help's plus
    `tools.SEVERAL_HELP`): the same guide, which repositories are searched, and what
    their indexes hold together."""
    served = roots(ctx).repos
    tools = tuple((name, text + SEVERAL_GUIDE.get(name, "")) for name, text in TOOL_GUIDE)
    out = ReposHelpOutput(
        **_guide(tools),
        index=_contents([status_of(repo) for repo in served.values()]),
        repos={label: render.escape(str(repo.root)) for label, repo in served.items()},
    )
    return answer(out, render.help_text(out))


def _contents(statuses: Sequence[IndexStatus]) -> IndexContents:
    """What the indexes hold together (the one index of a one-repository server); their
    status is the best any of them has (search answers when one index does)."""
    languages: Counter[str] = Counter()
    for status in statuses:
        languages.update(status.languages)
    return IndexContents(
        status=next(name for name in _STATUS_ORDER if any(s.status == name for s in statuses)),
        files=sum(status.files for status in statuses),
        symbols=sum(status.symbols for status in statuses),
        languages=dict(sorted(languages.items(), key=lambda item: (-item[1], item[0]))),
        kinds=list(KINDS),
    )


def _guide(tools: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """The fields of the help answer that do not depend on the index."""
    return {
        "tools": [ToolGuide(name=name, use_when=text) for name, text in tools],
        "query_shapes": [
            QueryShape(example=example, meaning=meaning, plan=str(route(example)))
            for example, meaning in QUERY_SHAPES
        ],
        "channels": {str(c): CHANNEL_TEXT.get(c, "") for c in Channel},
        "routes": [
            RouteWeights(route=str(r), weights={str(c): w for c, w in weights.items()})
            for r, weights in WEIGHTS.items()
        ],
        "rrf_k": RRF_K,
        "fusion": f"the query's shape picks the channels: a name runs exact, ngram, fuzzy "
        f"(typos) and words; a few words run exact, words and full text; a question runs "
        f"full text (BM25) and vector (meaning) — hybrid search. Each channel ranks on its "
        f"own; weighted Reciprocal Rank Fusion adds weight / ({RRF_K} + rank) over the "
        "channels that found a definition; ties go to the exact name, then kind, path and "
        f"line. For a question, full text and vector are first blended by score (hybrid: "
        f"each score over its channel's best, text x {HYBRID_TEXT_SHARE:g} + vector x "
        f"{1 - HYBRID_TEXT_SHARE:g}) and the blend is fused in their place with their "
        "weights' sum; unless the question mentions tests, test code scores half "
        "(why.adjusted says so). Every result's why.channels shows its ranks (and, for "
        "vector, the words it matched; for text and vector on a question, what each added "
        "to the blend).",
        "limits": {
            "max_query_chars": MAX_QUERY_CHARS,
            "max_results": MAX_RESULTS,
            "read_default_bytes": READ_DEFAULT_BYTES,
            "read_max_bytes": READ_MAX_BYTES,
        },
    }
