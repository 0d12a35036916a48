"""Keyword ranking depends on the tenant's own messages only: another tenant writing many
messages that use the same words changes neither the order nor the scores of a tenant's
keyword hits, in a session or across the tenant, on SQLite and on PostgreSQL. And the
full-text index's upkeep (merging its segments) changes no answer."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from pg_server import PgServer

from memstrata import Memory, Settings
from memstrata._compaction import CompactionPolicy
from memstrata.store.sqlite import SQLiteStore
from memstrata.store.sqlite._functions import register, scope_token
from memstrata.store.sqlite._keyword_sql import newest_ids
from memstrata.store.sqlite._sql import (
    SELECT_SCOPE_TERM_IDS,
    SELECT_SCOPE_TERM_IDS_OLDEST_FIRST,
)
from memstrata.types import Draft

SETTINGS = Settings(embedder=None, summary_cron=None)

# In tenant A, "alpha" is rare (one message) and "beta" common (three), and the two messages
# that hold one word each are the same length: by A's own figures the alpha message ranks
# first for "alpha beta". Tenant B then makes "alpha" common in the database as a whole.
A_MESSAGES = (
    "alpha one two three",
    "beta one two three",
    "beta four five six",
    "beta seven eight nine",
    "nothing to see here",
)
QUERIES = ("alpha beta", "beta", "alpha", "one alpha", "gamma", "gamma alpha note")


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "memory.db")
    server: PgServer = request.getfixturevalue("pg_server")
    return server.create_database("isolation")


async def ranking(mem: Memory, session: str | None) -> dict[str, list[tuple[int, float]]]:
    out = {}
    for q in QUERIES:
        hits = await mem.search(session, q, match="keyword", limit=8)
        out[q] = [(h.message.id, h.score) for h in sorted(hits, key=lambda h: h.rank or 0)]
    return out


async def test_another_tenants_volume_never_moves_a_tenants_keyword_ranking(
        target: str) -> None:
    async with Memory.open(target, settings=SETTINGS, tenant="a", background=False) as a, \
            Memory.open(target, settings=SETTINGS, tenant="b", background=False) as b:
        added = await a.add_many("s", [{"role": "user", "content": c} for c in A_MESSAGES])
        await a.add_many("t", [{"role": "user", "content": "beta in another session"}])
        # More holders of one word than a tenant-wide search reads (it then ranks the span
        # that holds its newest ones), with B's rows interleaved among them.
        for i in range(6):
            await a.add_many("u", [{"role": "user", "content": f"gamma note {i}-{k}"}
                                   for k in range(100)])
            await b.add_many("b", [{"role": "user", "content": f"gamma {k}"}
                                   for k in range(50)])
        before = {s: await ranking(a, s) for s in ("s", None)}
        if not target.startswith("postgresql"):
            # A's own figures put the rare word's message first (PostgreSQL's ts_rank weighs
            # no word by its frequency, so there the order is by length, then newest).
            assert before["s"]["alpha beta"][0][0] == added[0].id
        for i in range(20):
            await b.add_many(f"b{i}", [
                {"role": "user", "content": f"alpha alpha report number {i}-{k} with many "
                                            "more words than tenant a ever writes"}
                for k in range(25)])
        after = {s: await ranking(a, s) for s in ("s", None)}
    assert after == before


async def test_the_index_upkeep_merges_segments_and_changes_no_answer(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        for i in range(120):  # one commit each: one small index segment each
            await mem.add(f"s{i % 3}", "user", f"kyoto trip number {i} and the budget")
        before = {s: await ranking(mem, s) for s in ("s0", None)}
        for s in ("s0", None):
            assert [h for h in await mem.search(s, "kyoto budget", match="keyword")]

    def blocks() -> int:
        with sqlite3.connect(path) as c:
            return int(c.execute("SELECT count(*) FROM messages_fts_data").fetchone()[0])

    unmerged = blocks()
    store = await SQLiteStore.open(str(path))
    try:
        while await store.tidy_keyword_index(seconds=5.0):
            pass
        assert await store.integrity_check() == []
        merged = blocks()
        assert merged < unmerged
        for i in range(40):  # new segments, while the store rests from merging
            text = f"kyoto {i}"
            await store.append("default", "s9", [Draft(role="user", content=text, at=i,
                                                       size=len(text))],
                               now=i, policy=CompactionPolicy())
        written = blocks()
        assert await store.tidy_keyword_index() is False and blocks() == written
    finally:
        await store.close()
    fresh = await SQLiteStore.open(str(path))  # another process's store does not rest
    try:
        while await fresh.tidy_keyword_index(seconds=5.0):
            pass
    finally:
        await fresh.close()
    assert blocks() < written
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        assert {s: await ranking(mem, s) for s in ("s0", None)} == before


async def test_a_small_scope_asked_oldest_first_finds_the_newest_rows(tmp_path: Path) -> None:
    """A scope's rows holding a term are read oldest first when its counters say it holds
    fewer than are read; the rows found, newest first, are those a newest-first read finds,
    and a counter behind its rows (``few`` wrongly true) still finds the newest."""
    path = tmp_path / "memory.db"
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        ids: list[int] = []
        for i in range(6):  # the session's rows interleaved with another session's
            ids += [m.id for m in await mem.add_many(
                "s", [{"role": "user", "content": f"delta step {i}-{k}"} for k in range(5)])]
            await mem.add_many("t", [{"role": "user", "content": f"delta elsewhere {i}-{k}"}
                                     for k in range(5)])
    token = scope_token("default", "s")
    queries = (SELECT_SCOPE_TERM_IDS, SELECT_SCOPE_TERM_IDS_OLDEST_FIRST)
    with sqlite3.connect(path) as c:
        register(c)
        match = f'scope : "{token}" AND body : ("delta")'
        newest = sorted(ids, reverse=True)
        assert newest_ids(c, queries, match, 100, few=False) == newest
        assert newest_ids(c, queries, match, 100, few=True) == newest
        for limit in (30, 29, 10, 1):
            want = newest[:limit]
            assert newest_ids(c, queries, match, limit, few=False) == want
            assert newest_ids(c, queries, match, limit, few=True) == want
