"""Pydantic models of the tools' structured output; they become each tool's outputSchema.

Imports: pydantic, msgspec and `storage` (the one definition of a symbol's fields,
`SymbolHead`, which `Definition` takes its first fields from). Storage records (msgspec
Structs) are converted into these by the tool modules; no Struct ever reaches the SDK.

The answers (`SearchOutput`, `SymbolSource`, `HelpOutput`, `IndexStatus`, and the forms a
server with several repositories returns: `ReposSearchOutput`, `RepoSymbolSource`,
`ReposHelpOutput`, `ReposIndexStatus`) publish self-contained schemas: pydantic's own,
with nested models written in place instead of `$ref`s into `$defs` (our models are not
recursive). Clients that validate every answer against the outputSchema (the Python
SDK's does, with `jsonschema`) validate a search answer ~25% faster without a `$ref`
lookup per nested object. Nullable fields stay
`anyOf` branches of one `type` each: a `"type": [T, "null"]` array would be faster still,
but is less portable (the Inspector's --strict check flags it).
"""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal, get_args, get_origin

import msgspec
from pydantic import BaseModel, Field, GetJsonSchemaHandler, create_model
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from symfind.storage import SymbolHead

IndexStatusName = Literal["ready", "indexing", "missing", "unusable"]


class StatusName(enum.StrEnum):
    """The values of `IndexStatusName`, for code to compare with (the schemas keep the
    `Literal`: their wire form stays a plain string enum)."""

    READY = "ready"
    INDEXING = "indexing"
    MISSING = "missing"
    UNUSABLE = "unusable"

#: `storage.FreshnessState` values, in its order: how far an answer reflects the repository.
FreshnessStateName = Literal["current", "building", "behind", "failing", "incomplete",
                             "unwatched"]

#: `storage.RepoState` values: how one repository answered a search over several.
RepoStateName = Literal["ok", "missing index", "schema mismatch", "error"]


def self_contained(schema: Any, resolve: Any) -> Any:
    """`schema` with every `$ref` replaced by what `resolve` returns for it, recursively
    (its siblings kept, winning over the referenced schema's keys).

    Args:
        schema: A JSON schema (or a part of one).
        resolve: `{"$ref": ...}` → the schema it points at.
    """
    if isinstance(schema, list):
        return [self_contained(item, resolve) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        siblings = {key: value for key, value in schema.items() if key != "$ref"}
        return self_contained({**resolve({"$ref": schema["$ref"]}), **siblings}, resolve)
    return {key: self_contained(value, resolve) for key, value in schema.items()}


def lean_schema(schema: Any) -> Any:
    """`schema` without pydantic's `title` keywords (`"title": "Took Ms"`), recursively: they
    only repeat the property names, and were a fifth of tools/list. A property *named*
    `title` (its value a schema, not a string) stays."""
    if isinstance(schema, list):
        return [lean_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {key: lean_schema(value) for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))}


