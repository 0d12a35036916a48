"""Retry backoff and the cron runner (with an injected clock, so nothing waits minutes)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from memstrata.config import check_cron
from memstrata.errors import InvalidInput
from memstrata.summary._scheduler import (
    BACKOFF_BASE_NS,
    BACKOFF_MAX_NS,
    CronRunner,
    is_due,
    next_retry,
)

MIN_NS = 60 * 1_000_000_000


def test_backoff_doubles_from_15_minutes_up_to_a_day() -> None:
    now = 1_000 * MIN_NS
    assert next_retry(0, now) == now
    assert [(next_retry(n, now) - now) // MIN_NS for n in range(1, 9)] == [
        15, 30, 60, 120, 240, 480, 960, 1440]
    assert next_retry(50, now) - now == BACKOFF_MAX_NS
    assert BACKOFF_BASE_NS == 15 * MIN_NS


def test_is_due_skips_temp_idle_and_backed_off_sessions() -> None:
    now = 10_000 * MIN_NS
    assert is_due("s1", pending=True, now_ns=now)
    assert not is_due("s1", pending=False, now_ns=now)
    assert not is_due("temp-x", pending=True, now_ns=now)
    assert not is_due("s1", pending=True, failures=2, last_failure_ns=now - 29 * MIN_NS,
                      now_ns=now)
    assert is_due("s1", pending=True, failures=2, last_failure_ns=now - 30 * MIN_NS,
                  now_ns=now)


@pytest.mark.parametrize("expr", ["", "   ", "every 15 minutes", "* * *", "61 * * * *",
                                  "* * * * * * * *"])
def test_bad_cron_expressions_name_the_setting(expr: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        check_cron(expr)
    assert caught.value.field == "summary_cron"
    with pytest.raises(InvalidInput):
        CronRunner(expr, _noop)


def test_good_cron_expressions_are_normalised() -> None:
    assert check_cron("  */15  *  * * * ") == "*/15 * * * *"
    assert check_cron("* * * * * */5") == "* * * * * */5"


async def _noop() -> None:
    return None


class FakeTime:
    """A clock that only moves when the runner sleeps."""

    def __init__(self, start: float) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def epoch(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


async def _until(predicate: object, limit: int = 1000) -> None:
    for _ in range(limit):
        if callable(predicate) and predicate():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition not reached")


async def test_runner_ticks_at_cron_times_and_survives_failing_ticks() -> None:
    fake = FakeTime(epoch("2024-05-01 10:07:30"))
    times: list[str] = []
    errors: list[BaseException] = []

    async def tick() -> None:
        times.append(datetime.fromtimestamp(fake.now, UTC).strftime("%H:%M:%S"))
        if len(times) == 2:
            raise RuntimeError("tick broke")

    runner = CronRunner("*/15 * * * *", tick, clock=fake.clock, sleep=fake.sleep,
                        on_error=errors.append)
    runner.start()
    runner.start()  # idempotent
    await _until(lambda: len(times) >= 4)
    await runner.stop()
    assert times[:4] == ["10:15:00", "10:30:00", "10:45:00", "11:00:00"]
    assert fake.sleeps[:8] == [60.0] * 7 + [30.0]  # 7.5 minutes, in steps of at most one
    assert [str(e) for e in errors] == ["tick broke"]
    assert not runner.running


async def test_runner_uses_the_timezone() -> None:
    fake = FakeTime(epoch("2024-05-01 00:00:00"))
    seen: list[float] = []

    async def tick() -> None:
        seen.append(fake.now)

    runner = CronRunner("0 3 * * *", tick, clock=fake.clock, sleep=fake.sleep,
                        timezone="Asia/Taipei")
    runner.start()
    await _until(lambda: bool(seen), limit=50_000)  # 19 hours in one-minute sleeps
    await runner.stop()
    assert seen[0] == epoch("2024-05-01 19:00:00")  # 03:00 in Taipei (UTC+8)


async def test_stop_lets_a_running_tick_finish_and_cuts_a_sleep_short() -> None:
    started = asyncio.Event()
    release = asyncio.Event()
    finished: list[bool] = []

    async def tick() -> None:
        started.set()
        await release.wait()
        finished.append(True)

    fake = FakeTime(epoch("2024-05-01 10:14:59"))
    runner = CronRunner("*/15 * * * *", tick, clock=fake.clock, sleep=fake.sleep)
    runner.start()
    await asyncio.wait_for(started.wait(), 1)
    stopping = asyncio.create_task(runner.stop())
    await asyncio.sleep(0)
    release.set()
    await asyncio.wait_for(stopping, 1)
    assert finished == [True] and runner.ticks == 1

    # With the real clock and sleep, stop() returns at once instead of waiting for 15 minutes.
    idle = CronRunner("*/15 * * * *", _noop)
    idle.start()
    await asyncio.sleep(0)
    await asyncio.wait_for(idle.stop(), 1)
    assert idle.ticks == 0 and not idle.running


async def test_runner_with_a_seconds_field_and_the_real_clock() -> None:
    ticked = asyncio.Event()

    async def tick() -> None:
        ticked.set()

    runner = CronRunner("* * * * * *", tick)
    runner.start()
    await asyncio.wait_for(ticked.wait(), 3)
    await runner.stop()
    assert runner.ticks >= 1
