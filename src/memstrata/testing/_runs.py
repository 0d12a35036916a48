"""Conformance checks of summary runs: saving a summary with its cursor, token tallies,
leases between workers, failure back-off, and which sessions are due."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ..store import Store
from ..types import RunState, Summary
from ._common import OFF, T0, Check, pairs, turns
from ._save_fence import FENCE_CHECKS

__all__ = ["RUN_CHECKS"]

_NO_RUN = RunState(failures=0, retry_at=None, last_error=None)


async def _save(store: Store, tenant: str, session: str, cursor: int, *, text: str = "x",
                now: int = T0, tokens: tuple[int, int] = (0, 0)) -> bool:
    """A save with no lease involved; ``False`` when the stored cursor was ahead."""
    return await store.runs.save(tenant, session, kind="llm",
                                 body={"text": text, "upto": cursor}, cursor=cursor, now=now,
                                 tokens_in=tokens[0], tokens_out=tokens[1], owner=None)


def _after(failures: int, now: int) -> int:
    """A back-off callback: 1000 ns per failure in a row."""
    return now + 1000 * failures


async def check_save_summary_cursor_tokens(store: Store) -> None:
    """``save`` replaces the summary's body, kind and cursor, stamps it with ``now`` and adds
    the tokens to the totals; nothing leaks to another tenant's session of the same id."""
    out = await store.append("t", "s", pairs(5), now=T0, policy=OFF)
    assert await _save(store, "t", "s", out[2].id, text="first", now=T0 + 5, tokens=(10, 3))
    assert await store.get_summary("t", "s") == Summary(
        session="s", kind="llm", body={"text": "first", "upto": out[2].id}, cursor=out[2].id,
        created_at=T0 + 5, tokens_in=10, tokens_out=3)
    assert await store.runs.save("t", "s", kind="digest", body={"text": "second"},
                                 cursor=out[4].id, now=T0 + 9, tokens_in=4, tokens_out=2,
                                 owner=None)
    assert await store.get_summary("t", "s") == Summary(
        session="s", kind="digest", body={"text": "second"}, cursor=out[4].id,
        created_at=T0 + 9, tokens_in=14, tokens_out=5)
    assert await store.get_summary("u", "s") is None


async def check_summary_and_cursor_together(store: Store) -> None:
    """A reader never sees a summary body with another save's cursor, even while saves run
    concurrently; ``after_cursor`` from the stored cursor is exactly the later messages."""
    out = await store.append("t", "s", pairs(8), now=T0, policy=OFF)
    await _save(store, "t", "s", out[1].id)
    got = await store.get_summary("t", "s")
    assert got is not None and got.body["upto"] == got.cursor == out[1].id
    later = await store.after_cursor("t", "s", got.cursor)
    assert [m.id for m in later] == [m.id for m in out[2:]]

    async def read() -> list[Summary | None]:
        _, windowed = await store.window_and_summary("t", "s", 3)
        return [await store.get_summary("t", "s"), windowed]

    jobs = [job for m in out[2:] for job in (_save(store, "t", "s", m.id), read())]
    seen = [s for r in await asyncio.gather(*jobs) if isinstance(r, list) for s in r]
    assert seen and all(s is not None and s.body["upto"] == s.cursor for s in seen), seen
    final = await store.get_summary("t", "s")
    assert final is not None and final.body["upto"] == final.cursor
    assert [m.id for m in await store.after_cursor("t", "s", final.cursor)] == [
        m.id for m in out if final.cursor is not None and m.id > final.cursor]


async def check_add_tokens_needs_summary(store: Store) -> None:
    """``add_tokens`` creates no summary and is not remembered for one made later; with a
    summary it adds to the tally and changes nothing else."""
    out = await store.append("t", "s", pairs(2), now=T0, policy=OFF)
    await store.runs.add_tokens("t", "s", 5, 7)
    assert await store.get_summary("t", "s") is None
    await _save(store, "t", "s", out[0].id, tokens=(1, 1))
    await store.runs.add_tokens("t", "s", 5, 7)
    await store.runs.add_tokens("u", "s", 100, 100)  # same session id, another tenant
    got = await store.get_summary("t", "s")
    assert got is not None and (got.tokens_in, got.tokens_out) == (6, 8), got
    assert got.cursor == out[0].id and got.body == {"text": "x", "upto": out[0].id}


