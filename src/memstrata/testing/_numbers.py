"""Conformance checks of message ids as numbers within a tenant: each tenant's ids start at 1
and grow by one per message it stores, whatever other tenants write, so an id tells a tenant
nothing about anyone else's volume; every read, page, cursor and the indexer speak them."""

from __future__ import annotations

import numpy as np

from ..store import Store
from ._common import DIM, MODEL, OFF, T0, Check, blob, claim, keyword_ids, msg, pairs, turns

__all__ = ["NUMBER_CHECKS"]


async def check_numbers_start_at_one_per_tenant(store: Store) -> None:
    """Two tenants writing in turn each see 1, 2, 3, …: no gap comes from the other's
    writes, single messages and batches alike."""
    seen: dict[str, list[int]] = {"a": [], "b": []}
    for round_ in range(3):
        for tenant in ("a", "b"):
            out = await store.append(tenant, "s", [msg("user", f"{tenant} says {round_}")],
                                     now=T0, policy=OFF)
            seen[tenant] += [m.id for m in out]
        out = await store.append("a", f"s{round_}", pairs(3), now=T0, policy=OFF)
        seen["a"] += [m.id for m in out]
    assert seen["a"] == list(range(1, 13)), seen
    assert seen["b"] == [1, 2, 3], seen
    assert [m.id for m in await store.recent("b", "s", 10)] == [1, 2, 3]


async def check_repeated_key_keeps_its_number(store: Store) -> None:
    """An idempotent re-add answers the first message's number and takes none: the next new
    message gets the following number."""
    (first,) = await store.append("a", "s", [msg("user", "hi", key="k")], now=T0, policy=OFF)
    await store.append("b", "s", pairs(4), now=T0, policy=OFF)
    (again,) = await store.append("a", "s", [msg("user", "hi", key="k")], now=T0, policy=OFF)
    batch = await store.append("a", "s", [msg("user", "hi", key="k"), msg("user", "new")],
                               now=T0, policy=OFF)
    assert first.id == again.id == batch[0].id == 1, (first, again, batch)
    assert batch[1].id == 2, batch


async def check_forget_leaves_only_ones_own_gap(store: Store) -> None:
    """Forgetting a tenant's newest message leaves a gap in its own numbers (never given out
    again) and none in another tenant's; forgetting by another tenant's number is a no-op."""
    a = await store.append("a", "s", pairs(3), now=T0, policy=OFF)
    b = await store.append("b", "s", pairs(2), now=T0, policy=OFF)
    assert not await store.forget("b", a[2].id)  # b has no message 3
    assert await store.forget("a", a[2].id)
    (a4,) = await store.append("a", "s", [msg("user", "after")], now=T0, policy=OFF)
    (b3,) = await store.append("b", "s", [msg("user", "after")], now=T0, policy=OFF)
    assert a4.id == 4 and b3.id == 3, (a4, b3)
    assert [m.id for m in b] == [1, 2]
    assert [m.id for m in await store.recent("a", "s", 10)] == [1, 2, 4]


async def check_reads_by_number(store: Store) -> None:
    """Reading by id, neighbours, keys, counts, pages and cursors all take the tenant's
    numbers, with another tenant's rows written in between."""
    for i in range(4):
        await store.append("a", "s", [msg("user", f"apple {i}", key=f"k{i}")], now=T0,
                           policy=OFF)
        await store.append("b", "s", [msg("user", f"apple {i} of b")], now=T0, policy=OFF)
    got = await store.get_message("a", 3)
    assert got is not None and got.content == "apple 2", got
    near = await store.around("a", [2], 1, 1)
    assert [m.content for m in near[2]] == ["apple 0", "apple 1", "apple 2"], near
    assert await store.keys("a", [1, 4]) == {1: "k0", 4: "k3"}
    assert await store.count_between("a", "s", 1, 4) == 2
    page = await store.page("a", None, since=None, before_id=4, limit=10)
    assert [m.id for m in page] == [3, 2, 1], page
    page = await store.page("a", "s", since=None, before_id=3, limit=1)
    assert [m.id for m in page] == [2], page
    after = await store.after_cursor("a", "s", 1, upto=3)
    assert [m.id for m in after] == [2, 3], after
    assert await keyword_ids(store, "a", None, "apple") == [1, 2, 3, 4]
    assert await keyword_ids(store, "b", "s", "apple") == [1, 2, 3, 4]


async def check_summary_cursor_is_a_number(store: Store) -> None:
    """A summary whose cursor is the tenant's newest number covers the session, however many
    messages other tenants wrote; a newer message makes it due again."""
    await store.append("busy", "s", pairs(20), now=T0, policy=OFF)
    (m,) = await store.append("t", "s", [msg("user", "hello")], now=T0, policy=OFF)
    assert ("t", "s") in await store.runs.due("t", now=T0)
    assert await store.runs.save("t", "s", kind="digest", body={"text": "hello"}, cursor=m.id,
                                 now=T0, tokens_in=0, tokens_out=0, owner=None)
    assert await store.runs.due("t", now=T0) == []
    await store.append("t", "s", [msg("user", "more")], now=T0, policy=OFF)
    assert await store.runs.due("t", now=T0) == [("t", "s")]


async def check_cutoff_is_a_number(store: Store) -> None:
    """Compaction in a tenant with small numbers keeps the right messages hot while another
    tenant holds many more rows."""
    await store.append("busy", "s", pairs(30), now=T0, policy=OFF)
    await store.append("t", "s", pairs(6), now=T0, policy=turns(6, 2), index=True)
    row = await store.session("t", "s")
    assert row is not None and row.hot_messages == 2 and row.cutoff == 4, row
    hot = await store.vectors.hot_ids("t", "s", MODEL, DIM)
    assert hot == ([5, 6], [False, False]), hot
    assert await store.vectors.backlog("t", "s") == 2


async def check_indexer_batch_is_one_tenant(store: Store) -> None:
    """A batch claimed for any tenant holds one tenant's messages; their vectors are stored
    under the numbers the batch carried and belong to that tenant only."""
    await store.append("a", "s", pairs(2), now=T0, policy=OFF, index=True)
    await store.append("b", "s", pairs(3), now=T0, policy=OFF, index=True)
    first = await claim(store, "w1", None)
    assert {c.tenant for c in first} == {"a"} and [c.message.id for c in first] == [1, 2]
    second = await claim(store, "w2", None)
    assert {c.tenant for c in second} == {"b"} and [c.message.id for c in second] == [1, 2, 3]
    v = blob(np.ones(DIM, dtype=np.float32))
    assert await store.vectors.put("w2", MODEL, DIM, [(c.message.id, v) for c in second]) == 3
    assert await store.vectors.hot_ids("b", "s", MODEL, DIM) == ([1, 2, 3], [True] * 3)
    assert await store.vectors.hot_ids("a", "s", MODEL, DIM) == ([1, 2], [False] * 2)
    assert await store.vectors.put("w1", MODEL, DIM, [(c.message.id, v) for c in first]) == 2
    changes = await store.vectors.hot_changes("a", None, MODEL, DIM, after=0, pending=[1])
    assert changes.ids == [1, 2] and set(changes.vectors) == {1}, changes


NUMBER_CHECKS: tuple[Check, ...] = (
    check_numbers_start_at_one_per_tenant, check_repeated_key_keeps_its_number,
    check_forget_leaves_only_ones_own_gap, check_reads_by_number,
    check_summary_cursor_is_a_number, check_cutoff_is_a_number,
    check_indexer_batch_is_one_tenant)
