"""Read handles: opaque, signed references from a search result to one definition.

Imports: msgspec and the standard library only.

A handle is `s1.<payload>.<mac>`, both parts base64url without padding. The payload is
the JSON array `[path, start_line, end_line, name, digest, build]`, plus `repo` when the
server serves several repositories:

- `digest` is the start of the file's content digest in the index manifest when the
  search ran, so a read can tell that the file changed since;
- `build` is a fingerprint of the index's random `index_id`, so a read can tell a handle
  of an older build (`symfind reindex` draws a new id) from a forged one;
- `repo` is the label of the repository the definition is in (`repo_of` reads it before
  the handle is verified: the MAC is keyed by that repository's index).

The MAC is HMAC-SHA256 over `s1.<payload>`, keyed by a key derived from `index_id` and
the server's own key (none over stdio; a random one per `symfind serve` process, so that a
handle works only on the server that issued it). A handle is untrusted input all the same: verifying it only proves this server issued
it for this index build; the reader still checks the path against the index and the
repository root before opening anything.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac

import msgspec

VERSION = "s1"
DIGEST_CHARS = 16
_MAC_BYTES = 16
_KEY_CONTEXT = b"symfind/mcp/read-handle/v1"
_BUILD_CONTEXT = b"symfind/mcp/index-build/v1"


class HandleError(ValueError):
    """The handle is malformed, forged, or from an older index build."""


class Target(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """What a handle points at."""

    path: str
    start_line: int
    end_line: int
    name: str
    digest: str
    build: str = ""
    repo: str = ""


_DECODER = msgspec.json.Decoder(Target)


# Both are derived once per index build (a search signs up to 50 handles).
@functools.lru_cache(maxsize=8)
def build_fingerprint(index_id: str) -> str:
    """A short public fingerprint of an index build (does not reveal `index_id`)."""
    return hashlib.sha256(_BUILD_CONTEXT + index_id.encode("utf-8")).hexdigest()[:8]


@functools.lru_cache(maxsize=8)
def _key(index_id: str, server_key: bytes) -> bytes:
    return hmac.new(_KEY_CONTEXT + server_key, index_id.encode("utf-8"), hashlib.sha256).digest()


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(index_id: str, server_key: bytes, payload: str) -> str:
    digest = hmac.new(_key(index_id, server_key), f"{VERSION}.{payload}".encode("ascii"),
                      hashlib.sha256)
    return _b64encode(digest.digest()[:_MAC_BYTES])


def sign(
    *,
    path: str,
    start_line: int,
    end_line: int,
    name: str,
    digest: str,
    index_id: str,
    repo: str = "",
    server_key: bytes = b"",
) -> str:
    """Issue a handle for one definition of the index build `index_id` (of the repository
    labelled `repo`, when the server serves several), signed with `server_key` too."""
    target = Target(
        path=path,
        start_line=start_line,
        end_line=end_line,
        name=name,
        digest=digest[:DIGEST_CHARS],
        build=build_fingerprint(index_id),
        repo=repo,
    )
    fields = msgspec.structs.astuple(target)
    # A one-repository handle keeps its six fields: `repo` only when it names one.
    payload = _b64encode(msgspec.json.encode(fields if repo else fields[:-1]))
    return f"{VERSION}.{payload}.{_mac(index_id, server_key, payload)}"


def _decode(handle: str) -> tuple[Target, str, str]:
    """What a handle points at (not yet verified), its payload and its MAC."""
    parts = handle.strip().split(".")
    if len(parts) != 3 or parts[0] != VERSION:
        raise HandleError(
            "invalid handle: not a handle codebase_search returned — pass the `handle` "
            "field of a result exactly as given"
        )
    _, payload, mac = parts
    try:
        target = _DECODER.decode(_b64decode(payload))
    except (binascii.Error, ValueError, msgspec.DecodeError):
        raise HandleError(
            "invalid handle: it does not decode (truncated or edited?) — pass the `handle` "
            "field of a codebase_search result exactly as given"
        ) from None
    return target, payload, mac


def repo_of(handle: str) -> str:
    """The repository label a handle names ("" for a one-repository server's handle).
    Not verified: only `verify`, with that repository's index, says the handle is ours.

    Raises:
        HandleError: Malformed.
    """
    return _decode(handle)[0].repo


def verify(handle: str, index_id: str, server_key: bytes = b"") -> Target:
    """Check a handle against the current index build (and the key of the server that
    signed it) and return what it points at.

    Raises:
        HandleError: Malformed, signed for another index build, or not signed by us.
    """
    target, payload, mac = _decode(handle)
    if target.build != build_fingerprint(index_id):
        raise HandleError(
            "stale handle: it is of another build of the index (rebuilt since the search "
            "that returned it, or another repository's) — re-run codebase_search on this "
            "server and use the new handle"
        )
    expected = _mac(index_id, server_key, payload)
    if not hmac.compare_digest(mac.encode("ascii", "replace"), expected.encode()):
        raise HandleError(
            "invalid handle: its signature does not match (edited or forged) — handles are "
            "opaque; re-run codebase_search and pass a result's `handle` unchanged"
        )
    return target
