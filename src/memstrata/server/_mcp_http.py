"""The service's MCP endpoint: streamable HTTP at ``/mcp``, one tenant per bearer key.

Every request to ``/mcp`` is authenticated like the ``/v1`` routes (``Authorization: Bearer
<key>``, 401 in the service's error shape otherwise) before the MCP transport sees it; the
tools then act on the Memory of that key's tenant, looked up again for every request. An MCP
session belongs to the tenant that opened it: a request for it with another tenant's key is
answered as if it did not exist. The MCP session manager starts and stops inside the app's
lifespan, after the tenants open and before they close.
"""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
from fastapi import FastAPI
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from ..errors import MemstrataError
from ..memory import Memory
from ._auth import admit, check_scope, tenants_of
from ._errors import answer_for
from ._mcp import build_mcp
from ._mcp_wire import is_protocol_error, refusal

__all__ = ["MCP_PATH", "mount_mcp"]

MCP_PATH = "/mcp"
_SCREEN_ON_LOOP = 64 << 10


def _tenant_of(scope: Scope) -> str | None:
    user = scope.get("user")
    return user.access_token.subject if isinstance(user, AuthenticatedUser) else None


def _memory_of(request: Any) -> Memory:
    """The Memory of the tenant the request was authenticated for."""
    tenant = _tenant_of(request.scope) if isinstance(request, Request) else None
    if tenant is None:  # only requests that passed the endpoint reach the tools
        raise ToolError("this request carries no authenticated tenant")
    return tenants_of(request).get(tenant)


class _Endpoint:
    """The ASGI app at ``/mcp``: the bearer key's tenant, then the MCP transport."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self._manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        with contextlib.ExitStack() as held:
            try:
                # The tools read and write, so MCP needs a key that may do both.
                caller = await admit(request, "read")
                check_scope(caller, "write")
                # The tenant's Memory stays open while its tools run (see Tenants.lease).
                held.enter_context(tenants_of(request).lease(caller.tenant))
            except MemstrataError as exc:
                await answer_for(exc)(scope, receive, send)
                return
            await self._serve(scope, receive, send, caller.tenant)

    async def _serve(self, scope: Scope, receive: Receive, send: Send, tenant: str) -> None:
        # The SDK binds an MCP session to the principal in scope["user"]; the tenant is that
        # principal (the key itself is not kept).
        user = AuthenticatedUser(AccessToken(token="", client_id=tenant, subject=tenant,
                                             scopes=[]))
        if scope["method"] == "POST":
            body = await _body(receive)
            # A large message is screened off the event loop, which serves everyone.
            answer = (refusal(body) if len(body) <= _SCREEN_ON_LOOP
                      else await anyio.to_thread.run_sync(refusal, body))
            if answer is not None:
                await _answer(answer)(scope, receive, send)
                return
            receive = _replay(body, receive)
        await self._manager.handle_request({**scope, "user": user}, receive, send)


def _answer(answer: dict[str, Any]) -> Response:
    """The HTTP answer to a message screened out: 400 for one refused as a whole (as the
    SDK answers its own parse errors), 202 with no body for a dropped notification."""
    if not answer:
        return Response(status_code=202)
    return JSONResponse(answer, status_code=400 if is_protocol_error(answer) else 200)


async def _body(receive: Receive) -> bytes:
    """The whole request body (the service's body limit bounds it)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` again, then whatever the client sends next."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()

    return replayed


def mount_mcp(app: FastAPI) -> None:
    """Serve the MCP tools at ``/mcp`` of the service ``app`` (made by ``create_app``, before
    its catch-all static files) and run the MCP session manager in the app's lifespan, while
    the tenants are open."""
    server = build_mcp(_memory_of)
    # Builds the session manager; the Starlette app it returns is not used, since the
    # endpoint above authenticates first. No Host/Origin checks: every request needs a
    # bearer key, which a page of another origin cannot send, and the checks would refuse
    # a service published under its own host name.
    server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    manager = server.session_manager
    endpoint = _Endpoint(manager)
    for path in (MCP_PATH, MCP_PATH + "/"):  # the static files would answer 404 for "/mcp/"
        app.router.routes.append(Route(path, endpoint=endpoint,
                                       methods=["GET", "POST", "DELETE"]))
    app.state.lifespan_hooks.append(lambda _app: manager.run())
