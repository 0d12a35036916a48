"""Summary runs on PostgreSQL: saving progress, leases between workers, failure back-off.

A lease is one conditional upsert: it goes to the caller only when nobody holds it, it has
expired or the caller already holds it, and ``RETURNING`` says whether it did. Callers in other
processes queue on the row (or, for a session's first lease, on its key), so exactly one wins.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ...types import RunState
from . import _sql as sql
from ._connection import Conn, Connection

__all__ = ["PostgresRuns"]


class PostgresRuns:
    """The summary-run side of a PostgreSQL store (on the store's pool)."""

    def __init__(self, db: Connection) -> None:
        self._db = db

    async def save(self, tenant: str, session: str, *, kind: str, body: dict[str, Any],
                   cursor: int, now: int, tokens_in: int, tokens_out: int,
                   owner: str | None, lease_until: int | None = None) -> bool:
        """Store the summary and its cursor, adding to the token totals, when ``owner`` holds
        the session's lease (``None``: no lease involved) and the stored cursor is not ahead
        of ``cursor``; the holder's lease is renewed to ``lease_until`` and a turns-policy
        flag that the cursor has reached is cleared too. One statement in one transaction
        (a deadlock with another writer is retried whole). ``False``: the fence held, nothing
        was written."""
        params = {"tenant": tenant, "session": session, "kind": kind,
                  "body": json.dumps(body, ensure_ascii=False), "cursor": cursor, "now": now,
                  "tokens_in": tokens_in, "tokens_out": tokens_out, "owner": owner,
                  "until": lease_until}

        async def write(c: Conn) -> bool:
            cur = await c.execute(sql.SAVE_SUMMARY_FENCED, params)
            return await cur.fetchone() is not None
        return await self._db.write(write)

    async def add_tokens(self, tenant: str, session: str, tokens_in: int,
                         tokens_out: int) -> None:
        """Count model tokens spent on a session outside a save; only a session that has a
        summary keeps a tally."""
        if tokens_in or tokens_out:
            await self._db.fetch(sql.ADD_SUMMARY_TOKENS, (tokens_in, tokens_out, tenant, session))

    async def lease(self, tenant: str, session: str, owner: str, *, now: int,
                    until: int) -> bool:
        """Take (or renew) the session's lease; ``False`` while another live owner holds it."""
        rows = await self._db.fetch(sql.TAKE_LEASE, {"tenant": tenant, "session": session,
                                                     "owner": owner, "until": until,
                                                     "now": now})
        return bool(rows) and rows[0][0] == owner

    async def release(self, tenant: str, session: str, owner: str) -> None:
        await self._db.fetch(sql.DROP_LEASE, (tenant, session, owner))

    async def lease_holder(self, tenant: str, session: str) -> str | None:
        """The owner named on the session's lease (expired or not), or ``None``."""
        rows = await self._db.fetch(sql.SELECT_LEASE_HOLDER, (tenant, session))
        return None if not rows or rows[0][0] is None else str(rows[0][0])

    async def failed(self, tenant: str, session: str, error: str, *, now: int,
                     retry_at_for: Callable[[int, int], int]) -> int:
        """Count a failure; ``retry_at_for(failures, now)`` sets when to try again."""
        async def body(c: Conn) -> int:
            row = await (await c.execute(sql.RECORD_FAILURE, (tenant, session, now, error))
                         ).fetchone()
            assert row is not None
            failures = int(row[0])
            await c.execute(sql.SET_RETRY_AT, (retry_at_for(failures, now), tenant, session))
            return failures
        return await self._db.write(body)

    async def succeeded(self, tenant: str, session: str) -> None:
        await self._db.fetch(sql.RECORD_SUCCESS, (tenant, session))

    async def state(self, tenant: str, session: str) -> RunState:
        rows = await self._db.fetch(sql.SELECT_RUN_STATE, (tenant, session))
        if not rows:
            return RunState(failures=0, retry_at=None, last_error=None)
        failures, retry_at, last_error = rows[0]
        return RunState(failures=int(failures), retry_at=retry_at, last_error=last_error)

    async def due(self, tenant: str | None, *, now: int, limit: int = 1000) -> list[
            tuple[str, str]]:
        """Sessions with messages after their cursor that are not backed off."""
        rows = await self._db.fetch(sql.SELECT_DUE_SESSIONS,
                                    {"tenant": tenant, "now": now, "limit": limit})
        return [(str(t), str(s)) for t, s in rows]

    async def flagged(self, tenant: str | None, *, now: int, limit: int = 1000) -> list[
            tuple[str, str]]:
        """Sessions the turns policy asked to summarise that are not summarised that far."""
        rows = await self._db.fetch(sql.SELECT_FLAGGED_SESSIONS,
                                    {"tenant": tenant, "now": now, "limit": limit})
        return [(str(t), str(s)) for t, s in rows]
