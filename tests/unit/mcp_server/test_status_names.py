"""The status vocabulary code compares with is the one the tool schemas publish."""

from __future__ import annotations

from typing import get_args

from symfind.mcp_server.models import FreshnessStateName, IndexStatusName, StatusName
from symfind.storage import FreshnessState


def test_status_names_are_the_schemas_literal_in_order() -> None:
    # Same values, same order: `help` ranks statuses best first by this order.
    assert [name.value for name in StatusName] == list(get_args(IndexStatusName))


def test_freshness_states_are_storages_in_order() -> None:
    assert list(get_args(FreshnessStateName)) == [state.value for state in FreshnessState]
