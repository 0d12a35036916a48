"""Conformance checks of the message side: the archive, the window, the hot tier,
sessions and summaries."""

from __future__ import annotations

from collections.abc import Sequence

from .._compaction import CompactionPolicy
from ..errors import KeyConflict
from ..store import Store
from ..types import Summary
from ._common import OFF, T0, Check, keyword_ids, msg, pairs, turns

__all__ = ["MESSAGE_CHECKS"]


async def check_append_order(store: Store) -> None:
    """Ids increase in commit order; ``recent`` is the newest n, oldest first."""
    a = await store.append("t", "s", pairs(5), now=T0, policy=OFF)
    b = await store.append("t", "s", pairs(3, 5), now=T0, policy=OFF)
    ids = [m.id for m in a + b]
    assert ids == sorted(ids) and len(set(ids)) == 8, ids
    recent = await store.recent("t", "s", 4)
    assert [m.content for m in recent] == [f"message number {i}" for i in range(4, 8)]
    assert await store.recent("t", "other", 4) == []


async def check_ids_never_reused(store: Store) -> None:
    """A deleted newest message's id is not handed out again."""
    (m,) = await store.append("t", "s", [msg("user", "first")], now=T0, policy=OFF)
    assert await store.forget("t", m.id)
    (n,) = await store.append("t", "s", [msg("user", "second")], now=T0, policy=OFF)
    assert n.id > m.id


async def check_idempotency_key(store: Store) -> None:
    """A retried write with the same key returns the first message, stored once; the key
    reused for another message is ``KeyConflict``, and nothing is stored."""
    (a,) = await store.append("t", "s", [msg("user", "hi", key="k1")], now=T0, policy=OFF)
    (b,) = await store.append("t", "s", [msg("user", "hi", key="k1")], now=T0 + 1,
                              policy=OFF)
    assert a == b
    for other in (msg("user", "hi again", key="k1"), msg("assistant", "hi", key="k1")):
        try:
            await store.append("t", "s", [other], now=T0, policy=OFF)
        except KeyConflict as exc:
            assert exc.field == "key", exc
        else:
            raise AssertionError(f"{other} reused the key of another message")
    row = await store.session("t", "s")
    assert row is not None and row.messages == 1


async def check_idempotency_keys_in_a_batch(store: Store) -> None:
    """In one batch, a stored key yields the stored message and a key repeated within the
    batch is stored once; the others are new, in order, with increasing ids. A batch that
    reuses a key for another message is refused whole."""
    (old,) = await store.append("t", "s", [msg("user", "first", key="k1")], now=T0, policy=OFF)
    batch = [msg("user", "first", key="k1"), msg("user", "new", key="k2"),
             msg("assistant", "plain"), msg("user", "new", key="k2"),
             msg("assistant", "last", key="k3")]
    out = await store.append("t", "s", batch, now=T0, policy=OFF)
    assert out[0] == old and out[3] == out[1]
    assert [m.content for m in out] == ["first", "new", "plain", "new", "last"]
    assert old.id < out[1].id < out[2].id < out[4].id
    for refused in ([msg("user", "fresh", key="k4"), msg("user", "changed", key="k1")],
                    [msg("user", "fresh", key="k5"), msg("user", "other", key="k5")]):
        try:
            await store.append("t", "s", refused, now=T0, policy=OFF)
        except KeyConflict:
            pass
        else:
            raise AssertionError("a batch reusing a key for another message was stored")
    row = await store.session("t", "s")
    assert row is not None and row.messages == 4
    assert [m.content for m in await store.recent("t", "s", 10)] == ["first", "new", "plain",
                                                                      "last"]


async def check_keys_of_messages(store: Store) -> None:
    """``keys`` returns the idempotency key of each listed message stored with one, in the
    tenant asked for only; messages without a key and unknown ids are left out."""
    a, b = await store.append("t", "s", [msg("user", "keyed", key="k-1"), msg("user", "plain")],
                              now=T0, policy=OFF)
    (other,) = await store.append("u", "s", [msg("user", "keyed", key="k-2")], now=T0,
                                  policy=OFF)
    assert await store.keys("t", [a.id, b.id, other.id, 10**9]) == {a.id: "k-1"}
    assert await store.keys("u", [a.id, other.id]) == {other.id: "k-2"}
    assert await store.keys("t", []) == {}


