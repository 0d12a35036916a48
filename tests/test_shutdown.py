"""Background work stops on its signal and close() always returns (Python 3.11 included)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memstrata import Memory, Settings
from memstrata._background import Background, pause
from memstrata.summary._scheduler import CronRunner

SCRIPT = Path(__file__).parent / "scripts" / "close_cycles.py"


def _cycles(tmp_path: Path, rounds: int, mode: str, limit: float) -> str:
    try:
        done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "m.db"), str(rounds),
                               mode], capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{rounds} open/add/close cycles ({mode}) did not finish in {limit} s: "
                    "a close() hung")
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_close_returns_when_a_wake_up_lands_with_the_stop(tmp_path: Path) -> None:
    # add() wakes the idle indexer and close() stops it in the same loop iteration.
    assert _cycles(tmp_path, 20, "park", 60).strip() == "closed 20"


def test_two_hundred_open_add_close_cycles_each_close_in_time(tmp_path: Path) -> None:
    assert _cycles(tmp_path, 200, "quick", 120).strip() == "closed 200"


async def test_pause_never_swallows_a_cancel_that_lands_with_a_wake_up() -> None:
    stop, wake = asyncio.Event(), asyncio.Event()
    waiting = asyncio.create_task(pause(stop, 30, wake))
    await asyncio.sleep(0.01)
    wake.set()
    waiting.cancel()  # same iteration as the wake-up
    with pytest.raises(asyncio.CancelledError):
        await waiting


async def test_pause_returns_on_wake_on_stop_and_after_its_time() -> None:
    stop, wake = asyncio.Event(), asyncio.Event()
    waiting = asyncio.create_task(pause(stop, 30, wake))
    await asyncio.sleep(0.01)
    assert not waiting.done()
    wake.set()
    await asyncio.wait_for(waiting, 1)
    waiting = asyncio.create_task(pause(stop, 30))
    await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(waiting, 1)
    start = time.monotonic()
    await pause(asyncio.Event(), 0.05)
    assert time.monotonic() - start >= 0.04


async def test_a_loop_that_loses_its_cancellation_still_stops_on_the_signal() -> None:
    turns = 0

    async def loop(stop: asyncio.Event) -> None:
        nonlocal turns
        while not stop.is_set():
            turns += 1
            # A cancellation lost on the way, as asyncio.wait_for lost it on 3.11.
            with contextlib.suppress(asyncio.CancelledError):
                await pause(stop, 30)

    background = Background()
    background.start("stubborn", loop)
    await asyncio.sleep(0.01)
    assert background.running == ["stubborn"]
    assert await asyncio.wait_for(background.close(5), 5) == []
    assert turns >= 1 and background.running == []


async def test_close_names_a_task_that_overstays_and_returns_in_time(
        caplog: pytest.LogCaptureFixture) -> None:
    release = asyncio.Event()

    async def deaf(stop: asyncio.Event) -> None:
        # Ignores both the stop signal and cancellation until the test releases it.
        while not release.is_set():
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                continue

    background = Background()
    task = background.start("memstrata-deaf", deaf)
    await asyncio.sleep(0.02)
    start = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="memstrata"):
        overstayed = await background.close(0.2)
    assert overstayed == ["memstrata-deaf"]
    assert time.monotonic() - start < 2
    assert "memstrata-deaf" in caplog.text
    release.set()
    await asyncio.wait_for(task, 1)


async def test_a_running_tick_may_finish_but_only_within_the_bound() -> None:
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def endless_tick() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    runner = CronRunner("* * * * * *", endless_tick)
    runner.start()
    await asyncio.wait_for(started.wait(), 3)
    start = time.monotonic()
    await runner.stop(timeout=0.2)
    assert time.monotonic() - start < 2
    await asyncio.sleep(0.01)
    assert cancelled == [True] and not runner.running


async def test_memory_close_is_bounded_and_stops_every_loop(tmp_path: Path) -> None:
    settings = Settings(embedder="hash:64", summary_cron="* * * * * *")
    mem = await Memory.open(str(tmp_path / "b.db"), settings=settings)
    await mem.add("s", "user", "hello")
    await mem.flush()
    before = {t.get_name() for t in asyncio.all_tasks()}
    assert {"memstrata-indexer", "memstrata-sweeper", "memstrata-scheduler"} <= before
    await asyncio.wait_for(mem.close(timeout=5), 10)
    await asyncio.sleep(0)
    after = {t.get_name() for t in asyncio.all_tasks()}
    assert not after & {"memstrata-indexer", "memstrata-sweeper", "memstrata-scheduler"}
