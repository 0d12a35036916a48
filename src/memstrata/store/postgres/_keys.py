"""API keys on PostgreSQL: the id, tenant and name of each key and the hash of its secret.

The secret itself is never stored; the server hashes what a client presents and compares the
hashes in constant time.
"""

from __future__ import annotations

import builtins

from psycopg import errors as pg_errors

from ...errors import InvalidInput
from ...types import ApiKey
from .._key_rows import key_params, row_key
from . import _keys_sql as sql
from ._connection import Conn, Connection
from ._text import refuse_nul

__all__ = ["PostgresKeys"]


class PostgresKeys:
    """The API-key side of a PostgreSQL store (on the store's pool)."""

    def __init__(self, db: Connection) -> None:
        self._db = db

    async def insert(self, key: ApiKey, *, secret_hash: bytes) -> None:
        refuse_nul(key.name, "name")
        params = key_params(key, secret_hash)

        async def body(c: Conn) -> None:
            try:
                await c.execute(sql.INSERT_KEY, params)
            except pg_errors.UniqueViolation as exc:
                raise InvalidInput("id", f"a key with id {key.id!r} already exists") from exc
        await self._db.write(body)

    async def get(self, key_id: str) -> tuple[ApiKey, bytes] | None:
        rows = await self._db.fetch(sql.SELECT_KEY, (key_id,))
        if not rows:
            return None
        return row_key(rows[0]), bytes(rows[0][10])

    async def all(self, tenant: str | None = None) -> builtins.list[ApiKey]:
        rows = await self._db.fetch(sql.SELECT_KEYS, {"tenant": tenant})
        return [row_key(r) for r in rows]

    async def revoke(self, key_id: str, *, now: int) -> ApiKey | None:
        rows = await self._db.fetch(sql.REVOKE_KEY, (now, key_id))
        return row_key(rows[0]) if rows else None

    async def count_active(self) -> int:
        return int((await self._db.fetch(sql.COUNT_ACTIVE_KEYS, ()))[0][0])

    async def ping(self) -> None:
        await self._db.fetch(sql.PING, ())

    async def usage(self, tenant: str) -> tuple[int, int]:
        row = (await self._db.fetch(sql.TENANT_USAGE, (tenant,)))[0]
        return int(row[0]), int(row[1])
