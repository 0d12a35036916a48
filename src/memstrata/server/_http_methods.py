"""HEAD and OPTIONS as HTTP defines them, for every route of the app.

``HEAD`` is answered as the route's ``GET`` would be, headers and all, without the body.
``OPTIONS`` answers 204 with ``Allow`` listing the methods the path takes (the API routes
that match it, else the static files' ``GET`` and ``HEAD``); it needs no key, as it reveals
nothing a published OpenAPI document does not.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HttpMethods"]

_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


class HttpMethods:
    """ASGI middleware over the app whose routes it reads (``app.router.routes``)."""

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute],
                 streams: tuple[str, ...] = ()) -> None:
        self.app = app
        self.routes = routes
        # Paths whose GET opens a stream that does not end (MCP's server-sent events): a
        # HEAD there is left to the route, which refuses it.
        self.streams = streams

    def allowed(self, scope: Scope) -> set[str]:
        """The methods the request's path takes, asked of each route (routers included)
        method by method."""
        methods: set[str] = set()
        static = False
        for route in self.routes:
            if isinstance(route, Mount):
                static = static or route.matches(scope)[0] is not Match.NONE
                continue
            methods |= {m for m in _METHODS
                        if route.matches({**scope, "method": m})[0] is Match.FULL}
        if not methods and static:
            methods = {"GET"}
        if "GET" in methods:
            methods.add("HEAD")
        return methods | {"OPTIONS"} if methods else methods

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        allowed = self.allowed(scope)
        if scope["method"] == "OPTIONS" and allowed:
            await send({"type": "http.response.start", "status": 204,
                        "headers": [(b"allow", ", ".join(sorted(allowed)).encode())]})
            await send({"type": "http.response.body", "body": b""})
            return
        if scope["method"] == "HEAD" and "GET" in allowed and \
                not str(scope.get("path", "")).startswith(self.streams):
            await self.app({**scope, "method": "GET"}, receive, _without_body(send))
            return
        await self.app(scope, receive, send)


def _without_body(send: Send) -> Send:
    """``send`` for a HEAD request: the GET answer's status and headers, no body bytes."""
    done = False

    async def headers_only(message: Message) -> None:
        nonlocal done
        if message["type"] == "http.response.body":
            if done or message.get("more_body", False):
                return
            done = True
            message = {"type": "http.response.body", "body": b""}
        await send(message)

    return headers_only
