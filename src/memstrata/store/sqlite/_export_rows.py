"""Reading a memstrata SQLite file row by row for a migration to another backend.

The file is first opened once as a store (which refuses another application's file and brings
an older memstrata file to the current schema), then read through a read-only connection that
holds one read transaction for the whole copy, so every batch comes from the same snapshot even
while another process keeps writing. Rows come in key order, a batch at a time, in the column
order of ``_migrate_tables``.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TypeVar

from ...errors import InvalidInput, NotFound, StoreError
from .._migrate_tables import TABLES, Table
from ._store import SQLiteStore

__all__ = ["SQLiteRows"]

Row = tuple[object, ...]
T = TypeVar("T")


def _select_after(table: Table, *, first: bool) -> str:
    """The next batch after a key (``first``: from the start), in key order."""
    keys = ", ".join(table.key)
    where = "" if first else (f"WHERE ({keys}) > ({', '.join('?' for _ in table.key)})"
                              if len(table.key) > 1 else f"WHERE {keys} > ?")
    return (f"SELECT {', '.join(table.columns)} FROM {table.name} {where} "
            f"ORDER BY {keys} LIMIT ?")


def _select_nul(table: Table) -> str:
    """The rows of ``table`` with NUL in a text column: their key, then one flag per column."""
    flags = [f"(typeof({c}) = 'text' AND instr(CAST({c} AS BLOB), X'00') > 0)"
             for c in table.columns]
    keys = ", ".join(table.key)
    return (f"SELECT {keys}, {', '.join(flags)} FROM {table.name} "
            f"WHERE {' OR '.join(flags)} ORDER BY {keys}")


_COUNT_BY_TENANT = "SELECT tenant, count(*) FROM {} GROUP BY tenant"
# Ids are never reused: the target's counter must pass every id this file ever gave out,
# deleted ones included.
_MESSAGE_CEILING = """
SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0),
           coalesce((SELECT max(id) FROM messages), 0))"""
_ERROR_CEILING = "SELECT coalesce(max(seq), 0) FROM error_records"


class SQLiteRows:
    """One snapshot of a memstrata SQLite file, read in batches."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self._conn = conn
        self.path = path

    @classmethod
    async def open(cls, path: str) -> SQLiteRows:
        """``NotFound`` when there is no such file, ``StoreError`` when it is not memstrata's."""
        if path == ":memory:" or path.startswith("file::memory:"):
            raise InvalidInput("source", "must be a database file, not ':memory:'")
        if not os.path.isfile(path):
            raise NotFound(f"no database file at {path!r}; nothing to migrate")
        store = await SQLiteStore.open(path)  # refuses a foreign file; migrates an old one
        await store.close()
        try:
            conn = await asyncio.to_thread(_connect, path)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read SQLite database {path!r}: {exc}") from exc
        return cls(conn, path)

    async def close(self) -> None:
        await asyncio.to_thread(self._conn.close)

    async def counts(self) -> dict[str, dict[str, int]]:
        """Rows per table and tenant."""
        def read() -> dict[str, dict[str, int]]:
            return {t.name: {str(tenant): int(n) for tenant, n in
                             self._conn.execute(_COUNT_BY_TENANT.format(t.name))}
                    for t in TABLES}
        return await self._call(read)

    async def ceilings(self) -> tuple[int, int]:
        """The highest message id ever given out, and the highest error record ``seq``."""
        def read() -> tuple[int, int]:
            return (int(self._conn.execute(_MESSAGE_CEILING).fetchone()[0]),
                    int(self._conn.execute(_ERROR_CEILING).fetchone()[0]))
        return await self._call(read)

    async def nul_rows(self) -> list[str]:
        """Every row that holds NUL (U+0000) in text, which PostgreSQL cannot store, as
        ``table (key=value): column, column`` (files written before memstrata refused NUL
        may hold some)."""
        def read() -> list[str]:
            found: list[str] = []
            for table in TABLES:
                n = len(table.key)
                for row in self._conn.execute(_select_nul(table)):
                    shown = ", ".join(f"{k}={v!r}" for k, v in zip(table.key, row[:n],
                                                                   strict=True))
                    columns = [c for c, hit in zip(table.columns, row[n:], strict=True) if hit]
                    found.append(f"{table.name} ({shown}): {', '.join(columns)}")
            return found
        return await self._call(read)

    async def batches(self, table: Table, size: int) -> AsyncIterator[list[Row]]:
        """Every row of ``table`` in key order, ``size`` at a time."""
        after: Row | None = None
        while True:
            rows = await self._call(functools.partial(self._batch, table, after, size))
            if not rows:
                return
            yield rows
            after = table.key_of(rows[-1])

    def _batch(self, table: Table, after: Row | None, size: int) -> list[Row]:
        statement = _select_after(table, first=after is None)
        return [tuple(r) for r in self._conn.execute(statement, (*(after or ()), size))]

    async def _call(self, fn: Callable[[], T]) -> T:
        try:
            return await asyncio.to_thread(fn)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read SQLite database {self.path!r}: {exc}") from exc


def _connect(path: str) -> sqlite3.Connection:
    uri = Path(path).absolute().as_uri() + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                           timeout=30.0)
    # One read transaction for the whole copy: every batch sees the same snapshot.
    conn.execute("BEGIN")
    conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    return conn
