"""Conformance checks of the vector side: the indexer's queue (claim, put, release, backlog),
the vectors of the hot tier, and the vector version that tells search caches they are stale."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from ..store import Store
from ..types import Message
from ._common import (
    DIM,
    MODEL,
    OFF,
    OTHER_MODEL,
    T0,
    Check,
    blob,
    claim,
    embed,
    msg,
    pairs,
    turns,
    vector_count,
    vector_of,
)

__all__ = ["VECTOR_CHECKS"]


async def _queue(store: Store, tenant: str, session: str, n: int, start: int = 0) -> list[Message]:
    """Append ``n`` messages that join the indexer's queue (no compaction)."""
    return await store.append(tenant, session, pairs(n, start), now=T0, policy=OFF, index=True)


def _ids(items: Sequence[Message]) -> list[int]:
    return [m.id for m in items]


async def check_claim_oldest_first_with_previous(store: Store) -> None:
    """A claim hands out the oldest queued messages first, each with the text and sender of
    the message before it in its session (queued or not; ``None`` for a session's first)."""
    await store.append("t", "s", [msg("user", "hello there", T0, sender="ann")],
                       now=T0, policy=OFF)  # not queued, but still the "previous"
    m1, m2 = await store.append("t", "s", [msg("assistant", "general kenobi", T0 + 1,
                                               sender="bot"),
                                           msg("user", "third one", T0 + 2)],
                                now=T0, policy=OFF, index=True)
    (o1,) = await store.append("t", "o", [msg("user", "other session", T0 + 3)],
                               now=T0, policy=OFF, index=True)
    first = await claim(store, "w1", limit=2)
    assert [c.message.id for c in first] == [m1.id, m2.id], first
    assert [c.message for c in first] == [m1, m2]
    assert [(c.previous, c.previous_sender) for c in first] == [
        ("hello there", "ann"), ("general kenobi", "bot")]
    assert all(c.tenant == "t" for c in first)
    (rest,) = await claim(store, "w2", limit=10)
    assert rest.message == o1 and rest.previous is None and rest.previous_sender is None
    assert await claim(store, "w3") == []


async def check_claim_exclusive(store: Store) -> None:
    """Workers claiming at the same time never get the same message, and together they get
    every queued message."""
    out = await _queue(store, "t", "s", 6)
    a, b = await asyncio.gather(claim(store, "w1", limit=4), claim(store, "w2", limit=4))
    ids_a, ids_b = [c.message.id for c in a], [c.message.id for c in b]
    assert len(ids_a) <= 4 and len(ids_b) <= 4
    assert not set(ids_a) & set(ids_b), (ids_a, ids_b)
    rest = [c.message.id for c in await claim(store, "w3")]
    assert sorted(ids_a + ids_b + rest) == _ids(out)
    assert await claim(store, "w4") == []


async def check_stale_claim_taken_over(store: Store) -> None:
    """A live claim is left alone; one made before ``stale_before`` is taken over, and its
    first worker can no longer store vectors for it."""
    out = await _queue(store, "t", "s", 2)
    assert len(await claim(store, "dead", now=T0)) == 2
    assert await claim(store, "w", now=T0 + 10, stale_before=T0 - 5) == []
    taken = await claim(store, "w", now=T0 + 100, stale_before=T0 + 50)
    assert [c.message.id for c in taken] == _ids(out)
    items = [(m.id, blob(vector_of(m))) for m in out]
    assert await store.vectors.put("dead", MODEL, DIM, items) == 0
    assert await store.vectors.put("w", MODEL, DIM, items) == 2


async def check_put_only_own_claims(store: Store) -> None:
    """``put`` stores vectors only for messages still claimed by that worker (not forgotten,
    not unclaimed, not someone else's) and dequeues exactly those."""
    a, b, c, d = await _queue(store, "t", "s", 4)
    assert [x.message.id for x in await claim(store, "w", limit=3)] == [a.id, b.id, c.id]
    assert await store.forget("t", b.id)
    items = [(m.id, blob(vector_of(m))) for m in (a, b, c, d)]
    assert await store.vectors.put("w", MODEL, DIM, items) == 2
    hot = await store.vectors.load_hot("t", "s", MODEL, DIM)
    assert dict(zip(hot.ids, hot.embedded.tolist(), strict=True)) == {
        a.id: True, c.id: True, d.id: False}
    assert await store.vectors.backlog("t") == 1
    assert await store.vectors.put("nobody", MODEL, DIM, items) == 0
    assert [x.message.id for x in await claim(store, "x")] == [d.id]


