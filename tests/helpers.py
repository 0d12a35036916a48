"""Small test helpers shared by several test modules."""

from __future__ import annotations

T0 = 1_780_000_000 * 10**9
"""A fixed 'now' (2026-05-28) for tests that inject a clock."""


class ManualClock:
    """A clock the test moves by hand (UTC nanoseconds)."""

    def __init__(self, now: int = T0) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1e9)
