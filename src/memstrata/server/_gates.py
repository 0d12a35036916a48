"""What keeps slow or piled-up requests from holding the service: a bound on the time a
request body may take to arrive, and a cap on the imports running at once.

A body that stops arriving for ``body_timeout`` seconds is answered 408 and its connection
closed; an import past ``max_imports`` at once is answered 429 with ``Retry-After``. (Header
read time and the number of open connections are bounded by the server: ``memstrata serve``
passes ``--timeout-keep-alive`` and ``--limit-concurrency`` to uvicorn.)
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._errors import error_body

__all__ = ["DEFAULT_BODY_TIMEOUT_S", "DEFAULT_MAX_IMPORTS", "Gates"]

DEFAULT_BODY_TIMEOUT_S = 30.0
DEFAULT_MAX_IMPORTS = 2


class Gates:
    """ASGI middleware: the body read timeout and the import cap."""

    def __init__(self, app: ASGIApp, *, body_timeout: float = DEFAULT_BODY_TIMEOUT_S,
                 max_imports: int = DEFAULT_MAX_IMPORTS,
                 on_limited: Callable[[str], None] | None = None) -> None:
        self.app = app
        self.on_limited = on_limited
        self.body_timeout = body_timeout
        self.max_imports = max_imports
        self.imports = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        importing = scope["method"] == "POST" and str(scope.get("path", "")).endswith("/import")
        if importing and self.imports >= self.max_imports:
            if self.on_limited is not None:
                self.on_limited("imports")
            await _answer(send, 429, "rate_limited", f"{self.max_imports} imports are running; "
                          "try again shortly", retry_after=True)
            return
        body_done = False

        async def timed() -> Message:
            nonlocal body_done
            if body_done:  # past the body, receive() waits for a disconnect: no bound
                return await receive()
            try:
                # asyncio.timeout, not wait_for: no task per message on 3.11.
                async with asyncio.timeout(self.body_timeout):
                    message = await receive()
            except TimeoutError:
                # Raised into whoever reads the body; the error handlers answer 408.
                raise HTTPException(408, "the request body did not arrive within "
                                         f"{self.body_timeout:g} seconds") from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        if importing:
            self.imports += 1
        try:
            await self.app(scope, timed, send)
        finally:
            if importing:
                self.imports -= 1


async def _answer(send: Send, status: int, kind: str, message: str, *,
                  retry_after: bool = False) -> None:
    """An error answer sent before the app runs."""
    body = json.dumps(error_body(kind, message)).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    if retry_after:
        headers.append((b"retry-after", b"1"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