async def check_release_returns_batch(store: Store) -> None:
    """``release`` gives a batch back to the queue, and so does ``put`` for the claimed
    messages it was given no vector for."""
    out = await _queue(store, "t", "s", 3)
    assert len(await claim(store, "w")) == 3
    await store.vectors.release("w")
    assert await store.vectors.backlog("t") == 3
    assert [c.message.id for c in await claim(store, "x")] == _ids(out)
    items = [(m.id, blob(vector_of(m))) for m in out]
    assert await store.vectors.put("w", MODEL, DIM, items) == 0  # released: no longer its own
    assert await store.vectors.put("x", MODEL, DIM, items[:1]) == 1
    assert [c.message.id for c in await claim(store, "y")] == _ids(out[1:])


async def check_backlog_counts(store: Store) -> None:
    """Backlogs count queued messages (claimed ones too) per session, per tenant and in all;
    a stored vector takes its message out of every count."""
    s1 = await _queue(store, "t", "s1", 2)
    await _queue(store, "t", "s2", 3, 2)
    await store.append("t", "s3", pairs(1), now=T0, policy=OFF)  # not queued
    await _queue(store, "u", "s1", 4)
    v = store.vectors
    counts = (await v.backlog("t"), await v.backlog("t", "s1"), await v.backlog("t", "s2"),
              await v.backlog("t", "s3"), await v.backlog("u"), await v.backlog_all())
    assert counts == (5, 2, 3, 0, 4, 9), counts
    assert len(await claim(store, "w")) == 5
    assert (await v.backlog("t"), await v.backlog_all()) == (5, 9)  # claimed is not done
    items = [(m.id, blob(vector_of(m))) for m in s1]
    assert await v.put("w", MODEL, DIM, items) == 2
    assert (await v.backlog("t"), await v.backlog("t", "s1"), await v.backlog_all()) == (3, 0, 7)


async def check_queue_unindexed(store: Store) -> None:
    """``queue_unindexed`` queues the hot messages written without the queue (no embedder) and
    nothing else: not cold ones, not those with a vector or already queued, not another
    tenant's. A second call queues nothing; ``span`` bounds the ids one call looks at, and
    ``None`` covers every tenant."""
    v = store.vectors
    cold_and_hot = await store.append("t", "c", pairs(6), now=T0, policy=turns(6, 2))
    plain = await store.append("t", "s", pairs(3), now=T0, policy=OFF)
    await _queue(store, "t", "s", 2, 3)
    assert len(await embed(store, "w0")) == 2  # these two now have vectors
    theirs = await store.append("u", "s", pairs(2), now=T0, policy=OFF)
    queued = await _queue(store, "t", "s", 1, 5)  # queued, not claimed
    later = await store.append("t", "s", pairs(1, 6), now=T0, policy=OFF)
    assert await v.backlog("t") == 1
    assert await v.queue_unindexed("t", span=10**9) == (6, True)
    assert await v.queue_unindexed("t", span=10**9) == (0, True)
    assert (await v.backlog("t"), await v.backlog("t", "c"), await v.backlog("u")) == (7, 2, 0)
    expected = _ids(cold_and_hot[4:] + plain + queued + later)
    assert sorted(c.message.id for c in await claim(store, "w1")) == sorted(expected)
    fresh = await store.append("t", "s2", pairs(5), now=T0, policy=OFF)
    steps = [await v.queue_unindexed("t", span=2) for _ in range(3)]
    assert steps == [(2, False), (2, False), (1, True)], steps
    assert [c.message.id for c in await claim(store, "w2")] == _ids(fresh)
    assert await v.queue_unindexed(None, span=10**9) == (2, True)  # the other tenant's
    assert [c.message.id for c in await claim(store, "w3", "u")] == _ids(theirs)


async def check_version_changes_on_put(store: Store) -> None:
    """Storing vectors changes the session's version; a session is listed by the tenant-wide
    ``versions`` once it has vectors, and ``load_hot`` reports the same version."""
    await _queue(store, "t", "s", 2)
    assert await store.vectors.versions("t", None) == {}
    before = await store.vectors.versions("t", "s")
    await embed(store, "w")
    after = await store.vectors.versions("t", "s")
    assert "s" in after and after != before, (before, after)
    assert await store.vectors.versions("t", None) == after
    assert (await store.vectors.load_hot("t", "s", MODEL, DIM)).version == after["s"]


