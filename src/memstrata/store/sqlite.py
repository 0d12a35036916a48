"""The SQLite store: one database file (or ``:memory:``) behind aiosqlite.

Each store call runs as one function on aiosqlite's connection thread, so a transaction costs a
single hop from the event loop and no other task can interleave statements inside it. Writes use
``BEGIN IMMEDIATE`` (the write lock is taken up front, so two writers never deadlock on an
upgrade) with SQLite's busy timeout plus a retry loop, so "database is locked" never reaches
the caller while another process holds the lock for a while.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import aiosqlite

from ..compaction import CompactionPolicy, HotRow, decide, is_due
from ..errors import StoreError
from ..types import Draft, Message, SessionInfo, Summary
from . import sql
from .base import KeywordRow, SessionRow
from .schema import MIGRATIONS

if TYPE_CHECKING:
    from .sqlite_runs import SQLiteRuns
    from .sqlite_vectors import SQLiteVectors

__all__ = ["SQLiteStore"]

T = TypeVar("T")

_BUSY_TIMEOUT_S = 30.0
_LOCK_RETRIES = 8
# How far back the substring scan of the hot tier looks: the newest messages of a session, or
# a span of the newest ids across the tenant. FTS5 covers the whole archive either way.
_SESSION_SUBSTRING_SPAN = 5_000
_TENANT_SUBSTRING_SPAN = 20_000
# Across a tenant, FTS5 ranks this many of the newest ids first (see ``_fts``).
_TENANT_FTS_SPAN = 100_000
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """Lower-case like SQLite's built-in ``lower()`` (ASCII only), so both sides agree."""
    return text.translate(_ASCII_LOWER)


