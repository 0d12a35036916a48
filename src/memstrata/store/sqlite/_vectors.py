"""Vector storage and the indexer's queue on SQLite.

The indexer claims a batch of queued messages (a claim older than ``stale_after`` may be taken
over, so a crashed indexer's batch is not lost; one whose indexer is known to be dead is given
back at once with ``unclaim``), embeds them outside any transaction, then stores the vectors
only for messages that still exist, are still hot and are still claimed by it — so a message
forgotten or compacted meanwhile never gets a vector, and no message is embedded twice by two
indexers.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...types import Claimed, HotChanges, HotSession
from .._hot_rows import hot_changes
from . import _sql as sql
from ._connection import Connection
from ._rows import row_message

__all__ = ["SQLiteVectors"]


_VERSIONS_KEPT = 16


class SQLiteVectors:
    """The vector side of a SQLite store (on the store's connection)."""

    def __init__(self, db: Connection) -> None:
        self._db = db
        # Per tenant, its sessions' vector versions and the database's change stamp they
        # were read at (a tenant-wide search reads them every time; most times nothing moved).
        self._versions: dict[str, tuple[tuple[int, int], dict[str, int]]] = {}

    async def claim(self, worker: str, *, tenant: str | None, limit: int, now: int,
                    stale_before: int) -> list[Claimed]:
        """Claim up to ``limit`` queued messages (oldest first) for ``worker``."""
        def body(c: sqlite3.Connection) -> list[Claimed]:
            c.execute(sql.CLAIM_BATCH, (worker, now, tenant, tenant, stale_before, limit))
            rows = c.execute(sql.SELECT_CLAIMED, (worker,)).fetchall()
            return [Claimed(tenant=r[7], message=row_message(r[:7]), previous=r[8],
                            previous_sender=r[9]) for r in rows]
        return await self._db.write(body)

    async def put(self, worker: str, model: str, dim: int,
                  items: Sequence[tuple[int, bytes]], *, tried: bool = True) -> int:
        """Store vectors for messages still claimed by ``worker``; release the rest
        (``tried=False``: without counting an attempt)."""
        def body(c: sqlite3.Connection) -> int:
            touched: set[tuple[str, str]] = set()
            stored = 0
            # The batch is one tenant's (see CLAIM_BATCH): its numbers name its claims.
            claims = {int(r[0]): (int(r[1]), str(r[2]), str(r[3]))
                      for r in c.execute(sql.SELECT_CLAIMS_OF, (worker,))}
            for number, blob in items:
                claim = claims.get(number)
                if claim is None:
                    continue  # forgotten, compacted or taken over meanwhile
                rowid, tenant, session = claim
                c.execute(sql.INSERT_VECTOR, (rowid, tenant, session, model, dim, blob))
                c.execute(sql.DEQUEUE, (rowid,))
                touched.add((tenant, session))
                stored += 1
            for tenant, session in touched:
                c.execute(sql.BUMP_VECTOR_VERSION, (tenant, session))
            c.execute(sql.RELEASE_CLAIMS if tried else sql.RELEASE_UNTRIED, (worker,))
            return stored
        return await self._db.write(body)

    async def queue_unindexed(self, tenant: str | None, *, span: int) -> tuple[int, bool]:
        """Queue hot messages above the tenant's mark that have no vector and no place in the
        queue, looking at ``span`` ids at most; move the mark. Returns how many were queued
        and whether the mark reached the newest message."""
        scope = "*" if tenant is None else tenant
        mark, top = await self._db.read(
            lambda c: c.execute(sql.SELECT_INDEX_MARK, (scope,)).fetchone())
        if mark >= top:
            return 0, True  # the common case: nothing written since the last look

        def body(c: sqlite3.Connection) -> tuple[int, bool]:
            low, newest = c.execute(sql.SELECT_INDEX_MARK, (scope,)).fetchone()
            if low >= newest:
                return 0, True
            high = min(newest, low + span)
            queued = c.execute(sql.QUEUE_UNINDEXED, (low, high, tenant)).rowcount
            c.execute(sql.SET_INDEX_MARK, (scope, high))
            return int(queued), high >= newest
        return await self._db.write(body)

    async def release(self, worker: str) -> None:
        """Give a failed batch back to the queue (its attempt counter goes up)."""
        def body(c: sqlite3.Connection) -> None:
            c.execute(sql.RELEASE_CLAIMS, (worker,))
        await self._db.write(body)

    async def claimants(self, tenant: str | None) -> list[str]:
        """The claim tokens holding the tenant's queued messages (every tenant for ``None``)."""
        if tenant is None:
            rows = await self._db.read(lambda c: c.execute(sql.SELECT_CLAIMANTS_ALL).fetchall())
        else:
            rows = await self._db.read(lambda c: c.execute(sql.SELECT_CLAIMANTS_TENANT,
                                                           (tenant,)).fetchall())
        return [str(r[0]) for r in rows]

    async def unclaim(self, tenant: str | None, worker: str, *, below_attempts: int) -> int:
        """Give back the tenant's messages claimed by ``worker`` (a dead indexer's batch)
        that were tried fewer than ``below_attempts`` times."""
        def body(c: sqlite3.Connection) -> int:
            if tenant is None:
                return int(c.execute(sql.UNCLAIM_WORKER_ALL,
                                     (worker, below_attempts)).rowcount)
            return int(c.execute(sql.UNCLAIM_WORKER_TENANT,
                                 (tenant, worker, below_attempts)).rowcount)
        return await self._db.write(body)

    async def backlog(self, tenant: str, session: str | None = None) -> int:
        if session is None:
            row = await self._db.read(lambda c: c.execute(
                sql.COUNT_BACKLOG_TENANT, (tenant,)).fetchone())
        else:
            row = await self._db.read(lambda c: c.execute(
                sql.COUNT_BACKLOG_SESSION, (tenant, session)).fetchone())
        return int(row[0])

    async def backlog_all(self) -> int:
        """Queued messages of every tenant."""
        row = await self._db.read(lambda c: c.execute(sql.COUNT_BACKLOG_ALL).fetchone())
        return int(row[0])

    async def lineage(self) -> str:
        """What names this database among all others, for as long as it lives: files of
        the search index saved beside it are used only while their lineage equals this
        (a copy of the file shares it, since it holds the same history up to the copy)."""
        row = await self._db.read(lambda c: c.execute(sql.SELECT_LINEAGE).fetchone())
        return f"sqlite:{int(row[0])}" if row is not None else "sqlite:"

    async def versions(self, tenant: str, session: str | None) -> dict[str, int]:
        """Vector versions of one session, or of every session of the tenant with vectors."""
        if session is not None:
            row = await self._db.read(lambda c: c.execute(
                sql.SELECT_VECTOR_VERSION, (tenant, session)).fetchone())
            return {session: int(row[0])} if row is not None else {}
        return dict(await self._db.read(lambda c: self._all_versions(c, tenant)))

    def _all_versions(self, c: sqlite3.Connection, tenant: str) -> dict[str, int]:
        """Every session's vector version, read again only when the database changed since
        the last read: ``data_version`` moves with another connection's commits (as seen
        by this read's snapshot, which the first statement starts), this connection's count
        of changed rows with its own."""
        c.execute(sql.START_SNAPSHOT).fetchall()
        stamp = (int(c.execute(sql.DATA_VERSION).fetchone()[0]), c.total_changes)
        cached = self._versions.get(tenant)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        got = {str(s): int(v) for s, v in c.execute(sql.SELECT_VECTOR_VERSIONS, (tenant,))}
        self._versions.pop(tenant, None)
        while len(self._versions) >= _VERSIONS_KEPT:
            del self._versions[next(iter(self._versions))]
        self._versions[tenant] = (stamp, got)
        return got

    async def load_hot(self, tenant: str, session: str, model: str, dim: int) -> HotSession:
        """The session's hot messages with their vectors of ``model``, read in one snapshot
        together with the version they belong to."""
        def body(c: sqlite3.Connection) -> tuple[int, list[tuple[int, str, Any, int, Any]]]:
            row = c.execute(sql.SELECT_VECTOR_VERSION, (tenant, session)).fetchone()
            rows = c.execute(sql.SELECT_HOT_FOR_SEARCH, (model, dim, tenant, session))
            return (int(row[0]) if row is not None else 0, rows.fetchall())
        version, rows = await self._db.read(body)
        matrix = np.zeros((len(rows), dim), dtype=np.float32)
        embedded = np.zeros(len(rows), dtype=np.bool_)
        for i, r in enumerate(rows):
            if r[4] is not None:
                matrix[i] = np.frombuffer(r[4], dtype=np.float32)
                embedded[i] = True
        return HotSession(version=version, ids=[r[0] for r in rows],
                          contents=[r[1] for r in rows], senders=[r[2] for r in rows],
                          ats=[r[3] for r in rows], matrix=matrix, embedded=embedded)

    async def hot_changes(self, tenant: str, sessions: Sequence[str] | None, model: str,
                          dim: int, *, after: int, pending: Sequence[int]) -> HotChanges:
        """In one snapshot: the sessions' marks, their hot messages above ``after`` and the
        vectors now stored for the ``pending`` ids."""
        names = None if sessions is None else json.dumps(list(sessions))
        wanted = json.dumps([int(i) for i in pending])

        def body(c: sqlite3.Connection) -> tuple[list[Any], list[Any], list[Any]]:
            marks = c.execute(sql.SELECT_HOT_MARKS, (tenant, names)).fetchall()
            rows = (c.execute(sql.SELECT_HOT_AFTER_ALL, (model, dim, tenant, after))
                    if names is None else
                    c.execute(sql.SELECT_HOT_AFTER_IN, (model, dim, tenant, after, names))
                    ).fetchall()
            found = (c.execute(sql.SELECT_PENDING_VECTORS, (wanted, tenant, model, dim))
                     .fetchall() if pending else [])
            return marks, rows, found
        marks, rows, found = await self._db.read(body)
        return hot_changes(marks, rows, found, dim, _floats)

    async def hot_ids(self, tenant: str, session: str, model: str,
                      dim: int) -> tuple[list[int], list[bool]]:
        """The session's hot ids in order, and whether each has a vector of ``model``."""
        rows = await self._db.read(lambda c: c.execute(
            sql.SELECT_HOT_IDS, (model, dim, tenant, session)).fetchall())
        return [int(r[0]) for r in rows], [bool(r[1]) for r in rows]

    async def other_model_count(self, tenant: str, model: str) -> int:
        """Vectors made by a model other than ``model`` (they need a re-index)."""
        row = await self._db.read(lambda c: c.execute(
            sql.COUNT_OTHER_MODEL_VECTORS, (tenant, model)).fetchone())
        return int(row[0])

    async def requeue(self, tenant: str) -> int:
        """Drop the tenant's vectors and queue every hot message again; returns the backlog."""
        def body(c: sqlite3.Connection) -> int:
            c.execute(sql.DELETE_TENANT_VECTORS, (tenant,))
            c.execute(sql.UNCLAIM_TENANT, (tenant,))
            for (session,) in c.execute(sql.SELECT_TENANT_SESSIONS, (tenant,)).fetchall():
                c.execute(sql.BUMP_VECTOR_VERSION, (tenant, session))
            c.execute(sql.REQUEUE_HOT, (tenant,))
            return int(c.execute(sql.COUNT_BACKLOG_TENANT, (tenant,)).fetchone()[0])
        return await self._db.write(body)


def _floats(blob: bytes) -> np.ndarray[Any, np.dtype[np.float32]]:
    """A stored vector: packed little-endian float32."""
    return np.frombuffer(blob, dtype=np.float32)
