"""``memstrata keys …``: the API keys of the HTTP service, kept (hashed) in the database.

A key names its tenant: whoever holds it reads and writes that tenant's memory through
``memstrata serve``. ``create`` prints the key once; only its hash is stored, so a lost key is
revoked and replaced, never shown again. These commands work on the database file directly
and need neither the server extra nor a running server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated, TypeVar

import typer
from rich.table import Table

from .._keys import ApiKeys
from ..store import open_store
from ..types import ApiKey
from ._app import State, app, emit_json, err, exits, get_state, out

__all__ = ["keys_app", "with_keys"]

T = TypeVar("T")

keys_app = typer.Typer(
    name="keys",
    help="API keys of the HTTP service (memstrata serve); each key belongs to one tenant.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(keys_app)


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


def _when(ns: int | None) -> str | None:
    if ns is None:
        return None
    return datetime.fromtimestamp(ns / 1e9, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _key_json(k: ApiKey) -> dict[str, object]:
    return {"id": k.id, "tenant": k.tenant, "name": k.name, "created_at": k.created_at,
            "created": _when(k.created_at), "revoked_at": k.revoked_at,
            "revoked": _when(k.revoked_at)}


@keys_app.command()
def create(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option(metavar="NAME", help="The tenant the key opens.",
                                        show_default=False)],
    name: Annotated[str | None, typer.Option(metavar="TEXT", help="A label to recognise the "
                                                                  "key by in listings.")] = None,
) -> None:
    """Make an API key for a tenant and print it (once: only its hash is stored)."""
    state = get_state(ctx)
    key, record = with_keys(state, lambda keys: keys.create(tenant, name))
    if state.json:
        emit_json({**_key_json(record), "key": key})
        return
    out().print(key, soft_wrap=True)
    # On stderr, so ``KEY=$(memstrata keys create …)`` captures the key alone.
    err().print(f"key {record.id} for tenant {record.tenant}: shown only now, keep it secret "
                f"(memstrata keys revoke {record.id} stops it)", soft_wrap=True, style="dim")


@keys_app.command(name="list")
def list_(ctx: typer.Context) -> None:
    """Every key: id, tenant, name, when made, when revoked (never the key itself)."""
    state = get_state(ctx)
    found = with_keys(state, lambda keys: keys.list())
    if state.json:
        emit_json([_key_json(k) for k in found])
        return
    if not found:
        out().print("no API keys (make one: memstrata keys create --tenant NAME)")
        return
    table = Table()
    for column in ("id", "tenant", "name", "created", "revoked"):
        table.add_column(column, overflow="fold")
    for k in found:
        table.add_row(k.id, k.tenant, k.name or "", _when(k.created_at), _when(k.revoked_at)
                      or "")
    out().print(table)


@keys_app.command()
def revoke(
    ctx: typer.Context,
    key_id: Annotated[str, typer.Argument(metavar="ID", help="The key's id, as keys list "
                                                             "shows it.", show_default=False)],
) -> None:
    """Revoke a key: requests with it are refused from now on."""
    state = get_state(ctx)
    record = with_keys(state, lambda keys: keys.revoke(key_id))
    if state.json:
        emit_json(_key_json(record))
    else:
        out().print(f"revoked key {record.id} (tenant {record.tenant})")