async def check_compaction_drops_cold_vectors(store: Store) -> None:
    """A cutoff move drops the vectors of messages behind it, takes them out of the queue
    (claimed or not, so a late ``put`` stores nothing) and changes the version, all by the
    time ``append`` returns."""
    out = await _queue(store, "t", "s", 4)
    await embed(store, "w1", limit=2)
    assert len(await claim(store, "w2")) == 2  # out[2:], in flight while the cutoff moves
    before = await store.vectors.versions("t", "s")
    more = await store.append("t", "s", pairs(2, 4), now=T0, policy=turns(6, 2), index=True)
    row = await store.session("t", "s")
    assert row is not None and row.cutoff == out[3].id, row
    assert await store.vectors.versions("t", "s") != before
    assert await vector_count(store, "t") == 0
    items = [(m.id, blob(vector_of(m))) for m in out[2:]]
    assert await store.vectors.put("w2", MODEL, DIM, items) == 0
    assert await store.vectors.backlog("t", "s") == 2
    assert [c.message.id for c in await claim(store, "w3")] == _ids(more)
    hot = await store.vectors.load_hot("t", "s", MODEL, DIM)
    assert hot.ids == _ids(more) and not hot.embedded.any()


async def check_version_changes_on_forget(store: Store) -> None:
    """Forgetting a message drops its vector (or its place in the queue) and changes the
    version. The next message's vector was embedded after the forgotten text, so it is
    dropped too and the message queued again."""
    a, b, c, d = await _queue(store, "t", "s", 4)
    await embed(store, "w", limit=3)
    before = await store.vectors.versions("t", "s")
    assert await store.forget("t", b.id)
    assert await store.vectors.versions("t", "s") != before
    hot = await store.vectors.load_hot("t", "s", MODEL, DIM)
    assert hot.ids == [a.id, c.id, d.id] and hot.embedded.tolist() == [True, False, False]
    assert await vector_count(store, "t") == 1
    assert await store.vectors.backlog("t") == 2  # c again, and d
    assert await store.forget("t", d.id)
    assert await store.vectors.backlog("t") == 1


async def check_version_changes_on_reset_and_remove(store: Store) -> None:
    """Resetting a session or removing it drops its vectors and queue entries and changes
    its version; a re-created session never reports the removed one's version."""
    await _queue(store, "t", "s", 3)
    await embed(store, "w1", limit=2)
    v1 = await store.vectors.versions("t", "s")
    await store.delete_messages("t", "s", keep_summary=True)
    assert await store.vectors.versions("t", "s") != v1
    assert await vector_count(store, "t") == 0 and await store.vectors.backlog("t") == 0
    await _queue(store, "t", "s", 2, 3)
    await embed(store, "w2")
    v2 = await store.vectors.versions("t", "s")
    assert await store.remove_session("t", "s")
    assert await store.vectors.versions("t", "s") != v2
    assert await store.vectors.versions("t", None) == {}
    assert await vector_count(store, "t") == 0 and await store.vectors.backlog("t") == 0
    await _queue(store, "t", "s", 1, 5)
    await embed(store, "w3")
    assert await store.vectors.versions("t", "s") != v2


async def check_load_hot(store: Store) -> None:
    """``load_hot`` returns exactly the hot messages in id order with their fields, the
    vectors of the asked model and dimension (zero rows where there is none), the embedded
    flags, and the current version."""
    cold = await store.append("t", "s", [msg("user", f"cold {i}", T0 + i) for i in range(2)],
                              now=T0, policy=OFF, index=True)
    hot_drafts = [msg("assistant", "hot a", T0 + 2, sender="bot"), msg("user", "hot b", T0 + 3),
                  msg("assistant", "hot c", T0 + 4, sender="bot"),
                  msg("user", "hot d", T0 + 5, sender="ann")]
    hot_msgs = await store.append("t", "s", hot_drafts, now=T0, policy=turns(6, 4), index=True)
    row = await store.session("t", "s")
    assert row is not None and row.cutoff == cold[-1].id, row
    assert await embed(store, "w1", limit=2) == _ids(hot_msgs[:2])
    assert len(await claim(store, "w2")) == 2
    d = hot_msgs[3]
    assert await store.vectors.put("w2", OTHER_MODEL, DIM, [(d.id, blob(vector_of(d)))]) == 1
    hot = await store.vectors.load_hot("t", "s", MODEL, DIM)
    assert hot.ids == _ids(hot_msgs)
    assert hot.contents == [m.content for m in hot_msgs]
    assert hot.senders == [m.sender for m in hot_msgs]
    assert hot.ats == [m.at for m in hot_msgs]
    assert hot.embedded.tolist() == [True, True, False, False]
    assert hot.matrix.shape == (4, DIM) and hot.matrix.dtype == np.float32
    expected = np.stack([vector_of(m) for m in hot_msgs[:2]] + [np.zeros(DIM, np.float32)] * 2)
    assert np.array_equal(hot.matrix, expected), hot.matrix
    assert hot.version == (await store.vectors.versions("t", "s"))["s"]
    other = await store.vectors.load_hot("t", "s", OTHER_MODEL, DIM)
    assert other.embedded.tolist() == [False, False, False, True]
    wide = await store.vectors.load_hot("t", "s", MODEL, DIM * 2)
    assert wide.matrix.shape == (4, DIM * 2) and not wide.embedded.any()
    nothing = await store.vectors.load_hot("t", "nope", MODEL, DIM)
    assert nothing.ids == [] and nothing.matrix.shape == (0, DIM)


