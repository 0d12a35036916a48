"""API keys on SQLite: the id, tenant and name of each key and the hash of its secret.

The secret itself is never stored; the server hashes what a client presents and compares the
hashes in constant time. Every operation is one function on the store's :class:`Connection`.
"""

from __future__ import annotations

import builtins
import sqlite3

from ...errors import InvalidInput
from ...types import ApiKey
from .._key_rows import key_params, row_key
from . import _keys_sql as sql
from ._connection import Connection

__all__ = ["SQLiteKeys"]


class SQLiteKeys:
    """The API-key side of a SQLite store (on the store's connection)."""

    def __init__(self, db: Connection) -> None:
        self._db = db

    async def insert(self, key: ApiKey, *, secret_hash: bytes) -> None:
        params = key_params(key, secret_hash)

        def body(c: sqlite3.Connection) -> None:
            try:
                c.execute(sql.INSERT_KEY, params)
            except sqlite3.IntegrityError as exc:
                raise InvalidInput("id", f"a key with id {key.id!r} already exists") from exc
        await self._db.write(body)

    async def get(self, key_id: str) -> tuple[ApiKey, bytes] | None:
        # One indexed row, read on the event loop: every request checks its key, and the
        # hop to a thread cost more than the read (a WAL reader never waits for a write).
        row = await self._db.read_small(
            lambda c: c.execute(sql.SELECT_KEY, (key_id,)).fetchone(), one_statement=True)
        if row is None:
            return None
        return row_key(row), bytes(row[10])

    async def all(self, tenant: str | None = None) -> builtins.list[ApiKey]:
        rows = await self._db.read(lambda c: c.execute(sql.SELECT_KEYS,
                                                       {"tenant": tenant}).fetchall())
        return [row_key(r) for r in rows]

    async def revoke(self, key_id: str, *, now: int) -> ApiKey | None:
        row = await self._db.write(lambda c: c.execute(sql.REVOKE_KEY, (now, key_id)).fetchone())
        return row_key(row) if row is not None else None

    async def count_active(self) -> int:
        row = await self._db.read_aside(lambda c: c.execute(sql.COUNT_ACTIVE_KEYS).fetchone())
        return int(row[0])

    async def ping(self) -> None:
        await self._db.read_aside(lambda c: c.execute(sql.PING).fetchall())
        self._db.verify_file()  # a file moved away still reads, but no write would last

    async def usage(self, tenant: str) -> tuple[int, int]:
        row = await self._db.read_aside(lambda c: c.execute(sql.TENANT_USAGE, (tenant,)).fetchone())
        return int(row[0]), int(row[1])
