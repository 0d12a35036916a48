"""Who is calling: the bearer API key of a request, its scopes, and the tenant it acts for.

Every ``/v1`` route (and the MCP mount) takes ``Authorization: Bearer ms_<id>_<secret>``. A
missing, malformed, unknown, revoked or expired key is answered 401, the same way for each,
so an answer never tells which keys exist. The key is checked against the stored hash on
every request (a revoked key stops working at once) and is never logged.

A key's tenant is one tenant, or a prefix (``acme/*``): a prefix key names the tenant of each
request in ``X-Memstrata-Tenant`` (``acme/user-42``), which must lie under the prefix. Reading
(GET, HEAD) needs the ``read`` scope, everything else under ``/v1`` ``write``, and the key
routes ``admin``; a request outside its key's scope or tenants is 403.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from .._ingest import check_tenant
from ..memory import Memory
from ..types import ApiKey
from ._errors import Forbidden, NotReady, Unauthorized
from ._tenants import Tenants

__all__ = ["TENANT_HEADER", "Caller", "HeldUntilAnswered", "admin_for", "admit", "bearer",
           "caller_for", "check_scope", "memory_for", "report_added", "tenant_for",
           "tenants_of"]

TENANT_HEADER = "X-Memstrata-Tenant"
"""The header a key with a tenant prefix names each request's tenant in."""

bearer = HTTPBearer(auto_error=False, scheme_name="ApiKey",
                    description="An API key made by `memstrata keys create --tenant NAME` "
                                "(or `POST /v1/admin/keys`).")

_READING = frozenset({"GET", "HEAD", "OPTIONS"})
_HELD = "memstrata.held"  # the scope key of a request's ExitStack


@dataclass(frozen=True, slots=True)
class Caller:
    """A request's valid key and the tenant it acts for."""

    key: ApiKey
    tenant: str


async def _key_of(tenants: Tenants, authorization: str | None) -> ApiKey:
    if not authorization:
        raise Unauthorized("an API key is required: send 'Authorization: Bearer <key>'")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("the Authorization header must read 'Bearer <key>'")
    key = await tenants.keys.verify(token.strip())
    if key is None:
        raise Unauthorized("the API key is not valid (unknown, malformed, revoked or "
                           "expired)")
    return key


async def caller_for(tenants: Tenants, headers: Headers, *, memory: bool = True) -> Caller:
    """The key in ``Authorization`` and the tenant it acts for (its own, or the one
    ``X-Memstrata-Tenant`` names under its prefix); ``Unauthorized`` without a valid key,
    ``Forbidden`` for a tenant the key does not cover. Not for ``memory`` (key management),
    the tenant is the key's own, prefix and all."""
    key = await _key_of(tenants, headers.get("authorization"))
    named = headers.get(TENANT_HEADER)
    if not memory:
        return Caller(key, key.tenant)
    if named is None:
        if key.is_prefix:
            raise Forbidden(f"this key serves the tenants {key.tenant!r}: name the tenant of "
                            f"the request in the {TENANT_HEADER} header")
        return Caller(key, key.tenant)
    tenant = check_tenant(named.strip(), TENANT_HEADER)
    if not key.covers(tenant):
        raise Forbidden(f"this key may not act for tenant {tenant!r} (it serves "
                        f"{key.tenant!r})")
    return Caller(key, tenant)


async def tenant_for(tenants: Tenants, authorization: str | None) -> str:
    """The tenant of the key in an ``Authorization`` header value; ``Unauthorized`` when
    there is no valid key in it, ``Forbidden`` for a prefix key (it names no one tenant)."""
    return (await caller_for(tenants, Headers({"authorization": authorization or ""}))).tenant


def check_scope(caller: Caller, scope: str) -> None:
    """``Forbidden`` unless the caller's key holds ``scope``."""
    if scope not in caller.key.scopes:
        raise Forbidden(f"this key may not {_VERBS.get(scope, scope)}: it needs the {scope!r} "
                        f"scope (it has {', '.join(caller.key.scopes)})")


_VERBS = {"read": "read memory", "write": "write memory", "admin": "manage API keys"}


def tenants_of(request: Request) -> Tenants:
    """The app's tenants (``NotReady`` before the service has started or once it stops)."""
    tenants: Tenants | None = getattr(request.app.state, "tenants", None)
    if tenants is None or not tenants.ready:
        raise NotReady("the service is not ready")
    return tenants


async def admit(request: Request, scope: str) -> Caller:
    """The request's caller, checked for ``scope`` and admitted by the service's rate limits
    (``request.state.caller`` keeps it for the limits' accounting)."""
    caller = await caller_for(tenants_of(request), request.headers, memory=scope != "admin")
    check_scope(caller, scope)
    request.state.caller = caller
    limits = getattr(request.app.state, "limits", None)
    if limits is not None:
        await limits.admit(caller, request)
    return caller


async def memory_for(request: Request,
                     _: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
                     ) -> Memory:
    """The caller's tenant's Memory (a FastAPI dependency of every ``/v1`` route), held open
    until the answer has been sent (a streamed export's too): :class:`HeldUntilAnswered`
    lets it go. (A plain function rather than a ``yield`` dependency: FastAPI's exit stack
    for those cost more than the rest of a small read's work.)"""
    held = request.scope.get(_HELD)
    if not isinstance(held, contextlib.ExitStack):
        raise RuntimeError("memory_for needs the HeldUntilAnswered middleware")
    scope = "read" if request.method in _READING else "write"
    caller = await admit(request, scope)
    limits = getattr(request.app.state, "limits", None)
    if limits is not None:
        # Runs after the lease ends: an add that failed gives its place in the quota back.
        held.callback(limits.settle, request)
    return held.enter_context(tenants_of(request).lease(caller.tenant))


class HeldUntilAnswered:
    """ASGI middleware: what a request's dependencies hold (its tenant's Memory, its place
    in the quota) is let go once its answer has been sent, or has failed."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with contextlib.ExitStack() as held:
            if scope["type"] == "http":
                scope[_HELD] = held
            await self.app(scope, receive, send)


def report_added(request: Request, count: int) -> None:
    """An adding route stored ``count`` messages: they count toward the tenant's day."""
    limits = getattr(request.app.state, "limits", None)
    if limits is not None:
        limits.added(request, count)


async def admin_for(request: Request,
                    _: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
                    ) -> Caller:
    """The caller of a key-management route (a FastAPI dependency): needs ``admin``."""
    return await admit(request, "admin")
