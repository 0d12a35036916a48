"""PostgreSQL with its data directory on a full disk (a size-limited tmpfs, as in
``test_reliability_disk``; root or ``unshare -rm`` needed).

PostgreSQL refuses a write whose data file cannot grow with SQLSTATE 53100, which memstrata
raises as ``DiskFull``; the server stays up. When the WAL cannot get a new segment inside a
critical section the server panics, and its crash recovery fails for the same reason, so it
stays down until space is freed and it is started again. The promise: a clear error in each
state, nothing acknowledged lost, and the same ``Memory`` working again after the restart
(its connection pool replaces the connections the crash cut).
"""

from __future__ import annotations

import asyncio
import time

import pytest
from pg_disk import postgres_on_small_disk
from pg_server import PgServer
from test_reliability_disk import MAX_ATTEMPTS, Disk, Ledger

from memstrata import Memory, Settings
from memstrata.errors import DiskFull, StoreError


def test_full_disk_postgres_refuses_panics_and_recovers_after_restart() -> None:
    """PostgreSQL with its data directory on a full disk. A write that needs a data file to
    grow is refused with ``DiskFull`` (SQLSTATE 53100) and the server stays up. When the WAL
    cannot get a new segment the server panics, and its crash recovery fails for the same
    reason, so it stays down: memstrata reports that it cannot reach the server. Once space
    is freed and the server started again, the same Memory writes again and everything
    acknowledged is there."""
    with postgres_on_small_disk("memstrata-pgdisk-") as (server, disk):
        asyncio.run(_postgres_full(server, server.create_database("full"), disk))


async def _postgres_full(server: PgServer, url: str, disk: Disk) -> None:
    ledger = Ledger()
    async with Memory.open(url, settings=Settings(embedder=None, summary_cron=None),
                           background=False) as mem:
        items = ledger.items("pg", 20)
        await mem.add_many("pg", items)
        ledger.ack("pg", items)
        disk.fill()
        refused: DiskFull | None = None
        for _ in range(MAX_ATTEMPTS):
            items = ledger.items("pg", 20, 500)
            try:
                await mem.add_many("pg", items)
            except DiskFull as exc:
                refused = exc
                break
            ledger.ack("pg", items)
        assert refused is not None and "full" in str(refused)
        await ledger.verify(mem)  # the server is up, reads go on
        switches = _exhaust_wal(server)
        down = await _refused_while_down(mem)
        disk.free()
        server._launch()  # pg_ctl start: crash recovery replays the WAL, now that it can
        await _write_again(mem, ledger)
        await ledger.verify(mem)
    async with Memory.open(url, settings=Settings(embedder=None), background=False) as mem:
        await ledger.verify(mem)
    print(f"\nfull disk postgres: refusals=1 (53100 -> DiskFull) wal_switches_to_panic="
          f"{switches} panic=yes error_while_down={type(down).__name__} "
          f"messages_acknowledged={len(ledger.messages)} lost=0 recovered_after_restart=1")


def _exhaust_wal(server: PgServer) -> int:
    """Switch WAL segments until the server cannot create one and panics; returns the
    number of switches."""
    import psycopg

    switches = 0
    while True:
        switches += 1
        assert switches < 64, "the WAL never ran out of space"
        try:
            with psycopg.connect(server.url(), autocommit=True) as su:
                # A committed WAL record that needs no data file to grow (its commit is
                # flushed in a critical section, where a failed write is a PANIC), then the
                # next segment.
                su.execute("SELECT pg_logical_emit_message(true, 'memstrata', 'fill')")
                su.execute("SELECT pg_switch_wal()")
        except psycopg.errors.DiskFull:
            continue  # a segment refused outside a critical section: an ERROR, try again
        except psycopg.OperationalError as exc:
            assert exc.sqlstate is None, exc  # the connection died: no SQL error
            break
    deadline = time.monotonic() + 60
    while "database system is shut down" not in server.log_text():
        assert time.monotonic() < deadline, server.log_text()[-2000:]
        time.sleep(0.1)
    assert "PANIC" in server.log_text()
    return switches


async def _refused_while_down(mem: Memory) -> StoreError:
    with pytest.raises(StoreError) as caught:
        await mem.add("pg", "user", "while the server is down")
    assert "PostgreSQL" in str(caught.value)
    return caught.value


async def _write_again(mem: Memory, ledger: Ledger) -> None:
    """The first calls after the restart may meet connections the crash cut; the pool
    replaces them."""
    for _ in range(60):
        items = ledger.items("pg", 3)
        try:
            await mem.add_many("pg", items)
        except StoreError as exc:
            assert not isinstance(exc, DiskFull)
            await asyncio.sleep(0.5)
            continue
        ledger.ack("pg", items)
        return
    raise AssertionError("no write succeeded after the restart")
