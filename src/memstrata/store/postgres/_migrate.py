"""Bringing a PostgreSQL database to the current schema: refusing another application's
tables, choosing what the server offers (pgvector, btree_gin) on the first migration, and
applying the steps of ``_schema.MIGRATIONS`` that the database has not applied yet.

Two processes opening a new database at once do not both migrate it: the migration runs in one
transaction under a transaction-level advisory lock (DDL is transactional in PostgreSQL).
"""

from __future__ import annotations

import time
from typing import Any

import psycopg
from psycopg.rows import TupleRow

from ...errors import StoreError
from . import _sql as sql
from ._schema import MIGRATIONS

__all__ = ["migrate"]

_Conn = psycopg.AsyncConnection[TupleRow]


async def migrate(conn: _Conn, where: str) -> bool:
    """Apply the missing migration steps on ``conn`` (in autocommit mode) in one transaction;
    return whether the vectors table uses pgvector's ``vector`` type."""
    async with conn.transaction():
        await conn.execute(sql.LOCK_MIGRATIONS)
        await _refuse_foreign(conn, where)
        await conn.execute(sql.CREATE_VERSION_TABLE)
        row = await (await conn.execute(sql.SELECT_VERSION)).fetchone()
        version = int(row[0]) if row is not None and row[0] is not None else 0
        if version > len(MIGRATIONS):
            raise StoreError(f"the database {where} has schema version {version}, newer than "
                             f"this memstrata understands ({len(MIGRATIONS)}); upgrade memstrata")
        if version < len(MIGRATIONS):
            features = await _features(conn) if version == 0 else await _found_features(conn)
            for step in range(version, len(MIGRATIONS)):
                await conn.execute(MIGRATIONS[step].format(**features))
                await conn.execute(sql.INSERT_VERSION, (step + 1, time.time_ns()))
        row = await (await conn.execute(sql.SELECT_VECTOR_COLUMN_TYPE)).fetchone()
        return row is not None and str(row[0]) == "vector"


async def _refuse_foreign(conn: _Conn, where: str) -> None:
    """Refuse a schema that holds tables but no memstrata ``schema_version`` table, so another
    application's tables never get memstrata's beside them."""
    names = [str(r[0]) for r in await (await conn.execute(sql.SELECT_SCHEMA_TABLES)).fetchall()]
    if not names:
        return
    columns = {str(r[0]) for r in await (await conn.execute(sql.SELECT_VERSION_COLUMNS))
               .fetchall()}
    if "schema_version" in names and columns == {"version", "applied_at"}:
        return
    shown = ", ".join(repr(n) for n in names[:3]) + (", …" if len(names) > 3 else "")
    raise StoreError(f"{where} is not a memstrata database: its schema holds another "
                     f"application's tables ({shown}) and no memstrata schema_version table; "
                     "memstrata opens only an empty schema or its own (give it a database of "
                     "its own, or a schema with ?options=-csearch_path%3Dname), and changed "
                     "nothing")


async def _features(conn: _Conn) -> dict[str, Any]:
    """What the first migration builds on: pgvector's type for vectors when the extension can
    be created here (else raw float32 bytes), and a GIN index that leads with the tenant when
    btree_gin can be created (else one on the text alone)."""
    vector = await _try_extension(conn, "vector")
    btree_gin = await _try_extension(conn, "btree_gin")
    return _spelled(vector=vector, btree_gin=btree_gin)


async def _found_features(conn: _Conn) -> dict[str, Any]:
    """The choices an earlier migration made, read back from the catalog."""
    row = await (await conn.execute(sql.SELECT_VECTOR_COLUMN_TYPE)).fetchone()
    installed = {str(r[0]) for r in await (await conn.execute(sql.SELECT_EXTENSIONS))
                 .fetchall()}
    return _spelled(vector=row is not None and str(row[0]) == "vector",
                    btree_gin="btree_gin" in installed)


def _spelled(*, vector: bool, btree_gin: bool) -> dict[str, Any]:
    return {"vector_type": "vector" if vector else "bytea",
            "gin_lead": "tenant, " if btree_gin else "",
            "gin_lead_session": "tenant, session, " if btree_gin else ""}


async def _try_extension(conn: _Conn, name: str) -> bool:
    """Create the extension if the server has it and we may; a refusal is not an error."""
    row = await (await conn.execute(sql.SELECT_AVAILABLE_EXTENSION, (name,))).fetchone()
    if row is None:
        return False
    if row[0] is not None:
        return True  # already installed
    try:
        async with conn.transaction():  # a savepoint: a refusal leaves the migration intact
            await conn.execute(sql.CREATE_EXTENSION[name])
    except psycopg.Error:
        return False
    return True
