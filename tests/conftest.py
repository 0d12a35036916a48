"""Shared fixtures: real SQLite files in a temporary directory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from helpers import ManualClock

from memstrata import Memory, Settings


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
