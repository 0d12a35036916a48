"""Request body limits: 1 MiB by default, 64 MiB for imports, enforced while reading.

A declared ``Content-Length`` over the limit is refused before the body is read; a body that
grows past it (chunked, or lying about its length) is cut off as soon as it does. Either way
the answer is 413 in the service's error shape.
"""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._errors import error_body

__all__ = ["DEFAULT_BODY_LIMIT", "IMPORT_BODY_LIMIT", "BodyLimit"]

DEFAULT_BODY_LIMIT = 1 << 20
IMPORT_BODY_LIMIT = 64 << 20
# How much of a refused body is read and dropped before answering; past it, the connection
# is closed on a sender that does not stop.
_DRAIN_MAX = 16 << 20


def _too_large(limit: int) -> str:
    return f"the request body is larger than {limit:,} bytes"


class BodyLimit:
    """ASGI middleware that bounds every request body (imports have their own bound)."""

    def __init__(self, app: ASGIApp, *, default: int = DEFAULT_BODY_LIMIT,
                 imports: int = IMPORT_BODY_LIMIT) -> None:
        self.app = app
        self.default = default
        self.imports = imports

    def limit_for(self, path: str) -> int:
        return self.imports if path.endswith("/import") else self.default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(str(scope.get("path", "")))
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                length = int(declared)
            except ValueError:
                await _refuse(send, 400, "bad_request", "Content-Length is not a number")
                return
            if length > limit:
                await _drain(receive)
                await _refuse(send, 413, "too_large", _too_large(limit))
                return
        received = 0
        over = False

        async def bounded() -> Message:
            nonlocal received, over
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    over = True
                    # Raised into whoever reads the body; the error handlers answer 413.
                    raise HTTPException(413, _too_large(limit))
            return message

        async def answer(message: Message) -> None:
            nonlocal over
            if over and message["type"] == "http.response.start":
                over = False
                await _drain(receive)
            await send(message)

        await self.app(scope, bounded, answer)


async def _drain(receive: Receive) -> None:
    """Read (and drop) what is left of a refused body, up to a bound, so the client, still
    sending, reads the 413 instead of a reset connection."""
    dropped = 0
    while dropped <= _DRAIN_MAX:
        message = await receive()
        if message["type"] != "http.request":
            return
        dropped += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


async def _refuse(send: Send, status: int, kind: str, message: str) -> None:
    body = json.dumps(error_body(kind, message)).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
