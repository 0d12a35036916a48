"""The SQLite store: messages, sessions and summaries, and the parts that make it whole.

Every operation is one function handed to the :class:`Connection`'s ``read`` or ``write``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..._compaction import CompactionPolicy
from ...text import fts_match_expression, query_literals, query_phrase
from ...types import Draft, KeywordRow, Message, SessionInfo, SessionRow, Summary
from .._keyword import keyword_rows
from . import _sql as sql
from ._append import append as append_rows
from ._append import append_import
from ._connection import Connection
from ._damage import find_problems
from ._errors import SQLiteErrorStore
from ._keys import SQLiteKeys
from ._keyword_sql import ranked as scope_ranked
from ._rows import ascii_lower, row_message, row_summary
from ._runs import SQLiteRuns
from ._vectors import SQLiteVectors

__all__ = ["SQLiteStore"]

# How far back the substring scan of the hot tier looks: the newest messages of a session, or
# a span of the tenant's newest numbers. FTS5 covers the whole archive either way.
_SESSION_SUBSTRING_SPAN = 5_000
_TENANT_SUBSTRING_SPAN = 20_000
# Pages of the full-text index one merge step writes (about 1 MiB: a short write lock).
_MERGE_PAGES = 256
# After a merge found nothing left, other sweepers on the same store skip it this long.
_MERGE_REST_S = 50.0


class SQLiteStore:
    """A memstrata store on SQLite (WAL, FTS5). Open with ``await SQLiteStore.open(path)``.

    Messages, sessions and summaries are served here; ``vectors``, ``runs``, ``errors`` and
    ``api_keys`` are the other parts of the seam, all on the same :class:`Connection`.
    """

    def __init__(self, db: Connection) -> None:
        self._db = db
        self.path = db.path
        self.vectors = SQLiteVectors(db)
        """Vector storage and the indexer's queue."""
        self.runs = SQLiteRuns(db)
        """Summary progress, leases and back-off."""
        self.errors = SQLiteErrorStore(db)
        """The error memory's records."""
        self.api_keys = SQLiteKeys(db)
        """The HTTP service's API keys (hashed)."""
        self._merge_rest_until = 0.0

    @classmethod
    async def open(cls, path: str, *, durability: str = "normal") -> SQLiteStore:
        return cls(await Connection.open(path, durability=durability))

    async def close(self) -> None:
        await self._db.close()

    # -- writes ----------------------------------------------------------------------------

    async def append(self, tenant: str, session: str, drafts: Sequence[Draft], *, now: int,
                     policy: CompactionPolicy, index: bool = False) -> list[Message]:
        return await self._db.write_together(
            lambda c: append_rows(c, tenant, session, drafts, now, policy, index))

    async def import_session(self, tenant: str, session: str, drafts: Sequence[Draft],
                             summary_for: Callable[[list[int]], Summary | None] | None,
                             *, now: int, policy: CompactionPolicy,
                             index: bool = False) -> list[int]:
        def body(c: sqlite3.Connection) -> list[int]:
            out = append_import(c, tenant, session, drafts, now, policy, index) \
                if drafts else []
            summary = summary_for(out) if summary_for is not None else None
            if summary is not None:
                _put_summary(c, tenant, summary)
                _touch_session(c, tenant, session, now)
            return out
        return await self._db.write(body)

    async def put_summary(self, tenant: str, summary: Summary) -> None:
        await self._db.write(lambda c: _put_summary(c, tenant, summary))

    async def delete_messages(self, tenant: str, session: str, *, keep_summary: bool) -> int:
        def body(c: sqlite3.Connection) -> int:
            n = c.execute(sql.DELETE_SESSION_MESSAGES, (tenant, session)).rowcount
            c.execute(sql.CLEAR_SESSION_COUNTERS, (tenant, session))
            c.execute(sql.BUMP_VECTOR_VERSION, (tenant, session))
            if not keep_summary:
                c.execute(sql.DELETE_SUMMARY, (tenant, session))
            c.execute(sql.END_LEASE, (tenant, session))
            return int(n)
        return await self._db.write_freeing(body)

    async def remove_session(self, tenant: str, session: str) -> bool:
        return await self._db.write_freeing(lambda c: _remove(c, tenant, session))

    async def forget(self, tenant: str, message_id: int) -> bool:
        def body(c: sqlite3.Connection) -> bool:
            row = c.execute(sql.SELECT_FOR_FORGET, (tenant, message_id)).fetchone()
            if row is None:
                return False
            rowid, session, size = row
            c.execute(sql.DELETE_MESSAGE, (rowid,))
            c.execute(sql.UNCOUNT_MESSAGE, (message_id, message_id, size, tenant, session))
            for (after,) in c.execute(sql.SELECT_NEXT_VECTOR,
                                      (tenant, session, message_id)).fetchall():
                c.execute(sql.DELETE_VECTOR, (after,))
                c.execute(sql.ENQUEUE, (after, tenant, session))
            c.execute(sql.BUMP_VECTOR_VERSION, (tenant, session))
            return True
        return await self._db.write_freeing(body)

    async def purge_idle(self, prefix: str, idle_before: int) -> list[tuple[str, str]]:
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"

        def body(c: sqlite3.Connection) -> list[tuple[str, str]]:
            victims = [(str(t), str(s)) for t, s in
                       c.execute(sql.SELECT_IDLE_SESSIONS, (pattern, idle_before))]
            for tenant, session in victims:
                _remove(c, tenant, session)
            return victims
        return await self._db.write(body)

    async def tidy_keyword_index(self, seconds: float = 1.0) -> bool:
        """Merge the full-text index's segments for about ``seconds`` (in short write
        transactions, so writers wait at most one of them); ``True`` when work remains.

        Each commit adds a small segment to the index and FTS5 merges them eight at a time,
        which keeps writes cheap but leaves dozens of segments in a large file; a search in
        one session seeks every one of them. The sweeper calls this once a minute, so the
        segments of an idle or steadily written database stay few. Every Memory on this
        store (one per tenant in the service) has a sweeper: once a call found nothing to
        merge, calls within the next ``_MERGE_REST_S`` return at once."""
        now = time.monotonic()
        if now < self._merge_rest_until:
            return False
        deadline = now + seconds

        def step(c: sqlite3.Connection) -> bool:
            if c.execute(sql.SELECT_FTS_USERMERGE).fetchone() is None:
                c.execute(sql.SET_FTS_USERMERGE)
            before = c.total_changes
            c.execute(sql.MERGE_FTS, (_MERGE_PAGES,))
            # FTS5's documented signal: fewer than two changes means nothing was left to merge.
            return c.total_changes - before >= 2
        while await self._db.write(step):
            if time.monotonic() >= deadline:
                return True
        self._merge_rest_until = time.monotonic() + _MERGE_REST_S
        return False

    # -- reads -----------------------------------------------------------------------------

    async def recent(self, tenant: str, session: str, n: int) -> list[Message]:
        rows = await self._db.read(lambda c: c.execute(sql.SELECT_RECENT, (tenant, session, n))
                               .fetchall())
        return [row_message(r) for r in reversed(rows)]

    async def window_and_summary(self, tenant: str, session: str,
                                 n: int) -> tuple[list[Message], Summary | None]:
        def body(c: sqlite3.Connection) -> tuple[list[Any], Any]:
            return (c.execute(sql.SELECT_RECENT, (tenant, session, n)).fetchall(),
                    c.execute(sql.SELECT_SUMMARY, (tenant, session)).fetchone())
        # Two indexed lookups in one read transaction (one snapshot; cheaper than a compound
        # statement, which copies every row through a co-routine): on the event loop.
        rows, srow = await self._db.read_small(body)
        return ([row_message(r) for r in reversed(rows)],
                row_summary(srow) if srow is not None else None)

    async def get_summary(self, tenant: str, session: str) -> Summary | None:
        row = await self._db.read(lambda c: c.execute(sql.SELECT_SUMMARY, (tenant, session))
                              .fetchone())
        return row_summary(row) if row is not None else None

    async def get_message(self, tenant: str, message_id: int) -> Message | None:
        row = await self._db.read(lambda c: c.execute(sql.SELECT_MESSAGE, (tenant, message_id))
                              .fetchone())
        return row_message(row) if row is not None else None

    async def count_between(self, tenant: str, session: str, after: int, before: int) -> int:
        row = await self._db.read(lambda c: c.execute(
            sql.COUNT_BETWEEN, (tenant, session, after, before)).fetchone())
        return int(row[0])

    async def keys(self, tenant: str, message_ids: Sequence[int]) -> dict[int, str]:
        params = (tenant, json.dumps([int(i) for i in message_ids]))
        rows = await self._db.read(lambda c: c.execute(sql.SELECT_KEYS, params).fetchall())
        return {int(i): str(k) for i, k in rows}

    async def around(self, tenant: str, message_ids: Sequence[int], before: int,
                     after: int) -> dict[int, list[Message]]:
        def body(c: sqlite3.Connection) -> dict[int, list[Message]]:
            out: dict[int, list[Message]] = {}
            for mid in message_ids:
                row = c.execute(sql.SELECT_MESSAGE, (tenant, mid)).fetchone()
                if row is None:
                    continue
                session = row[1]
                older = c.execute(sql.SELECT_BEFORE, (tenant, session, mid, before)).fetchall()
                newer = c.execute(sql.SELECT_AFTER, (tenant, session, mid, after)).fetchall()
                out[mid] = [row_message(r) for r in [*reversed(older), row, *newer]]
            return out
        return await self._db.read(body)

    async def keyword(self, tenant: str, session: str | None, match: str | None, raw: str, *,
                      since: int | None, limit: int) -> list[KeywordRow]:
        literals = list(dict.fromkeys(ascii_lower(x) for x in query_literals(raw)))
        needles = json.dumps(literals, ensure_ascii=False)
        words = query_phrase(raw)
        phrase = None if words is None else fts_match_expression([words])
        low = since if since is not None else -(2**63)

        def body(c: sqlite3.Connection) -> list[KeywordRow]:
            ranked = scope_ranked(c, tenant, session, match, low, limit)
            phrased = scope_ranked(c, tenant, session, phrase, low, limit)
            sub: list[Any] = []
            if literals and session is not None:
                sub = c.execute(sql.SELECT_HOT_SUBSTRING_SESSION,
                                (tenant, session, _SESSION_SUBSTRING_SPAN, low, needles,
                                 limit)).fetchall()
            elif literals:
                nxt = c.execute(sql.SELECT_NEXT_NUMBER, (tenant,)).fetchone()
                top = int(nxt[0]) if nxt is not None else 0
                sub = c.execute(sql.SELECT_HOT_SUBSTRING_TENANT,
                                (tenant, top - _TENANT_SUBSTRING_SPAN, low, needles,
                                 limit)).fetchall()
            return keyword_rows([(row_message(row[:7]), score) for row, score in ranked],
                                [(row_message(row[:7]), score) for row, score in phrased],
                                map(row_message, sub), raw, ascii_lower)
        return await self._db.read(body)

    async def page(self, tenant: str, session: str | None, *, since: int | None,
                   before_id: int | None, limit: int) -> list[Message]:
        low = since if since is not None else -(2**63)
        high = before_id if before_id is not None else 2**63 - 1
        if session is None:
            rows = await self._db.read(lambda c: c.execute(
                sql.SELECT_PAGE_TENANT, (tenant, high, low, limit)).fetchall())
        else:
            rows = await self._db.read(lambda c: c.execute(
                sql.SELECT_PAGE_SESSION, (tenant, session, high, low, limit)).fetchall())
        return [row_message(r) for r in rows]

    async def after_cursor(self, tenant: str, session: str, cursor: int | None,
                           upto: int | None = None, limit: int | None = None) -> list[Message]:
        params = (tenant, session, cursor or 0, upto if upto is not None else 2**63 - 1,
                  limit if limit is not None else -1)
        rows = await self._db.read(lambda c: c.execute(sql.SELECT_AFTER_CURSOR, params).fetchall())
        return [row_message(r) for r in rows]

    async def session(self, tenant: str, session: str) -> SessionRow | None:
        # One lookup by primary key (every context() of a session longer than its window
        # makes it): on the event loop, without the hop to the writer's thread.
        row = await self._db.read_small(
            lambda c: c.execute(sql.SELECT_SESSION, (tenant, session)).fetchone(),
            one_statement=True)
        if row is None:
            return None
        return SessionRow(id=row[0], messages=row[1], hot_messages=row[2], hot_bytes=row[3],
                          cutoff=row[4], first_at=row[5], last_at=row[6], active_at=row[7],
                          summary_due=bool(row[8]))

    async def sessions(self, tenant: str, *, include_temp: bool = False) -> list[SessionInfo]:
        rows = await self._db.read(lambda c: c.execute(
            sql.SELECT_SESSIONS, (tenant, int(include_temp))).fetchall())
        return [SessionInfo(id=r[0], messages=r[1], first_at=r[2], last_at=r[3],
                            has_summary=bool(r[4])) for r in rows]

    async def integrity_check(self) -> list[str]:
        # FTS5's check is spelled as an INSERT, so it runs in a write transaction.
        return await self._db.write(find_problems)


# -- helpers that run on the connection thread ---------------------------------------------


def _put_summary(c: sqlite3.Connection, tenant: str, s: Summary) -> None:
    c.execute(sql.UPSERT_SUMMARY, (tenant, s.session, s.kind, json.dumps(s.body,
              ensure_ascii=False), s.cursor, s.created_at, s.tokens_in, s.tokens_out))


def _touch_session(c: sqlite3.Connection, tenant: str, session: str, now: int) -> None:
    c.execute(sql.TOUCH_SESSION, (tenant, session, now))


def _remove(c: sqlite3.Connection, tenant: str, session: str) -> bool:
    c.execute(sql.DELETE_SESSION_MESSAGES, (tenant, session))
    c.execute(sql.DELETE_SUMMARY, (tenant, session))
    c.execute(sql.DELETE_SUMMARY_RUN, (tenant, session))
    return bool(c.execute(sql.DELETE_SESSION, (tenant, session)).rowcount)
