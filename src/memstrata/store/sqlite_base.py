"""What every SQLite store module runs on the connection's thread: transactions with lock
retries, row conversion, connection setup and migrations."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..errors import StoreError
from ..types import Message, Summary
from . import sql
from .schema import MIGRATIONS

__all__ = ["BUSY_TIMEOUT_S", "ascii_lower", "configure", "migrate", "open_reader", "read",
           "row_message", "row_summary", "write"]

T = TypeVar("T")

BUSY_TIMEOUT_S = 30.0
_LOCK_RETRIES = 8
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """Lower-case like SQLite's built-in ``lower()`` (ASCII only), so both sides agree."""
    return text.translate(_ASCII_LOWER)


def _is_lock_error(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


# Message is a frozen dataclass with slots; filling its slots directly skips the generated
# __init__'s per-field checks, which matters when every context() builds a window of them.
_MESSAGE_SLOTS = tuple(Message.__dict__[name].__set__
                       for name in ("id", "session", "role", "content", "sender", "at"))
_SET_META = Message.__dict__["meta"].__set__
_new = object.__new__


def row_message(row: Sequence[Any]) -> Message:
    """A Message from a row in the column order of ``sql.MESSAGE_COLUMNS``."""
    m: Message = _new(Message)
    for put, value in zip(_MESSAGE_SLOTS, row, strict=False):
        put(m, value)
    _SET_META(m, json.loads(row[6]) if row[6] is not None else None)
    return m


def row_summary(row: Sequence[Any]) -> Summary:
    return Summary(session=row[0], kind=row[1], body=json.loads(row[2]), cursor=row[3],
                   created_at=row[4], tokens_in=row[5], tokens_out=row[6])


def write(conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], T]) -> T:
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


def read(conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``body`` in one read transaction, so its statements see one snapshot."""
    conn.execute("BEGIN")
    try:
        return body(conn)
    finally:
        conn.execute("COMMIT")


def configure(c: sqlite3.Connection, path: str, durability: str) -> None:
    if path != ":memory:" and not path.startswith("file::memory:"):
        c.execute("PRAGMA journal_mode=WAL")
    c.execute(f"PRAGMA synchronous={'FULL' if durability == 'full' else 'NORMAL'}")
    c.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    c.execute("PRAGMA cache_size=-32768")
    c.execute("PRAGMA temp_store=MEMORY")


def open_reader(path: str) -> sqlite3.Connection | None:
    """A read-only connection used directly on the event loop for the hottest small reads
    (``None`` for an in-memory database, which only its own connection can see)."""
    if path == ":memory:" or path.startswith("file::memory:") or "mode=memory" in path:
        return None
    try:
        reader = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S,
                                 check_same_thread=False)
        reader.execute("PRAGMA query_only=1")
        reader.execute("PRAGMA cache_size=-32768")
        # Reading the file through a memory map saves a system call and a copy per page.
        reader.execute("PRAGMA mmap_size=268435456")
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open a reader on {path!r}: {exc}") from exc
    return reader


def migrate(c: sqlite3.Connection) -> None:
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