async def check_tenant_isolation(store: Store) -> None:
    """Same session id in two tenants: nothing crosses, in any read."""
    await store.append("t1", "s", [msg("user", "apple pie recipe 蘋果派")], now=T0, policy=OFF)
    await store.append("t2", "s", [msg("user", "apple tart")], now=T0, policy=OFF)
    assert [m.content for m in await store.recent("t2", "s", 10)] == ["apple tart"]
    assert len(await keyword_ids(store, "t2", "s", "apple")) == 1
    assert len(await keyword_ids(store, "t2", None, "apple")) == 1
    assert await keyword_ids(store, "t2", None, "蘋果") == []
    assert [s.id for s in await store.sessions("t2")] == ["s"]
    assert len(await store.page("t2", None, since=None, before_id=None, limit=10)) == 1
    await store.append("t1", "s", [msg("user", "apple crumble")], now=T0, policy=OFF)
    (m1,) = await store.recent("t1", "s", 1)
    # Ids are numbers within a tenant: t2 has no message under t1's newest number.
    assert await store.get_message("t2", m1.id) is None
    assert not await store.forget("t2", m1.id)
    assert [m.content for m in await store.recent("t1", "s", 10)] == [
        "apple pie recipe 蘋果派", "apple crumble"]


async def check_keyword(store: Store) -> None:
    """Stemmed English, CJK bigrams, session scope, identifiers, time filter, hostile text."""
    await store.append("t", "s", [
        msg("user", "We were running the database migration", T0),
        msg("assistant", "我們討論了資料庫設計", T0 + 10),
        msg("user", "C++ templates are hard", T0 + 20),
    ], now=T0, policy=OFF)
    await store.append("t", "other", [msg("user", "database elsewhere")], now=T0, policy=OFF)
    assert len(await keyword_ids(store, "t", "s", "runs")) == 1
    assert len(await keyword_ids(store, "t", "s", "資料")) == 1
    assert len(await keyword_ids(store, "t", "s", "庫設")) == 1
    assert len(await keyword_ids(store, "t", "s", "C++")) == 1
    assert len(await keyword_ids(store, "t", "s", "database")) == 1
    assert len(await keyword_ids(store, "t", None, "database")) == 2
    assert len(await keyword_ids(store, "t", "s", "database", since=T0 + 5)) == 0
    for hostile in ['"', "AND OR NOT", "NEAR(a b)", "*", "col:x", "'; DROP TABLE messages;--",
                    "^x", "(((", "-x", "\\"]:
        await keyword_ids(store, "t", "s", hostile)
    assert len(await store.recent("t", "s", 10)) == 3


_WORDS_AND_IDENTIFIERS = (
    "We need to concatenate the files.", "The cathedral was beautiful.",
    "Let's start the party at eight.", "The cat sat on the mat.", "I run every morning.",
    "got ERR_42 again", "I am 42 years old", "edit src/app.py now",
    "我妹妹想去花蓮看太魯閣。",
)


async def _whole_word_hits(store: Store, session: str, by_content: dict[str, int]) -> None:
    async def found(query: str) -> set[str]:
        ids = set(await keyword_ids(store, "t", session, query))
        return {text for text, mid in by_content.items() if mid in ids}
    assert await found("cat") == {"The cat sat on the mat."}
    assert await found("cats") == {"The cat sat on the mat."}
    assert await found("art") == set()
    assert await found("running") == {"I run every morning."}
    assert await found("ERR_42") == {"got ERR_42 again"}
    assert await found("src/app.py") == {"edit src/app.py now"}
    assert await found("花蓮") == {"我妹妹想去花蓮看太魯閣。"}


