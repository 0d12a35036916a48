"""Semantic recall: background indexing, vectors of the hot tier, cache validity, search."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from helpers import CountingEmbedder, ManualClock

from memstrata import InvalidInput, Memory, ProviderError, Settings
from memstrata.errors import FlushTimeout
from memstrata.providers import HashEmbedder, LocalEmbedder

SETTINGS = Settings(summary_cron=None, window_messages=2)


def _chat(n: int, topic: str = "weather") -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"filler message {i} about the {topic}"} for i in range(n)]


async def test_writes_never_wait_for_a_failing_embedder(db_path: str) -> None:
    broken = CountingEmbedder()
    broken.fail = True
    async with Memory.open(db_path, settings=SETTINGS, embedder=broken) as mem:
        await mem.add_many("s", _chat(6))
        assert (await mem.stats("s")).index_backlog == 6
        with pytest.raises(ProviderError, match="unreachable"):
            await mem.flush(timeout=5)
        assert (await mem.stats("s")).messages == 6
        with pytest.raises(ProviderError):
            await mem.search("s", "weather", match="semantic")
        # Hybrid still answers from the keyword side.
        assert len(await mem.search("s", "weather", exclude_window=False)) == 6
    # After a restart with a working embedder, the backlog is picked up.
    working = CountingEmbedder()
    async with Memory.open(db_path, settings=SETTINGS, embedder=working,
                           background=True) as mem:
        await mem.flush(timeout=30)
        assert (await mem.stats("s")).index_backlog == 0
        assert len(working.texts) == 2 * 6  # each message: its own text and its keyed text
        hits = await mem.search("s", "filler message 3 about the weather", match="semantic",
                                exclude_window=False, limit=2)
        assert "filler message 3 about the weather" in [h.message.content for h in hits
                                                        if h.matched]


async def test_flush_times_out_instead_of_hanging(db_path: str) -> None:
    slow = CountingEmbedder()
    slow.delay = 0.3
    async with Memory.open(db_path, settings=SETTINGS, embedder=slow,
                           background=False) as mem:
        for i in range(3):
            await mem.add_many(f"s{i}", _chat(70))
        with pytest.raises(FlushTimeout) as err:
            await mem.flush(timeout=0.1)
        assert isinstance(err.value, TimeoutError)


async def test_window_exclusion_and_expansion(db_path: str) -> None:
    emb = CountingEmbedder()
    async with Memory.open(db_path, settings=SETTINGS, embedder=emb,
                           background=False) as mem:
        ms = await mem.add_many("s", _chat(10))
        await mem.flush()
        # A message is embedded after the one before it, so the exact text of ms[4] is as near
        # to ms[5] (embedded as ms[4] + ms[5]) as to ms[4] itself: either may lead.
        target = ms[4]
        hits = await mem.search("s", target.content, match="semantic", limit=1)
        (match,) = [h for h in hits if h.matched]
        assert match.message.id in (ms[4].id, ms[5].id)
        assert match.rank == 1 and match.source == "semantic"
        at = [m.id for m in ms].index(match.message.id)
        assert [h.message.id for h in hits] == [m.id for m in ms[at - 2:at + 2]]
        assert all(h.score == 0.0 and h.rank is None for h in hits if not h.matched)
        # The newest messages are in the window: skipped unless asked for.
        last = ms[-1].content
        found = await mem.search("s", last, match="semantic", limit=3)
        assert ms[-1].id not in [h.message.id for h in found if h.matched]
        found = await mem.search("s", last, match="semantic", limit=3, exclude_window=False)
        assert next(h for h in found if h.rank == 1).message.id in (ms[-1].id, ms[-2].id)
        # Two matches whose runs overlap merge without duplicates, in chronological order.
        both = await mem.search("s", "filler message", match="semantic", limit=8)
        ids = [h.message.id for h in both]
        assert ids == sorted(set(ids))


async def test_vectors_follow_the_cutoff(db_path: str) -> None:
    settings = Settings(summary_cron=None, window_messages=2, max_history_bytes=1500)
    async with Memory.open(db_path, settings=settings, embedder=CountingEmbedder(),
                           background=False) as mem:
        first = await mem.add("s", "user", "the zebra crossing near the old bakery")
        await mem.flush()
        assert await mem.search("s", "zebra crossing bakery", match="semantic",
                                exclude_window=False)
        await mem.add_many("s", _chat(80, "garden"))
        await mem.flush()
        stats = await mem.stats("s")
        assert stats.cutoff >= first.id
        hits = await mem.search("s", "zebra crossing bakery", match="semantic",
                                exclude_window=False, limit=32)
        assert first.id not in [h.message.id for h in hits if h.matched]
        # The archive still has it.
        assert [h.message.id for h in await mem.search("s", "zebra", match="keyword")] == [
            first.id]


async def test_cache_sees_changes_made_by_another_process(db_path: str) -> None:
    async with Memory.open(db_path, settings=SETTINGS, embedder=CountingEmbedder(),
                           background=False) as a, \
            Memory.open(db_path, settings=SETTINGS, embedder=CountingEmbedder(),
                        background=False) as b:
        ms = await a.add_many("s", _chat(6, "harbour"))
        await a.flush()
        query = ms[1].content
        hits = await a.search("s", query, match="semantic", limit=1)
        assert next(h.message.id for h in hits if h.matched) in (ms[1].id, ms[2].id)
        assert await b.forget(ms[1].id)
        hits = await a.search("s", query, match="semantic", limit=1)
        assert ms[1].id not in [h.message.id for h in hits]
        new = await b.add("s", "user", "a completely new remark about lighthouses")
        await b.add_many("s", _chat(2, "padding"))
        await b.flush()
        hits = await a.search("s", new.content, match="semantic", limit=2)
        assert new.id in [h.message.id for h in hits if h.matched]


async def test_two_indexers_never_embed_a_message_twice(db_path: str) -> None:
    e1, e2 = CountingEmbedder(), CountingEmbedder()
    e1.delay = e2.delay = 0.01
    async with Memory.open(db_path, settings=SETTINGS, embedder=e1, background=False) as a, \
            Memory.open(db_path, settings=SETTINGS, embedder=e2, background=False) as b:
        for i in range(10):
            await a.add_many(f"s{i}", _chat(40))
        await asyncio.gather(a.flush(), b.flush())
        assert len(e1.texts) + len(e2.texts) == 2 * 400  # own text + keyed text, once each
        assert e1.texts and e2.texts


async def test_model_change_is_detected_and_reindexed(db_path: str) -> None:
    async with Memory.open(db_path, settings=SETTINGS, embedder=HashEmbedder(64),
                           background=False) as mem:
        ms = await mem.add_many("s", _chat(6, "violin"))
        await mem.flush()
    async with Memory.open(db_path, settings=SETTINGS, embedder=HashEmbedder(32),
                           background=False) as mem:
        stats = await mem.stats("s")
        assert stats.extra["vectors_other_model"] == 6
        assert await mem.search("s", ms[0].content, match="semantic", exclude_window=False) == []
        assert await mem.reindex() == 6
        await mem.flush()
        assert (await mem.stats("s")).extra["vectors_other_model"] == 0
        hits = await mem.search("s", ms[0].content, match="semantic", exclude_window=False,
                                limit=1)
        assert next(h.message.id for h in hits if h.matched) in (ms[0].id, ms[1].id)


async def test_hybrid_is_default_and_semantic_needs_an_embedder(tmp_path: Path) -> None:
    async with Memory.open(str(tmp_path / "a.db"), settings=SETTINGS,
                           embedder=CountingEmbedder(), background=False) as mem:
        await mem.add_many("s", _chat(8, "kayak"))
        await mem.flush()
        hits = await mem.search("s", "kayak", exclude_window=False)
        assert {h.source for h in hits} == {"hybrid"}
        assert mem.tools("s").definitions()[0]["parameters"]["properties"]["match"][
            "enum"] == ["keyword", "semantic", "hybrid"]
    async with Memory.open(str(tmp_path / "b.db"), settings=SETTINGS, embedder=None) as mem:
        with pytest.raises(InvalidInput):
            await mem.search("s", "kayak", match="hybrid")
        with pytest.raises(InvalidInput):
            await mem.reindex()


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder()


async def test_real_model_finds_meaning_across_languages(db_path: str,
                                                         local: LocalEmbedder) -> None:
    """Each topic is a user/assistant pair in one language, so a hit inside the pair is found
    by meaning (across languages where the query's language differs)."""
    async with Memory.open(db_path, settings=SETTINGS, embedder=local,
                           background=False) as mem:
        ms = await mem.add_many("s", [
            {"role": "user", "content": "我下禮拜要搬家，東西還沒打包"},
            {"role": "assistant", "content": "需要我幫你列一張打包清單嗎？"},
            {"role": "user", "content": "The quarterly sales report is due on Friday"},
            {"role": "assistant", "content": "I will prepare the revenue charts by Thursday."},
            {"role": "user", "content": "我的貓最近一直不吃飯，很擔心"},
            {"role": "assistant", "content": "可能要帶牠去給獸醫看看。"},
            {"role": "user", "content": "ok thanks"},
            {"role": "assistant", "content": "you're welcome"},
        ])
        await mem.flush()

        async def best(query: str) -> int:
            hits = await mem.search("s", query, match="semantic", limit=1)
            return next(h.message.id for h in hits if h.matched)

        moving, report, cat = {ms[0].id, ms[1].id}, {ms[2].id, ms[3].id}, {ms[4].id, ms[5].id}
        assert await best("搬新房子的準備") in moving               # Chinese paraphrase
        assert await best("銷售報表的截止日") in report             # Chinese query, English text
        assert await best("my cat refuses to eat") in cat          # English query, Chinese text
        assert await best("packing boxes before moving house") in moving


async def test_flush_waits_for_batches_the_background_indexer_holds(db_path: str) -> None:
    slow = CountingEmbedder()
    slow.delay = 0.2
    async with Memory.open(db_path, settings=SETTINGS, embedder=slow) as mem:
        await mem.add_many("s", _chat(150))
        await asyncio.sleep(0.05)  # let the background indexer claim a batch first
        await mem.flush(timeout=60)
        assert (await mem.stats("s")).index_backlog == 0
        # Each message was embedded once alone and once after the message before it.
        assert sorted(t.split("\n")[-1] for t in slow.texts) == sorted(
            f"filler message {i} about the weather" for i in range(150) for _ in (0, 1))


async def test_closing_mid_batch_hands_the_batch_back(db_path: str) -> None:
    slow = CountingEmbedder()
    slow.delay = 5.0
    async with Memory.open(db_path, settings=SETTINGS, embedder=slow) as mem:
        await mem.add_many("s", _chat(10))
        await asyncio.sleep(0.3)  # the background indexer is now inside embed()
    fast = CountingEmbedder()
    async with Memory.open(db_path, settings=SETTINGS, embedder=fast,
                           background=False) as mem:
        assert await mem.index_backlog() == 10
        await mem.flush(timeout=5)  # would wait for a stale claim without the hand-back
        assert len(fast.texts) == 2 * 10 and await mem.index_backlog() == 0


async def test_semantic_across_sessions_and_time_range(db_path: str, clock: ManualClock) -> None:
    day = 86_400 * 10**9
    async with Memory.open(db_path, settings=SETTINGS, embedder=CountingEmbedder(),
                           background=False, clock=clock) as mem:
        old = await mem.add("a", "user", "violin lessons on saturday morning",
                            at=clock.now - 40 * day)
        await mem.add_many("a", _chat(4, "padding"))
        new = await mem.add("b", "user", "violin lessons moved to sunday", at=clock.now - day)
        await mem.add_many("b", _chat(4, "filler"))
        await mem.flush()
        hits = await mem.search(None, "violin lessons", match="semantic", limit=4)
        matched = {h.message.id for h in hits if h.matched}
        assert {old.id, new.id} <= matched
        assert {h.message.session for h in hits} == {"a", "b"}
        recent = await mem.search(None, "violin lessons", match="hybrid", time_range="7d",
                                  limit=4)
        assert old.id not in {h.message.id for h in recent if h.matched}
        assert new.id in {h.message.id for h in recent if h.matched}
