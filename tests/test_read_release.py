"""A large read leaves nothing behind once its caller lets it go: the SQLite connection's
thread keeps no reference to the last result it returned, and a tenant read whole from the
store asks the C allocator to hand the freed heap back."""

from __future__ import annotations

import sqlite3
import weakref
from pathlib import Path

from memstrata.search._heap import release_freed_memory
from memstrata.store.sqlite._connection import Connection


class _Rows:
    """A stand-in for a large result (lists and tuples cannot be weakly referenced)."""


async def test_a_read_result_is_freed_when_its_caller_drops_it(tmp_path: Path) -> None:
    db = await Connection.open(str(tmp_path / "r.db"))
    try:
        def body(c: sqlite3.Connection) -> _Rows:
            c.execute("SELECT 1").fetchall()
            return _Rows()

        for call in (db.read, db.write):
            result = await call(body)
            gone = weakref.ref(result)
            del result
            # No collection: only a reference still held (the connection thread's last
            # return value) would keep it.
            assert gone() is None, call
    finally:
        await db.close()


def test_freed_memory_can_be_handed_back_here() -> None:
    # glibc (every machine this runs on): malloc_trim is there to ask.
    assert release_freed_memory() is True
