"""PostgreSQL on a full disk: reads go on and deletes succeed. The data directory is on a
size-limited tmpfs (root or ``unshare -rm`` needed, as in ``test_reliability_disk``), filled
until a write that needs a data file to grow is refused (``DiskFull``, SQLSTATE 53100); the
WAL keeps the space of its current segment, so the server stays up."""

from __future__ import annotations

import asyncio

from pg_disk import postgres_on_small_disk
from test_reliability_disk import MAX_ATTEMPTS, Disk

from memstrata import Memory, Settings
from memstrata.errors import DiskFull

SETTINGS = Settings(embedder=None, summary_cron=None)


def test_reads_and_deletes_work_on_a_full_disk_postgres() -> None:
    with postgres_on_small_disk("memstrata-pgreads-") as (server, disk):
        asyncio.run(_full(server.create_database("reads"), disk))


async def _full(url: str, disk: Disk) -> None:
    async with Memory.open(url, settings=SETTINGS, background=False) as mem:
        for session in ("keep", "drop"):
            await mem.add_many(session, [{"role": "user", "content": f"{session} {i} " +
                                          "x" * 400} for i in range(200)])
        one = (await mem.recent("keep", limit=1))[0].id
        await mem.errors.write(tool_name="fetch", keywords=["timeout"],
                               symptom="the fetch timed out", action="retry with a longer "
                               "timeout")
        disk.fill()
        refused = False
        for i in range(MAX_ATTEMPTS):
            try:
                await mem.add_many("keep", [{"role": "user", "content": f"more {i}-{k} " +
                                             "y" * 2000} for k in range(50)])
            except DiskFull:
                refused = True
                break
        assert refused, "the disk never filled"
        # Reads never write.
        assert {s.id for s in await mem.sessions()} == {"keep", "drop"}
        assert (await mem.stats("drop")).messages == 200
        assert len(await mem.recent("keep", limit=32)) == 32
        assert (await mem.context("keep")).messages
        assert await mem.search("keep", "keep", match="keyword")
        assert [r.tool_name for r in await mem.errors.search("timeout")] == ["fetch"]
        assert await mem.errors.list()
        # Deletes succeed, so space can be freed.
        assert await mem.forget(one)
        assert await mem.remove("drop")
        assert {s.id for s in await mem.sessions()} == {"keep"}
