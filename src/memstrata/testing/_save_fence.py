"""Conformance checks of the fence on a summary save: the save goes through only while its
owner holds the session's lease and the stored cursor is not ahead of the new one, all
decided inside the save's own transaction, and a refused save writes nothing at all."""

from __future__ import annotations

from collections.abc import Sequence

from ..store import Store
from ..types import Summary
from ._common import OFF, T0, Check, pairs, turns

__all__ = ["FENCE_CHECKS"]


async def _save(store: Store, cursor: int, owner: str | None, *, text: str = "x",
                now: int = T0, until: int | None = None, tokens: int = 0) -> bool:
    return await store.runs.save("t", "s", kind="llm", body={"text": text}, cursor=cursor,
                                 now=now, tokens_in=tokens, tokens_out=tokens, owner=owner,
                                 lease_until=until)


async def check_save_by_lease_holder(store: Store) -> None:
    """The lease holder's save is stored and renews its lease to ``lease_until`` (a rival
    cannot take it after the old end); ``owner=None`` saves with no lease involved, whoever
    holds one; a lease of the same session id in another tenant is not this session's."""
    out = await store.append("t", "s", pairs(4), now=T0, policy=OFF)
    assert await store.runs.lease("t", "s", "a", now=T0, until=T0 + 100)
    assert await _save(store, out[1].id, "a", text="a1", now=T0 + 10, until=T0 + 110,
                       tokens=3)
    assert await store.get_summary("t", "s") == Summary(
        session="s", kind="llm", body={"text": "a1"}, cursor=out[1].id, created_at=T0 + 10,
        tokens_in=3, tokens_out=3)
    assert not await store.runs.lease("t", "s", "b", now=T0 + 105, until=T0 + 205)
    assert await _save(store, out[2].id, None, text="import")
    got = await store.get_summary("t", "s")
    assert got is not None and got.body == {"text": "import"} and got.cursor == out[2].id
    await store.append("u", "s", pairs(2), now=T0, policy=OFF)
    assert await store.runs.lease("u", "s", "c", now=T0, until=T0 + 100)
    assert not await _save(store, out[3].id, "c", text="other tenant's lease")
    got = await store.get_summary("t", "s")
    assert got is not None and got.body == {"text": "import"}


async def check_save_after_lease_taken_over_writes_nothing(store: Store) -> None:
    """A save by an owner whose lease another owner took over (it had expired), that
    released it, or that never held one writes nothing: no summary, no tokens, no renewal,
    and a turns-policy flag it would have reached stays set."""
    out = await store.append("t", "s", pairs(10), now=T0, policy=turns(10, 4))
    cutoff = out[5].id
    assert not await _save(store, out[1].id, "a")  # never leased
    assert await store.get_summary("t", "s") is None
    assert await store.runs.lease("t", "s", "a", now=T0, until=T0 + 100)
    assert await _save(store, out[1].id, "a", text="a1", until=T0 + 100, tokens=1)
    assert await store.runs.lease("t", "s", "b", now=T0 + 101, until=T0 + 300)
    before = await store.get_summary("t", "s")
    assert not await _save(store, cutoff, "a", text="a2", now=T0 + 102, until=T0 + 10**6,
                           tokens=50)
    assert await store.get_summary("t", "s") == before
    assert await store.runs.flagged("t", now=T0) == [("t", "s")]
    # b's lease is still b's and ends when b said: a's refused save renewed nothing.
    assert not await store.runs.lease("t", "s", "c", now=T0 + 299, until=T0 + 400)
    assert await store.runs.lease("t", "s", "c", now=T0 + 301, until=T0 + 400)
    await store.runs.release("t", "s", "c")
    assert not await _save(store, cutoff, "c", text="released", now=T0 + 302)
    assert await store.get_summary("t", "s") == before


async def check_save_behind_stored_cursor_writes_nothing(store: Store) -> None:
    """A cursor never moves back: a save whose cursor is behind the stored one writes nothing
    (not the body, not the tokens, not the lease renewal), even by the lease holder; the same
    cursor again is saved, and a stored summary without a cursor takes any."""
    out = await store.append("t", "s", pairs(6), now=T0, policy=OFF)
    await store.put_summary("t", Summary(session="s", kind="digest", body={"text": "imp"},
                                         cursor=None, created_at=T0))
    assert await _save(store, out[0].id, None, text="first")
    assert await _save(store, out[3].id, None, text="ahead", tokens=2)
    before = await store.get_summary("t", "s")
    assert not await _save(store, out[2].id, None, text="behind", tokens=7)
    assert await store.get_summary("t", "s") == before
    assert await store.runs.lease("t", "s", "a", now=T0, until=T0 + 100)
    assert not await _save(store, out[1].id, "a", text="behind", until=T0 + 10**6, tokens=7)
    assert await store.get_summary("t", "s") == before
    assert await store.runs.lease("t", "s", "b", now=T0 + 101, until=T0 + 200)  # not renewed
    assert await store.runs.lease("t", "s", "a", now=T0 + 201, until=T0 + 300)
    assert await _save(store, out[3].id, "a", text="same", now=T0 + 202, tokens=1)
    got = await store.get_summary("t", "s")
    assert got is not None and got.body == {"text": "same"} and got.cursor == out[3].id
    assert (got.tokens_in, got.tokens_out) == (3, 3)


async def check_deleting_messages_ends_the_run_in_flight(store: Store) -> None:
    """A reset deletes the messages (and, for ``all``, the summary) while a run may be
    summarising them: the delete ends whatever lease is held, so that run's save is refused
    instead of writing back a summary of deleted messages; a new run can lease at once."""
    for keep in (False, True):
        out = await store.append("t", "s", pairs(4), now=T0, policy=OFF)
        assert await store.runs.lease("t", "s", "a", now=T0, until=T0 + 100)
        await store.delete_messages("t", "s", keep_summary=keep)
        assert not await _save(store, out[-1].id, "a", text="of deleted messages")
        assert await store.get_summary("t", "s") is None
        assert await store.runs.lease("t", "s", "b", now=T0 + 1, until=T0 + 100)
        await store.runs.release("t", "s", "b")


FENCE_CHECKS: Sequence[Check] = (
    check_save_by_lease_holder, check_save_after_lease_taken_over_writes_nothing,
    check_save_behind_stored_cursor_writes_nothing,
    check_deleting_messages_ends_the_run_in_flight,
)
