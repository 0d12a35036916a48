"""Conformance checks of taking over a dead worker's work: who holds the indexer's claims,
giving back one worker's claims at once, and who holds a session's summary lease."""

from __future__ import annotations

from collections.abc import Sequence

from ..store import Store
from ..types import Message
from ._common import DIM, MODEL, OFF, T0, Check, blob, claim, pairs, vector_of

__all__ = ["TAKEOVER_CHECKS"]


async def _queue(store: Store, tenant: str, n: int) -> list[Message]:
    return await store.append(tenant, "s", pairs(n), now=T0, policy=OFF, index=True)


async def check_claimants_listed_by_tenant(store: Store) -> None:
    """``claimants`` names each claim token of the tenant once (sorted), none of another
    tenant's; ``None`` names those of every tenant; unclaimed messages name nobody."""
    assert await store.vectors.claimants("t") == []
    await _queue(store, "t", 6)
    await _queue(store, "u", 2)
    assert await store.vectors.claimants("t") == []
    await claim(store, "w2", limit=2)
    await claim(store, "w1", limit=2)
    await claim(store, "w3", "u", limit=1)
    assert await store.vectors.claimants("t") == ["w1", "w2"]
    assert await store.vectors.claimants("u") == ["w3"]
    assert await store.vectors.claimants(None) == ["w1", "w2", "w3"]
    assert await store.vectors.claimants("nobody") == []


async def check_unclaim_gives_back_one_worker(store: Store) -> None:
    """``unclaim`` gives back every message of the tenant that one worker claimed, however
    recent its claim, and nothing else (other workers, other tenants, the queue itself); the
    messages can be claimed again at once, and the first worker can no longer store them."""
    out = await _queue(store, "t", 6)
    (other,) = await _queue(store, "u", 1)
    dead = await claim(store, "dead", limit=2)
    live = await claim(store, "live", limit=2)
    await claim(store, "dead", "u")  # the same name in another tenant
    assert await store.vectors.unclaim("t", "dead", below_attempts=3) == 2
    assert await store.vectors.claimants("t") == ["live"]
    assert await store.vectors.claimants("u") == ["dead"]
    assert await store.vectors.unclaim("t", "dead", below_attempts=3) == 0
    assert await store.vectors.unclaim("t", "never", below_attempts=3) == 0
    assert await store.vectors.backlog("t") == 6
    again = await claim(store, "next")
    held = {c.message.id for c in live}
    assert [c.message.id for c in again] == [m.id for m in out if m.id not in held]
    assert await store.vectors.unclaim(None, "dead", below_attempts=3) == 1
    assert [c.message.id for c in await claim(store, "x", "u")] == [other.id]
    items = [(c.message.id, blob(vector_of(c.message))) for c in dead]
    assert await store.vectors.put("dead", MODEL, DIM, items) == 0
    assert await store.vectors.put("next", MODEL, DIM, items) == 2


async def check_unclaim_leaves_a_message_tried_too_often(store: Store) -> None:
    """Each give-back counts an attempt; a message given back ``below_attempts`` times keeps
    its (dead) claim, so a message that kills every indexer taking it is not handed from
    one to the next at once: it waits for its claim to go stale."""
    (m,) = await _queue(store, "t", 1)
    for n in range(3):
        assert [c.message.id for c in await claim(store, f"dead{n}")] == [m.id]
        assert await store.vectors.unclaim("t", f"dead{n}", below_attempts=3) == 1
    assert [c.message.id for c in await claim(store, "dead3")] == [m.id]
    assert await store.vectors.unclaim("t", "dead3", below_attempts=3) == 0
    assert await store.vectors.claimants("t") == ["dead3"]
    assert await store.vectors.unclaim("t", "dead3", below_attempts=4) == 1
    assert await store.vectors.claimants("t") == []


async def check_a_batch_cut_short_gives_back_the_rest_untried(store: Store) -> None:
    """``put(…, tried=False)`` stores what it is given and gives the rest of the batch back
    without counting an attempt (the rest was never embedded), where a plain ``put`` counts
    one for each message it gives back."""
    await _queue(store, "t", 3)
    first, *rest = await claim(store, "w")
    items = [(first.message.id, blob(vector_of(first.message)))]
    assert await store.vectors.put("w", MODEL, DIM, items, tried=False) == 1
    assert await store.vectors.claimants("t") == []
    assert await store.vectors.backlog("t") == 2
    for n in range(3):
        assert [c.message.id for c in await claim(store, f"dead{n}")] == [
            c.message.id for c in rest]
        assert await store.vectors.unclaim("t", f"dead{n}", below_attempts=3) == 2
    second, third = await claim(store, "w2")
    items = [(second.message.id, blob(vector_of(second.message)))]
    assert await store.vectors.put("w2", MODEL, DIM, items) == 1
    assert [c.message.id for c in await claim(store, "dead")] == [third.message.id]
    # Three give-backs before, and the plain put's: tried too often to be taken over at once.
    assert await store.vectors.unclaim("t", "dead", below_attempts=4) == 0
    assert await store.vectors.unclaim("t", "dead", below_attempts=5) == 1


async def check_lease_holder(store: Store) -> None:
    """``lease_holder`` names the owner on the session's lease, expired or not, per tenant and
    session; ``None`` before any lease and after the holder's release."""
    assert await store.runs.lease_holder("t", "s") is None
    assert await store.runs.lease("t", "s", "a", now=T0, until=T0 + 100)
    assert await store.runs.lease_holder("t", "s") == "a"
    assert await store.runs.lease_holder("u", "s") is None
    assert await store.runs.lease_holder("t", "s2") is None
    assert await store.runs.lease("t", "s", "a", now=T0 + 500, until=T0 + 600)
    assert await store.runs.lease_holder("t", "s") == "a"  # still named once past its end
    await store.runs.release("t", "s", "a")
    assert await store.runs.lease_holder("t", "s") is None


async def check_dead_holder_lease_cleared_once(store: Store) -> None:
    """Another worker clears a holder's lease with ``release(…, holder)`` and can then take it;
    clearing that same holder again later leaves the new owner's lease alone."""
    assert await store.runs.lease("t", "s", "dead", now=T0, until=T0 + 1000)
    assert not await store.runs.lease("t", "s", "b", now=T0 + 1, until=T0 + 1000)
    holder = await store.runs.lease_holder("t", "s")
    assert holder == "dead"
    await store.runs.release("t", "s", holder)
    assert await store.runs.lease("t", "s", "b", now=T0 + 2, until=T0 + 1000)
    await store.runs.release("t", "s", holder)  # a late second clearance of the same holder
    assert await store.runs.lease_holder("t", "s") == "b"
    assert not await store.runs.lease("t", "s", "c", now=T0 + 3, until=T0 + 1000)


TAKEOVER_CHECKS: Sequence[Check] = (
    check_claimants_listed_by_tenant,
    check_unclaim_gives_back_one_worker, check_unclaim_leaves_a_message_tried_too_often,
    check_a_batch_cut_short_gives_back_the_rest_untried,
    check_lease_holder,
    check_dead_holder_lease_cleared_once,
)