async def check_lease_one_owner(store: Store) -> None:
    """Of owners racing for a session's lease exactly one wins; the holder can renew (which
    extends it), others cannot take it before it expires; other sessions and tenants have
    their own leases."""
    owners = [f"o{i}" for i in range(5)]
    won = await asyncio.gather(*(store.runs.lease("t", "s", o, now=T0, until=T0 + 100)
                                 for o in owners))
    assert sum(won) == 1, won
    holder = owners[won.index(True)]
    rival = next(o for o in owners if o != holder)
    assert not await store.runs.lease("t", "s", rival, now=T0 + 50, until=T0 + 500)
    assert await store.runs.lease("t", "s", holder, now=T0 + 60, until=T0 + 200)
    assert not await store.runs.lease("t", "s", rival, now=T0 + 150, until=T0 + 500)
    assert await store.runs.lease("t", "s2", rival, now=T0 + 150, until=T0 + 500)
    assert await store.runs.lease("u", "s", rival, now=T0 + 150, until=T0 + 500)


async def check_lease_expired_taken_over(store: Store) -> None:
    """Once a lease has expired another owner takes it, and the old owner has lost it."""
    assert await store.runs.lease("t", "s", "a", now=T0, until=T0 + 100)
    assert await store.runs.lease("t", "s", "b", now=T0 + 101, until=T0 + 300)
    assert not await store.runs.lease("t", "s", "a", now=T0 + 102, until=T0 + 400)


async def check_lease_release_by_owner_only(store: Store) -> None:
    """``release`` by anyone but the owner (or in another tenant) leaves the lease held; the
    owner's release frees it at once."""
    assert await store.runs.lease("t", "s", "a", now=T0, until=T0 + 100)
    await store.runs.release("t", "s", "b")
    await store.runs.release("u", "s", "a")
    assert not await store.runs.lease("t", "s", "b", now=T0 + 1, until=T0 + 100)
    await store.runs.release("t", "s", "a")
    assert await store.runs.lease("t", "s", "b", now=T0 + 2, until=T0 + 100)
    await store.runs.release("t", "never-leased", "a")


async def check_failed_counts_and_backs_off(store: Store) -> None:
    """``failed`` counts failures in a row, keeps the last error, and sets ``retry_at`` to
    what the callback says for (failures, now); an unknown session has no failures."""
    assert await store.runs.state("t", "s") == _NO_RUN
    calls: list[tuple[int, int]] = []

    def retry_at_for(failures: int, now: int) -> int:
        calls.append((failures, now))
        return _after(failures, now)

    assert await store.runs.failed("t", "s", "boom", now=T0, retry_at_for=retry_at_for) == 1
    assert await store.runs.state("t", "s") == RunState(failures=1, retry_at=T0 + 1000,
                                                        last_error="boom")
    assert await store.runs.failed("t", "s", "bang", now=T0 + 5000,
                                   retry_at_for=retry_at_for) == 2
    assert await store.runs.state("t", "s") == RunState(failures=2, retry_at=T0 + 7000,
                                                        last_error="bang")
    assert calls == [(1, T0), (2, T0 + 5000)]
    assert await store.runs.state("u", "s") == _NO_RUN


async def check_succeeded_clears(store: Store) -> None:
    """``succeeded`` clears failures, back-off and error, so the next failure counts from
    one; neither touches the session's lease."""
    assert await store.runs.lease("t", "s", "a", now=T0, until=T0 + 100)
    for i in range(2):
        await store.runs.failed("t", "s", f"e{i}", now=T0, retry_at_for=_after)
    assert not await store.runs.lease("t", "s", "b", now=T0 + 1, until=T0 + 100)
    await store.runs.succeeded("t", "s")
    assert await store.runs.state("t", "s") == _NO_RUN
    assert not await store.runs.lease("t", "s", "b", now=T0 + 2, until=T0 + 100)
    assert await store.runs.failed("t", "s", "again", now=T0, retry_at_for=_after) == 1