async def check_other_model_count(store: Store) -> None:
    """``other_model_count`` counts the tenant's vectors made by any other model."""
    await _queue(store, "t", "s", 3)
    await embed(store, "w1", limit=2)
    await embed(store, "w2", model=OTHER_MODEL)
    await _queue(store, "u", "s", 2)
    await embed(store, "w3", "u", model=OTHER_MODEL)
    count = store.vectors.other_model_count
    assert (await count("t", MODEL), await count("t", OTHER_MODEL), await count("t", "c")) == (
        1, 2, 3)
    assert (await count("u", OTHER_MODEL), await count("u", MODEL)) == (0, 2)


async def check_requeue(store: Store) -> None:
    """``requeue`` drops the tenant's vectors and queues every hot message once (none that
    is cold), changes the version, and leaves other tenants alone."""
    out = await _queue(store, "t", "s", 4)
    await embed(store, "w1")
    more = await store.append("t", "s", pairs(2, 4), now=T0, policy=turns(6, 3), index=True)
    hot = [out[3], *more]  # out[3] has a vector, ``more`` is still queued
    await _queue(store, "u", "s", 2)
    await embed(store, "w2", "u")
    vt, vu = await store.vectors.versions("t", "s"), await store.vectors.versions("u", "s")
    assert await store.vectors.requeue("t") == 3
    assert await store.vectors.backlog("t") == 3
    assert await vector_count(store, "t") == 0
    assert await store.vectors.versions("t", "s") != vt
    assert [c.message.id for c in await claim(store, "w3")] == _ids(hot)
    assert await store.vectors.versions("u", "s") == vu
    assert await vector_count(store, "u") == 2 and await store.vectors.backlog("u") == 0


async def check_requeue_voids_earlier_claims(store: Store) -> None:
    """A batch claimed before ``requeue`` was embedded for the vectors being dropped: storing
    it afterwards stores nothing, and its messages stay queued to be embedded again."""
    out = await _queue(store, "t", "s", 2)
    claimed = await claim(store, "old")
    assert await store.vectors.requeue("t") == 2
    items = [(c.message.id, blob(vector_of(c.message))) for c in claimed]
    assert await store.vectors.put("old", OTHER_MODEL, DIM, items) == 0
    assert await vector_count(store, "t") == 0 and await store.vectors.backlog("t") == 2
    assert [c.message.id for c in await claim(store, "new")] == _ids(out)


async def check_vector_tenant_scoping(store: Store) -> None:
    """Claims filtered by tenant take only that tenant's messages (``None``: every tenant),
    the previous message never comes from another tenant, and versions, ``load_hot`` and
    counts of one tenant are untouched by another's changes."""
    theirs = await _queue(store, "u", "s", 2)
    mine = await _queue(store, "t", "s", 2, 2)
    other = await _queue(store, "t", "s2", 1, 4)
    got = await claim(store, "wu", "u")
    assert [c.message.id for c in got] == _ids(theirs) and {c.tenant for c in got} == {"u"}
    rest = await claim(store, "wall", None)
    assert [c.message.id for c in rest] == _ids(mine + other)
    assert {c.tenant for c in rest} == {"t"} and rest[0].previous is None
    for worker, claimed in (("wu", got), ("wall", rest)):
        items = [(c.message.id, blob(vector_of(c.message))) for c in claimed]
        assert await store.vectors.put(worker, MODEL, DIM, items) == len(items)
    assert (await store.vectors.load_hot("t", "s", MODEL, DIM)).ids == _ids(mine)
    assert (await store.vectors.load_hot("u", "s", MODEL, DIM)).ids == _ids(theirs)
    mine_versions = await store.vectors.versions("t", None)
    assert set(mine_versions) == {"s", "s2"}
    assert set(await store.vectors.versions("u", None)) == {"s"}
    assert await store.forget("u", theirs[0].id)
    assert await store.vectors.requeue("u") == 1
    assert await store.vectors.versions("t", None) == mine_versions
    assert (await vector_count(store, "t"), await vector_count(store, "u")) == (3, 0)
    assert (await store.vectors.backlog("t"), await store.vectors.backlog_all()) == (0, 1)


