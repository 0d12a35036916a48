"""Group commit on SQLite: adds that arrive while the writer is busy share a transaction, each
answered after the commit that holds it; one that fails is undone alone."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path

from memstrata import Memory, Settings
from memstrata.errors import KeyConflict, StoreError
from memstrata.store.sqlite._connection import Connection


async def _table(path: str) -> Connection:
    db = await Connection.open(path)
    await db.write(lambda c: c.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER)"))
    return db


def _committed(path: str) -> int:
    outside = sqlite3.connect(path)
    try:
        return int(outside.execute("SELECT count(*) FROM t").fetchone()[0])
    finally:
        outside.close()


async def test_writes_that_queue_behind_a_busy_writer_share_one_commit(tmp_path: Path) -> None:
    path = str(tmp_path / "g.db")
    db = await _table(path)
    try:
        seen: list[int] = []

        def insert(n: int) -> Callable[[sqlite3.Connection], int]:
            def body(c: sqlite3.Connection) -> int:
                # What another connection sees: rows of this transaction are not there yet.
                seen.append(_committed(path))
                c.execute("INSERT INTO t VALUES (?)", (n,))
                return n
            return body

        got = await asyncio.gather(*(db.write_together(insert(n)) for n in range(20)))
        assert got == list(range(20))
        assert _committed(path) == 20
        # All 20 arrived before the writer took any: one transaction, none of whose rows
        # another connection saw before its commit.
        assert seen == [0] * 20
        # A write of a quiet moment runs alone; those queued behind it share the next commit.
        seen.clear()
        first = asyncio.create_task(db.write_together(insert(100)))
        await asyncio.sleep(0)  # the writer has taken it
        rest = [db.write_together(insert(100 + n)) for n in range(1, 6)]
        await asyncio.gather(first, *rest)
        assert seen == [20, 21, 21, 21, 21, 21]
    finally:
        await db.close()


async def test_a_write_that_raises_in_a_group_is_undone_alone(tmp_path: Path) -> None:
    path = str(tmp_path / "g.db")
    db = await _table(path)
    try:
        def insert(n: int, fail: bool = False) -> Callable[[sqlite3.Connection], int]:
            def body(c: sqlite3.Connection) -> int:
                c.execute("INSERT INTO t VALUES (?)", (n,))
                if fail:
                    raise ValueError(f"write {n} refused")
                return n
            return body

        calls = [db.write_together(insert(n, fail=n == 5)) for n in range(10)]
        got = await asyncio.gather(*calls, return_exceptions=True)
        assert isinstance(got[5], ValueError) and str(got[5]) == "write 5 refused"
        assert [g for i, g in enumerate(got) if i != 5] == [n for n in range(10) if n != 5]
        rows = sqlite3.connect(path).execute("SELECT n FROM t ORDER BY n").fetchall()
        assert [r[0] for r in rows] == [n for n in range(10) if n != 5]
    finally:
        await db.close()


async def test_a_database_error_in_a_group_runs_each_write_alone(tmp_path: Path) -> None:
    path = str(tmp_path / "g.db")
    db = await _table(path)
    try:
        def insert(n: int) -> Callable[[sqlite3.Connection], int]:
            def body(c: sqlite3.Connection) -> int:
                c.execute("INSERT INTO t VALUES (?)", (n,))
                return n
            return body

        def broken(c: sqlite3.Connection) -> int:
            c.execute("INSERT INTO t VALUES (-1)")
            c.execute("INSERT INTO no_such_table VALUES (1)")  # sqlite3.OperationalError
            return -1

        calls = [db.write_together(broken if n == 3 else insert(n))
                 for n in range(8)]
        got = await asyncio.gather(*calls, return_exceptions=True)
        assert isinstance(got[3], StoreError) and "no_such_table" in str(got[3])
        rows = sqlite3.connect(path).execute("SELECT n FROM t ORDER BY n").fetchall()
        assert [r[0] for r in rows] == [n for n in range(8) if n != 3]
    finally:
        await db.close()


async def test_close_waits_for_the_queued_writes(tmp_path: Path) -> None:
    path = str(tmp_path / "g.db")
    db = await _table(path)

    def insert(c: sqlite3.Connection) -> None:
        c.execute("INSERT INTO t VALUES (1)")

    tasks = [asyncio.create_task(db.write_together(insert)) for _ in range(30)]
    await asyncio.sleep(0)  # every write is queued, the first one running
    await asyncio.wait_for(db.close(), 30)
    await asyncio.gather(*tasks)
    assert _committed(path) == 30


async def test_concurrent_adds_each_get_their_own_answer(tmp_path: Path) -> None:
    settings = Settings(embedder=None, summary_cron=None)
    async with Memory.open(str(tmp_path / "m.db"), settings=settings,
                           background=False) as mem:
        first = await mem.add("s", "user", "the first words", key="k")

        async def add(i: int) -> object:
            if i == 7:  # the same key with other content: refused, alone
                return await mem.add("s", "user", "other words", key="k")
            if i == 8:  # the same key and content: the stored message again
                return await mem.add("s", "user", "the first words", key="k")
            return await mem.add(f"s{i % 3}", "user", f"message {i}")

        got = await asyncio.gather(*(add(i) for i in range(40)), return_exceptions=True)
        assert isinstance(got[7], KeyConflict)
        assert getattr(got[8], "id", None) == first.id
        stored = [g for i, g in enumerate(got) if i not in (7, 8)]
        assert len({m.id for m in stored}) == 38  # type: ignore[attr-defined]
        for s in ("s0", "s1", "s2"):
            texts = {m.content for m in await mem.recent(s, limit=32)}
            assert texts == {f"message {i}" for i in range(40)
                             if i % 3 == int(s[1]) and i not in (7, 8)}
        assert [m.content for m in await mem.recent("s", limit=32)] == ["the first words"]

