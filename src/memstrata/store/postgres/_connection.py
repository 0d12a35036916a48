"""The connection pool of a PostgreSQL store, and its entry points ``read``, ``write`` and
``fetch``.

Every part of the backend hands an async function of a ``psycopg.AsyncConnection`` to
:meth:`Connection.read` (one ``REPEATABLE READ READ ONLY`` transaction: its statements see one
snapshot) or :meth:`Connection.write` (one ``READ COMMITTED`` transaction whose statements
take the row locks they need), or runs a single statement with :meth:`Connection.fetch` (one
statement reads one snapshot, so no BEGIN/COMMIT round trips). A write that loses a deadlock
or a serialisation conflict to another process is retried here, so that never reaches the
caller. Driver errors become ``StoreError`` here and nowhere else; the password of a URL is
never part of an error message.

A connection the server ended while it sat idle in the pool (a restart, a failover, an idle
timeout) is told apart from a live one without a round trip (:func:`_idle_and_open`), and a
call that still draws a dead one is run once more on a fresh connection when that is safe: a
read always, a write when the connection failed before its transaction began.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import select
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import ConnStatus, TransactionStatus
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool, PoolClosed, PoolTimeout

from ...errors import DatabaseUnavailable, DiskFull, StoreError
from ._migrate import migrate

__all__ = ["Conn", "Connection"]

T = TypeVar("T")
Conn = psycopg.AsyncConnection[TupleRow]

_POOL_MAX = 10
_CONNECT_TIMEOUT_S = 5
# How long a call waits for a connection from the pool before it fails: an unreachable server
# fails calls in seconds rather than holding every request (the pool keeps reconnecting in
# the background, so calls work again once the server is back). Under 5 s with what a call
# that lost its connection does before it waits (bench/pg_outage.py measures the longest).
_POOL_WAIT_S = 4.0
_DISK_FULL = "53100"  # disk_full: a data file could not be extended (the WAL panics instead)
_WRITE_RETRIES = 8


class Connection:
    """A PostgreSQL database opened for memstrata: migrated, with a pool of connections."""

    def __init__(self, pool: AsyncConnectionPool[Conn], where: str, *,
                 pgvector: bool) -> None:
        self._pool = pool
        self.where = where
        """``host:port/database`` of the server (no user, no password), for messages."""
        self.pgvector = pgvector
        """Whether vectors are stored in a pgvector ``vector`` column (else ``bytea``)."""

    @classmethod
    async def open(cls, url: str, *, durability: str = "normal") -> Connection:
        where = _describe(url)
        try:
            first = await psycopg.AsyncConnection.connect(url, autocommit=True,
                                                          connect_timeout=_CONNECT_TIMEOUT_S)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {where}: "
                             f"{_first_line(exc)}") from exc
        try:
            pgvector = await migrate(first, where)
        except psycopg.Error as exc:
            raise StoreError(f"cannot prepare the PostgreSQL database {where}: "
                             f"{_first_line(exc)}") from exc
        finally:
            await first.close()
        if pgvector and importlib.util.find_spec("pgvector") is None:
            raise StoreError(f"the database {where} stores vectors with pgvector, which needs "
                             "the pgvector package: pip install 'memstrata[postgres]'")

        async def configure(conn: Conn) -> None:
            if durability == "full":
                # "normal" keeps the server's own setting (on unless an admin changed it).
                await conn.execute("SET synchronous_commit = on")
            if pgvector:
                from pgvector.psycopg import register_vector_async
                await register_vector_async(conn)

        # ``check``: a connection is looked at before it is handed out (its socket, not a
        # query: see ``_idle_and_open``), so one the server dropped while it sat idle is
        # replaced there and then instead of failing the call that drew it.
        pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
            url, min_size=1, max_size=_POOL_MAX, open=False, configure=configure,
            check=_check_idle, timeout=_POOL_WAIT_S,
            kwargs={"autocommit": True, "connect_timeout": _CONNECT_TIMEOUT_S},
            name=f"memstrata {where}")
        try:
            await pool.open(wait=True, timeout=_CONNECT_TIMEOUT_S * 6)
        except psycopg.Error as exc:
            await pool.close()
            raise StoreError(f"cannot open connections to PostgreSQL at {where}: "
                             f"{_first_line(exc)}") from exc
        return cls(pool, where, pgvector=pgvector)

    async def close(self) -> None:
        await self._pool.close()

    async def read(self, fn: Callable[[Conn], Awaitable[T]]) -> T:
        """``await fn(connection)`` in one read-only transaction that sees one snapshot."""
        async def once() -> T:
            async with self._pool.connection() as conn:
                await conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                try:
                    result = await fn(conn)
                except psycopg.Error:
                    await conn.execute("ROLLBACK")
                    raise
                # Anything else (a cancellation) leaves the transaction open: the pool rolls
                # back a connection returned in one, or closes it if a query is still running.
                await conn.execute("COMMIT")
                return result
        return await self._reading(once)

    async def write(self, fn: Callable[[Conn], Awaitable[T]]) -> T:
        """``await fn(connection)`` in one transaction, committed when it returns and rolled
        back when it raises; retried from the start after a deadlock or serialisation
        failure (so ``fn`` must do nothing outside the database that it cannot repeat)."""
        delay = 0.01
        fresh_tries = 1
        for attempt in range(_WRITE_RETRIES + 1):
            began = False
            try:
                async with self._pool.connection() as conn, conn.transaction():
                    began = True
                    return await fn(conn)
            except (pg_errors.DeadlockDetected, pg_errors.SerializationFailure) as exc:
                if attempt == _WRITE_RETRIES:
                    raise _store_error(exc, self.where) from exc
            except psycopg.Error as exc:
                # Dead before BEGIN went through: nothing was sent that could commit, so the
                # call runs again on a fresh connection. A connection lost later fails the
                # call (its commit may or may not have happened).
                if began or fresh_tries == 0 or not _stale(exc):
                    raise _store_error(exc, self.where) from exc
                fresh_tries -= 1
                await self._drop_dead()
                continue
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)
        raise AssertionError("unreachable")  # pragma: no cover

    async def fetch(self, statement: str, params: Sequence[Any] | dict[str, Any], *,
                    prepare: bool | None = None) -> list[TupleRow]:
        """The rows of one statement, run on its own (one statement, one snapshot);
        ``prepare=True`` prepares it on the connection's first use (else psycopg prepares a
        statement on its fifth)."""
        async def once() -> list[TupleRow]:
            async with self._pool.connection() as conn:
                cur = await conn.execute(statement, params, prepare=prepare)
                return await cur.fetchall() if cur.description is not None else []
        return await self._reading(once)

    async def _reading(self, once: Callable[[], Awaitable[T]]) -> T:
        """``once()``, a read, run a second time after the pool dropped its dead connections
        when the first run lost its connection (a read may always run again)."""
        try:
            return await once()
        except psycopg.Error as exc:
            if not _stale(exc):
                raise _store_error(exc, self.where) from exc
        await self._drop_dead()
        try:
            return await once()
        except psycopg.Error as exc:
            raise _store_error(exc, self.where) from exc

    async def _drop_dead(self) -> None:
        """Test every idle connection of the pool (one empty query each) and replace the
        ones that fail: after one was found dead, the others most likely are too."""
        # The pool replaces what it could not check; the retry will tell.
        with contextlib.suppress(psycopg.Error):
            await self._pool.check()


async def _check_idle(conn: Conn) -> None:
    """The pool's ``check``: raise when ``conn`` cannot serve a call (see
    ``_idle_and_open``)."""
    if not _idle_and_open(conn):
        # Closed here so that the pool discards it and connects anew: handed back open, the
        # pool would offer the same dead connection again, and again, until the server's
        # restart no longer matters (every call timing out after it).
        await conn.close()
        raise psycopg.OperationalError("the server ended this connection while it was idle")


def _idle_and_open(conn: Conn) -> bool:
    """Whether ``conn`` is open, idle and has nothing waiting on its socket, found without a
    round trip. An idle connection receives nothing unless the server is ending it (a
    shutdown or termination sends an error and closes the socket; memstrata never LISTENs),
    so anything readable means the connection is gone or going."""
    pgconn = conn.pgconn
    if conn.closed or pgconn.status != ConnStatus.OK or \
            pgconn.transaction_status != TransactionStatus.IDLE:
        return False
    try:
        fd = pgconn.socket
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            return not poller.poll(0)
        return not select.select([fd], [], [], 0)[0]  # pragma: no cover (no poll: Windows)
    except (OSError, ValueError, psycopg.Error):
        return False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _store_error(exc: psycopg.Error, where: str) -> StoreError:
    if isinstance(exc, PoolClosed):
        return StoreError(f"the PostgreSQL connection pool for {where} is closed")
    if isinstance(exc, PoolTimeout):
        return DatabaseUnavailable(f"no connection to PostgreSQL at {where} could be had in "
                                   f"time (is the server running?): {_first_line(exc)}")
    if _lost(exc):
        # The server went away under the call (stopped, restarted, the network): the pool
        # drops the connection and opens new ones by itself, so the next call can succeed.
        # A write cut at its commit may or may not have been stored.
        return DatabaseUnavailable(f"lost the connection to PostgreSQL at {where} "
                                   f"({_first_line(exc)}); the call was cut off")
    if exc.sqlstate == _DISK_FULL:
        return DiskFull(f"the disk of the PostgreSQL server at {where} is full "
                        f"({_first_line(exc)}): this write was not stored; writes work again "
                        "once space is freed")
    code = f" [{exc.sqlstate}]" if exc.sqlstate else ""
    return StoreError(f"PostgreSQL error{code} at {where}: {_first_line(exc)}")


def _stale(exc: psycopg.Error) -> bool:
    """Whether ``exc`` is a lost connection (not the pool refusing or timing out), the case a
    second run on a fresh connection can cure."""
    return _lost(exc) and not isinstance(exc, PoolClosed | PoolTimeout)


def _lost(exc: psycopg.Error) -> bool:
    """Whether ``exc`` says the connection itself failed: no SQLSTATE from a server (the
    socket closed) or class 08 (connection exception) or 57P (operator intervention:
    shutdown, crash, termination)."""
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate
    return state is None or state.startswith(("08", "57P"))


def _describe(url: str) -> str:
    """``host:port/database`` of a connection URL, leaving out the user and password."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.Error as exc:
        raise StoreError(f"not a valid PostgreSQL URL: {_first_line(exc)}") from exc
    host = str(parts.get("host") or "localhost")
    port = str(parts.get("port") or "5432")
    return f"{host}:{port}/{parts.get('dbname') or '(default database)'}"
