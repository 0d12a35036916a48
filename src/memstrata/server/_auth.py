"""Who is calling: the bearer API key of a request, and the tenant it belongs to.

Every ``/v1`` route (and the MCP mount) takes ``Authorization: Bearer ms_<id>_<secret>``. A
missing, malformed, unknown or revoked key is answered 401, the same way for each, so an
answer never tells which keys exist. The key is checked against the stored hash on every
request (a revoked key stops working at once) and is never logged.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..memory import Memory
from ._errors import NotReady, Unauthorized
from ._tenants import Tenants

__all__ = ["bearer", "memory_for", "tenant_for", "tenants_of"]

bearer = HTTPBearer(auto_error=False, scheme_name="ApiKey",
                    description="An API key made by `memstrata keys create --tenant NAME`.")


async def tenant_for(tenants: Tenants, authorization: str | None) -> str:
    """The tenant of the key in an ``Authorization`` header value; ``Unauthorized`` when
    there is no valid, unrevoked key in it."""
    if not authorization:
        raise Unauthorized("an API key is required: send 'Authorization: Bearer <key>'")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("the Authorization header must read 'Bearer <key>'")
    key = await tenants.keys.verify(token.strip())
    if key is None:
        raise Unauthorized("the API key is not valid (unknown, malformed or revoked)")
    return key.tenant


def tenants_of(request: Request) -> Tenants:
    """The app's tenants (``NotReady`` before the service has started or once it stops)."""
    tenants: Tenants | None = getattr(request.app.state, "tenants", None)
    if tenants is None or not tenants.ready:
        raise NotReady("the service is not ready")
    return tenants


async def memory_for(request: Request,
                     _: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
                     ) -> Memory:
    """The caller's tenant's Memory (a FastAPI dependency of every ``/v1`` route)."""
    tenants = tenants_of(request)
    tenant = await tenant_for(tenants, request.headers.get("authorization"))
    return tenants.get(tenant)
