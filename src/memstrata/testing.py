"""The conformance suite every Store backend must pass.

Each check is an ``async def check_…(store)`` that receives a fresh, empty store and raises
``AssertionError`` on a violation. A backend's test module runs them all, e.g. with pytest::

    @pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
    async def test_conformance(check, make_store):
        store = await make_store()
        try:
            await check(store)
        finally:
            await store.close()
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from ._compaction import CompactionPolicy
from ._ingest import draft
from .store import Store
from .text import fts_match_expression, query_terms
from .types import Draft, Message, Summary

__all__ = ["CHECKS", "Check"]

Check = Callable[[Store], Awaitable[None]]

_T0 = 1_700_000_000 * 10**9
_OFF = CompactionPolicy(by_bytes=False, by_turns=False)


def _d(role: str, content: str, at: int = _T0, key: str | None = None) -> Draft:
    return draft(role, content, at=at, key=key, now=at, max_chars=10_000)


def _pairs(n: int, start: int = 0) -> list[Draft]:
    return [_d("user" if i % 2 == 0 else "assistant", f"message number {i}", _T0 + i)
            for i in range(start, start + n)]


async def _kw(store: Store, tenant: str, session: str | None, query: str,
              since: int | None = None) -> list[int]:
    rows = await store.keyword(tenant, session, fts_match_expression(query_terms(query)), query,
                               since=since, limit=32)
    return sorted(r.message.id for r in rows)


async def check_append_order(store: Store) -> None:
    """Ids increase in commit order; ``recent`` is the newest n, oldest first."""
    a = await store.append("t", "s", _pairs(5), now=_T0, policy=_OFF)
    b = await store.append("t", "s", _pairs(3, 5), now=_T0, policy=_OFF)
    ids = [m.id for m in a + b]
    assert ids == sorted(ids) and len(set(ids)) == 8, ids
    recent = await store.recent("t", "s", 4)
    assert [m.content for m in recent] == [f"message number {i}" for i in range(4, 8)]
    assert await store.recent("t", "other", 4) == []


async def check_ids_never_reused(store: Store) -> None:
    """A deleted newest message's id is not handed out again."""
    (m,) = await store.append("t", "s", [_d("user", "first")], now=_T0, policy=_OFF)
    assert await store.forget("t", m.id)
    (n,) = await store.append("t", "s", [_d("user", "second")], now=_T0, policy=_OFF)
    assert n.id > m.id


async def check_idempotency_key(store: Store) -> None:
    """A retried write with the same key returns the first message, stored once."""
    (a,) = await store.append("t", "s", [_d("user", "hi", key="k1")], now=_T0, policy=_OFF)
    (b,) = await store.append("t", "s", [_d("user", "hi again", key="k1")], now=_T0,
                              policy=_OFF)
    assert a == b
    row = await store.session("t", "s")
    assert row is not None and row.messages == 1


async def check_tenant_isolation(store: Store) -> None:
    """Same session id in two tenants: nothing crosses, in any read."""
    await store.append("t1", "s", [_d("user", "apple pie recipe 蘋果派")], now=_T0, policy=_OFF)
    await store.append("t2", "s", [_d("user", "apple tart")], now=_T0, policy=_OFF)
    assert [m.content for m in await store.recent("t2", "s", 10)] == ["apple tart"]
    assert len(await _kw(store, "t2", "s", "apple")) == 1
    assert len(await _kw(store, "t2", None, "apple")) == 1
    assert await _kw(store, "t2", None, "蘋果") == []
    assert [s.id for s in await store.sessions("t2")] == ["s"]
    assert len(await store.page("t2", None, since=None, before_id=None, limit=10)) == 1
    (m1,) = await store.recent("t1", "s", 1)
    assert await store.get_message("t2", m1.id) is None
    assert not await store.forget("t2", m1.id)


async def check_keyword(store: Store) -> None:
    """Stemmed English, CJK bigrams, session scope, hot substring, time filter, hostile text."""
    await store.append("t", "s", [
        _d("user", "We were running the database migration", _T0),
        _d("assistant", "我們討論了資料庫設計", _T0 + 10),
        _d("user", "C++ templates are hard", _T0 + 20),
    ], now=_T0, policy=_OFF)
    await store.append("t", "other", [_d("user", "database elsewhere")], now=_T0, policy=_OFF)
    assert len(await _kw(store, "t", "s", "runs")) == 1
    assert len(await _kw(store, "t", "s", "資料")) == 1
    assert len(await _kw(store, "t", "s", "庫設")) == 1
    assert len(await _kw(store, "t", "s", "C++")) == 1
    assert len(await _kw(store, "t", "s", "database")) == 1
    assert len(await _kw(store, "t", None, "database")) == 2
    assert len(await _kw(store, "t", "s", "database", since=_T0 + 5)) == 0
    for hostile in ['"', "AND OR NOT", "NEAR(a b)", "*", "col:x", "'; DROP TABLE messages;--",
                    "^x", "(((", "-x", "\\"]:
        await _kw(store, "t", "s", hostile)
    assert len(await store.recent("t", "s", 10)) == 3