class Answer(BaseModel):
    """A tool's whole answer: its JSON schema is self-contained and lean (see the module
    docstring and `lean_schema`)."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return lean_schema(self_contained(handler(core_schema), handler.resolve_ref_schema))


class ChannelMatch(BaseModel):
    """How one search channel ranked a result."""

    rank: int = Field(description="Rank within that channel, 1 = best.")
    contribution: float = Field(
        description="weight / (k + rank): this channel's share of the score; for text and "
        "vector on a question, what each added to the hybrid blend (share x score / best).")
    distance: int | None = Field(default=None, description="Edit distance (fuzzy channel only).")
    matched: list[str] | None = Field(
        default=None, description="vector: words matched (`word→its word`); abbrev: "
        "its fit."
    )


class Why(BaseModel):
    channels: dict[str, ChannelMatch] = Field(description="Every channel that found the result.")
    adjusted: str | None = Field(default=None, description="What else changed the score.")


def pydantic_fields(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """A msgspec Struct's fields as `create_model` takes them, in order: the same names,
    types (an enum as the string its values are: answers carry the value) and `Meta`
    descriptions."""
    fields: dict[str, Any] = {}
    for field in msgspec.structs.fields(struct):
        kind, extras = field.type, ()
        if get_origin(kind) is Annotated:
            kind, *extras = get_args(kind)
        if isinstance(kind, type) and issubclass(kind, enum.StrEnum):
            kind = str
        meta = next((extra for extra in extras if isinstance(extra, msgspec.Meta)), None)
        fields[field.name] = (kind, Field(description=meta.description if meta else None))
    return fields


#: A result's rank, then the fields of `SymbolHead` (what the definition is and where).
RankedSymbol = create_model("RankedSymbol", rank=(int, ...), **pydantic_fields(SymbolHead))


class Definition(RankedSymbol):
    """One ranked definition."""

    signature: str
    summary: str = Field(description="Its doc's first sentence.")
    snippet: str | None = Field(
        description="A few source lines from `snippet_line`, read from disk (null when omitted "
        "to keep the answer short, or when the file changed since it was indexed)."
    )
    snippet_line: int = Field(description="1-based line the snippet starts at.")
    snippet_truncated: bool = Field(description="The definition goes on past the snippet.")
    file_changed: bool = Field(
        description="The file on disk differs from the indexed one (edited, replaced, gone): "
        "line numbers may be off and read_symbol will refuse it until the index catches up."
    )
    score: float
    why: Why
    handle: str = Field(description="Pass to read_symbol for the whole definition's source.")


class Freshness(BaseModel):
    """How current the index is."""

    status: IndexStatusName
    state: FreshnessStateName = Field(description="Whether answers may miss files: see message.")
    message: str = Field(description="What answers may miss, and when to ask again.")
    generation: int = Field(description="Index commit counter.")
    files: int = Field(description="Files indexed.")
    pending: int = Field(description="Changed files not indexed yet.")
    failing: int = Field(description="Files not indexed because indexing fails.")
    watching: bool = Field(description="A daemon keeps the index up to date as files change.")
    retry_after_s: float = Field(description="Ask again after this long (0: no need).")
    updated_at: float = Field(description="Unix time of the last commit.")


class SearchAnswer(Answer):
    """What the answers of codebase_search over one and over several repositories share."""

    query: str
    route: str = Field(description="How the query was read: identifier, qualified, words or prose.")
    plan: str = Field(description="The channels run with their weights, human-readable.")
    channels: dict[str, float] = Field(description="Channels run → weight in the fusion.")
    took_ms: float
    results: list[Definition]
    truncated: bool = Field(description="Results or snippets were cut to keep the answer short.")
    omitted_results: int = Field(description="Results dropped by that cut.")
    empty_reason: str | None = Field(description="Why nothing was found (empty results only).")
    suggestions: list[str] = Field(description="Nearest indexed names (empty results only).")
    next_actions: list[str] = Field(description="What to try next.")
    failures: dict[str, str] = Field(description="Channels that failed; the others still answered.")


class SearchOutput(SearchAnswer):
    """The answer of codebase_search."""

    freshness: Freshness


class RepoDefinition(Definition):
    """One ranked definition, in one of several repositories."""

    repo: str = Field(description="The repository it is in (its `repos[].repo` label).")


class RepoAnswer(BaseModel):
    """How one repository answered a search over several."""

    repo: str = Field(description="Its label, as its results name it.")
    root: str = Field(description="Its absolute path.")
    status: RepoStateName
    message: str = Field(description="Why it did not answer and what to do (empty when ok).")
    took_ms: float
    results: int = Field(description="Results it returned before the fusion.")
    freshness: Freshness | None = Field(description="How current its index is (null unless ok).")
    failures: dict[str, str] = Field(description="Its channels that failed.")


class ReposSearchOutput(SearchAnswer):
    """The answer of codebase_search over several repositories: one fused ranking."""

    results: list[RepoDefinition]
    failures: dict[str, str] = Field(
        description="`repo/channel` → why that channel failed there; the others still answered."
    )
    repos: list[RepoAnswer] = Field(
        description="One per repository, in the order the server was given them."
    )


class SymbolSource(Answer):
    """The answer of read_symbol: one definition's source."""

    name: str
    path: str
    language: str
    start_line: int = Field(description="1-based first line of `source`.")
    end_line: int = Field(description="1-based last line of `source`.")
    definition_end_line: int = Field(description="1-based last line of the whole definition.")
    source: str
    is_truncated: bool = Field(description="`source` stops before the definition ends (max_bytes).")
    bytes: int = Field(description="UTF-8 bytes of the definition shown.")
    total_bytes: int = Field(description="UTF-8 bytes of the whole definition.")
    escaped_characters: int = Field(
        description="Invisible or control characters shown as <U+XXXX> escapes."
    )


class RepoSymbolSource(SymbolSource):
    """The answer of read_symbol when the server serves several repositories."""

    repo: str = Field(description="The repository the definition is in.")


class ToolGuide(BaseModel):
    name: str
    use_when: str


class QueryShape(BaseModel):
    example: str
    meaning: str
    plan: str = Field(description="What the router makes of the example, live.")


class RouteWeights(BaseModel):
    route: str
    weights: dict[str, float] = Field(description="Channel → RRF weight.")


class IndexContents(BaseModel):
    status: IndexStatusName
    files: int
    symbols: int
    languages: dict[str, int] = Field(description="Language → files indexed.")
    kinds: list[str] = Field(description="Values the `kind` filter accepts.")


class HelpOutput(Answer):
    """The answer of help."""

    tools: list[ToolGuide]
    query_shapes: list[QueryShape]
    channels: dict[str, str] = Field(description="Channel → what it matches.")
    routes: list[RouteWeights]
    rrf_k: int = Field(description="k in score = Σ weight / (k + rank).")
    fusion: str
    limits: dict[str, int]
    index: IndexContents


