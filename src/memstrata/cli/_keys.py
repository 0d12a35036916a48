"""``memstrata keys …``: the API keys of the HTTP service, kept (hashed) in the database.

A key names its tenant (or a tenant prefix, ``acme/*``) and its scopes: whoever holds it
reads and/or writes that tenant's memory through ``memstrata serve``, or manages keys with the
``admin`` scope. ``create`` prints the key once; only its hash is stored, so a lost key is
revoked and replaced, never shown again. These commands work on the database file directly
(needing neither the server extra nor a running server), or, with ``--server URL`` and an
admin ``--key``, on a running server through ``/v1/admin/keys``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Annotated, Protocol, TypeVar

import typer
from rich.table import Table

from .._keys import ApiKeys
from ..client import RemoteKeys
from ..errors import InvalidInput
from ..store import open_store
from ..types import ApiKey
from ._app import State, app, emit_json, err, exits, get_state, out

__all__ = ["keys_app", "parse_expiry", "with_any_keys", "with_keys"]

T = TypeVar("T")

keys_app = typer.Typer(
    name="keys",
    help="API keys of the HTTP service (memstrata serve): tenant or tenant prefix, scopes, "
         "expiry, limits.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(keys_app)


class Keys(Protocol):
    """What the commands need of the keys: a database's, or a server's."""

    async def create(self, tenant: str, name: str | None = None, *,
                     scopes: tuple[str, ...] | list[str] = ..., expires_at: int | None = ...,
                     rate_per_second: float | None = ..., messages_per_day: int | None = ...,
                     stored_bytes: int | None = ...) -> tuple[str, ApiKey]: ...

    async def list(self, tenant: str | None = None) -> list[ApiKey]: ...

    async def revoke(self, key_id: str) -> ApiKey: ...


def with_keys(state: State, work: Callable[[ApiKeys], Awaitable[T]]) -> T:
    """Open the database's keys, run one call, close; errors map to exit codes."""
    target = state.target()

    async def go() -> T:
        store = await open_store(target, durability=state.settings().durability)
        try:
            return await work(ApiKeys(store.api_keys))
        finally:
            await store.close()

    with exits():
        return asyncio.run(go())


def with_any_keys(state: State, work: Callable[[Keys], Awaitable[T]]) -> T:
    """Run one call on the keys of the database, or of the server with ``--server`` (the
    ``--key`` given must have the admin scope)."""
    if not state.remote():
        return with_keys(state, work)

    async def go() -> T:
        if not state.key:
            raise InvalidInput("--key", "managing a server's keys needs a key with the admin "
                                        "scope: give --key or set MEMSTRATA_KEY")
        keys = RemoteKeys(state.server or "", state.key)
        try:
            return await work(keys)
        finally:
            await keys.close()

    with exits():
        return asyncio.run(go())


_DURATION = re.compile(r"(\d+)([dhm])")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def parse_expiry(text: str | None, now: datetime | None = None) -> int | None:
    """``--expires``: a duration (``30d``, ``12h``, ``90m``) or an ISO 8601 date or time (UTC
    unless it says otherwise), as UTC nanoseconds."""
    if text is None:
        return None
    now = now or datetime.now(UTC)
    found = _DURATION.fullmatch(text.strip())
    if found:
        moment = now + timedelta(**{_UNITS[found.group(2)]: int(found.group(1))})
    else:
        try:
            moment = datetime.fromisoformat(text.strip())
        except ValueError as exc:
            raise InvalidInput("--expires", f"must be a duration such as 30d, 12h or 90m, or "
                               f"an ISO 8601 date or time; got {text!r}") from exc
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp()) * 10**9 + moment.microsecond * 1000


def _when(ns: int | None) -> str | None:
    if ns is None:
        return None
    return datetime.fromtimestamp(ns / 1e9, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _key_json(k: ApiKey) -> dict[str, object]:
    return {"id": k.id, "tenant": k.tenant, "name": k.name, "scopes": list(k.scopes),
            "created_at": k.created_at, "created": _when(k.created_at),
            "expires_at": k.expires_at, "expires": _when(k.expires_at),
            "revoked_at": k.revoked_at, "revoked": _when(k.revoked_at),
            "rate_per_second": k.rate_per_second, "messages_per_day": k.messages_per_day,
            "stored_bytes": k.stored_bytes}


@keys_app.command()
def create(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option(metavar="NAME", help="The tenant the key opens, or a "
                                        "prefix such as 'acme/*' (requests then name their "
                                        "tenant in X-Memstrata-Tenant).",
                                        show_default=False)],
    name: Annotated[str | None, typer.Option(metavar="TEXT", help="A label to recognise the "
                                                                  "key by in listings.")] = None,
    scope: Annotated[list[str] | None, typer.Option(
        metavar="SCOPE", help="read, write or admin; repeat for several (default: read and "
        "write).", show_default=False)] = None,
    expires: Annotated[str | None, typer.Option(
        metavar="WHEN", help="When the key stops working: 30d, 12h, 90m or an ISO date.")
    ] = None,
    rate: Annotated[float | None, typer.Option(
        metavar="N", help="Requests per second this key may make (default: the service's "
        "key_rate_per_second).")] = None,
    messages_per_day: Annotated[int | None, typer.Option(
        metavar="N", help="Messages each of its tenants may add per UTC day.")] = None,
    stored_bytes: Annotated[int | None, typer.Option(
        metavar="N", help="Bytes of message text each of its tenants may keep.")] = None,
) -> None:
    """Make an API key and print it (once: only its hash is stored)."""
    state = get_state(ctx)
    with exits():
        expires_at = parse_expiry(expires)
    scopes = scope or ["read", "write"]
    key, record = with_any_keys(state, lambda keys: keys.create(
        tenant, name, scopes=scopes, expires_at=expires_at, rate_per_second=rate,
        messages_per_day=messages_per_day, stored_bytes=stored_bytes))
    if state.json:
        emit_json({**_key_json(record), "key": key})
        return
    out().print(key, soft_wrap=True)
    # On stderr, so ``KEY=$(memstrata keys create …)`` captures the key alone.
    err().print(f"key {record.id} for tenant {record.tenant} ({' '.join(record.scopes)}): "
                f"shown only now, keep it secret (memstrata keys revoke {record.id} stops it)",
                soft_wrap=True, style="dim")


@keys_app.command(name="list")
def list_(ctx: typer.Context) -> None:
    """Every key: id, tenant, scopes, name, when made, expires, revoked (never the key)."""
    state = get_state(ctx)
    found = with_any_keys(state, lambda keys: keys.list())
    if state.json:
        emit_json([_key_json(k) for k in found])
        return
    if not found:
        out().print("no API keys (make one: memstrata keys create --tenant NAME)")
        return
    table = Table()
    for column in ("id", "tenant", "scopes", "name", "created", "expires", "revoked"):
        table.add_column(column, overflow="fold")
    for k in found:
        table.add_row(k.id, k.tenant, " ".join(k.scopes), k.name or "", _when(k.created_at),
                      _when(k.expires_at) or "", _when(k.revoked_at) or "")
    out().print(table)


@keys_app.command()
def revoke(
    ctx: typer.Context,
    key_id: Annotated[str, typer.Argument(metavar="ID", help="The key's id, as keys list "
                                                             "shows it.", show_default=False)],
) -> None:
    """Revoke a key: requests with it are refused from now on."""
    state = get_state(ctx)
    record = with_any_keys(state, lambda keys: keys.revoke(key_id))
    if state.json:
        emit_json(_key_json(record))
    else:
        out().print(f"revoked key {record.id} (tenant {record.tenant})")
