"""When summary runs happen: the retry backoff of a failing session and a small cron runner.

``next_retry`` is pure: a session whose run failed waits 15 minutes, then 30, 60, … up to a
day, so a chunk that always fails is not billed on every tick. ``CronRunner`` is an asyncio
loop that sleeps until the next time of a cron expression and calls ``tick``; choosing the
sessions, leases and the database side belong to the caller's ``tick``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from croniter import croniter  # type: ignore[import-untyped]

from .._background import Background, until_stopped
from .._ingest import is_temp
from ..config import check_cron

__all__ = ["BACKOFF_BASE_NS", "BACKOFF_MAX_NS", "CronRunner", "is_due", "next_retry"]

log = logging.getLogger(__name__)

BACKOFF_BASE_NS = 15 * 60 * 1_000_000_000
BACKOFF_MAX_NS = 24 * 60 * 60 * 1_000_000_000


def next_retry(failures: int, now_ns: int) -> int:
    """When a session that failed ``failures`` times in a row may be tried again (UTC ns).

    No failures → now. The wait doubles from 15 minutes and is capped at 24 hours.
    """
    if failures <= 0:
        return now_ns
    # Past 2**7 * 15 min the cap applies anyway; bounding the exponent keeps the number small.
    wait = BACKOFF_BASE_NS << min(failures - 1, 16)
    return now_ns + min(wait, BACKOFF_MAX_NS)


def is_due(session: str, *, pending: bool, failures: int = 0,
           last_failure_ns: int | None = None, now_ns: int) -> bool:
    """Whether a scheduled tick should summarise ``session`` now: it is not a ``temp-``
    scratch session, it has messages after its cursor, and it is not backed off after
    ``failures`` failed runs in a row (the last at ``last_failure_ns``)."""
    if is_temp(session) or not pending:
        return False
    if failures <= 0 or last_failure_ns is None:
        return True
    return now_ns >= next_retry(failures, last_failure_ns)


Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]
Tick = Callable[[], Awaitable[object]]

MAX_SLEEP_S = 60.0
"""The longest single sleep of ``CronRunner``: sleeps run on the monotonic clock, so the wall
clock is read again at least this often and a jump of it (or a suspend, which stops the
monotonic clock) moves the next tick within a minute."""


class CronRunner:
    """Calls ``tick`` at every time of the cron expression ``expr`` until stopped.

    ``clock`` (epoch seconds) and ``sleep`` are injectable so tests need not wait; times are
    computed in ``timezone`` (an IANA name) so ``0 3 * * *`` means 03:00 local. A tick that
    raises is logged and passed to ``on_error``; the runner keeps going. Ticks never overlap: a
    tick that runs past the next time makes the runner skip to the following one.
    """

    def __init__(self, expr: str, tick: Tick, *, clock: Clock = time.time,
                 sleep: Sleep = asyncio.sleep, timezone: str = "UTC",
                 on_error: Callable[[BaseException], None] | None = None) -> None:
        self.expr = check_cron(expr)
        self._tick = tick
        self._clock = clock
        self._sleep = sleep
        self._tz = ZoneInfo(timezone)
        self._on_error = on_error
        self._background: Background | None = None
        self._last: float | None = None
        self.ticks = 0
        """Ticks run so far (failed ones included)."""

    @property
    def running(self) -> bool:
        return self._background is not None and bool(self._background.running)

    def next_time(self, after: float) -> float:
        """The first cron time strictly after ``after`` (epoch seconds)."""
        start = datetime.fromtimestamp(after, UTC).astimezone(self._tz)
        nxt: datetime = croniter(self.expr, start).get_next(datetime)
        return nxt.timestamp()

    def start(self) -> None:
        """Start ``run`` as a task of its own (call from a running event loop); idempotent."""
        if self.running:
            return
        self._background = Background()
        self._background.start(f"memstrata-cron {self.expr}", self.run, interrupt=False)

    async def stop(self, timeout: float = 10.0) -> None:
        """Stop the task ``start`` began. A tick in progress may finish within ``timeout``
        seconds (a summary run saves per chunk, and cutting one off mid-save helps nobody);
        a sleep is cut short. A tick still running after that is cancelled and logged."""
        background, self._background = self._background, None
        if background is not None:
            await background.close(timeout)

    async def run(self, stop: asyncio.Event) -> None:
        """Tick at every cron time until ``stop`` is set (checked before every tick)."""
        while not stop.is_set():
            now = self._clock()
            due = self.next_time(now)
            if self._last is not None and due <= self._last:
                # The wall clock went back. The slot that just fired does not fire again, but
                # earlier slots coming round again do: waiting for the clock to pass the last
                # slot would silence the schedule for as long as the jump.
                due = self.next_time(self._last) if due == self._last else due
            await until_stopped(stop, self._sleep(min(max(0.0, due - now), MAX_SLEEP_S)))
            if stop.is_set():
                return
            if self._clock() < due:
                continue  # a bounded step, an early wake or a jump back: look again
            self._last = due
            await self._run_tick()

    async def _run_tick(self) -> None:
        try:
            await self._tick()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("scheduled tick failed")
            if self._on_error is not None:
                self._on_error(exc)
        finally:
            self.ticks += 1
