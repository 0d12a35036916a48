"""The fenced summary save under a race: many saves at once by the lease holder with cursors
in any order, saves by a worker that never holds the lease, the lease handed over to a third
in the middle, and a reader watching all along. Whatever the interleaving, only saves the fence let
through are stored (their tokens are exactly the tally), the stored cursor is the highest one
let through, it never moves back for the reader, and a worker that lost the lease stores
nothing more."""

from __future__ import annotations

import asyncio
import itertools
import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_server import PgServer

from memstrata.store import Store, open_store
from memstrata.testing._common import OFF, T0, pairs

LONG = os.environ.get("MEMSTRATA_LONG") == "1"
ROUNDS = 20 if LONG else 3
SAVES = 40


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "fence.db")
    else:
        server: PgServer = request.getfixturevalue("pg_server")
        yield server.create_database("fence", extensions=False)


async def _save(store: Store, session: str, cursor: int, owner: str) -> bool:
    return await store.runs.save("t", session, kind="digest", body={"upto": cursor},
                                 cursor=cursor, now=T0, tokens_in=1, tokens_out=0,
                                 owner=owner, lease_until=T0 + 100)


async def _watch(store: Store, session: str, stop: asyncio.Event) -> list[int]:
    """Stored cursors as one reader sees them, one read after another."""
    seen: list[int] = []
    while not stop.is_set():
        got = await store.get_summary("t", session)
        if got is not None and got.cursor is not None:
            assert got.body == {"upto": got.cursor}  # body and cursor of one save
            seen.append(got.cursor)
        await asyncio.sleep(0)
    return seen


async def _round(store: Store, session: str, rng: random.Random) -> dict[str, int]:
    ids = [m.id for m in await store.append("t", session, pairs(60), now=T0, policy=OFF)]
    assert await store.runs.lease("t", session, "a", now=T0, until=T0 + 100)
    stop = asyncio.Event()
    watcher = asyncio.create_task(_watch(store, session, stop))
    a_cursors = [rng.choice(ids) for _ in range(SAVES)]
    jobs = [_save(store, session, c, "a") for c in a_cursors]
    jobs += [_save(store, session, rng.choice(ids), "c") for _ in range(SAVES // 4)]
    # Halfway through, b takes the lease over (a's has expired by b's clock).
    handover = store.runs.lease("t", session, "b", now=T0 + 101, until=T0 + 200)
    results = await asyncio.gather(*jobs[:SAVES // 2], handover, *jobs[SAVES // 2:])
    took = results.pop(SAVES // 2)
    stop.set()
    seen = await watcher
    assert took is True
    a_ok = [c for c, ok in zip(a_cursors, results[:SAVES], strict=True) if ok]
    assert not any(results[SAVES:]), "a save by a worker without the lease was stored"
    got = await store.get_summary("t", session)
    if a_ok:
        assert got is not None and got.cursor == max(a_ok) and got.tokens_in == len(a_ok)
    else:
        assert got is None
    backwards = sum(1 for x, y in itertools.pairwise(seen) if y < x)
    assert backwards == 0, seen
    assert not await _save(store, session, ids[-1], "a")  # a lost the lease: nothing more
    assert await store.get_summary("t", session) == got
    return {"saves": len(jobs), "accepted": len(a_ok), "refused": len(jobs) - len(a_ok),
            "reads": len(seen), "cursor_backwards": backwards}


async def test_racing_saves_store_only_what_the_fence_lets_through(target: str) -> None:
    rng = random.Random(20261201)
    store = await open_store(target)
    totals = {"saves": 0, "accepted": 0, "refused": 0, "reads": 0, "cursor_backwards": 0}
    try:
        for i in range(ROUNDS):
            for key, value in (await _round(store, f"s{i}", rng)).items():
                totals[key] += value
    finally:
        await store.close()
    assert totals["accepted"] > 0
    label = "postgres" if target.startswith("postgres") else "sqlite"
    print(f"\nsave fence {label}: rounds={ROUNDS} "
          + " ".join(f"{k}={v}" for k, v in totals.items()))
