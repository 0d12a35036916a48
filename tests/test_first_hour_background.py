"""First-hour fixes in background work: messages written with no embedder get indexed later,
the turns policy queues its summary run at once, ``summarize_due`` counts what it did, and the
relevance filter always keeps general rules. Real SQLite files; a real HTTP server on
127.0.0.1 (or the public FakeLLM) where a model is needed."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from helpers import CountingEmbedder
from llm_server import LLMServer

from memstrata import Memory, Settings
from memstrata.providers import FakeLLM, OpenAIChat, RetryPolicy
from memstrata.store import open_store

PLAIN = Settings(embedder=None, summary_cron=None)


def _items(n: int, start: int = 0) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"msg-{i:02d} about the night market and the train"}
            for i in range(start, start + n)]


async def _eventually(check: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> float:
    """Seconds until ``check()`` holds; fails the test after ``timeout``."""
    start = time.monotonic()
    while not await check():
        assert time.monotonic() - start < timeout, "did not happen in time"
        await asyncio.sleep(0.05)
    return time.monotonic() - start


# -- 12. messages written with no embedder are indexed once there is one ---------------------


def _embedded(embedder: CountingEmbedder, content: str) -> bool:
    return any(content in text for text in embedder.texts)


async def test_messages_written_without_an_embedder_are_indexed_later(db_path: str) -> None:
    async with Memory.open(db_path, settings=PLAIN, background=False) as mem:
        await mem.add_many("trip", _items(6))
        await mem.add("trip", "user", "鼎泰豐要排很久，改成永康牛肉麵。")
        assert await mem.index_backlog() == 0  # nothing to index with
    embedder = CountingEmbedder()
    async with Memory.open(db_path, settings=PLAIN, embedder=embedder,
                           background=False) as mem:
        assert await mem.index_backlog() == 7
        assert (await mem.stats("trip")).index_backlog == 7
        await mem.add("trip", "assistant", "好，永康牛肉麵。")  # queued on append as before
        assert await mem.index_backlog() == 8
        await mem.flush()
        assert await mem.index_backlog() == 0
        window = (await mem.context("trip")).messages
        assert all(_embedded(embedder, m.content) for m in window)
        embedded = len(embedder.texts)
        await mem.flush()
        assert len(embedder.texts) == embedded  # nothing is embedded twice
        hits = await mem.search("trip", "鼎泰豐要排很久，改成永康牛肉麵。", match="semantic",
                                exclude_window=False)
        assert any(h.matched and h.message.content.startswith("鼎泰豐") for h in hits)


async def test_background_indexer_catches_up_with_another_writer(db_path: str) -> None:
    embedder = CountingEmbedder()
    async with Memory.open(db_path, settings=PLAIN, embedder=embedder) as indexed:
        # Another process (here: another Memory) writes with no embedder configured.
        async with Memory.open(db_path, settings=PLAIN, background=False) as plain:
            await plain.add_many("chat", _items(5))

        async def embedded() -> bool:
            return await indexed.index_backlog() == 0 and all(
                _embedded(embedder, item["content"]) for item in _items(5))
        await _eventually(embedded)


# -- 17. the turns policy queues its summary at once ---------------------------------------

TURNS = Settings(embedder=None, summary_cron=None, compact_turns=True, window_messages=4,
                 max_turns=10, keep_turns=4)


async def test_turns_policy_summarises_within_seconds_without_cron(db_path: str) -> None:
    async with Memory.open(db_path, settings=TURNS) as mem:
        await mem.add_many("trip", _items(9))
        await asyncio.sleep(1.5)
        assert (await mem.stats("trip")).summary_kind is None  # below max_turns: nothing yet
        await mem.add("trip", "assistant", "msg-09 the tenth message")

        async def summarised() -> bool:
            return (await mem.stats("trip")).summary_kind == "digest"
        assert await _eventually(summarised) < 5
        stats = await mem.stats("trip")
        assert stats.cutoff == stats.cursor and stats.hot_messages == 4
        assert stats.extra["summary_due"] is False
        assert "msg-05" in (await mem.context("trip")).summary["text"]  # type: ignore[index]
        started = time.monotonic()
    assert time.monotonic() - started < 3  # close() stops the loop promptly


async def test_turns_policy_summarises_with_an_llm_long_before_the_cron(db_path: str) -> None:
    good = json.dumps({"key_decisions": ["Do: take the train"], "past_discussions": [],
                       "current_discussion": {"topic": "trip", "description": "trains",
                                              "perspectives": [], "direction": "book"}})
    with LLMServer(default_text=good) as server:
        llm = OpenAIChat("m", base_url=server.openai_url, api_key="k",
                         retry=RetryPolicy(max_retries=0))
        once_a_year = TURNS.replace(summary_cron="0 0 1 1 *")
        async with Memory.open(db_path, settings=once_a_year, llm=llm) as mem:
            await mem.add_many("trip", _items(12))

            async def summarised() -> bool:
                return (await mem.stats("trip")).summary_kind == "llm"
            await _eventually(summarised)
            stats = await mem.stats("trip")
            assert stats.extra["summary_due"] is False and stats.cursor is not None
            await asyncio.sleep(1.5)
            assert len(server.requests) == 1  # the cleared flag does not run it again


async def test_without_background_the_flag_waits_for_summarize_due(db_path: str) -> None:
    async with Memory.open(db_path, settings=TURNS, background=False) as mem:
        await mem.add_many("trip", _items(10))
        await asyncio.sleep(1.2)
        stats = await mem.stats("trip")
        assert stats.extra["summary_due"] is True and stats.summary_kind is None
        assert await mem.summarize_due() == 1
        assert (await mem.stats("trip")).extra["summary_due"] is False


# -- 18. summarize_due counts what it summarised; general rules always relevant --------------


async def test_summarize_due_counts_only_sessions_it_summarised(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    settings = PLAIN.replace(window_messages=4)
    async with Memory.open(path, settings=settings, background=False) as mem:
        for session in ("a", "b", "held"):
            await mem.add_many(session, _items(8))
        await mem.add_many("short", _items(2))  # all in the window: nothing to digest
        other = await open_store(path)  # another worker, holding one session's lease
        try:
            now = time.time_ns()
            assert await other.runs.lease("default", "held", "other-worker", now=now,
                                          until=now + 600 * 10**9)
            assert await mem.summarize_due() == 2
            assert (await mem.stats("held")).summary_kind is None
            await other.runs.release("default", "held", "other-worker")
        finally:
            await other.close()
        assert await mem.summarize_due() == 1  # now "held"; "short" still has nothing
        assert await mem.summarize_due() == 0


SUMMARY = {
    "type": "summary", "kind": "llm", "cursor": None,
    "body": {"key_decisions": ["Do: 回覆一律用繁體中文", "Do: take the train to Hualien",
                               "Don't: use emojis"],
             "past_discussions": [{"topic": "hotel", "description": "Da'an",
                                   "direction": "booked", "last_discussed": "2025-03-05 14:00"}],
             "current_discussion": {"topic": "food", "description": "night markets",
                                    "perspectives": [], "direction": ""}},
}
NOTHING = json.dumps({"key_decisions": [], "past_discussions": [],
                      "current_discussion": False})


async def test_general_rules_survive_a_model_that_finds_nothing_relevant(db_path: str) -> None:
    decision = FakeLLM(default=NOTHING)
    async with Memory.open(db_path, settings=PLAIN, decision_llm=decision,
                           background=False) as mem:
        await mem.import_("trip", [json.dumps(SUMMARY, ensure_ascii=False),
                                   json.dumps({"type": "message", "role": "user",
                                               "content": "hi"})])
        ctx = await mem.context("trip", query="what's 2+2?")
        assert decision.calls
        assert ctx.summary == {"key_decisions": ["Do: 回覆一律用繁體中文", "Don't: use emojis"],
                               "past_discussions": [], "current_discussion": {}}
        assert ctx.turn_context is not None and "繁體中文" in ctx.turn_context["content"]
        # Without a general rule, nothing relevant still means no summary block.
        topics = {**SUMMARY, "body": {**SUMMARY["body"],  # type: ignore[dict-item]
                                      "key_decisions": ["Do: take the train to Hualien"]}}
        await mem.import_("work", [json.dumps(topics)])
        assert (await mem.context("work", query="what's 2+2?")).summary is None