async def check_keyword_whole_words(store: Store) -> None:
    """Words match whole words only, stemmed ("cat" never finds "concatenate", "art" never
    "start", "cats" finds "cat"), and an identifier ("ERR_42", "src/app.py") finds the message
    that holds it but not one holding only a part of it ("42"), whether the messages are hot
    or behind the compaction cutoff."""
    stored = await store.append("t", "s", [msg("user", t, T0 + i)
                                           for i, t in enumerate(_WORDS_AND_IDENTIFIERS)],
                                now=T0, policy=OFF)
    by_content = {m.content: m.id for m in stored}
    await _whole_word_hits(store, "s", by_content)
    await store.append("t", "s", pairs(12, 100), now=T0, policy=turns(12, 4))
    row = await store.session("t", "s")
    assert row is not None and row.cutoff > max(by_content.values())  # none of them is hot
    await _whole_word_hits(store, "s", by_content)
    assert await keyword_ids(store, "t", None, "cat") == [by_content["The cat sat on the mat."]]


async def check_keyword_literals_in_the_hot_tier(store: Store) -> None:
    """Among hot messages, an identifier, a lone CJK character and a query of symbols only are
    also found as case-insensitive substrings (inside longer tokens); plain words never are."""
    a, b, c, d = await store.append("t", "s", [
        msg("user", "the build failed with XERR_42X"), msg("user", "我們下週去花蓮"),
        msg("user", "ok *** done"), msg("user", "the catalogue is ready")], now=T0, policy=OFF)
    assert await keyword_ids(store, "t", "s", "err_42") == [a.id]
    assert await keyword_ids(store, "t", None, "ERR_42") == [a.id]
    assert await keyword_ids(store, "t", "s", "蓮") == [b.id]
    assert await keyword_ids(store, "t", "s", "***") == [c.id]
    assert await keyword_ids(store, "t", "s", "cat") == []
    assert await keyword_ids(store, "t", None, "log") == []
    assert await keyword_ids(store, "t", "s", "catalogue") == [d.id]


async def check_compaction_bytes(store: Store) -> None:
    """Over the byte limit the cutoff moves to a user message; the archive keeps every row."""
    policy = CompactionPolicy(by_bytes=True, max_bytes=1000, ratio=0.8)
    drafts = [msg("user" if i % 2 == 0 else "assistant", "x" * 99 + str(i % 10), T0 + i)
              for i in range(12)]
    out = await store.append("t", "s", drafts, now=T0, policy=policy)
    row = await store.session("t", "s")
    assert row is not None and row.messages == 12
    assert row.hot_bytes <= 800 and row.hot_messages == 12 - sum(m.id <= row.cutoff for m in out)
    first_hot = next(m for m in out if m.id > row.cutoff)
    assert first_hot.role == "user"
    assert len(await store.after_cursor("t", "s", None)) == 12


async def check_compaction_turns(store: Store) -> None:
    """At max_turns the newest keep_turns stay hot and a summary run is asked for."""
    policy = CompactionPolicy(by_bytes=False, by_turns=True, max_turns=10, keep_turns=4)
    out = await store.append("t", "s", pairs(10), now=T0, policy=policy)
    row = await store.session("t", "s")
    assert row is not None and row.cutoff == out[5].id and row.hot_messages == 4
    assert row.summary_due


async def check_summary(store: Store) -> None:
    """One summary per session, read with the window from one snapshot."""
    (m,) = await store.append("t", "s", [msg("user", "hello")], now=T0, policy=OFF)
    s = Summary(session="s", kind="digest", body={"text": "earlier"}, cursor=m.id,
                created_at=T0)
    await store.put_summary("t", s)
    window, got = await store.window_and_summary("t", "s", 5)
    assert got == s and [w.id for w in window] == [m.id]
    assert await store.get_summary("t2", "s") is None


