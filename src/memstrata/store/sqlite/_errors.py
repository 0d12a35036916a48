"""The SQLite error-memory store: error records, their full-text index and their embeddings.

It runs on the store's :class:`Connection`, each operation one function in one transaction, so
a search (semantic pass, keyword fallback, renewal of every record returned) is atomic.

The semantic pass compares the query with every live record of the tenant embedded by the same
model, in numpy. Error records are few (they are written when a tool fails and a fix is found,
and expire unless used), so a scan is cheaper than keeping a vector index in step.
"""

from __future__ import annotations

import builtins
import contextlib
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from ...errors import DiskFull
from ...types import ErrorQuery, ErrorRecord, Vectors
from .._error_rows import error_params, join_keyword, query_params, rank_by_vector
from . import _errors_sql as sql
from ._connection import Connection
from ._error_keyword import keyword_hits
from ._rows import ascii_lower, stored_json

__all__ = ["SQLiteErrorStore"]

# How many keyword candidates are looked at before filtering and merging; far more than the
# largest limit, so filtering out records the semantic pass already judged leaves enough.
_KEYWORD_CANDIDATES = 256
# The index upkeep a sweep does: pages merged per write transaction, the time it may take,
# and how long the sweeps of every tenant skip it once it found nothing left to merge.
_MERGE_PAGES = 256
_MERGE_SECONDS = 0.5
_MERGE_REST_S = 50.0


def _row_record(row: Sequence[Any]) -> ErrorRecord:
    # Column order of errors_sql.ERROR_COLUMNS.
    return ErrorRecord(id=row[0], tool_name=row[1],
                       keywords=tuple(stored_json(row[2], "an error record")),
                       symptom=row[3], cause=row[4], action=row[5], outcome=row[6],
                       created_at=row[7], expires_at=row[8], hits=row[9])


class SQLiteErrorStore:
    """Error records in a SQLite store (on the store's connection)."""

    def __init__(self, db: Connection) -> None:
        self._db = db
        self._merge_rest_until = 0.0

    async def insert(self, tenant: str, record: ErrorRecord, *, search_text: str,
                     vector: Vectors | None, model_id: str | None) -> None:
        params = error_params(tenant, record, search_text, vector, model_id)
        await self._db.write(lambda c: c.execute(sql.INSERT_ERROR, params))

    async def search(self, query: ErrorQuery) -> builtins.list[ErrorRecord]:
        try:
            return await self._db.write(lambda c: _search(c, query))
        except DiskFull:
            # A search must work on a full disk: the records are found, the hits not counted.
            return await self._db.read(lambda c: _search(c, query, renew=False))

    async def by_prefix(self, tenant: str, prefix: str, *, now: int,
                        limit: int) -> builtins.list[ErrorRecord]:
        params = {"tenant": tenant, "prefix": prefix, "now": now, "limit": limit}
        rows = await self._db.read(lambda c: c.execute(sql.SELECT_ERROR_PREFIX, params).fetchall())
        return [_row_record(r) for r in rows]

    async def all(self, tenant: str, *, tool: str | None,
                  now: int) -> builtins.list[ErrorRecord]:
        params = {"tenant": tenant, "tool": tool, "now": now}
        rows = await self._db.read(lambda c: c.execute(sql.SELECT_ERRORS, params).fetchall())
        return [_row_record(r) for r in rows]

    async def delete(self, tenant: str, prefix: str, *, now: int,
                     limit: int) -> builtins.list[str]:
        # At least two ids are read, so an ambiguous prefix is always seen as one.
        params = {"tenant": tenant, "prefix": prefix, "now": now, "limit": max(limit, 2)}

        def body(c: sqlite3.Connection) -> builtins.list[str]:
            # Resolve and delete in one transaction, so the prefix cannot become ambiguous
            # between the two.
            ids = [str(r[0]) for r in c.execute(sql.SELECT_ERROR_PREFIX, params)]
            if len(ids) == 1:
                c.execute(sql.DELETE_ERROR, {"tenant": tenant, "id": ids[0]})
            return ids
        return await self._db.write(body)

    async def sweep(self, tenant: str, *, now: int) -> int:
        params = {"tenant": tenant, "now": now}
        swept = await self._db.write(lambda c: int(c.execute(sql.SWEEP_ERRORS, params).rowcount))
        with contextlib.suppress(DiskFull):  # upkeep waits for space; the sweep is done
            await self.tidy_index()
        return swept

    async def tidy_index(self, seconds: float = _MERGE_SECONDS) -> bool:
        """Merge the error index's segments for about ``seconds`` (in short write
        transactions); ``True`` when work remains. Each write adds a small segment, and a
        search seeks every segment holding its terms, other tenants' included, so unmerged
        segments made a tenant's search slower the more others wrote. Every sweep calls this;
        once it found nothing to merge, calls within the next ``_MERGE_REST_S`` return at
        once."""
        now = time.monotonic()
        if now < self._merge_rest_until:
            return False
        deadline = now + seconds
        while await self._db.write(_merge_step):
            if time.monotonic() >= deadline:
                return True
        self._merge_rest_until = time.monotonic() + _MERGE_REST_S
        return False


# -- helpers that run on the connection thread ---------------------------------------------


def _search(c: sqlite3.Connection, q: ErrorQuery, *, renew: bool = True) -> list[ErrorRecord]:
    base = query_params(q)
    chosen = _semantic(c, q, base) if q.vector is not None and q.model_id is not None else []
    # With semantic hits, keywords only add records the semantic pass could not judge (no
    # vector, or another model's); without any, the keyword search is the fallback.
    chosen = join_keyword(chosen, _keyword(c, q, base, unjudged_only=bool(chosen)), q.limit)
    out: list[ErrorRecord] = []
    for seq in chosen:
        row = c.execute(sql.RENEW_ERROR if renew else sql.SELECT_ERROR_SEQ,
                        {"tenant": q.tenant, "seq": seq, "until": q.renew_until}).fetchone()
        out.append(_row_record(row))
    return out


def _merge_step(c: sqlite3.Connection) -> bool:
    """One step of FTS5's merge; whether work remains (FTS5 says it did nothing by fewer than
    two changes)."""
    if c.execute(sql.SELECT_ERROR_FTS_USERMERGE).fetchone() is None:
        c.execute(sql.SET_ERROR_FTS_USERMERGE)
    before = c.total_changes
    c.execute(sql.MERGE_ERROR_FTS, (_MERGE_PAGES,))
    return c.total_changes - before >= 2


def _semantic(c: sqlite3.Connection, q: ErrorQuery, base: dict[str, Any]) -> list[int]:
    return rank_by_vector(c.execute(sql.SELECT_ERROR_VECTORS, base).fetchall(), q)


def _keyword(c: sqlite3.Connection, q: ErrorQuery, base: dict[str, Any], *,
             unjudged_only: bool) -> list[int]:
    """Records matching the query's terms (BM25 over the tenant's records), then those
    containing the query as typed; ``unjudged_only`` keeps only records the semantic pass
    could not compare."""
    found: dict[int, bool] = {}
    if q.match is not None:
        for seq, vectored in keyword_hits(c, base, q.match, _KEYWORD_CANDIDATES):
            found.setdefault(seq, vectored)
    for seq, vectored in c.execute(sql.SELECT_ERROR_SUBSTRING,
                                   {**base, "needle": ascii_lower(q.needle),
                                    "limit": _KEYWORD_CANDIDATES}):
        found.setdefault(int(seq), bool(vectored))
    return [seq for seq, vectored in found.items() if not (unjudged_only and vectored)]
