"""The rolling summary end to end: a real OpenAI-compatible server on 127.0.0.1, the store's
cursor and lease, failures and back-off, the scheduler, and the relevance filter."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import ManualClock
from llm_server import LLMServer, Reply

from memstrata import Memory, ProviderError, Settings
from memstrata.providers import FakeLLM, OpenAIChat, RetryPolicy

GOOD = json.dumps({
    "key_decisions": ["Do: keep the budget under 30,000"],
    "past_discussions": [],
    "current_discussion": {"topic": "trip", "description": "planning", "perspectives": [],
                           "direction": "book trains"},
})
SETTINGS = Settings(embedder=None, summary_cron=None, window_messages=4,
                    summary_chunk_chars=400)


def _llm(server: LLMServer) -> OpenAIChat:
    return OpenAIChat("test-model", base_url=server.openai_url, api_key="k",
                      retry=RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.05))


def _items(n: int, start: int = 0) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"msg-{i:02d} " + "about the trip plans " * 4} for i in range(start, n)]


def _sent(server: LLMServer) -> list[list[str]]:
    """For each chat request, the message markers it carried."""
    return [re.findall(r"msg-\d\d", json.dumps(b, ensure_ascii=False)) for b in server.bodies()]


async def test_failure_mid_run_keeps_progress_and_resumes(db_path: str) -> None:
    with LLMServer(default_text=GOOD) as server:
        async with Memory.open(db_path, settings=SETTINGS, llm=_llm(server),
                               background=False) as mem:
            await mem.add_many("s", _items(12))
            server.script(Reply(text=GOOD, tokens_in=100, tokens_out=20),
                          Reply(text=GOOD, tokens_in=100, tokens_out=20),
                          Reply(status=400, body={"error": "bad request"}))
            with pytest.raises(ProviderError):
                await mem.summarize("s")
            first = _sent(server)
            assert len(first) == 3  # two good chunks, the failing one; nothing after it
            stats = await mem.stats("s")
            assert stats.summary_kind == "llm" and stats.last_error
            assert stats.summary_tokens_in == 200 and stats.summary_tokens_out == 20 * 2
            assert stats.extra["summary_failures"] == 1
            cursor = stats.cursor
            assert cursor is not None
            stored = [r async for r in mem.export("s")]
            ids = [r["id"] for r in stored if r["type"] == "message"]
            good_markers = {m for chunk in first[:2] for m in chunk}
            assert {f"msg-{i:02d}" for i in range(ids.index(cursor) + 1)} == good_markers
            # The next run starts after the cursor and sends every later message once.
            server.requests.clear()
            summary = await mem.summarize("s")
            assert summary is not None and summary["key_decisions"]
            later = [m for chunk in _sent(server) for m in chunk]
            assert sorted(later) == [f"msg-{i:02d}" for i in range(ids.index(cursor) + 1, 12)]
            done = await mem.stats("s")
            assert done.cursor == ids[-1] and done.last_error is None


async def test_transient_errors_are_retried_and_bad_replies_stop(db_path: str) -> None:
    with LLMServer(default_text=GOOD) as server:
        async with Memory.open(db_path, settings=SETTINGS.replace(summary_chunk_chars=32_000),
                               llm=_llm(server), background=False) as mem:
            await mem.add_many("s", _items(6))
            server.script(Reply(status=500), Reply(status=429, headers={"Retry-After": "0"}),
                          Reply(text=GOOD))
            assert await mem.summarize("s") is not None
            assert len(server.requests) == 3
            await mem.add_many("s", _items(8, 6))
            before = (await mem.stats("s")).summary_tokens_in
            server.script(Reply(text="I could not summarise that, sorry.", tokens_in=321))
            with pytest.raises(ProviderError):
                await mem.summarize("s")
            # The failed call was billed: its tokens count although nothing was saved.
            assert (await mem.stats("s")).summary_tokens_in == before + 321
            server.script(Reply(text='{"key_decisions": ["Do: x"]}'))  # only one key
            with pytest.raises(ProviderError):
                await mem.summarize("s")
            assert (await mem.stats("s")).extra["summary_failures"] == 2


async def test_reset_aborts_when_the_summary_fails(db_path: str) -> None:
    with LLMServer(default_text=GOOD) as server:
        async with Memory.open(db_path, settings=SETTINGS, llm=_llm(server),
                               background=False) as mem:
            await mem.add_many("s", _items(6))
            server.script(*[Reply(status=503)] * 3)
            with pytest.raises(ProviderError):
                await mem.reset("s", mode="summary")
            assert (await mem.stats("s")).messages == 6
            server.script(*[Reply(text=GOOD)] * 4)
            await mem.reset("s", mode="summary")
            assert (await mem.stats("s")).messages == 0
            assert (await mem.context("s")).summary is not None


async def test_scheduler_summarises_due_sessions_and_backs_off(db_path: str,
                                                               clock: ManualClock) -> None:
    llm = FakeLLM(default=GOOD)
    async with Memory.open(db_path, settings=SETTINGS, llm=llm, background=False,
                           clock=clock) as mem:
        await mem.add_many("a", _items(6))
        await mem.add_many("temp-x", _items(6))
        assert await mem.summarize_due() == 1
        assert (await mem.stats("a")).summary_kind == "llm"
        assert await mem.summarize_due() == 0  # nothing new after the cursor
        await mem.add_many("a", _items(8, 6))
        llm.add(ProviderError("model overloaded"))
        assert await mem.summarize_due() == 0
        assert (await mem.stats("a")).extra["summary_failures"] == 1
        assert await mem.summarize_due() == 0  # backed off: not billed again at once
        clock.advance(16 * 60)
        assert await mem.summarize_due() == 1


async def test_cron_runs_in_the_background(db_path: str) -> None:
    settings = SETTINGS.replace(summary_cron="* * * * * *")  # every second
    async with Memory.open(db_path, settings=settings, llm=FakeLLM(default=GOOD)) as mem:
        await mem.add_many("s", _items(6))
        for _ in range(40):
            if (await mem.stats("s")).summary_kind == "llm":
                break
            await asyncio.sleep(0.1)
        assert (await mem.stats("s")).summary_kind == "llm"


WORKER = textwrap.dedent("""
    import asyncio, sys
    from memstrata import Memory, Settings
    from memstrata.providers import OpenAIChat

    async def main(path, url):
        settings = Settings(embedder=None, summary_cron=None, window_messages=4)
        llm = OpenAIChat("m", base_url=url, api_key="k")
        async with Memory.open(path, settings=settings, llm=llm, background=False) as mem:
            await mem.summarize("s")

    asyncio.run(main(sys.argv[1], sys.argv[2]))
