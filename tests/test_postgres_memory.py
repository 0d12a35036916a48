"""The Memory facade on a real PostgreSQL server: what a user does, end to end.

One database for the module; each test writes under a tenant of its own, so the tests do not
see each other's rows (tenant isolation is itself part of what they rely on).
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator

import psycopg
import pytest
from helpers import T0, ManualClock
from pg_server import PgServer

from memstrata import Memory, Settings
from memstrata._keys import ApiKeys
from memstrata.errors import InvalidInput, StoreError
from memstrata.providers import HashEmbedder
from memstrata.store import Store, check_file, open_store
from memstrata.store.postgres._schema import MIGRATIONS
from memstrata.testing._common import OFF, pairs

DAY = 86_400
PLAIN = Settings(embedder=None, summary_cron=None)


@pytest.fixture
async def mem(pg_url: str, clock: ManualClock,
              request: pytest.FixtureRequest) -> AsyncIterator[Memory]:
    tenant = request.node.name.removeprefix("test_")[:60]
    async with Memory.open(pg_url, settings=PLAIN, tenant=tenant, background=False,
                           clock=clock) as m:
        yield m


async def test_add_context_and_keyword_search(mem: Memory, pg_url: str) -> None:
    a = await mem.add("trip", "user", "Let's take the trains to Hualien.", sender="Mei")
    b = await mem.add("trip", "assistant", "Agreed: the train on April 14.", sender="Atlas")
    c = await mem.add("trip", "user", "我妹妹想去花蓮看太魯閣。", sender="Mei")
    await mem.add("other", "user", "A train to Taipei instead?")
    assert a.id < b.id < c.id and c.at == T0
    ctx = await mem.context("trip")
    assert [m.id for m in ctx.messages] == [a.id, b.id, c.id] and ctx.summary is None
    assert str(ctx.to_openai()[-1]["content"]).endswith("我妹妹想去花蓮看太魯閣。")
    assert [h.message.id for h in await mem.search("trip", "花蓮", match="keyword")] == [c.id]
    assert [h.message.id for h in await mem.search("trip", "太魯閣", match="keyword")] == [c.id]
    train = await mem.search("trip", "train", match="keyword")  # stemmed: trains, train
    assert {h.message.id for h in train} == {a.id, b.id}
    assert len(await mem.search(None, "train", match="keyword")) == 3
    assert await mem.search("trip", '"; DROP TABLE messages; -- (', match="keyword") == []
    # A second Memory on the same database (its own pool) sees every write at once.
    async with Memory.open(pg_url, settings=PLAIN, tenant=mem.tenant,
                           background=False) as other:
        assert [m.id for m in (await other.context("trip")).messages] == [a.id, b.id, c.id]
    async with Memory.open(pg_url, settings=PLAIN, tenant="elsewhere",
                           background=False) as stranger:
        assert (await stranger.context("trip")).messages == []
        assert await stranger.search(None, "train", match="keyword") == []


async def test_forget_reset_and_remove(mem: Memory) -> None:
    first, second = await mem.add_many("s", [
        {"role": "user", "content": "my locker code is 4512"},
        {"role": "assistant", "content": "noted, the locker code"}])
    assert await mem.forget(first.id)
    assert not await mem.forget(first.id)
    hits = await mem.search("s", "locker", match="keyword")
    assert [h.message.id for h in hits] == [second.id]
    assert (await mem.stats("s")).messages == 1
    # reset(summary) with no LLM keeps a digest of what it deletes.
    await mem.add("s", "user", "we pick the blue tent")
    await mem.reset("s", mode="summary")
    assert (await mem.context("s")).messages == []
    summary = await mem.summary("s")
    assert summary is not None and summary.kind == "digest"
    assert "blue tent" in json.dumps(summary.body)
    await mem.reset("s", mode="all")
    assert await mem.summary("s") is None
    await mem.add("s", "user", "again")
    await mem.add("t", "user", "kept")
    assert await mem.remove("s") and not await mem.remove("s")
    assert [s.id for s in await mem.sessions()] == ["t"]
    later = await mem.add("s", "user", "new life")
    assert later.id > second.id  # ids are never reused


async def test_export_import_round_trip(pg_url: str) -> None:
    settings = Settings(embedder=None, summary_cron=None, window_messages=2)
    async with Memory.open(pg_url, settings=settings, tenant="transfer",
                           background=False) as mem:
        await mem.add_many("s", [{"role": "user", "content": f"line {i} 記錄", "sender": "Bo",
                                  "meta": {"n": i}} for i in range(5)])
        await mem.summarize("s")
        records = [r async for r in mem.export("s")]
        assert records[-1]["type"] == "summary" and len(records) == 6
        lines = [json.dumps(r, ensure_ascii=False) for r in records]
        assert await mem.import_("copy", lines) == 5
        assert await mem.import_("copy", lines) == 0  # keyed: a second import adds nothing
        copied = [r async for r in mem.export("copy")]
        assert [(r["content"], r["meta"]) for r in copied[:-1]] == [
            (r["content"], r["meta"]) for r in records[:-1]]
        assert copied[-1]["body"] == records[-1]["body"]
        assert copied[-1]["cursor"] in {r["id"] for r in copied[:-1]}
        with pytest.raises(InvalidInput) as err:
            await mem.import_("bad", [lines[0], "{not json"])
        assert err.value.field == "line 2"
        assert "bad" not in {s.id for s in await mem.sessions()}


async def test_error_memory_hits_renew_expiry(mem: Memory, clock: ManualClock) -> None:
    used = await mem.errors.write(tool_name="web_fetch", keywords=["Timeout"],
                                  symptom="Fetching the page timed out", action="retry later")
    unused = await mem.errors.write(tool_name="sql_query", keywords=["資料庫"],
                                    symptom="資料庫連線逾時", action="避開備份時段")
    assert await mem.errors.read(used.id[:8]) == used
    assert [r.id for r in await mem.errors.search("連線")] == [unused.id]
    clock.advance(80 * DAY)
    (found,) = await mem.errors.search("timeouts")
    assert found.id == used.id and found.hits == 1
    assert found.expires_at == clock.now + 90 * DAY * 10**9
    clock.advance(11 * DAY)  # day 91: the other one's last hit was on day 0
    assert await mem.errors.read(unused.id) is None
    assert [r.id for r in await mem.errors.list()] == [used.id]
    assert await mem.errors.sweep() == 1
    assert "retry later" in await mem.errors.hint("web_fetch", "ReadTimeout: timed out")


async def test_semantic_search_after_indexing(pg_url: str, clock: ManualClock) -> None:
    async with Memory.open(pg_url, settings=PLAIN, tenant="semantic", background=False,
                           embedder=HashEmbedder(), clock=clock) as mem:
        await mem.add_many("s", [{"role": "user", "content": text} for text in (
            "the quarterly budget review", "beef noodle soup for lunch", "a hike up the hill")])
        await mem.flush(timeout=60)
        assert await mem.index_backlog() == 0
        hits = await mem.search("s", "beef noodle soup", match="semantic", exclude_window=False)
        best = min((h for h in hits if h.matched), key=lambda h: h.rank or 0)
        assert best.message.content == "beef noodle soup for lunch"
        hybrid = await mem.search("s", "budget", match="hybrid", exclude_window=False)
        assert [h.message.content for h in hybrid if h.rank == 1] == [
            "the quarterly budget review"]


async def test_api_keys(pg_url: str) -> None:
    store = await open_store(pg_url)
    try:
        keys = ApiKeys(store.api_keys)
        secret, record = await keys.create("acme", "laptop")
        assert await keys.verify(secret) == record
        assert await keys.verify(secret[:-1] + ("A" if secret[-1] != "A" else "B")) is None
        assert [k.id for k in await keys.list("acme")] == [record.id]
        assert (await keys.revoke(record.id)).revoked_at is not None
        assert await keys.verify(secret) is None
        assert await keys.count_active() == 0
    finally:
        await store.close()


async def test_open_refuses_what_it_cannot_use(pg_server: PgServer) -> None:
    foreign = pg_server.create_database("foreign")
    with psycopg.connect(foreign, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id int)")
    with pytest.raises(StoreError, match=r"not a memstrata database.*'invoices'"):
        await Memory.open(foreign, settings=PLAIN, background=False)
    with psycopg.connect(foreign) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
                            ).fetchone() == (1,)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    url = f"postgres://memstrata:secret-pw@127.0.0.1:{closed_port}/x"
    with pytest.raises(StoreError) as err:
        await Memory.open(url, settings=PLAIN, background=False)
    assert "cannot connect" in str(err.value) and "secret-pw" not in str(err.value)
    with pytest.raises(InvalidInput, match="SQLite database file"):
        await check_file(pg_server.url())


async def test_nul_is_refused_where_written_and_harmless_in_queries(mem: Memory) -> None:
    # PostgreSQL's text cannot hold U+0000, so it is invalid input (on every backend).
    for content, sender, field in (("a\x00b", None, "content"), ("ok", "N\x00", "sender")):
        with pytest.raises(InvalidInput) as err:
            await mem.add("s", "user", content, sender=sender)
        assert err.value.field == field and "U+0000" in err.value.reason
    with pytest.raises(InvalidInput) as err:
        await mem.errors.write(tool_name="t", keywords=["k"], symptom="bad\x00", action="a")
    assert err.value.field == "symptom"
    assert await mem.sessions() == [] and await mem.errors.list() == []
    stored = await mem.add("s", "user", "the train at nine", meta={"note": "x\x00y"})
    assert (await mem.message(stored.id)) == stored  # in JSON, NUL is an escape
    for match in ("keyword", None):
        hits = await mem.search("s", "train\x00", match=match)
        assert [h.message.id for h in hits] == [stored.id]
        assert await mem.search(None, "\x00", match=match) == []
    assert await mem.errors.search("time\x00out") == []


async def test_two_pools_share_claims_and_leases(pg_url: str) -> None:
    # Two stores on one database, each with its own pool, as two processes would have.
    a, b = await open_store(pg_url), await open_store(pg_url)
    try:
        queued = await a.append("pools", "s", pairs(120), now=T0, policy=OFF, index=True)

        async def drain(store: Store, worker: str) -> list[int]:
            got: list[int] = []
            for n in range(1000):
                batch = await store.vectors.claim(f"{worker}-{n}", tenant="pools", limit=7,
                                                  now=T0, stale_before=T0 - 1)
                if not batch:
                    return got
                got += [c.message.id for c in batch]
            raise AssertionError("the queue never emptied")

        ids = await asyncio.gather(drain(a, "a"), drain(b, "b"), drain(a, "c"), drain(b, "d"))
        everything = [i for part in ids for i in part]
        assert sorted(everything) == [m.id for m in queued]  # each exactly once
        owners = [f"o{i}" for i in range(8)]
        won = await asyncio.gather(*(store.runs.lease("pools", "s", o, now=T0, until=T0 + 10)
                                     for store, o in zip([a, b] * 4, owners, strict=True)))
        assert sum(won) == 1, won
    finally:
        await a.close()
        await b.close()


async def test_first_opens_race_and_a_newer_schema_is_refused(pg_server: PgServer) -> None:
    url = pg_server.create_database("race")
    opened = await asyncio.gather(*(open_store(url) for _ in range(4)),
                                  return_exceptions=True)  # one migrates, three wait
    for store in opened:
        if not isinstance(store, BaseException):
            await store.close()
    assert not [e for e in opened if isinstance(e, BaseException)], opened
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT max(version) FROM schema_version").fetchone() == (
            len(MIGRATIONS),)
        conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (99, 0)")
    with pytest.raises(StoreError, match="newer than this memstrata understands"):
        await open_store(url)
