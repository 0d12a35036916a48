"""The PostgreSQL store: messages, sessions and summaries, and the parts that make it whole.

Every operation is one async function handed to the :class:`Connection`'s ``read`` or
``write``, or one statement run with ``fetch``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ..._compaction import CompactionPolicy
from ...text import query_literals, query_phrase
from ...types import Draft, KeywordRow, Message, SessionInfo, SessionRow, Summary
from .._keyword import keyword_rows
from . import _sql as sql
from . import _vectors_sql as vsql
from ._append import append as append_rows
from ._append import append_import
from ._connection import Conn, Connection
from ._errors import PostgresErrorStore
from ._keys import PostgresKeys
from ._rows import ascii_lower, row_message, row_summary
from ._runs import PostgresRuns
from ._text import fold, match_terms
from ._vectors import PostgresVectors

__all__ = ["PostgresStore"]

# How far back the substring scan of the hot tier looks: the newest messages of a session, or
# a span of the tenant's newest ids. The tsvector index covers the whole archive either way.
_SESSION_SUBSTRING_SPAN = 5_000
_TENANT_SUBSTRING_SPAN = 20_000
# Across a tenant, full-text search ranks this many of the newest ids first (see
# ``_fts_tenant``). SQLite's span is 100,000: FTS5 ranks from its index alone, while here every
# match's row is read and ranked, and at 100,000 a common word cost about 4 times as much
# (143 ms against 37 ms at 100,000 messages on a busy machine). What the narrower span changes:
# a word with at least ``limit`` matches among the newest 20,000 ids no longer shows its
# better-ranked older matches; a rarer word still reaches the older ids.
_TENANT_FTS_SPAN = 20_000
_MIN_ID, _MAX_ID = -(2**63), 2**63 - 1


class PostgresStore:
    """A memstrata store on PostgreSQL. Open with ``await PostgresStore.open(url)``.

    Messages, sessions and summaries are served here; ``vectors``, ``runs``, ``errors`` and
    ``api_keys`` are the other parts of the seam, all on the same connection pool.
    """

    def __init__(self, db: Connection) -> None:
        self._db = db
        self.where = db.where
        self.vectors = PostgresVectors(db)
        """Vector storage and the indexer's queue."""
        self.runs = PostgresRuns(db)
        """Summary progress, leases and back-off."""
        self.errors = PostgresErrorStore(db)
        """The error memory's records."""
        self.api_keys = PostgresKeys(db)
        """The HTTP service's API keys (hashed)."""

    @classmethod
    async def open(cls, url: str, *, durability: str = "normal") -> PostgresStore:
        return cls(await Connection.open(url, durability=durability))

    async def close(self) -> None:
        await self._db.close()

    # -- writes ----------------------------------------------------------------------------

    async def append(self, tenant: str, session: str, drafts: Sequence[Draft], *, now: int,
                     policy: CompactionPolicy, index: bool = False) -> list[Message]:
        return await self._db.write(
            lambda c: append_rows(c, tenant, session, drafts, now, policy, index))

    async def import_session(self, tenant: str, session: str, drafts: Sequence[Draft],
                             summary_for: Callable[[list[int]], Summary | None] | None,
                             *, now: int, policy: CompactionPolicy,
                             index: bool = False) -> list[int]:
        async def body(c: Conn) -> list[int]:
            out = await append_import(c, tenant, session, drafts, now, policy, index)
            summary = summary_for(out) if summary_for is not None else None
            if summary is not None:
                await _put_summary(c, tenant, summary)
                await c.execute(sql.TOUCH_SESSION, (tenant, session, now))
            return out
        return await self._db.write(body)

    async def put_summary(self, tenant: str, summary: Summary) -> None:
        await self._db.write(lambda c: _put_summary(c, tenant, summary))

    async def delete_messages(self, tenant: str, session: str, *, keep_summary: bool) -> int:
        async def body(c: Conn) -> int:
            await c.execute(sql.LOCK_EXISTING_SESSION, (tenant, session))
            # Vectors and queue entries go with their messages (ON DELETE CASCADE).
            n = (await c.execute(sql.DELETE_SESSION_MESSAGES, (tenant, session))).rowcount
            await c.execute(sql.CLEAR_SESSION_COUNTERS, (tenant, session))
            await c.execute(vsql.BUMP_VECTOR_VERSION, (tenant, session))
            if not keep_summary:
                await c.execute(sql.DELETE_SUMMARY, (tenant, session))
            await c.execute(sql.END_LEASE, (tenant, session))
            return int(n)
        return await self._db.write(body)

    async def remove_session(self, tenant: str, session: str) -> bool:
        return await self._db.write(lambda c: _remove(c, tenant, session))

    async def forget(self, tenant: str, message_id: int) -> bool:
        async def body(c: Conn) -> bool:
            found = await (await c.execute(sql.SELECT_FOR_FORGET, (tenant, message_id))
                           ).fetchone()
            if found is None:
                return False
            session, rowid = str(found[0]), int(found[1])
            await c.execute(sql.LOCK_EXISTING_SESSION, (tenant, session))
            gone = await (await c.execute(sql.DELETE_MESSAGE, (tenant, rowid))).fetchone()
            if gone is None:
                return False  # forgotten by another writer meanwhile
            await c.execute(sql.UNCOUNT_MESSAGE, {"id": message_id, "size": int(gone[0]),
                                                  "tenant": tenant, "session": session})
            nxt = await c.execute(vsql.SELECT_NEXT_VECTOR, {"tenant": tenant,
                                                            "session": session,
                                                            "seq": message_id})
            for (after,) in await nxt.fetchall():
                await c.execute(vsql.DELETE_VECTOR, (tenant, after))
                await c.execute(vsql.ENQUEUE, (tenant, after, session))
            await c.execute(vsql.BUMP_VECTOR_VERSION, (tenant, session))
            return True
        return await self._db.write(body)

    async def purge_idle(self, prefix: str, idle_before: int) -> list[tuple[str, str]]:
        async def body(c: Conn) -> list[tuple[str, str]]:
            cur = await c.execute(sql.SELECT_IDLE_SESSIONS, (prefix, idle_before))
            victims = [(str(t), str(s)) for t, s in await cur.fetchall()]
            for tenant, session in victims:
                await _remove(c, tenant, session)
            return victims
        return await self._db.write(body)

    # -- reads -----------------------------------------------------------------------------

    async def recent(self, tenant: str, session: str, n: int) -> list[Message]:
        rows = await self._db.fetch(sql.SELECT_RECENT, (tenant, session, n))
        return [row_message(r) for r in reversed(rows)]

    async def window_and_summary(self, tenant: str, session: str,
                                 n: int) -> tuple[list[Message], Summary | None]:
        # Prepared on each connection's first use: every turn of every session runs it.
        rows = await self._db.fetch(sql.SELECT_WINDOW_AND_SUMMARY,
                                    {"tenant": tenant, "session": session, "n": n},
                                    prepare=True)
        window = sorted((row_message(r) for r in rows if r[0] is not None),
                        key=lambda m: m.id)
        summary = row_summary(rows[0][7:]) if rows and rows[0][7] is not None else None
        return window, summary

    async def get_summary(self, tenant: str, session: str) -> Summary | None:
        rows = await self._db.fetch(sql.SELECT_SUMMARY, (tenant, session))
        return row_summary(rows[0]) if rows else None

    async def get_message(self, tenant: str, message_id: int) -> Message | None:
        rows = await self._db.fetch(sql.SELECT_MESSAGE, (tenant, message_id))
        return row_message(rows[0]) if rows else None

    async def count_between(self, tenant: str, session: str, after: int, before: int) -> int:
        rows = await self._db.fetch(sql.COUNT_BETWEEN, (tenant, session, after, before))
        return int(rows[0][0])

    async def keys(self, tenant: str, message_ids: Sequence[int]) -> dict[int, str]:
        rows = await self._db.fetch(sql.SELECT_KEYS, (tenant, [int(i) for i in message_ids]))
        return {int(i): str(k) for i, k in rows}

    async def around(self, tenant: str, message_ids: Sequence[int], before: int,
                     after: int) -> dict[int, list[Message]]:
        async def body(c: Conn) -> dict[int, list[Message]]:
            out: dict[int, list[Message]] = {}
            for mid in message_ids:
                row = await (await c.execute(sql.SELECT_MESSAGE, (tenant, mid))).fetchone()
                if row is None:
                    continue
                session = row[1]
                older = await (await c.execute(sql.SELECT_BEFORE,
                                               (tenant, session, mid, before))).fetchall()
                newer = await (await c.execute(sql.SELECT_AFTER,
                                               (tenant, session, mid, after))).fetchall()
                out[mid] = [row_message(r) for r in [*reversed(older), row, *newer]]
            return out
        return await self._db.read(body)

    async def keyword(self, tenant: str, session: str | None, match: str | None, raw: str, *,
                      since: int | None, limit: int) -> list[KeywordRow]:
        terms = match_terms(match)
        words = query_phrase(raw)
        phrase = [] if words is None else [fold(words)]
        # No stored text holds NUL (PostgreSQL cannot store it): such a literal matches nothing.
        needles = list(dict.fromkeys(ascii_lower(x) for x in query_literals(raw)
                                     if "\x00" not in x))
        low = since if since is not None else _MIN_ID

        async def body(c: Conn) -> list[KeywordRow]:
            sub: list[Any] = []
            if session is not None:
                ranked = await _fts_session(c, tenant, session, terms, low, limit)
                phrased = await _fts_session(c, tenant, session, phrase, low, limit)
                if needles:
                    sub = await (await c.execute(sql.SELECT_HOT_SUBSTRING_SESSION, {
                        "tenant": tenant, "session": session,
                        "span": _SESSION_SUBSTRING_SPAN, "low": low, "needles": needles,
                        "limit": limit})).fetchall()
            else:
                top = int((await (await c.execute(sql.SELECT_TENANT_MAX_ID, (tenant,))
                                  ).fetchall())[0][0])
                ranked = await _fts_tenant(c, tenant, terms, low, limit, top)
                phrased = await _fts_tenant(c, tenant, phrase, low, limit, top)
                if needles:
                    # Never prepared (nor in ``_fts_tenant``): a generic plan, blind to the
                    # span's lower bound, scanned every message of the tenant (0.8 s at 1M).
                    sub = await (await c.execute(sql.SELECT_HOT_SUBSTRING_TENANT, {
                        "tenant": tenant, "lo": top - _TENANT_SUBSTRING_SPAN, "low": low,
                        "needles": needles, "limit": limit}, prepare=False)).fetchall()
            return keyword_rows([(row_message(row), score) for row, score in ranked],
                                [(row_message(row), score) for row, score in phrased],
                                map(row_message, sub), raw, ascii_lower)
        return await self._db.read(body)

    async def page(self, tenant: str, session: str | None, *, since: int | None,
                   before_id: int | None, limit: int) -> list[Message]:
        low = since if since is not None else _MIN_ID
        high = before_id if before_id is not None else _MAX_ID
        if session is None:
            rows = await self._db.fetch(sql.SELECT_PAGE_TENANT, (tenant, high, low, limit))
        else:
            rows = await self._db.fetch(sql.SELECT_PAGE_SESSION,
                                        (tenant, session, high, low, limit))
        return [row_message(r) for r in rows]

    async def after_cursor(self, tenant: str, session: str, cursor: int | None,
                           upto: int | None = None, limit: int | None = None) -> list[Message]:
        rows = await self._db.fetch(sql.SELECT_AFTER_CURSOR, (
            tenant, session, cursor or 0, upto if upto is not None else _MAX_ID, limit))
        return [row_message(r) for r in rows]

    async def session(self, tenant: str, session: str) -> SessionRow | None:
        rows = await self._db.fetch(sql.SELECT_SESSION, (tenant, session))
        if not rows:
            return None
        r = rows[0]
        return SessionRow(id=r[0], messages=int(r[1]), hot_messages=int(r[2]),
                          hot_bytes=int(r[3]), cutoff=int(r[4]), first_at=r[5], last_at=r[6],
                          active_at=int(r[7]), summary_due=bool(r[8]))

    async def sessions(self, tenant: str, *, include_temp: bool = False) -> list[SessionInfo]:
        rows = await self._db.fetch(sql.SELECT_SESSIONS, (tenant, include_temp))
        return [SessionInfo(id=r[0], messages=int(r[1]), first_at=r[2], last_at=r[3],
                            has_summary=bool(r[4])) for r in rows]

    async def integrity_check(self) -> list[str]:
        """Sessions whose message counts disagree with their messages (PostgreSQL keeps its
        own pages and indexes consistent; what it cannot know is memstrata's counters)."""
        rows = await self._db.fetch(sql.SELECT_COUNTER_MISMATCHES, ())
        return [f"session {s!r} of tenant {t!r} counts {n} messages but holds {actual}"
                for t, s, n, actual in rows]

    async def tidy_keyword_index(self, seconds: float = 1.0) -> bool:
        """Nothing to do: the GIN index's pending entries are merged by PostgreSQL itself
        (autovacuum), and a session's search reads its own rows through the session index."""
        return False