class ReposHelpOutput(HelpOutput):
    """The answer of help when the server serves several repositories."""

    index: IndexContents = Field(
        description="All repositories' indexes together; status is the best of theirs "
        "(index_status has each)."
    )
    repos: dict[str, str] = Field(description="Label → root of every repository searched.")


class IndexStatus(Answer):
    """The answer of index_status."""

    repo: str
    status: IndexStatusName
    message: str
    generation: int
    files: int
    symbols: int
    skipped: dict[str, int] = Field(description="Reason → files seen but not indexed.")
    languages: dict[str, int] = Field(description="Language → files indexed.")
    pending: int
    watching: bool
    indexing: bool = Field(description="An indexer or a daemon batch is running now.")
    updated_at: float
    state: FreshnessStateName | None = Field(
        description="Whether answers may miss files (null: no usable index); see message."
    )
    failing: int = Field(description="Files not indexed because indexing fails.")


class RepoIndexStatus(IndexStatus):
    """One repository's index status, in a server that serves several."""

    label: str = Field(description="The name its search results carry in `repo`.")


class ReposIndexStatus(Answer):
    """The answer of index_status when the server serves several repositories."""

    repos: list[RepoIndexStatus] = Field(description="One per repository, in the order given.")


class ReferenceDefinition(BaseModel):
    """A definition a find_references answer names, with its read handle."""

    qualname: str
    kind: str
    path: str
    line: int = Field(description="1-based line of its name.")
    end_line: int
    handle: str = Field(description="Pass to read_symbol for its source.")


class ReferenceSite(BaseModel):
    """One use of the name."""

    line: int
    column: int
    kind: str = Field(description="call, attribute_call, attribute, type, import, inherit, "
                      "decorator or plain.")
    receiver: str | None = Field(description="What it is looked up on (`self`, `requests`).")
    reason: str = Field(description="The evidence that ties it to the target.")


class ReferenceGroup(BaseModel):
    """Resolved uses in one file, inside one definition."""

    path: str
    test: bool = Field(description="A test file.")
    enclosing: ReferenceDefinition | None = Field(
        description="The definition the uses are in (null: module level).")
    sites: list[ReferenceSite]


class PossibleReferences(BaseModel):
    """Uses that may be of the target, collapsed by receiver."""

    receiver: str = Field(description="The receiver's text (empty for a bare name).")
    reason: str = Field(description="Why it is not resolved.")
    count: int
    files: int
    samples: list[str] = Field(description="A few of them, as `path:line`.")


class ElsewhereReferences(BaseModel):
    """Uses of another definition of the same name: counted, not listed."""

    of: str = Field(description="That definition (`qualname (path:line)`), or where the "
                    "name comes from.")
    reason: str
    count: int


class ReferencesOutput(Answer):
    """The answer of find_references: counts first, then groups."""

    query: str
    target: ReferenceDefinition | None = Field(
        description="The definition whose uses were looked for (null: none matched).")
    alternatives: list[ReferenceDefinition] = Field(
        description="Other definitions the name matches: pass one's handle to ask about it.")
    resolved: int = Field(description="Uses tied to the target by evidence.")
    possible: int = Field(description="Uses that may be of the target (receiver unknown, or "
                          "a base class or interface).")
    elsewhere: int = Field(description="Uses of other definitions of the same name.")
    resolved_files: int
    files_read: int = Field(description="Files read, of `files_using`.")
    files_using: int = Field(description="Indexed files that use the name at all.")
    partial: str | None = Field(description="Why the counts may be short (time budget, index "
                                "not done); null when complete.")
    empty_reason: str | None = Field(description="Why nothing was resolved (when nothing was).")
    groups: list[ReferenceGroup] = Field(description="Resolved uses of this page, by file "
                                         "(nearest the target first, tests last).")
    truncated: bool = Field(description="Groups were cut to keep the answer short; "
                            "next_cursor continues after the last shown.")
    possible_groups: list[PossibleReferences]
    elsewhere_groups: list[ElsewhereReferences]
    unchecked: list[str] = Field(description="What this answer could not check.")
    skipped: dict[str, int] = Field(description="Files the index skipped, by reason: their "
                                    "uses are not counted.")
    next_cursor: str | None = Field(description="Pass as cursor for more resolved uses.")
    next_actions: list[str]
    took_ms: float
    freshness: Freshness


class RepoReferences(ReferencesOutput):
    """find_references's answer from one of several repositories."""

    repo: str = Field(description="The repository's label.")


class ReposReferencesOutput(Answer):
    """The answer of find_references on a server with several repositories."""

    repos: list[RepoReferences] = Field(description="One answer per repository that "
                                        "defines the target.")
