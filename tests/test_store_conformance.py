"""Every backend passes the same conformance suite: SQLite on a file and in memory, and
PostgreSQL (a real server, a fresh database per check), both with pgvector and btree_gin and
as a role that may not create extensions (vectors as bytes, a GIN index on the text alone)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pg_server import PgServer

from memstrata.store import open_store
from memstrata.testing import CHECKS, Check

BACKENDS = ["file", "memory", "postgres", "postgres-plain"]


@pytest.fixture(params=BACKENDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a fresh, empty store is opened, for each backend."""
    if request.param == "file":
        return str(tmp_path / "c.db")
    if request.param == "memory":
        return ":memory:"
    server: PgServer = request.getfixturevalue("pg_server")
    return server.create_database("check", extensions=request.param == "postgres")


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
async def test_store(check: Check, target: str) -> None:
    store = await open_store(target)
    try:
        await check(store)
    finally:
        await store.close()


def test_check_names_are_unique() -> None:
    names = [c.__name__ for c in CHECKS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("target", ["file", "postgres", "postgres-plain"], indirect=True)
async def test_reopen_keeps_schema_and_data(target: str) -> None:
    store = await open_store(target)
    append_order = next(c for c in CHECKS if c.__name__ == "check_append_order")
    await append_order(store)
    await store.close()
    again = await open_store(target)
    try:
        assert len(await again.recent("t", "s", 100)) == 8
        assert await again.integrity_check() == []
    finally:
        await again.close()