async def check_due_pending_sessions(store: Store) -> None:
    """``due`` lists exactly the sessions with messages after their cursor (no summary: all
    are after it), at most ``limit`` of them."""
    await store.append("t", "fresh", pairs(2), now=T0, policy=OFF)
    done = await store.append("t", "done", pairs(2), now=T0, policy=OFF)
    await _save(store, "t", "done", done[-1].id)
    behind = await store.append("t", "behind", pairs(3), now=T0, policy=OFF)
    await _save(store, "t", "behind", behind[0].id)
    await store.append("t", "emptied", pairs(2), now=T0, policy=OFF)
    await store.delete_messages("t", "emptied", keep_summary=False)
    assert set(await store.runs.due("t", now=T0)) == {("t", "fresh"), ("t", "behind")}
    await store.append("t", "done", pairs(1, 2), now=T0, policy=OFF)
    assert set(await store.runs.due("t", now=T0)) == {("t", "fresh"), ("t", "behind"),
                                                      ("t", "done")}
    one = await store.runs.due("t", now=T0, limit=1)
    assert len(one) == 1 and one[0] in {("t", "fresh"), ("t", "behind"), ("t", "done")}


async def check_due_skips_backed_off(store: Store) -> None:
    """A failed session is not due before its ``retry_at``, is due from then on, and is due
    again at once after ``succeeded``."""
    await store.append("t", "a", pairs(2), now=T0, policy=OFF)
    await store.append("t", "b", pairs(2), now=T0, policy=OFF)
    await store.runs.failed("t", "a", "boom", now=T0, retry_at_for=_after)
    assert await store.runs.due("t", now=T0 + 999) == [("t", "b")]
    assert set(await store.runs.due("t", now=T0 + 1000)) == {("t", "a"), ("t", "b")}
    await store.runs.failed("t", "a", "boom", now=T0 + 1000, retry_at_for=_after)
    assert await store.runs.due("t", now=T0 + 1001) == [("t", "b")]
    await store.runs.succeeded("t", "a")
    assert set(await store.runs.due("t", now=T0 + 1001)) == {("t", "a"), ("t", "b")}


async def check_due_tenant_filter(store: Store) -> None:
    """``due`` for a tenant lists only its sessions, ``None`` lists every tenant's, and a
    back-off in one tenant does not hold back the same session id in another."""
    for tenant, session in (("t", "a"), ("u", "a"), ("u", "b")):
        await store.append(tenant, session, pairs(2), now=T0, policy=OFF)
    await store.runs.failed("u", "a", "boom", now=T0, retry_at_for=_after)
    assert await store.runs.due("t", now=T0) == [("t", "a")]
    assert await store.runs.due("u", now=T0) == [("u", "b")]
    assert set(await store.runs.due(None, now=T0)) == {("t", "a"), ("u", "b")}
    assert set(await store.runs.due(None, now=T0 + 1000)) == {("t", "a"), ("u", "a"),
                                                              ("u", "b")}


async def check_flagged_until_summarised(store: Store) -> None:
    """A turns compaction flags its session: ``flagged`` lists it (not ``temp-`` sessions,
    sessions without a turns compaction or other tenants', not while backed off) until a save
    whose cursor reaches the cutoff it set, which clears the flag; a save short of it does
    not."""
    out = await store.append("t", "s", pairs(10), now=T0, policy=turns(10, 4))
    cutoff = out[5].id
    await store.append("t", "temp-x", pairs(10), now=T0, policy=turns(10, 4))
    await store.append("t", "plain", pairs(10), now=T0, policy=OFF)
    await store.append("u", "s", pairs(2), now=T0, policy=OFF)
    row = await store.session("t", "s")
    assert row is not None and row.summary_due and row.cutoff == cutoff
    assert await store.runs.flagged("t", now=T0) == [("t", "s")]
    assert await store.runs.flagged(None, now=T0) == [("t", "s")]
    assert await store.runs.flagged("u", now=T0) == []
    await _save(store, "t", "s", out[2].id)
    assert await store.runs.flagged("t", now=T0) == [("t", "s")]
    await store.runs.failed("t", "s", "boom", now=T0, retry_at_for=_after)
    assert await store.runs.flagged("t", now=T0 + 999) == []
    assert await store.runs.flagged("t", now=T0 + 1000) == [("t", "s")]
    await _save(store, "t", "s", cutoff)
    assert await store.runs.flagged("t", now=T0 + 1000) == []
    row = await store.session("t", "s")
    assert row is not None and not row.summary_due


RUN_CHECKS: Sequence[Check] = (
    check_save_summary_cursor_tokens, check_summary_and_cursor_together,
    check_add_tokens_needs_summary, check_lease_one_owner, check_lease_expired_taken_over,
    check_lease_release_by_owner_only, check_failed_counts_and_backs_off, check_succeeded_clears,
    check_due_pending_sessions, check_due_skips_backed_off, check_due_tenant_filter,
    check_flagged_until_summarised, *FENCE_CHECKS,
)
