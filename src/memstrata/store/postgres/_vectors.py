"""Vector storage and the indexer's queue on PostgreSQL.

Indexers in several processes share the queue: a claim takes the oldest entries with ``FOR
UPDATE SKIP LOCKED`` (two claims never wait on or take each other's rows; a claim older than
``stale_before`` may be taken over, and one whose indexer is known to be dead is given back at
once with ``unclaim``), embedding happens outside any transaction, and ``put`` stores vectors
only for the entries it still holds, deleting them from the queue in the same statement, so a
message forgotten, compacted or taken over meanwhile never gets a vector.

Vectors are stored in a pgvector ``vector`` column when the server had the extension at the
first migration, else as raw little-endian float32 bytes; either way they cross the seam as
float32 bytes (in) and a float32 matrix (``load_hot``, out). Search compares them in the
process (exact cosine over the cached hot tier), so no vector index is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...types import Claimed, HotChanges, HotSession
from .._error_rows import FLOAT32_LE
from .._hot_rows import hot_changes
from . import _sql as sql
from . import _vectors_sql as vsql
from ._connection import Conn, Connection
from ._rows import row_message

__all__ = ["PostgresVectors"]



class PostgresVectors:
    """The vector side of a PostgreSQL store (on the store's pool)."""

    def __init__(self, db: Connection) -> None:
        self._db = db

    async def claim(self, worker: str, *, tenant: str | None, limit: int, now: int,
                    stale_before: int) -> list[Claimed]:
        """Claim up to ``limit`` queued messages (oldest first) for ``worker``."""
        async def body(c: Conn) -> list[Claimed]:
            cur = await c.execute(vsql.CLAIM_BATCH, {"tenant": tenant, "stale": stale_before,
                                                     "limit": limit, "worker": worker,
                                                     "now": now})
            return [Claimed(tenant=r[7], message=row_message(r), previous=r[8],
                            previous_sender=r[9]) for r in await cur.fetchall()]
        return await self._db.write(body)

    async def put(self, worker: str, model: str, dim: int,
                  items: Sequence[tuple[int, bytes]], *, tried: bool = True) -> int:
        """Store vectors for messages still claimed by ``worker``; release the rest
        (``tried=False``: without counting an attempt)."""
        by_number = dict(items)

        async def body(c: Conn) -> int:
            # The batch is one tenant's (see CLAIM_BATCH): its numbers name its claims' rows.
            cur = await c.execute(vsql.CLAIMED_ROWS, (worker, list(by_number)))
            blobs = {int(mid): by_number[int(n)] for n, mid in await cur.fetchall()}
            ids = list(blobs)
            # Sessions' rows first, then queue entries: the order every writer locks in.
            cur = await c.execute(vsql.SELECT_CLAIM_SESSIONS, (worker, ids))
            touched = [(str(t), str(s)) for t, s in await cur.fetchall()]
            for tenant, session in touched:
                await c.execute(sql.LOCK_EXISTING_SESSION, (tenant, session))
            taken = await (await c.execute(vsql.TAKE_CLAIMED, (worker, ids))).fetchall()
            if taken:
                async with c.cursor() as many:
                    await many.executemany(vsql.INSERT_VECTOR, [
                        (t, int(mid), s, model, dim, self._value(blobs[int(mid)]))
                        for t, s, mid in taken])
            for tenant, session in sorted({(str(t), str(s)) for t, s, _ in taken}):
                await c.execute(vsql.BUMP_VECTOR_VERSION, (tenant, session))
            await c.execute(vsql.RELEASE_CLAIMS if tried else vsql.RELEASE_UNTRIED, (worker,))
            return len(taken)
        return await self._db.write(body)

    async def release(self, worker: str) -> None:
        """Give a failed batch back to the queue (its attempt counter goes up)."""
        async def body(c: Conn) -> None:
            await c.execute(vsql.RELEASE_CLAIMS, (worker,))
        await self._db.write(body)

    async def claimants(self, tenant: str | None) -> list[str]:
        """The claim tokens holding the tenant's queued messages (every tenant for ``None``)."""
        rows = await self._db.fetch(vsql.SELECT_CLAIMANTS, {"tenant": tenant})
        return [str(r[0]) for r in rows]

    async def unclaim(self, tenant: str | None, worker: str, *, below_attempts: int) -> int:
        """Give back the tenant's messages claimed by ``worker`` (a dead indexer's batch)
        that were tried fewer than ``below_attempts`` times."""
        async def body(c: Conn) -> int:
            cur = await c.execute(vsql.UNCLAIM_WORKER, {"tenant": tenant, "worker": worker,
                                                        "below": below_attempts})
            return int(cur.rowcount)
        return await self._db.write(body)

    async def queue_unindexed(self, tenant: str | None, *, span: int) -> tuple[int, bool]:
        """Queue hot messages above the tenant's mark that have no vector and no place in the
        queue, looking at ``span`` ids at most; move the mark. Returns how many were queued
        and whether the mark reached the newest message."""
        scope = "*" if tenant is None else tenant

        async def marks(c: Conn) -> tuple[int, int]:
            low = (await (await c.execute(vsql.SELECT_INDEX_MARK, (scope,))).fetchall())[0][0]
            if tenant is None:
                top = (await (await c.execute(vsql.SELECT_ALL_TOP)).fetchall())[0][0]
            else:
                top = (await (await c.execute(vsql.SELECT_TENANT_TOP, (tenant,))
                              ).fetchall())[0][0]
            return int(low), int(top)

        low, top = await self._db.read(marks)
        if low >= top:
            return 0, True  # the common case: nothing written since the last look

        async def body(c: Conn) -> tuple[int, bool]:
            # With appends locked out, every id up to the newest has committed or never will.
            await c.execute(vsql.LOCK_OUT_APPENDS, (sql.APPEND_LOCK_KEY,))
            low, newest = await marks(c)
            if low >= newest:
                return 0, True
            high = min(newest, low + span)
            params = {"tenant": tenant, "low": low, "high": high}
            queued = (await c.execute(vsql.QUEUE_UNINDEXED_ALL if tenant is None
                                      else vsql.QUEUE_UNINDEXED_TENANT, params)).rowcount
            await c.execute(vsql.SET_INDEX_MARK, (scope, high))
            return int(queued), high >= newest
        return await self._db.write(body)

    async def backlog(self, tenant: str, session: str | None = None) -> int:
        if session is None:
            rows = await self._db.fetch(vsql.COUNT_BACKLOG_TENANT, (tenant,))
        else:
            rows = await self._db.fetch(vsql.COUNT_BACKLOG_SESSION, (tenant, session))
        return int(rows[0][0])

    async def backlog_all(self) -> int:
        """Queued messages of every tenant."""
        return int((await self._db.fetch(vsql.COUNT_BACKLOG_ALL, ()))[0][0])

    async def lineage(self) -> str:
        """What names this database among all others, for as long as it lives: files of
        the search index saved beside it are used only while their lineage equals this
        (a copy of the file shares it, since it holds the same history up to the copy)."""
        rows = await self._db.fetch(vsql.SELECT_LINEAGE, ())
        return f"postgres:{int(rows[0][0])}" if rows else "postgres:"

    async def versions(self, tenant: str, session: str | None) -> dict[str, int]:
        """Vector versions of one session, or of every session of the tenant with vectors."""
        if session is not None:
            rows = await self._db.fetch(vsql.SELECT_VECTOR_VERSION, (tenant, session))
            return {session: int(rows[0][0])} if rows else {}
        rows = await self._db.fetch(vsql.SELECT_VECTOR_VERSIONS, (tenant,))
        return {str(s): int(v) for s, v in rows}

    async def load_hot(self, tenant: str, session: str, model: str, dim: int) -> HotSession:
        """The session's hot messages with their vectors of ``model``, read in one snapshot
        together with the version they belong to."""
        async def body(c: Conn) -> tuple[int, list[Any]]:
            row = await (await c.execute(vsql.SELECT_VECTOR_VERSION, (tenant, session))
                         ).fetchone()
            # Binary results: a pgvector value arrives as packed floats, not as text to parse.
            cur = await c.execute(vsql.SELECT_HOT_FOR_SEARCH, (model, dim, tenant, session),
                                  binary=True)
            return (int(row[0]) if row is not None else 0, await cur.fetchall())
        version, rows = await self._db.read(body)
        matrix = np.zeros((len(rows), dim), dtype=np.float32)
        embedded = np.zeros(len(rows), dtype=np.bool_)
        for i, r in enumerate(rows):
            if r[4] is not None:
                matrix[i] = self._array(r[4])
                embedded[i] = True
        return HotSession(version=version, ids=[int(r[0]) for r in rows],
                          contents=[r[1] for r in rows], senders=[r[2] for r in rows],
                          ats=[int(r[3]) for r in rows], matrix=matrix, embedded=embedded)

    async def hot_changes(self, tenant: str, sessions: Sequence[str] | None, model: str,
                          dim: int, *, after: int, pending: Sequence[int]) -> HotChanges:
        """In one snapshot: the sessions' marks, their hot messages above ``after`` and the
        vectors now stored for the ``pending`` ids."""
        params: dict[str, Any] = {"tenant": tenant, "model": model, "dim": dim,
                                  "after": after, "ids": [int(i) for i in pending],
                                  "sessions": None if sessions is None else list(sessions)}

        async def body(c: Conn) -> tuple[list[Any], list[Any], list[Any]]:
            marks = await (await c.execute(vsql.SELECT_HOT_MARKS, params)).fetchall()
            cur = await c.execute(vsql.SELECT_HOT_AFTER_ALL if sessions is None
                                  else vsql.SELECT_HOT_AFTER_IN, params, binary=True)
            rows = await cur.fetchall()
            found: list[Any] = []
            if pending:
                cur = await c.execute(vsql.SELECT_PENDING_VECTORS, params, binary=True)
                found = await cur.fetchall()
            return marks, rows, found
        marks, rows, found = await self._db.read(body)
        return hot_changes(marks, rows, found, dim, self._array)

    async def hot_ids(self, tenant: str, session: str, model: str,
                      dim: int) -> tuple[list[int], list[bool]]:
        """The session's hot ids in order, and whether each has a vector of ``model``."""
        rows = await self._db.fetch(vsql.SELECT_HOT_IDS, {
            "tenant": tenant, "session": session, "model": model, "dim": dim})
        return [int(r[0]) for r in rows], [bool(r[1]) for r in rows]

    async def other_model_count(self, tenant: str, model: str) -> int:
        """Vectors made by a model other than ``model`` (they need a re-index)."""
        return int((await self._db.fetch(vsql.COUNT_OTHER_MODEL_VECTORS, (tenant, model)))[0][0])

    async def requeue(self, tenant: str) -> int:
        """Drop the tenant's vectors and queue every hot message again; returns the backlog."""
        async def body(c: Conn) -> int:
            await c.execute(vsql.LOCK_TENANT_SESSIONS, (tenant,))
            await c.execute(vsql.DELETE_TENANT_VECTORS, (tenant,))
            await c.execute(vsql.UNCLAIM_TENANT, (tenant,))
            await c.execute(vsql.BUMP_TENANT_VERSIONS, (tenant,))
            await c.execute(vsql.REQUEUE_HOT, (tenant,))
            rows = await (await c.execute(vsql.COUNT_BACKLOG_TENANT, (tenant,))).fetchall()
            return int(rows[0][0])
        return await self._db.write(body)

    # -- the two column types --------------------------------------------------------------

    def _value(self, blob: bytes) -> Any:
        """What the ``vec`` column takes for a vector given as float32 bytes."""
        if not self._db.pgvector:
            return blob
        from pgvector import Vector
        return Vector(np.frombuffer(blob, dtype=FLOAT32_LE))

    def _array(self, value: Any) -> Any:
        """A vector read from the ``vec`` column as a float32 array."""
        if isinstance(value, bytes | bytearray | memoryview):
            return np.frombuffer(value, dtype=FLOAT32_LE)
        return value.to_numpy()
