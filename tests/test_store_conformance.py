"""The SQLite store passes the conformance suite, on a file and in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from memstrata.store import open_store
from memstrata.testing import CHECKS, Check


@pytest.mark.parametrize("where", ["file", "memory"])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
async def test_sqlite_store(check: Check, where: str, tmp_path: Path) -> None:
    target = str(tmp_path / "c.db") if where == "file" else ":memory:"
    store = await open_store(target)
    try:
        await check(store)
    finally:
        await store.close()


def test_check_names_are_unique() -> None:
    names = [c.__name__ for c in CHECKS]
    assert len(names) == len(set(names))


async def test_reopen_keeps_schema_and_data(tmp_path: Path) -> None:
    path = str(tmp_path / "c.db")
    store = await open_store(path)
    append_order = next(c for c in CHECKS if c.__name__ == "check_append_order")
    await append_order(store)
    await store.close()
    again = await open_store(path)
    try:
        assert len(await again.recent("t", "s", 100)) == 8
        assert await again.integrity_check() == []
    finally:
        await again.close()