# -- helpers run inside a transaction --------------------------------------------------------


async def _fts_session(c: Conn, tenant: str, session: str, terms: list[str], low: int,
                       limit: int) -> list[tuple[Any, float]]:
    if not terms:
        return []
    cur = await c.execute(sql.SELECT_FTS_SESSION, {"terms": terms, "tenant": tenant,
                                                   "session": session, "low": low,
                                                   "limit": limit})
    return [(r[:7], float(r[7])) for r in await cur.fetchall()]


async def _fts_tenant(c: Conn, tenant: str, terms: list[str], low: int, limit: int,
                      top: int) -> list[tuple[Any, float]]:
    """Full-text hits across the tenant, best first: the newest ``_TENANT_FTS_SPAN`` ids are
    ranked first and older ones only when those hold fewer than ``limit`` hits, since ranking
    every match of a common word in a large archive costs far more than the answer is worth."""
    if not terms:
        return []
    split = max(top - _TENANT_FTS_SPAN, 0)
    ranked: list[tuple[Any, float]] = []
    for lo, hi, statement in ((split, top, sql.SELECT_FTS_TENANT_NEWEST),
                              (0, split, sql.SELECT_FTS_TENANT)):
        if hi > lo and len(ranked) < limit:
            cur = await c.execute(statement, {
                "terms": terms, "tenant": tenant, "lo": lo, "hi": hi, "low": low,
                "limit": limit - len(ranked)}, prepare=False)
            ranked += [(r[:7], float(r[7])) for r in await cur.fetchall()]
    return ranked


async def _put_summary(c: Conn, tenant: str, s: Summary) -> None:
    await c.execute(sql.UPSERT_SUMMARY, (tenant, s.session, s.kind, json.dumps(
        s.body, ensure_ascii=False), s.cursor, s.created_at, s.tokens_in, s.tokens_out))


async def _remove(c: Conn, tenant: str, session: str) -> bool:
    await c.execute(sql.LOCK_EXISTING_SESSION, (tenant, session))
    await c.execute(sql.DELETE_SESSION_MESSAGES, (tenant, session))
    await c.execute(sql.DELETE_SUMMARY, (tenant, session))
    await c.execute(sql.DELETE_SUMMARY_RUN, (tenant, session))
    return bool((await c.execute(sql.DELETE_SESSION, (tenant, session))).rowcount)
