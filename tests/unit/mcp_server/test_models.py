"""The answers' output schemas: self-contained (no `$ref`), same constraints."""

from __future__ import annotations

import json
from typing import Any, get_args

import jsonschema
import pytest

from symfind.extract import Symbol
from symfind.mcp_server.models import (
    ChannelMatch,
    Definition,
    Freshness,
    HelpOutput,
    IndexStatus,
    RepoStateName,
    ReposHelpOutput,
    ReposIndexStatus,
    ReposSearchOutput,
    RepoSymbolSource,
    SearchOutput,
    SymbolSource,
    Why,
    self_contained,
)
from symfind.storage import RepoState, SearchResult, SymbolHead

DEFS = {
    "Item": {"type": "object", "properties": {"n": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}},
}


def resolve(ref: dict[str, str]) -> dict[str, Any]:
    return DEFS[ref["$ref"].removeprefix("#/$defs/")]


def test_every_record_of_a_definition_starts_with_the_fields_of_symbol_head() -> None:
    head = list(SymbolHead.__struct_fields__)
    assert head == ["name", "qualname", "kind", "language", "path", "line", "end_line"]
    assert list(Symbol.__struct_fields__)[:7] == head
    assert list(SearchResult.__struct_fields__)[:7] == head
    # The MCP answer's result: its rank, then those fields, with their descriptions and
    # the kind as the plain string it is on the wire.
    fields = Definition.model_fields
    assert list(fields)[:8] == ["rank", *head]
    assert {name: (fields[name].annotation, fields[name].description) for name in head} == {
        "name": (str, None),
        "qualname": (str, "Scope chain plus name, in the language's own syntax."),
        "kind": (str, None),
        "language": (str, None),
        "path": (str, "Repository-relative, `/`-separated."),
        "line": (int, "1-based line of the name."),
        "end_line": (int, "1-based last line of the definition."),
    }


def test_refs_are_written_in_place_keeping_their_siblings() -> None:
    schema = {"type": "array", "items": {"$ref": "#/$defs/Item", "description": "one item"}}
    assert self_contained(schema, resolve) == {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"n": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
            "description": "one item",
        },
    }


@pytest.mark.parametrize(
    "model",
    [SearchOutput, SymbolSource, HelpOutput, IndexStatus, ReposSearchOutput, RepoSymbolSource,
     ReposHelpOutput, ReposIndexStatus],
)
def test_answer_schemas_are_self_contained(model: type[Any]) -> None:
    text = json.dumps(model.model_json_schema())
    assert "$ref" not in text and "$defs" not in text


def search_answer() -> dict[str, Any]:
    definition = Definition(
        rank=1, name="f", qualname="m.f", kind="function", language="python", path="m.py",
        line=1, end_line=2, signature="def f()", summary="Does f.", snippet=None, snippet_line=1,
        snippet_truncated=False, file_changed=False, score=0.5,
        why=Why(channels={"fuzzy": ChannelMatch(rank=1, contribution=0.1, distance=1)}),
        handle="s1.x.y",
    )
    return SearchOutput(
        query="f", route="identifier", plan="exact 1", channels={"exact": 1.0}, took_ms=1.0,
        results=[definition], truncated=False, omitted_results=0, empty_reason=None,
        suggestions=[], next_actions=[], failures={},
        freshness=Freshness(status="ready", state="unwatched", message="no daemon", generation=1,
                            files=1, pending=0, failing=0, watching=False, retry_after_s=0.0,
                            updated_at=0.0),
    ).model_dump(mode="json")


def test_a_search_answer_is_valid() -> None:
    jsonschema.validate(search_answer(), SearchOutput.model_json_schema())


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (("results", 0, "snippet"), 5),
        (("results", 0, "why", "channels", "fuzzy", "distance"), "one"),
        (("results", 0, "why", "channels", "fuzzy", "rank"), None),
        (("results", 0, "why", "channels", "fuzzy", "matched"), "delete→remove"),
        (("results", 0, "summary"), None),
        (("empty_reason",), ["no"]),
        (("freshness", "status"), "stale"),
        (("results", 0, "line"), "1"),
    ],
)
def test_nested_and_nullable_fields_keep_their_types(where: tuple[Any, ...], value: object) -> None:
    answer = search_answer()
    node: Any = answer
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(answer, SearchOutput.model_json_schema())


def test_required_fields_of_nested_models_stay_required() -> None:
    answer = search_answer()
    del answer["results"][0]["handle"]
    with pytest.raises(jsonschema.ValidationError, match="handle"):
        jsonschema.validate(answer, SearchOutput.model_json_schema())


def test_repository_states_are_those_of_storage() -> None:
    assert get_args(RepoStateName) == tuple(state.value for state in RepoState)


def test_a_result_of_several_repositories_must_name_its_repository() -> None:
    answer = search_answer()
    del answer["freshness"]
    answer["repos"] = []
    with pytest.raises(jsonschema.ValidationError, match="'repo' is a required property"):
        jsonschema.validate(answer, ReposSearchOutput.model_json_schema())
    answer["results"][0]["repo"] = "billing"
    jsonschema.validate(answer, ReposSearchOutput.model_json_schema())
