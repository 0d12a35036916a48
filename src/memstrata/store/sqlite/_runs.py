"""Summary runs on SQLite: saving progress, leases between workers, failure back-off."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from ...types import RunState
from . import _sql as sql
from ._connection import Connection

__all__ = ["SQLiteRuns"]


class SQLiteRuns:
    """The summary-run side of a SQLite store (on the store's connection)."""

    def __init__(self, db: Connection) -> None:
        self._db = db

    async def save(self, tenant: str, session: str, *, kind: str, body: dict[str, Any],
                   cursor: int, now: int, tokens_in: int, tokens_out: int,
                   owner: str | None, lease_until: int | None = None) -> bool:
        """Store the summary and its cursor in one transaction, adding to the token totals,
        when ``owner`` holds the session's lease (``None``: no lease involved) and the stored
        cursor is not ahead of ``cursor``; the holder's lease is renewed to ``lease_until``
        and a turns-policy flag that the cursor has reached is cleared in it too. ``False``:
        the fence held, nothing was written."""
        params = (tenant, session, kind, json.dumps(body, ensure_ascii=False), cursor, now,
                  tokens_in, tokens_out)

        def body_fn(c: sqlite3.Connection) -> bool:
            # The write transaction holds the database's write lock from its start, so what
            # is read here cannot change before the writes below commit.
            if owner is not None:
                row = c.execute(sql.SELECT_LEASE_OWNER, (tenant, session)).fetchone()
                if row is None or row[0] != owner:
                    return False
            if c.execute(sql.SAVE_SUMMARY_ADDING_TOKENS, params).rowcount == 0:
                return False  # the stored cursor is ahead: nothing was written
            if owner is not None and lease_until is not None:
                c.execute(sql.RENEW_SAVE_LEASE, (lease_until, tenant, session, owner))
            c.execute(sql.CLEAR_SUMMARY_DUE, (tenant, session, cursor))
            return True
        return await self._db.write(body_fn)

    async def add_tokens(self, tenant: str, session: str, tokens_in: int,
                         tokens_out: int) -> None:
        """Count model tokens spent on a session outside a save (a failed chunk, the relevance
        call of ``context``); only a session that has a summary keeps a tally."""
        if tokens_in or tokens_out:
            params = (tokens_in, tokens_out, tenant, session)
            await self._db.write(lambda c: c.execute(sql.ADD_SUMMARY_TOKENS, params).close())

    async def lease(self, tenant: str, session: str, owner: str, *, now: int,
                    until: int) -> bool:
        """Take (or renew) the session's lease; ``False`` while another live owner holds it."""
        def body(c: sqlite3.Connection) -> bool:
            c.execute(sql.TAKE_LEASE, (tenant, session, owner, until, now))
            row = c.execute(sql.SELECT_LEASE_OWNER, (tenant, session)).fetchone()
            return row is not None and row[0] == owner
        return await self._db.write(body)

    async def release(self, tenant: str, session: str, owner: str) -> None:
        await self._db.write(lambda c: c.execute(sql.DROP_LEASE, (tenant, session, owner)).close())

    async def lease_holder(self, tenant: str, session: str) -> str | None:
        """The owner named on the session's lease (expired or not), or ``None``."""
        row = await self._db.read(lambda c: c.execute(
            sql.SELECT_LEASE_OWNER, (tenant, session)).fetchone())
        return None if row is None or row[0] is None else str(row[0])

    async def failed(self, tenant: str, session: str, error: str, *, now: int,
                     retry_at_for: Callable[[int, int], int]) -> int:
        """Count a failure; ``retry_at_for(failures, now)`` sets when to try again."""
        def body(c: sqlite3.Connection) -> int:
            failures = int(c.execute(sql.RECORD_FAILURE, (tenant, session, now, error))
                           .fetchone()[0])
            c.execute(sql.SET_RETRY_AT, (retry_at_for(failures, now), tenant, session))
            return failures
        return await self._db.write(body)

    async def succeeded(self, tenant: str, session: str) -> None:
        await self._db.write(lambda c: c.execute(sql.RECORD_SUCCESS, (tenant, session)).close())

    async def state(self, tenant: str, session: str) -> RunState:
        row = await self._db.read(lambda c: c.execute(
            sql.SELECT_RUN_STATE, (tenant, session)).fetchone())
        if row is None:
            return RunState(failures=0, retry_at=None, last_error=None)
        return RunState(failures=int(row[0]), retry_at=row[1], last_error=row[2])

    async def due(self, tenant: str | None, *, now: int, limit: int = 1000) -> list[
            tuple[str, str]]:
        """Sessions with messages after their cursor that are not backed off."""
        rows = await self._db.read(lambda c: c.execute(
            sql.SELECT_DUE_SESSIONS, (tenant, tenant, now, limit)).fetchall())
        return [(str(t), str(s)) for t, s in rows]

    async def flagged(self, tenant: str | None, *, now: int, limit: int = 1000) -> list[
            tuple[str, str]]:
        """Sessions the turns policy asked to summarise that are not summarised that far."""
        rows = await self._db.read(lambda c: c.execute(
            sql.SELECT_FLAGGED_SESSIONS, (tenant, now, limit)).fetchall())
        return [(str(t), str(s)) for t, s in rows]