def _is_lock_error(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _row_message(row: Sequence[Any]) -> Message:
    # Column order of sql.MESSAGE_COLUMNS.
    return Message(id=row[0], session=row[1], role=row[2], content=row[3], sender=row[4],
                   at=row[5], meta=json.loads(row[6]) if row[6] is not None else None)


def _row_summary(row: Sequence[Any]) -> Summary:
    return Summary(session=row[0], kind=row[1], body=json.loads(row[2]), cursor=row[3],
                   created_at=row[4], tokens_in=row[5], tokens_out=row[6])


def _write(conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``body`` inside BEGIN IMMEDIATE … COMMIT, retrying while the lock is held."""
    delay = 0.01
    for attempt in range(_LOCK_RETRIES + 1):
        try:
            conn.execute("BEGIN IMMEDIATE")
            break
        except sqlite3.OperationalError as exc:
            if not _is_lock_error(exc) or attempt == _LOCK_RETRIES:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
    try:
        result = body(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result


def _read(conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``body`` in one read transaction, so its statements see one snapshot."""
    conn.execute("BEGIN")
    try:
        return body(conn)
    finally:
        conn.execute("COMMIT")


class SQLiteStore:
    """A memstrata store on SQLite (WAL, FTS5). Open with ``await SQLiteStore.open(path)``."""

    def __init__(self, conn: aiosqlite.Connection, raw: sqlite3.Connection, path: str) -> None:
        self._conn = conn
        self._raw = raw
        self.path = path
        self._vectors: SQLiteVectors | None = None
        self._reader: sqlite3.Connection | None = None
        self._runs: SQLiteRuns | None = None

    # -- lifecycle -------------------------------------------------------------------------

    @classmethod
    async def open(cls, path: str, *, durability: str = "normal") -> SQLiteStore:
        try:
            conn = await aiosqlite.connect(path, isolation_level=None, timeout=_BUSY_TIMEOUT_S,
                                           check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open SQLite database {path!r}: {exc}") from exc
        raw: sqlite3.Connection = conn._conn
        store = cls(conn, raw, path)
        try:
            await store._run(lambda c: _configure(c, path, durability))
            await store._run(lambda c: _write(c, _migrate))
            store._reader = _open_reader(path)
        except BaseException:
            await conn.close()
            raise
        return store

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        await self._conn.close()

    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(connection)`` on the connection's thread; translate driver errors."""
        try:
            # aiosqlite's queue runs one callable at a time on its thread: a whole store
            # operation per hop, with nothing interleaved.
            result: T = await self._conn._execute(fn, self._raw)  # type: ignore[no-untyped-call]
        except sqlite3.Error as exc:
            raise StoreError(f"SQLite error: {exc}") from exc
        except ValueError as exc:
            if "closed" in str(exc).lower():
                raise StoreError("the database connection is closed") from exc
            raise
        return result

    # -- writes ----------------------------------------------------------------------------

    @property
    def vectors(self) -> SQLiteVectors:
        """Vector storage and the indexer's queue, on the same connection."""
        from .sqlite_vectors import SQLiteVectors

        if self._vectors is None:
            self._vectors = SQLiteVectors(self)
        return self._vectors

    @property
    def runs(self) -> SQLiteRuns:
        """Summary progress, leases and back-off, on the same connection."""
        from .sqlite_runs import SQLiteRuns

        if self._runs is None:
            self._runs = SQLiteRuns(self)
        return self._runs

    async def append(self, tenant: str, session: str, drafts: Sequence[Draft], *, now: int,
                     policy: CompactionPolicy, index: bool = False) -> list[Message]:
        return await self._run(lambda c: _write(
            c, lambda c2: _append(c2, tenant, session, drafts, now, policy, index)))

    async def import_session(self, tenant: str, session: str, drafts: Sequence[Draft],
                             summary_for: Callable[[list[Message]], Summary | None] | None,
                             *, now: int, policy: CompactionPolicy,
                             index: bool = False) -> list[Message]:
        def body(c: sqlite3.Connection) -> list[Message]:
            out = _append(c, tenant, session, drafts, now, policy, index) if drafts else []
            summary = summary_for(out) if summary_for is not None else None
            if summary is not None:
                _put_summary(c, tenant, summary)
                _touch_session(c, tenant, session, now)
            return out
        return await self._run(lambda c: _write(c, body))

    async def put_summary(self, tenant: str, summary: Summary) -> None:
        await self._run(lambda c: _write(c, lambda c2: _put_summary(c2, tenant, summary)))

    async def delete_messages(self, tenant: str, session: str, *, keep_summary: bool) -> int:
        def body(c: sqlite3.Connection) -> int:
            n = c.execute(sql.DELETE_SESSION_MESSAGES, (tenant, session)).rowcount
            c.execute(sql.CLEAR_SESSION_COUNTERS, (tenant, session))
            c.execute(sql.BUMP_VECTOR_VERSION, (tenant, session))
            if not keep_summary:
                c.execute(sql.DELETE_SUMMARY, (tenant, session))
            return int(n)
        return await self._run(lambda c: _write(c, body))

    async def remove_session(self, tenant: str, session: str) -> bool:
        return await self._run(lambda c: _write(c, lambda c2: _remove(c2, tenant, session)))

    async def forget(self, tenant: str, message_id: int) -> bool:
        def body(c: sqlite3.Connection) -> bool:
            row = c.execute(sql.SELECT_FOR_FORGET, (tenant, message_id)).fetchone()
            if row is None:
                return False
            session, size = row
            c.execute(sql.DELETE_MESSAGE, (message_id,))
            c.execute(sql.UNCOUNT_MESSAGE, (message_id, message_id, size, tenant, session))
            c.execute(sql.BUMP_VECTOR_VERSION, (tenant, session))
            return True
        return await self._run(lambda c: _write(c, body))

    async def purge_idle(self, prefix: str, idle_before: int) -> list[tuple[str, str]]:
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"

        def body(c: sqlite3.Connection) -> list[tuple[str, str]]:
            victims = [(str(t), str(s)) for t, s in
                       c.execute(sql.SELECT_IDLE_SESSIONS, (pattern, idle_before))]
            for tenant, session in victims:
                _remove(c, tenant, session)
            return victims
        return await self._run(lambda c: _write(c, body))

    # -- reads -----------------------------------------------------------------------------

    async def recent(self, tenant: str, session: str, n: int) -> list[Message]:
        rows = await self._run(lambda c: c.execute(sql.SELECT_RECENT, (tenant, session, n))
                               .fetchall())
        return [_row_message(r) for r in reversed(rows)]

    async def window_and_summary(self, tenant: str, session: str,
                                 n: int) -> tuple[list[Message], Summary | None]:
        def body(c: sqlite3.Connection) -> tuple[list[Any], Any]:
            return (c.execute(sql.SELECT_RECENT, (tenant, session, n)).fetchall(),
                    c.execute(sql.SELECT_SUMMARY, (tenant, session)).fetchone())
        if self._reader is not None:
            # Two indexed lookups of a few rows take tens of microseconds: cheaper on the event
            # loop than the hop to the writer's thread, and a WAL reader never waits for a lock.
            try:
                rows, srow = _read(self._reader, body)
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite error: {exc}") from exc
        else:
            rows, srow = await self._run(lambda c: _read(c, body))
        return ([_row_message(r) for r in reversed(rows)],
                _row_summary(srow) if srow is not None else None)

    async def get_summary(self, tenant: str, session: str) -> Summary | None:
        row = await self._run(lambda c: c.execute(sql.SELECT_SUMMARY, (tenant, session))
                              .fetchone())
        return _row_summary(row) if row is not None else None

    async def get_message(self, tenant: str, message_id: int) -> Message | None:
        row = await self._run(lambda c: c.execute(sql.SELECT_MESSAGE, (tenant, message_id))
                              .fetchone())
        return _row_message(row) if row is not None else None

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
                out[mid] = [_row_message(r) for r in [*reversed(older), row, *newer]]
            return out
        return await self._run(lambda c: _read(c, body))

    async def keyword(self, tenant: str, session: str | None, match: str | None, raw: str, *,
                      since: int | None, limit: int) -> list[KeywordRow]:
        needle = ascii_lower(raw)
        low = since if since is not None else -(2**63)

        def body(c: sqlite3.Connection) -> list[KeywordRow]:
            top = int(c.execute(sql.SELECT_MAX_ID).fetchone()[0] or 0)
            ranked = _fts(c, tenant, session, match, low, limit, top)
            if session is not None:
                sub = c.execute(sql.SELECT_HOT_SUBSTRING_SESSION,
                                (tenant, session, _SESSION_SUBSTRING_SPAN, low, needle,
                                 limit)).fetchall()
            else:
                sub = c.execute(sql.SELECT_HOT_SUBSTRING_TENANT,
                                (tenant, top - _TENANT_SUBSTRING_SPAN, low, needle,
                                 limit)).fetchall()
            hot_ids = {r[0] for r in sub}
            out: dict[int, KeywordRow] = {}
            for row, score in ranked:
                m = _row_message(row)
                out[m.id] = KeywordRow(message=m, bm25=score, hot=m.id in hot_ids,
                                       exact=needle in ascii_lower(m.content))
            for row in sub:
                if row[0] not in out:
                    out[row[0]] = KeywordRow(message=_row_message(row), bm25=0.0, exact=True,
                                             hot=True)
            return list(out.values())
        return await self._run(lambda c: _read(c, body))

    async def page(self, tenant: str, session: str | None, *, since: int | None,
                   before_id: int | None, limit: int) -> list[Message]:
        low = since if since is not None else -(2**63)
        high = before_id if before_id is not None else 2**63 - 1
        if session is None:
            rows = await self._run(lambda c: c.execute(
                sql.SELECT_PAGE_TENANT, (tenant, high, low, limit)).fetchall())
        else:
            rows = await self._run(lambda c: c.execute(
                sql.SELECT_PAGE_SESSION, (tenant, session, high, low, limit)).fetchall())
        return [_row_message(r) for r in rows]

    async def after_cursor(self, tenant: str, session: str, cursor: int | None,
                           upto: int | None = None, limit: int | None = None) -> list[Message]:
        params = (tenant, session, cursor or 0, upto if upto is not None else 2**63 - 1,
                  limit if limit is not None else -1)
        rows = await self._run(lambda c: c.execute(sql.SELECT_AFTER_CURSOR, params).fetchall())
        return [_row_message(r) for r in rows]

    async def session(self, tenant: str, session: str) -> SessionRow | None:
        row = await self._run(lambda c: c.execute(sql.SELECT_SESSION, (tenant, session))
                              .fetchone())
        if row is None:
            return None
        return SessionRow(id=row[0], messages=row[1], hot_messages=row[2], hot_bytes=row[3],
                          cutoff=row[4], first_at=row[5], last_at=row[6], active_at=row[7],
                          summary_due=bool(row[8]))

    async def sessions(self, tenant: str, *, include_temp: bool = False) -> list[SessionInfo]:
        rows = await self._run(lambda c: c.execute(
            sql.SELECT_SESSIONS, (tenant, int(include_temp))).fetchall())
        return [SessionInfo(id=r[0], messages=r[1], first_at=r[2], last_at=r[3],
                            has_summary=bool(r[4])) for r in rows]

    async def integrity_check(self) -> list[str]:
        def body(c: sqlite3.Connection) -> list[str]:
            problems = [str(r[0]) for r in c.execute("PRAGMA integrity_check")
                        if str(r[0]) != "ok"]
            try:
                c.execute("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
            except sqlite3.DatabaseError as exc:
                problems.append(f"full-text index: {exc}")
            return problems
        return await self._run(body)


# -- helpers that run on the connection thread ---------------------------------------------


def _configure(c: sqlite3.Connection, path: str, durability: str) -> None:
    if path != ":memory:" and not path.startswith("file::memory:"):
        c.execute("PRAGMA journal_mode=WAL")
    c.execute(f"PRAGMA synchronous={'FULL' if durability == 'full' else 'NORMAL'}")
    c.execute(f"PRAGMA busy_timeout={int(_BUSY_TIMEOUT_S * 1000)}")
    c.execute("PRAGMA cache_size=-32768")
    c.execute("PRAGMA temp_store=MEMORY")


def _open_reader(path: str) -> sqlite3.Connection | None:
    """A read-only connection used directly on the event loop for the hottest small reads
    (``None`` for an in-memory database, which only its own connection can see)."""
    if path == ":memory:" or path.startswith("file::memory:") or "mode=memory" in path:
        return None
    try:
        reader = sqlite3.connect(path, isolation_level=None, timeout=_BUSY_TIMEOUT_S,
                                 check_same_thread=False)
        reader.execute("PRAGMA query_only=1")
        reader.execute("PRAGMA cache_size=-8192")
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open a reader on {path!r}: {exc}") from exc
    return reader


def _migrate(c: sqlite3.Connection) -> None:
    c.execute(sql.CREATE_VERSION_TABLE)
    row = c.execute(sql.SELECT_VERSION).fetchone()
    version = int(row[0]) if row is not None and row[0] is not None else 0
    if version > len(MIGRATIONS):
        raise StoreError(f"the database has schema version {version}, newer than this "
                         f"memstrata understands ({len(MIGRATIONS)}); upgrade memstrata")
    for step in range(version, len(MIGRATIONS)):
        for statement in _statements(MIGRATIONS[step]):
            c.execute(statement)
        c.execute(sql.INSERT_VERSION, (step + 1, time.time_ns()))


def _statements(script: str) -> list[str]:
    """Split a migration into statements (``sqlite3.complete_statement`` knows triggers)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def _fts(c: sqlite3.Connection, tenant: str, session: str | None, match: str | None,
         low: int, limit: int, top: int) -> list[tuple[Any, float]]:
    """FTS5 hits, best first. Across a tenant, the newest ``_TENANT_FTS_SPAN`` messages are
    ranked first and older ones only when those hold fewer than ``limit`` hits: ranking every
    match of a common word in a large archive costs far more than the answer is worth."""
    if match is None:
        return []
    expr = f'scope : "{_scope_token(tenant, session)}" AND body : ({match})'
    spans = [(0, top)] if session is not None else [
        (max(top - _TENANT_FTS_SPAN, 0), top), (0, max(top - _TENANT_FTS_SPAN, 0))]
    ranked: list[tuple[Any, float]] = []
    for lo, hi in spans:
        if hi <= lo or len(ranked) >= limit:
            continue
        ranked += [(r[:7], float(r[7])) for r in c.execute(
            sql.SELECT_FTS, (expr, lo, hi, tenant, low, limit - len(ranked)))]
    return ranked


def _scope_token(tenant: str, session: str | None) -> str:
    if session is None:
        return "t" + tenant.encode().hex().upper()
    return "s" + (tenant + "\x1f" + session).encode().hex().upper()


def _append(c: sqlite3.Connection, tenant: str, session: str, drafts: Sequence[Draft],
            now: int, policy: CompactionPolicy, index: bool) -> list[Message]:
    out: list[Message | None] = []
    fresh: list[tuple[int, Draft]] = []
    keyed = any(d.key is not None for d in drafts)
    if keyed:
        for d in drafts:
            if d.key is not None:
                row = c.execute(sql.SELECT_BY_KEY, (tenant, session, d.key)).fetchone()
                if row is not None:
                    out.append(_row_message(row))
                    continue
            cur = c.execute(sql.INSERT_MESSAGE, _insert_params(tenant, session, d))
            fresh.append((len(out), d))
            out.append(_message(int(cur.lastrowid or 0), session, d))
    else:
        # One writer holds the lock and ids come from AUTOINCREMENT, so a batch gets
        # consecutive ids ending at last_insert_rowid().
        c.executemany(sql.INSERT_MESSAGE, [_insert_params(tenant, session, d) for d in drafts])
        last = int(c.execute("SELECT last_insert_rowid()").fetchone()[0])
        first = last - len(drafts) + 1
        out = [_message(first + i, session, d) for i, d in enumerate(drafts)]
        fresh = list(enumerate(drafts))
    if fresh and index:
        c.executemany(sql.ENQUEUE, [(out[i].id, tenant, session)  # type: ignore[union-attr]
                                    for i, _ in fresh])
    if fresh:
        ats = [d.at for _, d in fresh]
        hot_count, hot_bytes, cutoff = c.execute(sql.UPSERT_SESSION_COUNTERS, (
            tenant, session, len(fresh), len(fresh), sum(d.size for _, d in fresh),
            min(ats), max(ats), now)).fetchone()
        if is_due(hot_count, hot_bytes, policy):
            _compact(c, tenant, session, cutoff, policy)
    return [m for m in out if m is not None]


def _compact(c: sqlite3.Connection, tenant: str, session: str, cutoff: int,
             policy: CompactionPolicy) -> None:
    hot = [HotRow(i, r, s) for i, r, s in c.execute(sql.SELECT_HOT_ROWS,
                                                     (tenant, session, cutoff))]
    verdict = decide(hot, policy)
    if verdict is None:
        return
    kept = [r for r in hot if r.id > verdict.cutoff]
    c.execute(sql.UPDATE_CUTOFF, (verdict.cutoff, len(kept), sum(r.size for r in kept),
                                  int(verdict.summary_due), tenant, session))
    # Vectors exist only for hot messages: the ones behind the new cutoff go, in this same
    # transaction, and so does their place in the indexer's queue.
    c.execute(sql.DROP_COLD_QUEUE, (tenant, session, verdict.cutoff))
    c.execute(sql.DROP_COLD_VECTORS, (tenant, session, verdict.cutoff))
    c.execute(sql.BUMP_VECTOR_VERSION, (tenant, session))


def _insert_params(tenant: str, session: str, d: Draft) -> tuple[Any, ...]:
    return (tenant, session, d.role, d.content, d.sender, d.at, d.meta_json, d.size,
            d.search_text, d.key)


def _message(mid: int, session: str, d: Draft) -> Message:
    return Message(id=mid, session=session, role=d.role, content=d.content, sender=d.sender,
                   at=d.at, meta=json.loads(d.meta_json) if d.meta_json is not None else None)


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
