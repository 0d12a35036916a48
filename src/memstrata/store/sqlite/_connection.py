"""The one connection of a SQLite store, and its two entry points: ``read`` and ``write``.

Every part of the backend (messages, vectors, summary runs, error records) hands a function
of a ``sqlite3.Connection`` to :meth:`Connection.read` or :meth:`Connection.write`. The
function runs whole on aiosqlite's connection thread, so a store operation costs one hop from
the event loop and no other task can interleave statements inside it. Writes use ``BEGIN
IMMEDIATE`` (the write lock is taken up front, so two writers never deadlock on an upgrade)
with SQLite's busy timeout plus a retry loop, so "database is locked" never reaches the
caller while another process holds the lock for a while. Small writes that many callers make
at once (appends) may share a transaction and its commit (:meth:`Connection.write_together`,
``_group``). Driver errors become ``StoreError`` here (a full disk ``DiskFull``, a damaged
file ``DatabaseCorrupt``), and only here are aiosqlite's internals touched. Every write first
checks that the path still names the open file (``_identity``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, TypeVar

import aiosqlite

from ...errors import DatabaseCorrupt, DiskFull, StoreError
from . import _sql as sql
from ._functions import register
from ._group import WriteGroups
from ._identity import FileIdentity, empty_wal
from ._reserve import release, replenish
from ._schema import MIGRATIONS

__all__ = ["BUSY_TIMEOUT_S", "Connection", "store_error"]

T = TypeVar("T")

BUSY_TIMEOUT_S = 30.0
_LOCK_RETRIES = 8
_JOIN_TIMEOUT_S = 5.0
# SQLite's primary result codes (the low byte of an extended code).
_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_NOTADB = 26


class Connection:
    """A SQLite database opened for memstrata: configured, migrated, with two optional
    read-only connections: one for the smallest reads on the event loop, one with a thread of
    its own for the reads that must not wait behind a write (:meth:`read_aside`)."""

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn = conn
        # aiosqlite runs callables on its thread against this sqlite3 connection.
        self._raw: sqlite3.Connection = conn._conn
        self._reader: sqlite3.Connection | None = None
        # A read-only connection on a thread of its own, for the reads every request makes
        # (quotas, /readyz): they never queue behind the writer's thread.
        self._aside: sqlite3.Connection | None = None
        self._aside_thread: ThreadPoolExecutor | None = None
        self._identity: FileIdentity | None = None
        self._groups = WriteGroups(
            together=lambda group: self._call(_Transaction(group, write=True,
                                                           identity=self._identity)),
            alone=self.write)
        self.path = path

    @classmethod
    async def open(cls, path: str, *, durability: str = "normal") -> Connection:
        conn = aiosqlite.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S,
                                 check_same_thread=False)
        try:
            await conn
        except BaseException as exc:
            _join_thread(conn)
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"cannot open SQLite database {path!r}: {exc}") from exc
            raise
        db = cls(conn, path)
        try:
            # Refused before anything is configured, so another application's file keeps its
            # journal mode as well as its tables.
            await db._call(_refuse_foreign(path))
            await db._call(register)
            await db._call(_configurer(path, durability))
            await db.write(_migrator(path))
            db._identity = FileIdentity.of(path)
            if db._identity is not None:  # a file on disk, not memory or a URI
                replenish(path)
            db._reader = _open_reader(path)
            db._aside = _open_reader(path)
            if db._aside is not None:
                db._aside_thread = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="memstrata-sqlite-aside")
        except BaseException:
            try:
                await conn.close()
            finally:
                _join_thread(conn)
            raise
        return db

    async def close(self) -> None:
        await self._groups.drain()
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._aside_thread is not None:
            self._aside_thread.shutdown(wait=True)
            self._aside_thread = None
        if self._aside is not None:
            self._aside.close()
            self._aside = None
        if self._identity is not None and self._identity.moved():
            # So no file that replaced ours replays our WAL; best effort, the close goes on.
            with contextlib.suppress(StoreError):
                await self._call(empty_wal)
        await self._conn.close()

    def verify_file(self) -> None:
        """``StoreError`` when the path no longer names the file that is open."""
        if self._identity is not None:
            self._identity.verify()

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(connection)`` in one read transaction: its statements see one snapshot."""
        return await self._call(_Transaction(fn, write=False))

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(connection)`` in one write transaction, committed when it returns and rolled
        back when it raises."""
        return await self._call(_Transaction(fn, write=True, identity=self._identity))

    async def write_together(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Like :meth:`write`, but the transaction may also hold other such writes that
        arrived while the writer was busy, each undone alone when it raises (see
        :mod:`._group`): for the small writes many callers make at once."""
        return await self._groups.write(fn)

    async def write_freeing(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Like :meth:`write`, for a write that frees space (a delete): on a full disk the
        reserve is given back (see :mod:`._reserve`), the WAL checkpointed and restarted (so
        the next transaction reuses its space from the start), and the write tried once
        more."""
        try:
            return await self.write(fn)
        except DiskFull:
            if self._identity is None:
                raise  # in memory, or a URI: no reserve
            release(self.path)
            await self._call(_restart_wal)
            result = await self.write(fn)
            replenish(self.path)
            return result

    async def read_small(self, fn: Callable[[sqlite3.Connection], T], *,
                         one_statement: bool = False) -> T:
        """Like :meth:`read`, but for a few indexed lookups: run on the event loop through
        the read-only connection, which is cheaper than the hop to the writer's thread (a WAL
        reader never waits for a lock). ``one_statement``: ``fn`` runs a single statement,
        which is a transaction of its own, so no BEGIN and COMMIT are sent around it (they
        cost more than an indexed lookup). In-memory databases go through :meth:`read`."""
        if self._reader is None:
            return await self.read(fn)
        try:
            if one_statement:
                return fn(self._reader)
            return _Transaction(fn, write=False)(self._reader)
        except sqlite3.Error as exc:
            raise store_error(exc, self.path) from exc

    async def read_aside(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Like :meth:`read`, on a read-only connection with a thread of its own: a small read
        that must answer while a long write runs (a WAL reader never waits for a lock, and
        this one never waits in the writer's queue). In-memory databases go through
        :meth:`read`."""
        aside, thread = self._aside, self._aside_thread
        if aside is None or thread is None:
            return await self.read(fn)
        try:
            return await asyncio.get_running_loop().run_in_executor(
                thread, _Transaction(fn, write=False), aside)
        except sqlite3.Error as exc:
            raise store_error(exc, self.path) from exc

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        # The result comes back through ``box``, not as the callable's return value:
        # aiosqlite's thread keeps the last value it returned until its next call, which
        # would hold a large read (a tenant's rows) in memory after the caller let it go.
        box: list[T] = []

        def call(c: sqlite3.Connection) -> None:
            box.append(fn(c))

        try:
            # aiosqlite's queue runs one callable at a time on its thread.
            await self._conn._execute(call, self._raw)  # type: ignore[no-untyped-call]
            result = box.pop()
        except sqlite3.Error as exc:
            raise store_error(exc, self.path) from exc
        except ValueError as exc:
            if "closed" in str(exc).lower():
                raise StoreError("the database connection is closed") from exc
            raise
        return result


