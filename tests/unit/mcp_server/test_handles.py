"""Handles: signed, opaque, bound to one index build."""

from __future__ import annotations

import pytest

import base64
import json

from symfind.mcp_server.handles import HandleError, Target, build_fingerprint, repo_of, sign, verify

INDEX_ID = "0123456789abcdef0123456789abcdef"


def handle(**changes: object) -> str:
    fields: dict[str, object] = {
        "path": "pkg/mod.py", "start_line": 3, "end_line": 9, "name": "f",
        "digest": "d" * 32, "index_id": INDEX_ID,
    }
    fields.update(changes)
    return sign(**fields)  # type: ignore[arg-type]


def test_a_handle_verifies_to_what_was_signed() -> None:
    assert verify(handle(), INDEX_ID) == Target(
        path="pkg/mod.py", start_line=3, end_line=9, name="f", digest="d" * 16,
        build=build_fingerprint(INDEX_ID),
    )


def test_handles_are_deterministic_and_do_not_reveal_the_key() -> None:
    assert handle() == handle()
    assert INDEX_ID not in handle() and INDEX_ID[:8] not in build_fingerprint(INDEX_ID)


def test_another_build_is_reported_stale() -> None:
    with pytest.raises(HandleError, match="^stale handle"):
        verify(handle(), "another-build")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not a handle"),
        ("s1.x", "not a handle"),
        ("s1.a.b.c", "not a handle"),
        ("s1.%%%.abc", "does not decode"),
        ("s1.e30.abc", "does not decode"),  # `{}`: not the array a handle holds
    ],
)
def test_malformed_handles(text: str, message: str) -> None:
    with pytest.raises(HandleError, match=message):
        verify(text, INDEX_ID)


def test_any_edit_breaks_the_signature() -> None:
    genuine = handle()
    version, payload, mac = genuine.split(".")
    other_payload = handle(path="pkg/other.py").split(".")[1]
    for forged in (f"{version}.{other_payload}.{mac}", f"{version}.{payload}.{mac[::-1]}",
                   f"{version}.{payload}.", f"{version}.{payload}.{mac}é"):
        with pytest.raises(HandleError, match="signature does not match"):
            verify(forged, INDEX_ID)


def payload_of(text: str) -> list[object]:
    payload = text.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_a_handle_of_a_server_with_several_repositories_names_its_repository() -> None:
    named = handle(repo="frontend")
    assert (repo_of(named), verify(named, INDEX_ID).repo) == ("frontend", "frontend")
    assert payload_of(named) == [*payload_of(handle()), "frontend"]
    assert named.split(".")[2] != handle().split(".")[2]


def test_a_one_repository_handle_keeps_six_fields_and_names_no_repository() -> None:
    assert payload_of(handle()) == [
        "pkg/mod.py", 3, 9, "f", "d" * 16, build_fingerprint(INDEX_ID),
    ]
    assert repo_of(handle()) == ""


def test_the_repository_is_signed_too() -> None:
    version, payload, mac = handle(repo="frontend").split(".")
    relabelled = handle(repo="billing").split(".")[1]
    with pytest.raises(HandleError, match="signature does not match"):
        verify(f"{version}.{relabelled}.{mac}", INDEX_ID)
    with pytest.raises(HandleError, match="does not decode"):
        repo_of(f"{version}.%%%.{mac}")


def test_a_server_key_binds_a_handle_to_the_server_that_signed_it() -> None:
    """`symfind serve` signs with a key of its own: its handles verify there only, and a
    stdio server's (no key) do not verify there either."""
    served = handle(server_key=b"k" * 32)
    assert verify(served, INDEX_ID, b"k" * 32) == verify(handle(), INDEX_ID)
    for key in (b"", b"j" * 32):
        with pytest.raises(HandleError, match="^invalid handle: its signature does not match"):
            verify(served, INDEX_ID, key)
    with pytest.raises(HandleError, match="^invalid handle: its signature does not match"):
        verify(handle(), INDEX_ID, b"k" * 32)
