"""The PostgreSQL backend's bulk append (``COPY``) and its pool's handling of connections the
server ended while idle, on a real server.

A batch of at least ``BULK_MIN`` new messages goes in through ``COPY`` with its ids taken from
the sequence first; smaller ones through one ``INSERT`` per message. Both must store the same
rows, down to the ``tsvector``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import psycopg
import pytest
from helpers import ManualClock
from pg_server import PgServer

from memstrata import Memory, Settings
from memstrata.providers import HashEmbedder
from memstrata.store.postgres import _sql as pg_sql
from memstrata.store.postgres._bulk import BULK_MIN
from memstrata.store.postgres._schema import MIGRATIONS

PLAIN = Settings(embedder=None, summary_cron=None)

ITEMS: list[dict[str, Any]] = [
    {"role": "user", "content": "The trains were running late again", "sender": "Mei"},
    {"role": "assistant", "content": "我妹妹想去花蓮看太魯閣。", "sender": None},
    {"role": "user", "content": "Café crème, naïve façade — Ærø", "meta": {"k": [1, "二"]}},
    {"role": "assistant", "content": "tab\tnew\nline \\ back\\slash \"quoted\" 'single'"},
    {"role": "user", "content": "mail me: someone@example.com or see https://x.y/z?q=1"},
    {"role": "assistant", "content": "東京タワーに行きました。ラーメンが美味しい！"},
    {"role": "user", "content": "emoji 🚆🏔️ and numbers 3.14 2026-04-14", "meta": {}},
    {"role": "assistant", "content": "Hyphen-ated words and under_scores stay searchable"},
]
ITEMS = [*ITEMS, *({"role": "user" if i % 2 else "assistant",
                    "content": f"note {i}: the budget review moved to Friday"}
                   for i in range(BULK_MIN))]
ROW = """
SELECT role, content, sender, at, meta::text, size, idem_key, fts::text, search
FROM messages WHERE tenant = %s AND session = %s ORDER BY id"""


def _rows(url: str, tenant: str, session: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(ROW, (tenant, session)).fetchall()


@pytest.mark.parametrize("extensions", [True, False], ids=["pgvector", "plain-role"])
async def test_bulk_and_single_appends_store_the_same_rows(
        pg_server: PgServer, clock: ManualClock, extensions: bool) -> None:
    url = pg_server.create_database("bulk", extensions=extensions)
    async with Memory.open(url, settings=PLAIN, background=False, clock=clock) as mem:
        bulk = await mem.add_many("bulk", ITEMS)
        single = [(await mem.add_many("single", [item]))[0] for item in ITEMS]
        assert [m.content for m in bulk] == [i["content"] for i in ITEMS]
        assert [m.meta for m in bulk] == [i.get("meta") for i in ITEMS]
        ids = [m.id for m in bulk]
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        assert [m.id for m in reversed(await mem.recent("bulk", limit=len(ITEMS)))] == ids
        stored = _rows(url, "default", "bulk")
        assert stored == _rows(url, "default", "single")
        assert all(r[8] is None for r in stored)  # the prepared text is not kept
        assert json.loads(stored[2][4]) == {"k": [1, "二"]}
        for query in ("train", "花蓮", "cafe", "ラーメン", "example", "budget"):
            found = await mem.search("bulk", query, match="keyword", exclude_window=False)
            again = await mem.search("single", query, match="keyword", exclude_window=False)
            assert [h.message.content for h in found if h.matched] == \
                [h.message.content for h in again if h.matched] != [], query
        assert (await mem.stats("bulk")).messages == len(ITEMS)
        assert await mem.check() == []
        assert single[0].id > bulk[-1].id


async def test_idempotency_keys_in_a_bulk_batch(pg_url: str, clock: ManualClock) -> None:
    async with Memory.open(pg_url, settings=PLAIN, tenant="keys", background=False,
                           clock=clock) as mem:
        def item(k: int) -> dict[str, Any]:
            return {"role": "user", "content": f"keyed message {k}", "key": f"k{k}"}

        first = await mem.add_many("s", [item(k) for k in range(20)])
        batch = [item(k) for k in range(10, 40)] + [item(25), item(3)]
        second = await mem.add_many("s", batch)
        by_key = {f"k{k}": m for k, m in zip(range(20), first, strict=True)}
        for it, m in zip(batch, second, strict=True):
            if it["key"] in by_key:
                assert m == by_key[it["key"]]  # stored already: answered, not written
            else:
                by_key[it["key"]] = m
        assert second[-2] == second[15]  # repeated within the batch: written once
        new_ids = [m.id for m in second[10:30]]
        assert new_ids == sorted(new_ids) and new_ids[0] > first[-1].id
        assert (await mem.stats("s")).messages == 40
        third = await mem.add_many("s", [item(k) for k in range(40)])
        assert [m.id for m in third] == [by_key[f"k{k}"].id for k in range(40)]
        assert (await mem.stats("s")).messages == 40


async def test_bulk_appends_queue_for_the_indexer(pg_url: str, clock: ManualClock) -> None:
    async with Memory.open(pg_url, settings=PLAIN, tenant="queued", background=False,
                           embedder=HashEmbedder(), clock=clock) as mem:
        await mem.add_many("s", ITEMS)
        assert await mem.index_backlog("s") == len(ITEMS)
        await mem.flush(timeout=60)
        assert await mem.index_backlog() == 0
        hits = await mem.search("s", "the trains were running late again", match="semantic",
                                exclude_window=False)
        best = min((h for h in hits if h.matched), key=lambda h: h.rank or 0)
        assert best.message.content == ITEMS[0]["content"]


async def test_concurrent_bulk_appends_to_one_session_commit_in_id_order(
        pg_url: str) -> None:
    """Ids are taken after the session's row is locked: each batch's ids come after every
    id of the batches committed before it, so batches never interleave."""
    mems = [await Memory.open(pg_url, settings=PLAIN, tenant="order", background=False)
            for _ in range(4)]
    try:
        async def write(k: int) -> list[int]:
            ids: list[int] = []
            for round_ in range(3):
                out = await mems[k].add_many("s", [
                    {"role": "user", "content": f"w{k} r{round_} #{i}"} for i in range(40)])
                ids += [m.id for m in out]
            return ids
        await asyncio.gather(*(write(k) for k in range(4)))
        with psycopg.connect(pg_url) as conn:
            rows = conn.execute("SELECT content FROM messages WHERE tenant = 'order' "
                                "AND session = 's' ORDER BY id").fetchall()
        tags = [str(r[0]).split(" #")[0] for r in rows]
        runs = [t for i, t in enumerate(tags) if i == 0 or tags[i - 1] != t]
        assert len(rows) == 480
        assert len(runs) == 12 and len(set(runs)) == 12, runs  # 12 batches, none split
    finally:
        for m in mems:
            await m.close()


async def test_connections_ended_while_idle_are_replaced(pg_url: str) -> None:
    """The server ends every connection of the pool while they are idle (as a restart or an
    idle timeout would); the next calls are served on new connections, with no error."""
    async with Memory.open(pg_url, settings=PLAIN, tenant="ended", background=False) as mem:
        await mem.add_many("s", [{"role": "user", "content": f"before {i}"} for i in range(3)])
        await asyncio.gather(*(mem.context("s") for _ in range(6)))  # several connections
        with psycopg.connect(pg_url, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                "AND backend_type = 'client backend'").fetchone()
        assert ended is not None and ended[0] >= 1
        await asyncio.sleep(0.2)  # the ends reach the client's sockets
        for _ in range(3):
            ctx = await mem.context("s")
            assert [m.content for m in ctx.messages][-1] == "before 2"
        after = await mem.add("s", "user", "resumed")
        assert (await mem.search("s", "resumed", match="keyword", exclude_window=False))
        assert after.id > ctx.messages[-1].id


async def test_a_database_of_the_first_schema_is_upgraded(pg_server: PgServer,
                                                          clock: ManualClock) -> None:
    """A database migrated before the bulk path existed gets its column and trigger on the
    next open; what it held stays found, and large batches take the new path."""
    url = pg_server.create_database("upgrade")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
        with conn.transaction():
            conn.execute(pg_sql.CREATE_VERSION_TABLE)
            conn.execute(MIGRATIONS[0].format(vector_type="vector", gin_lead="tenant, ",
                                              gin_lead_session="tenant, session, "))
            conn.execute(pg_sql.INSERT_VERSION, (1, 0))
            # A message as the first schema's append wrote it.
            conn.execute("INSERT INTO sessions (tenant, id, active_at, message_count, "
                         "hot_count, hot_bytes) VALUES ('default', 's', 0, 1, 1, 24)")
            old = conn.execute(
                "INSERT INTO messages (tenant, session, role, content, at, size, fts) "
                "VALUES ('default', 's', 'user', 'an old note about trains', 0, 24, "
                "to_tsvector('memstrata_text', 'an old note about trains')) RETURNING id"
            ).fetchone()
    assert old is not None
    async with Memory.open(url, settings=PLAIN, background=False, clock=clock) as mem:
        new = await mem.add_many("s", ITEMS)
        hits = await mem.search("s", "trains", match="keyword", exclude_window=False)
        assert {h.message.id for h in hits if h.matched} == {old[0], new[0].id}
        assert new[0].id > old[0]
        assert await mem.check() == []
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT max(version) FROM schema_version").fetchone() == (
            len(MIGRATIONS),)
