"""Routes of key management: make, list and revoke the service's API keys over HTTP.

They need a key with the ``admin`` scope, and act only on keys whose tenants lie within that
key's own (an admin key for ``acme/*`` manages the keys of ``acme/…``; one for ``*``, all).
A new key is shown once, in the answer that makes it; only its hash is stored.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field, computed_field

from ..types import ApiKey
from ._auth import Caller, admin_for, tenants_of
from ._schemas import _NS_DOC, _NS_SCHEMA, AUTHED, BODY, _ns_doc, errors, iso

__all__ = ["router"]

router = APIRouter(prefix="/v1/admin/keys", tags=["admin"])

Admin = Annotated[Caller, Depends(admin_for)]
Scope = Literal["read", "write", "admin"]


class KeyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tenant: str = Field(description="The tenant the key opens, or a prefix ending in '*' "
                                    "('acme/*'): requests then name their tenant in "
                                    "X-Memstrata-Tenant.", max_length=129)
    name: str | None = Field(default=None, description="A label to recognise the key by.",
                             max_length=128)
    scopes: list[Scope] = Field(default=["read", "write"], min_length=1,
                                description="What the key may do.")
    expires_at: datetime | None = Field(default=None, description="When the key stops "
                                        "working (ISO 8601; without an offset, UTC).")
    rate_per_second: float | None = Field(default=None, gt=0, description="Requests per "
                                          "second (default: the service's setting).")
    messages_per_day: int | None = Field(default=None, gt=0, lt=2**62,
                                         description="Messages each tenant of the key may "
                                                     "add per UTC day.")
    stored_bytes: int | None = Field(default=None, gt=0, lt=2**62,
                                     description="Bytes of message text each tenant of the "
                                                 "key may keep.")


class KeyOut(BaseModel):
    id: str
    tenant: str
    name: str | None
    scopes: list[str]
    created_at: int = Field(description=_NS_DOC)
    created_at_iso: str
    expires_at: int | None = Field(description=_NS_DOC)
    expires_at_iso: str | None
    revoked_at: int | None = Field(description=_NS_DOC)
    revoked_at_iso: str | None
    rate_per_second: float | None
    messages_per_day: int | None
    stored_bytes: int | None

    # The times also as decimal strings, exact where JSON numbers stop at 2^53 (JavaScript).
    @computed_field(  # type: ignore[prop-decorator]
        description=_ns_doc("created_at"), json_schema_extra=_NS_SCHEMA)
    @property
    def created_at_ns(self) -> str:
        return str(self.created_at)

    @computed_field(  # type: ignore[prop-decorator]
        description=_ns_doc("expires_at"), json_schema_extra=_NS_SCHEMA)
    @property
    def expires_at_ns(self) -> str | None:
        return None if self.expires_at is None else str(self.expires_at)

    @computed_field(  # type: ignore[prop-decorator]
        description=_ns_doc("revoked_at"), json_schema_extra=_NS_SCHEMA)
    @property
    def revoked_at_ns(self) -> str | None:
        return None if self.revoked_at is None else str(self.revoked_at)


class NewKeyOut(KeyOut):
    key: str = Field(description="The key itself: shown only now, never again.")


class KeyListOut(BaseModel):
    keys: list[KeyOut]


def key_out(k: ApiKey) -> KeyOut:
    return KeyOut(id=k.id, tenant=k.tenant, name=k.name, scopes=list(k.scopes),
                  created_at=k.created_at, created_at_iso=iso(k.created_at),
                  expires_at=k.expires_at,
                  expires_at_iso=None if k.expires_at is None else iso(k.expires_at),
                  revoked_at=k.revoked_at,
                  revoked_at_iso=None if k.revoked_at is None else iso(k.revoked_at),
                  rate_per_second=k.rate_per_second, messages_per_day=k.messages_per_day,
                  stored_bytes=k.stored_bytes)


def _ns(moment: datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp()) * 10**9 + moment.microsecond * 1000


@router.post("", status_code=201, response_model=NewKeyOut, responses=errors(*AUTHED, *BODY),
             summary="Make an API key (shown once, in this answer)")
async def create_key(body: KeyIn, caller: Admin, request: Request) -> NewKeyOut:
    key, record = await tenants_of(request).keys.create(
        body.tenant, body.name, scopes=list(body.scopes),
        expires_at=None if body.expires_at is None else _ns(body.expires_at),
        rate_per_second=body.rate_per_second, messages_per_day=body.messages_per_day,
        stored_bytes=body.stored_bytes, under=caller.key.tenant)
    return NewKeyOut(**key_out(record).model_dump(), key=key)


@router.get("", response_model=KeyListOut, responses=errors(*AUTHED),
            summary="The keys within the admin key's tenants, oldest first")
async def list_keys(caller: Admin, request: Request,
                    tenant: Annotated[str | None, Query(description="Only keys of this "
                                                                    "tenant (or prefix).")
                                      ] = None) -> KeyListOut:
    found = await tenants_of(request).keys.list(tenant, under=caller.key.tenant)
    return KeyListOut(keys=[key_out(k) for k in found])


@router.delete("/{key_id}", response_model=KeyOut, responses=errors(*AUTHED, 404),
               summary="Revoke a key: requests with it are refused from now on")
async def revoke_key(key_id: str, caller: Admin, request: Request) -> KeyOut:
    revoked = await tenants_of(request).keys.revoke(key_id, under=caller.key.tenant)
    return key_out(revoked)
