"""The Memory's background summary scheduler decides by the Memory's own clock (``clock=``),
not the host's: a run fires when that clock crosses the cron time, and not before."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from helpers import ManualClock

from memstrata import Memory, Settings

# 03:00 on a 29 February: the host's clock reaches none soon, so a run can only come from
# the Memory's clock, which the test sets just short of one.
CRON = "0 3 29 2 *"
SLOT = int(datetime(2028, 2, 29, 3, 0, tzinfo=UTC).timestamp()) * 10**9
S = 10**9


async def _summary_kind(mem: Memory, session: str) -> str | None:
    return (await mem.stats(session)).summary_kind


async def test_a_run_fires_when_the_memorys_clock_crosses_the_cron_time(tmp_path: Path) -> None:
    clock = ManualClock(SLOT - 2 * S)
    settings = Settings(embedder=None, summary_cron=CRON, window_messages=4)
    async with Memory.open(str(tmp_path / "m.db"), settings=settings, clock=clock) as mem:
        await mem.add_many("trip", [
            {"role": "user" if i % 2 == 0 else "assistant",
             "content": f"message {i} about the night train to Hualien"} for i in range(8)])
        clock.now = SLOT - S * 3 // 10
        # The scheduler looks again every 0.3 s of event-loop time while its clock stands
        # 0.3 s short of the slot: for a second, nothing fires.
        await asyncio.sleep(1.0)
        assert await _summary_kind(mem, "trip") is None
        clock.now = SLOT + S  # the Memory's clock crosses 03:00
        for _ in range(100):
            if await _summary_kind(mem, "trip") is not None:
                break
            await asyncio.sleep(0.05)
        summary = await mem.summary("trip")
        assert summary is not None and summary.kind == "digest"
        # Stamped by the same clock: the run happened at the Memory's 03:00:01.
        assert summary.created_at == SLOT + S
    print(f"\nscheduler clock: slot={datetime.fromtimestamp(SLOT / S, UTC):%Y-%m-%d %H:%M} "
          "fired_before_slot=0 fired_after_slot=1")