class _Transaction(Generic[T]):
    """A function of a connection wrapped in BEGIN … COMMIT (run on the connection's thread)."""

    def __init__(self, fn: Callable[[sqlite3.Connection], T], *, write: bool,
                 identity: FileIdentity | None = None) -> None:
        self._fn = fn
        self._write = write
        self._identity = identity

    def __call__(self, c: sqlite3.Connection) -> T:
        if self._write:
            _begin_immediate(c)
        else:
            c.execute("BEGIN")
        try:
            if self._identity is not None:
                self._identity.verify()  # under the write lock: the file we write is the path's
            result = self._fn(c)
            c.execute("COMMIT")
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise
        return result


def _restart_wal(c: sqlite3.Connection) -> None:
    """Copy the WAL into the database and have the next writer start it over (its file is
    kept, so its space is there to reuse); still full, the retry says so."""
    with contextlib.suppress(sqlite3.Error):
        c.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()


def store_error(exc: sqlite3.Error, path: str) -> StoreError:
    """The driver's error as memstrata's: a full disk and a damaged file by name (by SQLite's
    primary result code), anything else as a plain ``StoreError``."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary == _SQLITE_FULL:
        return DiskFull(f"the disk holding the database {path!r} is full ({exc}): this write "
                        "was not stored; everything acknowledged before it is kept, and "
                        "writes work again once space is freed")
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or "decode to UTF-8" in str(exc):
        # memstrata stores only valid UTF-8 (refused where it enters): text that does not
        # decode was damaged in the file.
        return DatabaseCorrupt(f"the database file {path!r} is damaged ({exc}); "
                               "`memstrata check` names what is damaged and `memstrata "
                               "salvage` copies what can still be read into a new file")
    return StoreError(f"SQLite error: {exc}")


def _begin_immediate(c: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE, retrying with back-off while another connection holds the lock."""
    delay = 0.01
    for attempt in range(_LOCK_RETRIES + 1):
        try:
            c.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if ("locked" not in text and "busy" not in text) or attempt == _LOCK_RETRIES:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


