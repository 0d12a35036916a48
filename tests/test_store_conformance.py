"""The SQLite store passes the conformance suite, on a file and in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from memstrata.store.sqlite import SQLiteStore
from memstrata.testing import CHECKS, Check


@pytest.mark.parametrize("where", ["file", "memory"])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
async def test_sqlite_store(check: Check, where: str, tmp_path: Path) -> None:
    path = str(tmp_path / "c.db") if where == "file" else ":memory:"
    store = await SQLiteStore.open(path)
    try:
        await check(store)
    finally:
        await store.close()


async def test_reopen_keeps_schema_and_data(tmp_path: Path) -> None:
    path = str(tmp_path / "c.db")
    store = await SQLiteStore.open(path)
    await CHECKS[0](store)
    await store.close()
    again = await SQLiteStore.open(path)
    try:
        assert len(await again.recent("t", "s", 100)) == 8
        assert await again.integrity_check() == []
    finally:
        await again.close()
