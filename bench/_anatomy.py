"""What a latency tail is made of: per call, the wall time together with what the kernel and
the garbage collector did meanwhile (page faults, involuntary context switches, collections).

Run as a second pass after the timed one, so the two ``getrusage`` calls around each call do
not enter the percentiles. The calls at or above the 99th percentile are then compared with
those around the median.
"""

from __future__ import annotations

import gc
import resource
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Anatomy", "anatomy"]


@dataclass
class Anatomy:
    """Means over the median band (p45 to p55) and the tail (≥ p99) of one pass."""

    calls: int
    median_ms: float
    tail_ms: float
    median_faults: float
    tail_faults: float
    median_preempted: float
    tail_preempted: float
    tail_collected: float
    median_collected: float

    def lines(self, name: str) -> list[str]:
        return [
            f"  {name}: median band {self.median_ms:.3f} ms, tail (≥ p99) {self.tail_ms:.3f} ms",
            f"    minor page faults per call: median {self.median_faults:.1f}, "
            f"tail {self.tail_faults:.1f}",
            f"    calls preempted by the kernel: median {self.median_preempted:.0%}, "
            f"tail {self.tail_preempted:.0%}",
            f"    calls during which the garbage collector ran: median "
            f"{self.median_collected:.0%}, tail {self.tail_collected:.0%}",
        ]


async def anatomy(args: Sequence[Any], call: Callable[[Any], Awaitable[Any]]) -> Anatomy:
    collections = [0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collections[0] += 1

    gc.callbacks.append(on_gc)
    rows: list[tuple[float, int, int, int]] = []
    try:
        for a in args:
            before = resource.getrusage(resource.RUSAGE_SELF)
            seen = collections[0]
            t = time.perf_counter_ns()
            await call(a)
            ms = (time.perf_counter_ns() - t) / 1e6
            after = resource.getrusage(resource.RUSAGE_SELF)
            rows.append((ms, after.ru_minflt - before.ru_minflt,
                         after.ru_nivcsw - before.ru_nivcsw, collections[0] - seen))
    finally:
        gc.callbacks.remove(on_gc)
    rows.sort()
    n = len(rows)
    median = rows[int(n * 0.45):max(int(n * 0.55), int(n * 0.45) + 1)]
    tail = rows[min(int(n * 0.99), n - 1):]

    def mean(part: list[tuple[float, int, int, int]], i: int, flag: bool = False) -> float:
        values = [(1.0 if r[i] > 0 else 0.0) if flag else float(r[i]) for r in part]
        return sum(values) / len(values)

    return Anatomy(calls=n, median_ms=mean(median, 0), tail_ms=mean(tail, 0),
                   median_faults=mean(median, 1), tail_faults=mean(tail, 1),
                   median_preempted=mean(median, 2, True), tail_preempted=mean(tail, 2, True),
                   median_collected=mean(median, 3, True), tail_collected=mean(tail, 3, True))
