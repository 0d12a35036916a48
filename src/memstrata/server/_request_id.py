"""A request id on every answer, and in the log beside what the client is not told.

A client may send its own ``X-Request-Id`` (1-128 characters of ``A-Z a-z 0-9 . _ : -``, so
it can be quoted in a log line safely); otherwise the service makes one. Either way the
answer carries it back in ``X-Request-Id``, and every log line the service writes about the
request names it, so a client's report (the id) finds the operator's detail (the log).
"""

from __future__ import annotations

import contextvars
import random
import re

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HEADER", "RequestId", "current_request_id"]

HEADER = "X-Request-Id"
_WELL_FORMED = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_current: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "memstrata_request_id", default=None)


def current_request_id() -> str | None:
    """The id of the request being served in this task, ``None`` outside one."""
    return _current.get()


def _chosen(scope: Scope) -> str:
    for name, value in scope.get("headers") or []:
        if name == b"x-request-id":
            text = str(value.decode("latin-1"))
            if _WELL_FORMED.fullmatch(text):
                return text
            break  # a malformed id is replaced, not echoed
    # 128 random bits from the process's generator: unique like a uuid4 without a system
    # call per request (an id names a request, it guards nothing).
    return f"{random.getrandbits(128):032x}"


class RequestId:
    """ASGI middleware: choose the request's id, and put it on the answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        ident = _chosen(scope)
        # Left set: each request runs in a task of its own, and the error handler that
        # answers an unexpected failure runs outside this middleware, after it returned.
        _current.set(ident)

        async def tagged(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if HEADER.lower() not in headers:
                    headers[HEADER] = ident
            await send(message)

        await self.app(scope, receive, tagged)