""")


async def test_two_processes_never_summarise_a_session_at_once(db_path: str) -> None:
    with LLMServer(default_text=GOOD) as server:
        async with Memory.open(db_path, settings=SETTINGS, background=False) as mem:
            await mem.add_many("s", _items(10))
        server.script(*[Reply(text=GOOD, delay=0.5)] * 4)
        procs = [subprocess.Popen([sys.executable, "-c", WORKER, db_path, server.openai_url],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
        # One process summarised; the other waited for the lease and found nothing new.
        assert len(server.requests) == 1


async def test_two_runs_of_one_process_never_summarise_a_session_at_once(db_path: str) -> None:
    # The scheduler and a user's summarize() in one process: each run leases under its own
    # token, so the second waits for the first instead of sending the same messages again.
    with LLMServer(default_text=GOOD) as server:
        server.script(*[Reply(text=GOOD, delay=0.5)] * 4)
        async with Memory.open(db_path, settings=SETTINGS, background=False,
                               llm=_llm(server)) as mem:
            await mem.add_many("s", _items(10))
            first, second = await asyncio.gather(mem.summarize("s"), mem.summarize("s"))
            assert first == second == json.loads(GOOD)
        sent = [marker for request in _sent(server) for marker in request]
        assert sent and len(sent) == len(set(sent)), sent  # no message went to the model twice


async def test_relevance_filter_with_a_decision_model(db_path: str) -> None:
    decision = FakeLLM(default=json.dumps({"key_decisions": [], "past_discussions": [],
                                           "current_discussion": False}))
    async with Memory.open(db_path, settings=SETTINGS, llm=FakeLLM(default=GOOD),
                           decision_llm=decision, background=False) as mem:
        await mem.add_many("s", _items(8))
        await mem.summarize("s")
        full = await mem.context("s")
        assert full.summary is not None
        before = await mem.stats("s")
        filtered = await mem.context("s", query="what's the weather in Oslo?")
        assert filtered.summary is None and filtered.turn_context is None
        assert decision.calls
        # The relevance call's tokens are counted with the summary's.
        after = await mem.stats("s")
        assert after.summary_tokens_in > before.summary_tokens_in


async def test_digest_without_llm_then_llm_takes_it_as_previous(tmp_path: Path) -> None:
    path = str(tmp_path / "d.db")
    async with Memory.open(path, settings=SETTINGS, background=False) as mem:
        await mem.add_many("s", _items(10))
        body = await mem.summarize("s")
        assert body is not None and "msg-00" in body["text"]
    llm = FakeLLM(default=GOOD)
    async with Memory.open(path, settings=SETTINGS, llm=llm, background=False) as mem:
        await mem.add_many("s", _items(12, 10))
        assert (await mem.summarize("s") or {}).get("key_decisions")
        assert "msg-00" in (llm.calls[0].system or "")
