"""Searches before background work: tenants indexed in turn, queries ahead of indexing
batches on the model, and the backlog shown wherever stats are."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from helpers import ManualClock
from server_helpers import auth, make_key, running_server
from typer.testing import CliRunner

from memstrata import Memory, Settings
from memstrata.cli import app
from memstrata.providers import (
    LOCAL_MODELS,
    HashEmbedder,
    LocalEmbedder,
    LocalModel,
    Vectors,
    background,
    foreground,
    searches_in_progress,
)
from memstrata.providers._lane import BACKGROUND_CHUNK, wait_for_searches
from memstrata.search import Indexer, IndexTurns
from memstrata.store import open_store

SETTINGS = Settings(summary_cron=None, search_min_score=-1)


def _chat(n: int) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"filler line {i} about train timetables"} for i in range(n)]


# -- tenants in turn -------------------------------------------------------------------------


async def test_a_tenants_new_message_is_indexed_between_another_tenants_batches(
        db_path: str, clock: ManualClock) -> None:
    embedder = HashEmbedder(64)
    async with Memory.open(db_path, settings=SETTINGS, embedder=embedder, background=False,
                           clock=clock) as root:
        big, small = root.sibling("big"), root.sibling("small")
        await big.add_many("import", _chat(400))
        await small.add("chat", "user", "my cat Miso sleeps on the piano")
        store = await open_store(db_path)
        try:
            turns = IndexTurns()
            indexers = {t: Indexer(store.vectors, embedder, tenant=t, batch_size=8, clock=clock)
                        for t in ("big", "small")}
            for ix in indexers.values():
                turns.add(ix)
            # One turn of the big tenant (two batches), then the small one's message.
            assert await turns.turn() == 16
            assert await turns.turn() == 1
            assert turns.served == ["big", "small"]
            assert await small.index_backlog() == 0
            assert await big.index_backlog() == 400 - 16
            hits = await small.search("chat", "cat on the piano", match="semantic",
                                      exclude_window=False)
            assert [h.message.content for h in hits if h.matched] == [
                "my cat Miso sleeps on the piano"]
            # A later message of the small tenant waits for one turn of the big one at most.
            await small.add("chat", "assistant", "Miso also likes the window sill")
            indexers["small"].nudge()
            await turns.turn()
            await turns.turn()
            assert await small.index_backlog() == 0
            assert await big.index_backlog() == 400 - 32
            assert turns.served == ["big", "small", "big", "small"]
            # The small one's next turn finds nothing and leaves the ring of tenants with
            # work: from then on the big one gets every turn.
            assert [await turns.turn() for _ in range(4)] == [16, 0, 16, 16]
            assert turns.served[-3:] == ["big", "big", "big"]
        finally:
            await store.close()


async def test_siblings_share_one_indexing_loop_and_close_within_the_bound(
        db_path: str) -> None:
    async with Memory.open(db_path, settings=SETTINGS, embedder=HashEmbedder(64),
                           background=False) as root:
        a = root.sibling("a", background=True)
        b = root.sibling("b", background=True)
        await a.add_many("s", _chat(300))
        await b.add_many("s", _chat(3))
        deadline = time.monotonic() + 30
        while await a.index_backlog() + await b.index_backlog() > 0:
            assert time.monotonic() < deadline, "the shared loop did not index both tenants"
            await asyncio.sleep(0.05)
        started = time.monotonic()
        await a.close(timeout=2)
        assert await b.index_backlog() == 0
        await b.add("s", "user", "still indexed after the other tenant closed")
        deadline = time.monotonic() + 30
        while await b.index_backlog() > 0:
            assert time.monotonic() < deadline, "the loop stopped with a tenant left"
            await asyncio.sleep(0.05)
        await b.close(timeout=2)
        assert time.monotonic() - started < 10


# -- queries before batches ------------------------------------------------------------------


async def test_a_query_is_embedded_before_the_rest_of_a_background_batch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    batches: list[list[str]] = []
    first_started, release = threading.Event(), threading.Event()

    def load(threads: int) -> Any:
        def encode(batch: list[str]) -> Any:
            batches.append(batch)
            if len(batches) == 1:  # hold the first background chunk until a query waits
                first_started.set()
                release.wait(30)
            return np.ones((len(batch), 8), dtype=np.float32)
        return encode

    monkeypatch.setitem(LOCAL_MODELS, "ordering-test",
                        LocalModel(name="ordering-test", package="none", dim=8, load=load))
    model = LocalEmbedder("ordering-test")
    texts = [f"message {i}" for i in range(4 * BACKGROUND_CHUNK)]
    with background():  # the task copies the context: its embedding is background work
        batch = asyncio.ensure_future(model.embed(texts))
    assert await asyncio.to_thread(first_started.wait, 30)
    query = asyncio.ensure_future(model.embed(["where is the cat"]))
    deadline = time.monotonic() + 30
    while model.gate.waiting_urgent == 0:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.005)
    release.set()
    vectors, found = await asyncio.gather(batch, query)
    assert vectors.shape == (len(texts), 8) and found.shape == (1, 8)
    # The query went in right after the chunk that was running, before the rest.
    assert [len(b) for b in batches] == [BACKGROUND_CHUNK, 1, *[BACKGROUND_CHUNK] * 3]
    assert batches[1] == ["where is the cat"]
    assert model.gate.granted[-5:] == [False, True, False, False, False]


async def test_a_query_runs_beside_a_background_chunk_of_a_model_that_allows_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    query_done = threading.Event()

    def load(threads: int) -> Any:
        def encode(batch: list[str]) -> Any:
            events.append(f"start {batch[0]}")
            if batch[0] == "message 0":
                # The first background chunk ends only after the query has been embedded.
                assert query_done.wait(30), "the query waited for the background chunk"
            elif batch == ["where is the cat"]:
                query_done.set()
            events.append(f"end {batch[0]}")
            return np.ones((len(batch), 8), dtype=np.float32)
        return encode

    monkeypatch.setitem(LOCAL_MODELS, "beside-test",
                        LocalModel(name="beside-test", package="none", dim=8, load=load,
                                   concurrent=True))
    model = LocalEmbedder("beside-test")
    texts = [f"message {i}" for i in range(2 * 64)]
    with background():
        batch = asyncio.ensure_future(model.embed(texts))
    deadline = time.monotonic() + 30
    while not events:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.005)
    await model.embed(["where is the cat"])
    await batch
    second = "message 64"  # a model that allows it gets full chunks of 64
    assert events == ["start message 0", "start where is the cat", "end where is the cat",
                      "end message 0", f"start {second}", f"end {second}"]


async def test_background_chunks_hold_back_while_a_search_runs() -> None:
    assert searches_in_progress() == 0
    with foreground():
        assert searches_in_progress() == 1
        assert not await asyncio.to_thread(wait_for_searches, 0.01)
    assert searches_in_progress() == 0
    assert await asyncio.to_thread(wait_for_searches, 0.01)


# -- the backlog shown -----------------------------------------------------------------------


async def test_stats_show_the_session_and_the_tenant_backlog(db_path: str) -> None:
    async with Memory.open(db_path, settings=SETTINGS, embedder=HashEmbedder(64),
                           background=False) as mem:
        await mem.add_many("s1", _chat(3))
        await mem.add_many("s2", _chat(5))
        other = mem.sibling("other")
        await other.add_many("s1", _chat(7))
        st = await mem.stats("s1")
        assert (st.index_backlog, st.tenant_backlog) == (3, 8)
        assert (await other.stats("s1")).tenant_backlog == 7
        await mem.flush()
        st = await mem.stats("s1")
        assert (st.index_backlog, st.tenant_backlog) == (0, 0)


def test_the_cli_shows_the_tenant_backlog(db_path: str) -> None:
    async def write() -> None:
        async with Memory.open(db_path, settings=SETTINGS, embedder=HashEmbedder(64),
                               background=False) as mem:
            await mem.add_many("s1", _chat(2))
            await mem.add_many("s2", _chat(4))

    asyncio.run(write())
    env = {"MEMSTRATA_EMBEDDER": "hash:64", "MEMSTRATA_SUMMARY_CRON": "none"}
    shown = CliRunner().invoke(app, ["--db", db_path, "--json", "stats", "s1"], env=env)
    assert shown.exit_code == 0, (shown.stdout, shown.exception)
    data = json.loads(shown.stdout)
    assert (data["index_backlog"], data["tenant_backlog"]) == (2, 6)
    table = CliRunner().invoke(app, ["--db", db_path, "stats", "s1"], env=env)
    assert "tenant_backlog" in table.stdout


class HeldEmbedder(HashEmbedder):
    """Never finishes a batch that holds a message marked HOLD (it stays queued)."""

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if any("HOLD" in t for t in texts):
            await asyncio.Event().wait()  # cancelled when the server stops
        return await super().embed(texts)


def test_the_service_shows_the_tenant_backlog(tmp_path: Path) -> None:
    db = str(tmp_path / "b.db")
    key = make_key(db, "acme")
    with running_server(db, embedder=HeldEmbedder(32)) as url, \
            httpx.Client(base_url=url, headers=auth(key)) as api:
        for session in ("p", "q"):
            made = api.post(f"/v1/sessions/{session}/messages",
                            json={"role": "user", "content": f"HOLD the {session} lamp"})
            assert made.status_code == 201
        stats = api.get("/v1/sessions/p").json()
        assert (stats["index_backlog"], stats["tenant_backlog"]) == (1, 2)
        assert api.get("/v1/stats").json()["index_backlog"] == 2


class SlowingEmbedder(HashEmbedder):
    """Takes ``delay`` seconds a text, as a model on cores that searches start to share."""

    delay = 0.0

    async def embed(self, texts: Sequence[str]) -> Vectors:
        await asyncio.sleep(self.delay * len(texts))
        return await super().embed(texts)


async def test_a_batch_slower_than_its_rate_said_stops_and_hands_back_the_rest(
        db_path: str) -> None:
    embedder = SlowingEmbedder(64)
    async with Memory.open(db_path, settings=SETTINGS, embedder=embedder,
                           background=False) as mem:
        await mem.add_many("import", _chat(200))
        store = await open_store(db_path)
        try:
            indexer = Indexer(store.vectors, embedder, tenant="default", batch_size=64,
                              batch_seconds=0.2)
            embedder.delay = 0.001  # 64 messages (128 texts) in about 0.13 s: ~500 a second
            assert await indexer.step() == 64
            # Now ten times slower: pieces of a quarter of the target at the last rate (25
            # messages, 0.5 s), and the batch stops after the first, past 1.25 x 0.2 s.
            embedder.delay = 0.01
            started = time.monotonic()
            stored = await indexer.step()
            assert time.monotonic() - started < 1.0
            assert 16 <= stored < 64
            assert await mem.index_backlog() == 200 - 64 - stored
            # The rest was handed back untried (no attempt counted) and is claimed next.
            with sqlite3.connect(db_path) as c:
                assert c.execute("SELECT count(*), max(attempts), count(claimed_by) "
                                 "FROM index_queue").fetchone() == (200 - 64 - stored, 0, 0)
            embedder.delay = 0.0
            while await indexer.step():
                pass
            assert await mem.index_backlog() == 0
        finally:
            await store.close()
