"""Shared fixtures: real SQLite files in a temporary directory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from memstrata import Memory, Settings

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


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "memory.db")


@pytest.fixture
async def mem(db_path: str, clock: ManualClock) -> AsyncIterator[Memory]:
    settings = Settings(embedder=None, summary_cron=None)
    async with Memory.open(db_path, settings=settings, background=False, clock=clock) as m:
        yield m