async def check_hot_changes(store: Store) -> None:
    """``hot_changes`` gives, in one snapshot, each asked session's mark (version, cutoff, hot
    messages, vectors), its hot messages above an id in (session, id) order with their
    vectors of the model, and the vectors now stored for pending ids; a session that is gone
    has no mark. ``hot_ids`` lists a session's hot ids with their embedded flags."""
    a = await _queue(store, "t", "s", 4)
    b = await _queue(store, "t", "o", 2)
    await _queue(store, "u", "s", 1)  # another tenant: never seen
    assert await embed(store, "w", limit=3) == _ids(a[:3])
    everything = await store.vectors.hot_changes("t", None, MODEL, DIM, after=0, pending=[])
    versions = await store.vectors.versions("t", None)
    assert set(everything.marks) == {"s", "o"}
    assert everything.marks["s"].version == versions["s"]
    assert (everything.marks["s"].hot, everything.marks["s"].embedded) == (4, 3)
    assert (everything.marks["o"].hot, everything.marks["o"].embedded) == (2, 0)
    assert everything.ids == _ids(b) + _ids(a)  # by session, then id
    assert everything.sessions == ["o", "o", "s", "s", "s", "s"]
    assert everything.contents == [m.content for m in b + a]
    assert everything.embedded.tolist() == [False, False, True, True, True, False]
    assert np.array_equal(everything.matrix[2], vector_of(a[0]))
    # The delta after the newest id seen: a new message, and the vector of a pending one.
    (c,) = await _queue(store, "t", "s", 1, start=10)
    assert await embed(store, "w", limit=1) == [a[3].id]
    delta = await store.vectors.hot_changes("t", ["s"], MODEL, DIM, after=b[-1].id,
                                            pending=[a[3].id, b[0].id])
    assert set(delta.marks) == {"s"} and delta.marks["s"].hot == 5
    assert delta.marks["s"].embedded == 4
    assert delta.ids == [c.id] and delta.embedded.tolist() == [False]
    assert set(delta.vectors) == {a[3].id}
    assert np.array_equal(delta.vectors[a[3].id], vector_of(a[3]))
    # A forget: the message leaves and the one after it loses its vector.
    assert await store.forget("t", a[1].id)
    ids, flags = await store.vectors.hot_ids("t", "s", MODEL, DIM)
    assert ids == [a[0].id, a[2].id, a[3].id, c.id]
    assert flags == [True, False, True, False]
    await store.remove_session("t", "o")
    gone = await store.vectors.hot_changes("t", ["o", "s"], MODEL, DIM, after=c.id,
                                           pending=[])
    assert set(gone.marks) == {"s"} and gone.ids == []
    assert (gone.marks["s"].hot, gone.marks["s"].embedded) == (4, 2)


async def check_lineage(store: Store) -> None:
    """The lineage names the database: a non-empty tag that no write, forget, reset or
    removal changes (a saved search index checks it before it is used)."""
    first = await store.vectors.lineage()
    assert isinstance(first, str) and first.split(":", 1)[-1], first
    _, b, _ = await _queue(store, "t", "s", 3)
    await embed(store, "w", limit=2)
    assert await store.vectors.lineage() == first
    assert await store.forget("t", b.id)
    await store.delete_messages("t", "s", keep_summary=True)
    await store.remove_session("t", "s")
    assert await store.vectors.lineage() == first


VECTOR_CHECKS: Sequence[Check] = (
    check_claim_oldest_first_with_previous, check_claim_exclusive, check_stale_claim_taken_over,
    check_put_only_own_claims, check_release_returns_batch, check_backlog_counts,
    check_queue_unindexed, check_version_changes_on_put, check_compaction_drops_cold_vectors,
    check_version_changes_on_forget, check_version_changes_on_reset_and_remove, check_load_hot,
    check_other_model_count, check_requeue, check_requeue_voids_earlier_claims,
    check_vector_tenant_scoping, check_hot_changes, check_lineage,
)