async def check_compaction_bytes(store: Store) -> None:
    """Over the byte limit the cutoff moves to a user message; the archive keeps every row."""
    policy = CompactionPolicy(by_bytes=True, max_bytes=1000, ratio=0.8)
    drafts = [_d("user" if i % 2 == 0 else "assistant", "x" * 99 + str(i % 10), _T0 + i)
              for i in range(12)]
    out = await store.append("t", "s", drafts, now=_T0, policy=policy)
    row = await store.session("t", "s")
    assert row is not None and row.messages == 12
    assert row.hot_bytes <= 800 and row.hot_messages == 12 - sum(m.id <= row.cutoff for m in out)
    first_hot = next(m for m in out if m.id > row.cutoff)
    assert first_hot.role == "user"
    assert len(await store.after_cursor("t", "s", None)) == 12


async def check_compaction_turns(store: Store) -> None:
    """At max_turns the newest keep_turns stay hot and a summary run is asked for."""
    policy = CompactionPolicy(by_bytes=False, by_turns=True, max_turns=10, keep_turns=4)
    out = await store.append("t", "s", _pairs(10), now=_T0, policy=policy)
    row = await store.session("t", "s")
    assert row is not None and row.cutoff == out[5].id and row.hot_messages == 4
    assert row.summary_due


async def check_summary(store: Store) -> None:
    """One summary per session, read with the window from one snapshot."""
    (m,) = await store.append("t", "s", [_d("user", "hello")], now=_T0, policy=_OFF)
    s = Summary(session="s", kind="digest", body={"text": "earlier"}, cursor=m.id,
                created_at=_T0)
    await store.put_summary("t", s)
    window, got = await store.window_and_summary("t", "s", 5)
    assert got == s and [w.id for w in window] == [m.id]
    assert await store.get_summary("t2", "s") is None


async def check_reset_and_remove(store: Store) -> None:
    """Reset keeps (or drops) the summary; remove drops everything; ids stay unique."""
    out = await store.append("t", "s", _pairs(4), now=_T0, policy=_OFF)
    await store.put_summary("t", Summary(session="s", kind="digest", body={"text": "x"},
                                         cursor=out[-1].id, created_at=_T0))
    assert await store.delete_messages("t", "s", keep_summary=True) == 4
    assert await store.recent("t", "s", 10) == []
    assert await store.get_summary("t", "s") is not None
    assert await _kw(store, "t", "s", "message") == []
    await store.delete_messages("t", "s", keep_summary=False)
    assert await store.get_summary("t", "s") is None
    await store.append("t", "s", _pairs(2), now=_T0, policy=_OFF)
    assert await store.remove_session("t", "s")
    assert await store.session("t", "s") is None and await store.sessions("t") == []
    assert not await store.remove_session("t", "s")


async def check_purge_idle(store: Store) -> None:
    """Idle scratch sessions go (every table); busy ones and ordinary ones stay."""
    await store.append("t", "temp-old", _pairs(2), now=_T0, policy=_OFF)
    await store.append("t", "temp-new", _pairs(2), now=_T0 + 100, policy=_OFF)
    await store.append("t", "keep", _pairs(2), now=_T0, policy=_OFF)
    gone = await store.purge_idle("temp-", _T0 + 50)
    assert gone == [("t", "temp-old")]
    assert await store.recent("t", "temp-old", 5) == []
    assert len(await store.recent("t", "temp-new", 5)) == 2
    assert [s.id for s in await store.sessions("t")] == ["keep"]
    assert {s.id for s in await store.sessions("t", include_temp=True)} == {"keep", "temp-new"}


async def check_import_atomic(store: Store) -> None:
    """Messages and the summary of an import commit together."""
    def summary_for(messages: list[Message]) -> Summary:
        return Summary(session="s", kind="digest", body={"text": "x"}, cursor=messages[0].id,
                       created_at=_T0)
    out = await store.import_session("t", "s", _pairs(3), summary_for, now=_T0, policy=_OFF)
    got = await store.get_summary("t", "s")
    assert got is not None and got.cursor == out[0].id


async def check_forget_counts(store: Store) -> None:
    """Forgetting a hot message updates the counters and the index."""
    out = await store.append("t", "s", [_d("user", "alpha"), _d("assistant", "beta")],
                             now=_T0, policy=_OFF)
    assert await store.forget("t", out[0].id)
    row = await store.session("t", "s")
    assert row is not None and row.messages == 1 and row.hot_messages == 1
    assert row.hot_bytes == len("beta")
    assert await _kw(store, "t", "s", "alpha") == []


async def check_reading_helpers(store: Store) -> None:
    """``around``, ``page`` and ``after_cursor`` slice a session by id."""
    out = await store.append("t", "s", _pairs(10), now=_T0, policy=_OFF)
    ids = [m.id for m in out]
    runs = await store.around("t", [ids[5]], 2, 1)
    assert [m.id for m in runs[ids[5]]] == ids[3:7]
    page = await store.page("t", "s", since=None, before_id=ids[5], limit=3)
    assert [m.id for m in page] == [ids[4], ids[3], ids[2]]
    assert [m.id for m in await store.after_cursor("t", "s", ids[6])] == ids[7:]
    assert [m.id for m in await store.after_cursor("t", "s", ids[1], ids[3])] == ids[2:4]
    assert await store.integrity_check() == []


CHECKS: Sequence[Check] = (
    check_append_order, check_ids_never_reused, check_idempotency_key, check_tenant_isolation,
    check_keyword, check_compaction_bytes, check_compaction_turns, check_summary,
    check_reset_and_remove, check_purge_idle, check_import_atomic, check_forget_counts,
    check_reading_helpers,
)