async def check_reset_and_remove(store: Store) -> None:
    """Reset keeps (or drops) the summary; remove drops everything; ids stay unique."""
    out = await store.append("t", "s", pairs(4), now=T0, policy=OFF)
    await store.put_summary("t", Summary(session="s", kind="digest", body={"text": "x"},
                                         cursor=out[-1].id, created_at=T0))
    assert await store.delete_messages("t", "s", keep_summary=True) == 4
    assert await store.recent("t", "s", 10) == []
    assert await store.get_summary("t", "s") is not None
    assert await keyword_ids(store, "t", "s", "message") == []
    await store.delete_messages("t", "s", keep_summary=False)
    assert await store.get_summary("t", "s") is None
    await store.append("t", "s", pairs(2), now=T0, policy=OFF)
    assert await store.remove_session("t", "s")
    assert await store.session("t", "s") is None and await store.sessions("t") == []
    assert not await store.remove_session("t", "s")


async def check_purge_idle(store: Store) -> None:
    """Idle scratch sessions go (every table); busy ones and ordinary ones stay."""
    await store.append("t", "temp-old", pairs(2), now=T0, policy=OFF)
    await store.append("t", "temp-new", pairs(2), now=T0 + 100, policy=OFF)
    await store.append("t", "keep", pairs(2), now=T0, policy=OFF)
    gone = await store.purge_idle("temp-", T0 + 50)
    assert gone == [("t", "temp-old")]
    assert await store.recent("t", "temp-old", 5) == []
    assert len(await store.recent("t", "temp-new", 5)) == 2
    assert [s.id for s in await store.sessions("t")] == ["keep"]
    assert {s.id for s in await store.sessions("t", include_temp=True)} == {"keep", "temp-new"}


async def check_import_atomic(store: Store) -> None:
    """Messages and the summary of an import commit together."""
    def summary_for(ids: list[int]) -> Summary:
        return Summary(session="s", kind="digest", body={"text": "x"}, cursor=ids[0],
                       created_at=T0)
    ids = await store.import_session("t", "s", pairs(3), summary_for, now=T0, policy=OFF)
    got = await store.get_summary("t", "s")
    assert got is not None and got.cursor == ids[0]
    assert [m.id for m in await store.recent("t", "s", 5)] == ids


async def check_forget_counts(store: Store) -> None:
    """Forgetting a hot message updates the counters and the index."""
    out = await store.append("t", "s", [msg("user", "alpha"), msg("assistant", "beta")],
                             now=T0, policy=OFF)
    assert await store.forget("t", out[0].id)
    row = await store.session("t", "s")
    assert row is not None and row.messages == 1 and row.hot_messages == 1
    assert row.hot_bytes == len("beta")
    assert await keyword_ids(store, "t", "s", "alpha") == []


async def check_reading_helpers(store: Store) -> None:
    """``around``, ``page``, ``after_cursor`` and ``count_between`` slice a session by id."""
    out = await store.append("t", "s", pairs(10), now=T0, policy=OFF)
    ids = [m.id for m in out]
    runs = await store.around("t", [ids[5]], 2, 1)
    assert [m.id for m in runs[ids[5]]] == ids[3:7]
    page = await store.page("t", "s", since=None, before_id=ids[5], limit=3)
    assert [m.id for m in page] == [ids[4], ids[3], ids[2]]
    assert [m.id for m in await store.after_cursor("t", "s", ids[6])] == ids[7:]
    assert [m.id for m in await store.after_cursor("t", "s", ids[1], ids[3])] == ids[2:4]
    assert await store.count_between("t", "s", ids[1], ids[5]) == 3
    assert await store.count_between("t", "s", 0, ids[0]) == 0
    assert await store.count_between("t", "other", 0, ids[-1] + 1) == 0
    assert await store.count_between("t2", "s", 0, ids[-1] + 1) == 0
    assert await store.integrity_check() == []


MESSAGE_CHECKS: Sequence[Check] = (
    check_append_order, check_ids_never_reused, check_idempotency_key,
    check_idempotency_keys_in_a_batch, check_keys_of_messages,
    check_tenant_isolation,
    check_keyword, check_keyword_whole_words, check_keyword_literals_in_the_hot_tier,
    check_compaction_bytes, check_compaction_turns, check_summary,
    check_reset_and_remove, check_purge_idle, check_import_atomic, check_forget_counts,
    check_reading_helpers,
)
