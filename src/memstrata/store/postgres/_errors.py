"""The PostgreSQL error-memory store: error records, their ``tsvector`` and their embeddings.

Each operation is one function in one transaction, so a search (semantic pass, keyword
fallback, renewal of every record returned) is atomic. The semantic pass compares the query
with every live record of the tenant embedded by the same model, in numpy: error records are
few (written when a tool fails and a fix is found, and expiring unless used), so a scan is
cheaper than keeping a vector index in step. Embeddings are stored as float32 bytes.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from ...types import ErrorQuery, ErrorRecord, Vectors
from .._error_rows import error_params, join_keyword, query_params, rank_by_vector
from . import _errors_sql as sql
from ._connection import Conn, Connection
from ._rows import ascii_lower
from ._text import fold, match_terms, refuse_nul

__all__ = ["PostgresErrorStore"]

# How many keyword candidates are looked at before filtering and merging; far more than the
# largest limit, so filtering out records the semantic pass already judged leaves enough.
_KEYWORD_CANDIDATES = 256


def _row_record(row: Sequence[Any]) -> ErrorRecord:
    # Column order of _errors_sql.ERROR_COLUMNS; ``keywords`` is json, parsed by psycopg.
    return ErrorRecord(id=row[0], tool_name=row[1], keywords=tuple(row[2]), symptom=row[3],
                       cause=row[4], action=row[5], outcome=row[6], created_at=int(row[7]),
                       expires_at=int(row[8]), hits=int(row[9]))


class PostgresErrorStore:
    """Error records in a PostgreSQL store (on the store's pool)."""

    def __init__(self, db: Connection) -> None:
        self._db = db

    async def insert(self, tenant: str, record: ErrorRecord, *, search_text: str,
                     vector: Vectors | None, model_id: str | None) -> None:
        for field, value in (("tool_name", record.tool_name), ("symptom", record.symptom),
                             ("cause", record.cause), ("action", record.action),
                             ("keywords", "".join(record.keywords))):
            refuse_nul(value, field)
        params = error_params(tenant, record, search_text, vector, model_id)
        params["fts_text"] = fold(search_text)
        await self._db.fetch(sql.INSERT_ERROR, params)

    async def search(self, query: ErrorQuery) -> builtins.list[ErrorRecord]:
        return await self._db.write(lambda c: _search(c, query))

    async def by_prefix(self, tenant: str, prefix: str, *, now: int,
                        limit: int) -> builtins.list[ErrorRecord]:
        rows = await self._db.fetch(sql.SELECT_ERROR_PREFIX, {
            "tenant": tenant, "prefix": prefix, "now": now, "limit": limit})
        return [_row_record(r) for r in rows]

    async def all(self, tenant: str, *, tool: str | None,
                  now: int) -> builtins.list[ErrorRecord]:
        rows = await self._db.fetch(sql.SELECT_ERRORS, {"tenant": tenant, "tool": tool,
                                                        "now": now})
        return [_row_record(r) for r in rows]

    async def delete(self, tenant: str, prefix: str, *, now: int,
                     limit: int) -> builtins.list[str]:
        # At least two ids are read, so an ambiguous prefix is always seen as one.
        params = {"tenant": tenant, "prefix": prefix, "now": now, "limit": max(limit, 2)}

        async def body(c: Conn) -> builtins.list[str]:
            # Resolve and delete in one transaction, so the prefix cannot become ambiguous
            # between the two.
            cur = await c.execute(sql.SELECT_ERROR_PREFIX, params)
            ids = [str(r[0]) for r in await cur.fetchall()]
            if len(ids) == 1:
                await c.execute(sql.DELETE_ERROR, {"tenant": tenant, "id": ids[0]})
            return ids
        return await self._db.write(body)

    async def sweep(self, tenant: str, *, now: int) -> int:
        async def body(c: Conn) -> int:
            cur = await c.execute(sql.SWEEP_ERRORS, {"tenant": tenant, "now": now})
            return int(cur.rowcount)
        return await self._db.write(body)


# -- helpers run inside the search's transaction ---------------------------------------------


async def _search(c: Conn, q: ErrorQuery) -> list[ErrorRecord]:
    base = query_params(q)
    chosen = (await _semantic(c, q, base)
              if q.vector is not None and q.model_id is not None else [])
    # With semantic hits, keywords only add records the semantic pass could not judge (no
    # vector, or another model's); without any, the keyword search is the fallback.
    chosen = join_keyword(chosen, await _keyword(c, q, base, unjudged_only=bool(chosen)),
                          q.limit)
    out: list[ErrorRecord] = []
    for seq in chosen:
        cur = await c.execute(sql.RENEW_ERROR, {"tenant": q.tenant, "seq": seq,
                                                "until": q.renew_until})
        row = await cur.fetchone()
        if row is not None:  # deleted by another writer since it was found
            out.append(_row_record(row))
    return out


async def _semantic(c: Conn, q: ErrorQuery, base: dict[str, Any]) -> list[int]:
    rows = await (await c.execute(sql.SELECT_ERROR_VECTORS, base)).fetchall()
    return rank_by_vector(rows, q)


async def _keyword(c: Conn, q: ErrorQuery, base: dict[str, Any], *,
                   unjudged_only: bool) -> list[int]:
    """Records matching the query's terms (best first), then those containing the query as
    typed; ``unjudged_only`` keeps only records the semantic pass could not compare."""
    found: dict[int, bool] = {}
    terms = match_terms(q.match)
    if terms:
        cur = await c.execute(sql.SELECT_ERROR_FTS, {**base, "terms": terms,
                                                     "limit": _KEYWORD_CANDIDATES})
        for seq, _score, vectored in await cur.fetchall():
            found.setdefault(int(seq), bool(vectored))
    if "\x00" not in q.needle:  # no stored text holds NUL: such a needle matches nothing
        cur = await c.execute(sql.SELECT_ERROR_SUBSTRING, {
            **base, "needle": ascii_lower(q.needle), "limit": _KEYWORD_CANDIDATES})
        for seq, vectored in await cur.fetchall():
            found.setdefault(int(seq), bool(vectored))
    return [seq for seq, vectored in found.items() if not (unjudged_only and vectored)]