def _join_thread(conn: aiosqlite.Connection) -> None:
    """Wait (briefly) for the connection's thread to end after a failed open.

    After a failed connect aiosqlite queues its thread's stop but does not wait for it; a
    thread that outlives the event loop (a CLI exits at once) dies printing "Event loop is
    closed". The stop is already queued and takes microseconds, so the join is short; it is
    bounded in case the driver hangs.
    """
    thread = getattr(conn, "_thread", None)
    if thread is not None and thread.is_alive():
        thread.join(_JOIN_TIMEOUT_S)


def _configurer(path: str, durability: str) -> Callable[[sqlite3.Connection], None]:
    def configure(c: sqlite3.Connection) -> None:
        if path != ":memory:" and not path.startswith("file::memory:"):
            c.execute("PRAGMA journal_mode=WAL")
        c.execute(f"PRAGMA synchronous={'FULL' if durability == 'full' else 'NORMAL'}")
        c.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        c.execute("PRAGMA cache_size=-32768")
        c.execute("PRAGMA temp_store=MEMORY")
    return configure


def _open_reader(path: str) -> sqlite3.Connection | None:
    """A read-only connection for the hottest small reads (``None`` for an in-memory
    database, which only its own connection can see)."""
    if path == ":memory:" or path.startswith("file::memory:") or "mode=memory" in path:
        return None
    try:
        reader = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S,
                                 check_same_thread=False)
        register(reader)
        reader.execute("PRAGMA query_only=1")
        reader.execute("PRAGMA cache_size=-32768")
        # Reading the file through a memory map saves a system call and a copy per page.
        reader.execute("PRAGMA mmap_size=268435456")
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open a reader on {path!r}: {exc}") from exc
    return reader


def _refuse_foreign(path: str) -> Callable[[sqlite3.Connection], None]:
    """Refuse a database that is neither empty nor memstrata's (recognised by its
    ``schema_version`` table), so another application's file never gets memstrata's tables."""
    def check(c: sqlite3.Connection) -> None:
        try:
            names = [str(r[0]) for r in c.execute(sql.SELECT_SCHEMA_OBJECTS)]
            ours = "schema_version" in names and {
                str(r[0]) for r in c.execute(sql.SELECT_VERSION_COLUMNS)} == {"version",
                                                                             "applied_at"}
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path!r} is not a memstrata database: {exc}") from exc
        if names and not ours:
            shown = ", ".join(repr(n) for n in names[:3]) + (", …" if len(names) > 3 else "")
            raise StoreError(f"{path!r} is not a memstrata database: it holds another "
                             f"application's schema ({shown}) and no memstrata "
                             "schema_version table; memstrata opens only an empty file or its "
                             "own database, and changed nothing")
    return check


def _migrator(path: str) -> Callable[[sqlite3.Connection], None]:
    refuse = _refuse_foreign(path)

    def migrate(c: sqlite3.Connection) -> None:
        refuse(c)  # again inside the write transaction: nobody created tables meanwhile
        _migrate(c)
    return migrate


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
