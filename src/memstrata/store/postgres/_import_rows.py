"""Writing rows migrated from another backend into a PostgreSQL store, keeping their ids.

Each batch is one transaction: the rows the target already holds under the same keys are read
first and must equal the batch's (a target that holds other data for those ids is refused,
naming the first difference); the others are inserted with ``ON CONFLICT DO NOTHING``, so a
batch repeated after an interruption writes nothing twice. Message ids and error record
``seq`` values are written as they are (``OVERRIDING SYSTEM VALUE``), and the identity
sequences are then moved past the highest id the source ever gave out, so ids stay unique and
are never reused. The full-text vectors are derived here from the text, as an append does.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import StoreError
from .._error_rows import FLOAT32_LE
from .._migrate_tables import Table
from . import _import_sql as sql
from ._connection import Conn, Connection
from ._text import fold, indexed_text

__all__ = ["PostgresRows"]

Row = tuple[Any, ...]
_JSON_COLUMNS = frozenset({"meta", "body", "keywords"})


class PostgresRows:
    """A PostgreSQL store (opened and migrated) taking rows copied from another backend."""

    def __init__(self, db: Connection) -> None:
        self._db = db
        self.where = db.where
        self._foreign_ids: set[int] = set()

    @classmethod
    async def open(cls, url: str) -> PostgresRows:
        return cls(await Connection.open(url))

    async def close(self) -> None:
        await self._db.close()

    async def prepare(self, tenants: Sequence[str], message_ceiling: int) -> None:
        """Note the message ids up to ``message_ceiling`` that other tenants hold: ids are
        unique across tenants, but the key the target can look up fast leads with the tenant."""
        rows = await self._db.fetch(sql.SELECT_FOREIGN_MESSAGE_IDS,
                                    (list(tenants), message_ceiling))
        self._foreign_ids = {int(r[0]) for r in rows}

    async def write(self, table: Table, rows: Sequence[Row]) -> int:
        """Insert the rows of the batch that the target lacks, in one transaction; return how
        many were inserted. ``StoreError`` when the target holds other data under their keys."""
        if table.name == "messages":
            taken = sorted(self._foreign_ids.intersection(int(r[0]) for r in rows))
            if taken:
                raise _conflict(table, (taken[0],), "another tenant's message has this id")

        async def body(c: Conn) -> int:
            existing = await _existing(c, table, rows)
            fresh = [r for r in rows if table.key_of(r) not in existing]
            if table.name in _HIGHER_WINS:  # counters and marks: the higher one wins
                fresh += [r for r in rows if table.key_of(r) in existing
                          and int(existing[table.key_of(r)][1]) < int(r[1])]
            if fresh:
                async with c.cursor() as cur:
                    await cur.executemany(sql.INSERT[table.name],
                                          [self._params(table, r) for r in fresh])
            return len(fresh)
        return await self._db.write(body)

    async def counts(self, tenants: Sequence[str]) -> dict[str, dict[str, int]]:
        """Rows per table and tenant, for the given tenants only."""
        async def body(c: Conn) -> dict[str, dict[str, int]]:
            out: dict[str, dict[str, int]] = {}
            for name, statement in sql.COUNT_BY_TENANT.items():
                cur = await c.execute(statement, (list(tenants),))
                out[name] = {str(t): int(n) for t, n in await cur.fetchall()}
            return out
        return await self._db.read(body)

    async def raise_counters(self, message_id: int, error_seq: int) -> None:
        """Move the identity sequences past the source's highest message id and ``seq``."""
        async def body(c: Conn) -> None:
            for statement, value in ((sql.RAISE_MESSAGE_IDS, message_id),
                                     (sql.RAISE_ERROR_SEQS, error_seq)):
                if value > 0:
                    await c.execute(statement, (value,))
        await self._db.write(body)

    def _params(self, table: Table, r: Row) -> Row:
        """A source row as the parameters of ``INSERT[table]``."""
        _refuse_nul(table, r)
        if table.name == "messages":
            return (*r, indexed_text(str(r[4])))
        if table.name == "vectors":
            return (*r[:5], self._vector(r[5]))
        if table.name == "error_records":
            return (*r, fold(str(r[12])))
        return r

    def _vector(self, blob: Any) -> Any:
        if not self._db.pgvector:
            return blob
        from pgvector import Vector
        return Vector(np.frombuffer(blob, dtype=FLOAT32_LE))


# Tables whose rows are counters: a target's row is raised to the source's, never compared.
_HIGHER_WINS = ("index_marks", "tenants")


async def _existing(c: Conn, table: Table, rows: Sequence[Row]) -> dict[Row, Row]:
    """The target's rows under the batch's keys (for error records, also under its public
    ids), keyed by the table's key, in the column order of ``table``."""
    keys = list(zip(*(table.key_of(r) for r in rows), strict=True))
    params: list[Any] = [list(k) for k in keys]
    if table.name in ("messages", "vectors", "index_queue"):
        params = [sorted({str(r[1]) for r in rows}), *params]
    elif table.name == "error_records":
        params = [sorted({str(r[1]) for r in rows}), *params, [r[2] for r in rows]]
    cur = await c.execute(sql.SELECT_EXISTING[table.name], params)
    found = {table.key_of(tuple(r)): tuple(r) for r in await cur.fetchall()}
    wanted = {table.key_of(r): r for r in rows}
    for key, have in found.items():
        _compare(table, key, have, wanted.get(key))
    return found


def _compare(table: Table, key: Row, have: Row, want: Row | None) -> None:
    if want is None:  # an error record whose public id the target keeps under another seq
        raise _conflict(table, key, "the target has this record under another seq")
    if table.name in _HIGHER_WINS:
        return
    for column, a, b in zip(table.columns, have, want, strict=True):
        if _comparable(column, a) != _comparable(column, b):
            raise _conflict(table, key, f"{column} differs")


def _comparable(column: str, value: Any) -> Any:
    if value is None:
        return None
    if column in _JSON_COLUMNS:
        return json.loads(value) if isinstance(value, str) else value
    if column == "vec" and not isinstance(value, bytes | bytearray | memoryview):
        return np.asarray(value.to_numpy(), dtype=FLOAT32_LE).tobytes()
    if isinstance(value, memoryview | bytearray):
        return bytes(value)
    return value


def _conflict(table: Table, key: Row, what: str) -> StoreError:
    shown = ", ".join(f"{k}={v!r}" for k, v in zip(table.key, key, strict=True))
    return StoreError(f"the target already holds other data in {table.name} ({shown}: "
                      f"{what}); migrate into an empty database, or into one that holds only "
                      "an earlier migration of the same source; nothing of this batch was "
                      "written")


def _refuse_nul(table: Table, row: Row) -> None:
    """SQLite stores NUL in text, PostgreSQL cannot: such a row is named, not mangled."""
    if any(isinstance(v, str) and "\x00" in v for v in row):
        shown = ", ".join(f"{k}={v!r}" for k, v in zip(table.key, table.key_of(row),
                                                       strict=True))
        raise StoreError(f"{table.name} ({shown}) holds a NUL character (U+0000), which "
                         "PostgreSQL cannot store in text; forget or fix it in the source "
                         "first")
