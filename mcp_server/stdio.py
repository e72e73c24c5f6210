"""Serving MCP on stdin and stdout until the host closes stdin, with every request read
before that answered.

Imports: anyio, mcp.

The SDK's loop stops at the end of stdin and cancels the calls still running: `printf
'<initialize>\\n<initialized>\\n<tools/call>\\n' | symfind mcp`, what pipes and one-shot
hosts do, got no answer to its call. `serve_stdio` relays stdin to the server and the
server's messages to stdout, and passes the end of stdin on only once every request read
has been answered (or cancelled by the client), waiting at most DRAIN_TIMEOUT_S: a call
that never ends does not keep the process for ever. `symfind mcp` (`server.SymfindServer`)
and `symfind mcp --remote` (`remote`) serve through it.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

import anyio
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

logger = logging.getLogger(__name__)

#: How long the calls still running when stdin ends may take to be answered. A search or
#: a read answers in well under a second; a forwarded call gives up before this
#: (`remote.CALL_TIMEOUT_S`).
DRAIN_TIMEOUT_S = 120.0


class _Unanswered:
    """The requests read from the client that have no answer yet."""

    def __init__(self) -> None:
        self.ids: Counter[Any] = Counter()
        self.stdin_ended = False
        self.settled = anyio.Event()

    def read(self, item: SessionMessage | Exception) -> None:
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, JSONRPCRequest):
            self.ids[_key(message.id)] += 1
        elif (isinstance(message, JSONRPCNotification)
              and message.method == "notifications/cancelled"):
            # A request the client cancelled is never answered (the spec's rule).
            self._answered((message.params or {}).get("requestId"))

    def written(self, item: SessionMessage) -> None:
        if isinstance(item.message, JSONRPCResponse | JSONRPCError):
            self._answered(item.message.id)

    def _answered(self, request_id: Any) -> None:
        key = _key(request_id)
        if self.ids[key] > 0:
            self.ids[key] -= 1
        if self.ids[key] <= 0:
            del self.ids[key]
        if self.stdin_ended and not self.ids:
            self.settled.set()

    def end_of_stdin(self) -> None:
        self.stdin_ended = True
        if not self.ids:
            self.settled.set()


def _key(request_id: Any) -> Any:
    # JSON-RPC ids are strings or integers; a bool or a float is no id of ours.
    return request_id if isinstance(request_id, str | int) else repr(request_id)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve `server` on stdin and stdout until stdin ends and every request read before
    then is answered (see the module docstring)."""
    unanswered = _Unanswered()
    async with stdio_server() as (stdin, stdout):
        to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](0)

        async def relay_stdin() -> None:
            async with to_server:
                async for item in stdin:
                    unanswered.read(item)
                    await to_server.send(item)
                unanswered.end_of_stdin()
                with anyio.move_on_after(DRAIN_TIMEOUT_S) as waited:
                    await unanswered.settled.wait()
                if waited.cancelled_caught:
                    logger.warning("stdin ended; %d call(s) not answered within %g s: given up",
                                   sum(unanswered.ids.values()), DRAIN_TIMEOUT_S)

        async def relay_stdout() -> None:
            async with stdout, from_server:
                async for item in from_server:
                    await stdout.send(item)
                    unanswered.written(item)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(relay_stdin)
            tasks.start_soon(relay_stdout)
            await server.run(server_reads, server_writes, server.create_initialization_options())
