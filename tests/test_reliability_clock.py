"""Clock trouble: the wall clock jumping back and forward under every part that reads it.

What reads which clock (the decisions, also in docs/reliability.md):

- Message times (``at``), summary leases, error-record expiry and temp-session idleness use
  the ``Memory``'s clock: UTC wall time (``time.time_ns``), injectable as ``clock=``. Leases
  are shared by processes (and hosts, on PostgreSQL), so they need a clock every worker
  shares; a monotonic clock is per process.
- Order never comes from a clock: message ids grow in commit order; the window, listings,
  search results, export and the summary cursor follow ids. ``at`` is the writer's clock as
  it was (it may go backwards) and only ``time_range`` filters read it, as a lower bound.
- The summary scheduler sleeps on the event loop's monotonic clock in steps of at most a
  minute and reads the wall clock after each, so a jump (or a suspend, which stops the
  monotonic clock) moves the next tick within a minute; a backward jump never silences it.

A forward jump may expire a live lease early; the run that lost it then stops before its
next save (the lease is renewed and the stored cursor compared at every save), so two runs
never interleave and the cursor never moves back. A lease ending more than one lease term
after the one asked for now was written by a clock ahead of ours: it is not honoured, so a
backward jump cannot keep a dead worker's lease for as long as the jump.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import uuid
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from helpers import T0, ManualClock

from memstrata import Memory, Settings
from memstrata.errors import InvalidInput
from memstrata.providers import Completion, FakeLLM, ReplySchema
from memstrata.store import open_store
from memstrata.summary import CronRunner

LONG = os.environ.get("MEMSTRATA_LONG") == "1"
S = 10**9
MINUTE, HOUR, DAY, YEAR = 60 * S, 3600 * S, 86_400 * S, 365 * 86_400 * S
LEASE_TTL = 10 * MINUTE
JUMPS = [0, -HOUR, -2 * DAY, 3 * DAY, -YEAR, 10 * S, -S, 5 * YEAR, -7 * DAY, 1]
SUMMARY = {"key_decisions": ["Do: take the train"], "past_discussions": [],
           "current_discussion": {"topic": "trip", "description": "tickets"}}


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "clock.db")
    else:
        yield request.getfixturevalue("pg_url")


@pytest.fixture
def tenant() -> str:
    return f"t{uuid.uuid4().hex[:12]}"  # one PostgreSQL database serves the whole module


def _label(target: str) -> str:
    return "postgres" if target.startswith("postgres") else "sqlite"


def _settings(**more: Any) -> Settings:
    return Settings(embedder=None, summary_cron=None, window_messages=4, **more)


async def test_messages_keep_commit_order_whatever_the_clock_says(target: str,
                                                                  tenant: str) -> None:
    clock = ManualClock()
    rounds = 400 if LONG else 60
    async with Memory.open(target, settings=_settings(), background=False, clock=clock,
                           tenant=tenant) as mem:
        written = []
        for i in range(rounds):
            clock.now += JUMPS[i % len(JUMPS)]
            m = await mem.add("c", "user" if i % 2 == 0 else "assistant",
                              f"message {i} about the train")
            assert m.at == clock.now  # the writer's clock, as it was
            written.append(m)
        ids = [m.id for m in written]
        assert ids == sorted(set(ids))  # by commit, no duplicates, none lost
        ctx = await mem.context("c")
        assert [m.id for m in ctx.messages] == ids[-4:]
        exported = [r async for r in mem.export("c") if r["type"] == "message"]
        assert [(r["id"], r["content"]) for r in exported] == [(m.id, m.content)
                                                               for m in written]
        listed = await mem.recent("c", limit=32)
        assert [m.id for m in listed] == ids[::-1][:32]
        hits = await mem.search("c", "train", match="keyword", limit=32)
        assert [h.message.id for h in hits] == sorted(h.message.id for h in hits)
        # time_range is a lower bound on ``at`` by the current clock: a message stamped
        # before a backward jump (so "in the future" now) counts as recent.
        day = await mem.recent("c", time_range="1d", limit=32)
        assert [m.id for m in day] == [m.id for m in reversed(written)
                                       if m.at >= clock.now - DAY][:32]
        await mem.summarize("c")  # a digest up to the window, by id
        summary = await mem.summary("c")
        assert summary is not None and summary.cursor == ids[-5]
        assert (await mem.stats("c")).messages == rounds
        # A caller's ``at`` is checked against this clock: after it went back a day, the
        # time it showed before is "a day ahead" and refused, naming the field.
        clock.now -= DAY
        with pytest.raises(InvalidInput) as caught:
            await mem.add("c", "user", "late", at=written[-1].at)
        assert caught.value.field == "at"
    print(f"\nclock messages {_label(target)}: writes={rounds} "
          f"jumps={sum(1 for j in JUMPS if j) * rounds // len(JUMPS)} lost=0 duplicated=0 "
          "reordered=0")


class GatedLLM:
    """A scripted model whose every call waits for a permit, so a test can hold a summary
    run in the middle of a chunk."""

    model_id = "gated"

    def __init__(self) -> None:
        self._inner = FakeLLM(default=json.dumps(SUMMARY))
        self.calls = 0
        self.entered = asyncio.Event()
        self.permits = asyncio.Semaphore(0)

    async def complete(self, messages: Sequence[Mapping[str, str]], *,
                       system: str | None = None, max_tokens: int | None = None,
                       json_mode: bool = False, schema: ReplySchema | None = None
                       ) -> Completion:
        self.calls += 1
        self.entered.set()
        await self.permits.acquire()
        return await self._inner.complete(messages, system=system, max_tokens=max_tokens,
                                          json_mode=json_mode, schema=schema)


async def _conversation(mem: Memory, n: int = 12) -> list[int]:
    out = [await mem.add("trip", "user" if i % 2 == 0 else "assistant",
                         f"message {i}: " + "the night train to Hualien " * 4)
           for i in range(n)]
    return [m.id for m in out]


async def test_a_forward_jump_hands_the_lease_over_without_going_back(target: str,
                                                                      tenant: str) -> None:
    clock = ManualClock()
    gated = GatedLLM()
    settings = _settings(summary_chunk_chars=300)
    async with Memory.open(target, settings=settings, background=False, clock=clock,
                           tenant=tenant, llm=gated) as a, \
            Memory.open(target, settings=settings, background=False, clock=clock,
                        tenant=tenant, llm=FakeLLM(default=json.dumps(SUMMARY))) as b:
        ids = await _conversation(a)
        first = asyncio.create_task(a.summarize("trip"))
        await gated.entered.wait()  # A holds the lease, in its first chunk
        clock.now += LEASE_TTL + MINUTE  # the wall clock jumps past A's lease
        await b.summarize("trip")  # B takes the lease over and summarises everything
        taken = await b.summary("trip")
        assert taken is not None and taken.cursor == ids[-1]
        gated.entered.clear()
        gated.permits.release()  # A's first chunk comes back
        again = asyncio.create_task(gated.entered.wait())
        try:
            await asyncio.wait({first, again}, return_when=asyncio.FIRST_COMPLETED)
            after = await b.summary("trip")
            assert after is not None and after.cursor == taken.cursor, "cursor moved back"
            assert first.done() and gated.calls == 1  # A stopped instead of going on
            assert first.result() == after.body  # A's caller gets the summary B saved
        finally:
            again.cancel()
            for _ in range(20):
                gated.permits.release()
            await first
    print(f"\nclock lease takeover {_label(target)}: jump=+11min overlapping_saves=0 "
          "cursor_backwards=0")


async def _crashed_lease(target: str, tenant: str, now: int) -> None:
    """A lease taken by a worker that then died (as a killed process leaves it)."""
    store = await open_store(target)
    try:
        assert await store.runs.lease(tenant, "trip", "dead-worker", now=now,
                                      until=now + LEASE_TTL)
    finally:
        await store.close()


async def test_a_backward_jump_does_not_keep_a_dead_workers_lease(target: str,
                                                                   tenant: str) -> None:
    clock = ManualClock()
    async with Memory.open(target, settings=_settings(), background=False, clock=clock,
                           tenant=tenant) as mem:
        ids = await _conversation(mem)
        await _crashed_lease(target, tenant, clock.now)
        clock.now += 5 * MINUTE
        assert await mem.summarize_due() == 0  # a live lease is respected
        clock.now -= 6 * MINUTE  # a small step back (within a lease term): still respected
        assert await mem.summarize_due() == 0
        clock.now -= YEAR  # a year back: the lease would have held for a year
        assert await mem.summarize_due() == 1
        summary = await mem.summary("trip")
        assert summary is not None and summary.cursor == ids[-5]
    print(f"\nclock dead lease {_label(target)}: jump=-1y taken_over=1")


async def test_error_memory_expiry_and_renewal_under_jumps(target: str, tenant: str) -> None:
    clock = ManualClock()
    async with Memory.open(target, settings=_settings(), background=False, clock=clock,
                           tenant=tenant) as mem:
        rec = await mem.errors.write(tool_name="web_fetch", keywords=["timeout"],
                                     symptom="timed out", action="retry with a longer timeout")
        assert rec.expires_at == T0 + 90 * DAY
        clock.now -= 30 * DAY  # back a month, then a hit: renewal never shortens
        assert [r.id for r in await mem.errors.search("timeout")] == [rec.id]
        got = await mem.errors.read(rec.id)
        assert got is not None and got.expires_at == rec.expires_at and got.hits == 1
        clock.now = T0 + 10 * DAY  # a hit after the clock is right again renews from now
        await mem.errors.search("timeout")
        got = await mem.errors.read(rec.id)
        assert got is not None and got.expires_at == T0 + 100 * DAY
        clock.now += 101 * DAY  # forward past the expiry: as if the time had passed
        assert await mem.errors.search("timeout") == []
        assert await mem.errors.sweep() == 1
        clock.now -= 101 * DAY  # back again: a swept record stays gone
        assert await mem.errors.search("timeout") == []
    print(f"\nclock error memory {_label(target)}: scenarios=4 shortened=0")


async def test_temp_sessions_expire_by_idle_time_under_jumps(target: str, tenant: str) -> None:
    clock = ManualClock()
    async with Memory.open(target, settings=_settings(), background=False, clock=clock,
                           tenant=tenant) as mem:
        await mem.add("temp-scratch", "user", "scratch")
        await mem.add("kept", "user", "not scratch")
        clock.now -= DAY  # back a day: the scratch session looks active "in the future"
        assert await mem.sweep() == []
        clock.now += DAY + 29 * MINUTE
        assert await mem.sweep() == []
        clock.now += 2 * MINUTE  # 31 idle minutes by the clock: purged
        assert await mem.sweep() == ["temp-scratch"]
        clock.now += 10 * YEAR  # a jump forward purges scratch sessions only
        await mem.add("temp-new", "user", "scratch")
        clock.now += HOUR
        assert await mem.sweep() == ["temp-new"]
        assert [s.id for s in await mem.sessions()] == ["kept"]
        assert (await mem.stats("kept")).messages == 1
    print(f"\nclock temp sessions {_label(target)}: scenarios=3 purged_early=0")


class SimTime:
    """Wall and monotonic clocks for a ``CronRunner``: sleeps move the monotonic clock (as
    asyncio's sleeps do); ``jump`` moves only the wall clock, at a given monotonic time."""

    def __init__(self, wall: str) -> None:
        self.mono = 0.0
        self.offset = datetime.fromisoformat(wall).replace(tzinfo=UTC).timestamp()
        self.jumps: dict[float, float] = {}

    def wall(self) -> float:
        return self.mono + self.offset

    async def sleep(self, seconds: float) -> None:
        end = self.mono + seconds
        for at in sorted(self.jumps):
            if self.mono <= at < end:
                self.offset += self.jumps.pop(at)
        self.mono = end
        await asyncio.sleep(0)


async def _ticks(expr: str, sim: SimTime, count: int) -> list[tuple[float, float]]:
    """(monotonic, wall) at each of the first ``count`` ticks (or until 30 simulated days)."""
    seen: list[tuple[float, float]] = []
    stop = asyncio.Event()

    async def tick() -> None:
        seen.append((sim.mono, sim.wall()))
        if len(seen) >= count or sim.mono > 30 * 86_400:
            stop.set()

    await CronRunner(expr, tick, clock=sim.wall, sleep=sim.sleep).run(stop)
    return seen


@pytest.fixture
def cron_figures() -> Iterator[list[str]]:
    lines: list[str] = []
    yield lines
    print("\nclock scheduler: " + " ".join(lines))


async def test_the_scheduler_follows_wall_clock_jumps(cron_figures: list[str]) -> None:
    # Back a day while sleeping towards 12:30: the next tick comes within one interval of
    # the new wall time, not a day later.
    sim = SimTime("2026-05-28 12:05:00")
    sim.jumps[1000.0] = -86_400.0
    seen = _gaps(await _ticks("*/15 * * * *", sim, 4))
    assert max(seen) <= 15 * 60, seen
    cron_figures.append(f"back_1d_max_gap_s={max(seen):.0f}")
    # Back a year: the same.
    sim = SimTime("2026-05-28 12:05:00")
    sim.jumps[1000.0] = -365 * 86_400.0
    seen = _gaps(await _ticks("*/15 * * * *", sim, 4))
    assert max(seen) <= 15 * 60, seen
    cron_figures.append(f"back_1y_max_gap_s={max(seen):.0f}")
    # Forward 5 hours (or a suspend: the monotonic clock stood still) in the night before a
    # 03:00 job: it runs within a minute, not after the sleep planned before the jump.
    sim = SimTime("2026-05-28 23:00:00")
    sim.jumps[3600.0] = 5 * 3600.0
    ((mono, wall),) = await _ticks("0 3 * * *", sim, 1)
    assert mono - 3600.0 <= 60 and datetime.fromtimestamp(wall, UTC).hour == 5
    cron_figures.append(f"forward_5h_late_s={mono - 3600:.0f}")


async def test_a_small_step_back_does_not_fire_a_slot_twice(cron_figures: list[str]) -> None:
    sim = SimTime("2026-05-28 12:14:30")
    walls: list[float] = []
    stop = asyncio.Event()

    async def tick() -> None:
        walls.append(sim.wall())
        if len(walls) == 1:
            sim.offset -= 0.5  # NTP steps the clock back half a second just after 12:15
        if len(walls) == 3:
            stop.set()

    await CronRunner("*/15 * * * *", tick, clock=sim.wall, sleep=sim.sleep).run(stop)
    slots = [datetime.fromtimestamp(w, UTC).strftime("%H:%M") for w in walls]
    assert slots == ["12:15", "12:30", "12:45"], slots
    cron_figures.append("step_back_0.5s_double_ticks=0")


def _gaps(seen: list[tuple[float, float]]) -> list[float]:
    monos = [0.0] + [m for m, _ in seen]
    return [b - a for a, b in itertools.pairwise(monos)]

