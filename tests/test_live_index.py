"""The tenant index kept write by write (``LiveIndexes``) equals one rebuilt from the store,
through every kind of write, on SQLite and PostgreSQL; a tenant-wide search gives each message
the score its session's own search gives it; the kept index ranks as the per-session index
built from the store does."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest
from pg_server import PgServer

from memstrata import Memory, Settings
from memstrata.search import LiveIndexes, _follow, vector_model
from memstrata.search._across import rank_tenant
from memstrata.search._features import (
    FEATURES,
    RELATIVE,
    SCOPED,
    QueryTerms,
    feature_matrix,
    query_terms_of,
)
from memstrata.search._fusion import build_session_index, rank_learned
from memstrata.search._ranker import LearnedRanker, load_rankers, ranker_for
from memstrata.search._tenant import TenantIndex
from memstrata.store import Store, open_store

SETTINGS = Settings(embedder="hash:512", summary_cron=None, compact_bytes=False)
MODEL = vector_model("hash:512")
DIM = 512
QUERIES = ("blue kite in paris", "ann said the ocean", "numbers 7 and 12", "what about bob?")
WORDS = ("apple blue kite paris ocean night tree river garden music paint bake run story "
         "train station coffee market winter summer").split()
RANKER = "local:use-multilingual-v3"  # features do not depend on the model: any ranker reads


def _text(i: int) -> str:
    return " ".join(WORDS[(i * k + 3) % len(WORDS)] for k in range(1, 2 + i % 6)) + f" {i}"


def _chat(n: int, start: int = 0) -> list[dict[str, object]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": _text(i),
             "sender": ("ann", "bob", None)[i % 3]} for i in range(start, start + n)]


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "live.db")
    server: PgServer = request.getfixturevalue("pg_server")
    return server.create_database("live")


@pytest.fixture
async def store(target: str) -> AsyncIterator[Store]:
    """A second connection to the database the Memory writes: the index follows it as it
    would another process's writes."""
    opened = await open_store(target)
    try:
        yield opened
    finally:
        await opened.close()


async def _sync(live: LiveIndexes, store: Store, session: str | None = None) -> TenantIndex:
    versions = await store.vectors.versions("default", session)
    return await live.current(store.vectors, "default", MODEL, DIM, versions,
                              whole=session is None)


def _features(index: TenantIndex, query: str, scope: list[str]) -> dict[int, np.ndarray]:
    selection = index.select(scope)
    if not selection.rows.shape[0]:
        return {}
    terms = query_terms_of(query)
    q = np.ones(DIM, dtype=np.float32) / np.sqrt(DIM)
    x = feature_matrix(own_terms=index.keyword(selection, terms.terms, key=False),
                       key_terms=index.keyword(selection, terms.terms, key=True),
                       info=selection.info, times=selection.times,
                       sender_codes=selection.sender_codes, sender_names=index.sender_names(),
                       query=terms, own_vectors=None, key_vectors=None, query_vector=q,
                       now=4 * 10**18, groups=selection.groups, links=selection.links,
                       cosines=index.cosines(selection, q))
    return dict(zip(selection.ids.tolist(), x, strict=True))


async def _cases(mem: Memory) -> list[tuple[str, LearnedRanker, str, QueryTerms, np.ndarray]]:
    """(mode, ranker, query, its terms, its vector) for each mode and query of the tests."""
    assert mem.embedder is not None
    out = []
    for mode in ("hybrid", "semantic"):
        ranker = ranker_for(RANKER, mode)
        assert ranker is not None
        for query in QUERIES:
            q = (await mem.embedder.embed([query]))[0]
            out.append((mode, ranker, query, query_terms_of(query), q))
    return out


async def _same_as_rebuilt(kept: LiveIndexes, store: Store) -> None:
    """The sessions a tenant-wide search reads (those with vectors) hold the same messages,
    vectors and features in the kept index as in one rebuilt from the store."""
    index = await _sync(kept, store)
    fresh = await _sync(LiveIndexes(2**30), store)
    scope = list(await store.vectors.versions("default", None))
    a, b = index.select(scope), fresh.select(scope)
    assert sorted(a.ids.tolist()) == sorted(b.ids.tolist())
    order_a = {i: n for n, i in enumerate(a.ids.tolist())}
    order_b = [order_a[i] for i in b.ids.tolist()]
    rows_a, rows_b = a.rows[order_b], b.rows
    assert np.array_equal(index.present[rows_a], fresh.present[rows_b])
    for name in ("own_q", "own_scale", "key_q", "key_scale"):
        assert np.array_equal(getattr(index, name)[rows_a], getattr(fresh, name)[rows_b])
    names = list(index.sessions)
    fresh_names = list(fresh.sessions)
    assert [names[c] for c in index.codes[rows_a]] == [fresh_names[c]
                                                        for c in fresh.codes[rows_b]]
    for query in QUERIES:
        fa, fb = _features(index, query, scope), _features(fresh, query, scope)
        assert set(fa) == set(fb)
        for mid, row in fb.items():
            assert np.allclose(fa[mid], row, atol=1e-6), (query, mid, fa[mid] - row)


async def test_kept_index_follows_every_write(target: str, store: Store) -> None:
    settings = Settings(embedder="hash:512", summary_cron=None, compact_bytes=False,
                        compact_turns=True, max_turns=30, keep_turns=16)
    kept = LiveIndexes(2**30)
    async with Memory.open(target, settings=settings, background=False) as mem:
        a_messages = await mem.add_many("a", _chat(9))
        for s in ("b", "c"):
            await mem.add_many(s, _chat(9, start=len(s)))
        await mem.flush()
        await _same_as_rebuilt(kept, store)
        # add: the index follows before and after the message is embedded
        await mem.add("a", "user", "a new note about the blue kite", sender="ann")
        await _same_as_rebuilt(kept, store)
        await mem.flush()
        await _sync(kept, store, "a")  # a session search between writes
        await mem.add_many("b", _chat(4, start=50))
        await _same_as_rebuilt(kept, store)
        await mem.flush()
        await _same_as_rebuilt(kept, store)
        # import
        records = [r async for r in mem.export("c")]
        assert await mem.import_("d", records) == 9
        await mem.flush()
        await _same_as_rebuilt(kept, store)
        # forget: the message leaves, its neighbours' keys and the next vector change
        assert await mem.forget(a_messages[4].id)
        await _same_as_rebuilt(kept, store)
        await mem.flush()
        await _same_as_rebuilt(kept, store)
        # compaction: the hot tier of "b" drops its oldest messages
        await mem.add_many("b", _chat(25, start=80))
        await mem.flush()
        assert (await store.session("default", "b")) is not None
        await _same_as_rebuilt(kept, store)
        # reset and remove
        await mem.reset("c", "all")
        await _same_as_rebuilt(kept, store)
        await mem.add("c", "user", "after the reset", sender="bob")
        await mem.flush()
        await _same_as_rebuilt(kept, store)
        assert await mem.remove("d")
        await _same_as_rebuilt(kept, store)
        # reindex: every vector goes, then comes back
        assert await mem.reindex() > 0
        await _same_as_rebuilt(kept, store)
        await mem.flush()
        await _same_as_rebuilt(kept, store)
    assert kept.reloads == 0  # every change was followed by a delta


async def test_appends_are_followed_by_their_delta_alone(target: str, store: Store) -> None:
    """Adds and their vectors move a session's counts exactly as the delta the index reads
    says (the marks come from the session's counters, not from counting its rows): no
    session is repaired or reloaded, and the index still equals one rebuilt from the store."""
    kept = LiveIndexes(2**30)
    async with Memory.open(target, settings=SETTINGS, background=False) as mem:
        await mem.add_many("a", _chat(12))
        await mem.flush()
        await _sync(kept, store)
        for n in range(4):
            await mem.add("a", "user", _text(100 + n), sender="ann")
            await _sync(kept, store, "a")  # before its vector: held as waiting
            await mem.add_many("b", _chat(3, start=40 + 3 * n))
            await mem.flush()
            await _sync(kept, store, "a")
            await _sync(kept, store)
    assert kept.repairs == kept.reloads == 0
    await _same_as_rebuilt(kept, store)


async def test_a_tenant_read_in_parts_equals_one_read_whole(
        target: str, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold read takes the sessions a few at a time (each part's rows freed before the
    next is read): the index holds every session as one read of them all would."""
    async with Memory.open(target, settings=SETTINGS, background=False) as mem:
        for s in range(7):
            await mem.add_many(f"s{s}", _chat(3 + s, start=5 * s))
        await mem.flush()
        await mem.add("s2", "user", "waiting for its vector: blue kite", sender="ann")
    whole = await _sync(LiveIndexes(2**30), store)
    monkeypatch.setattr(_follow, "_READ_SESSIONS", 2)
    parts = await _sync(LiveIndexes(2**30), store)
    assert parts.alive_count == whole.alive_count == 7 * 3 + sum(range(7)) + 1
    scope = list(whole.sessions)
    for query in QUERIES:
        a, b = _features(whole, query, scope), _features(parts, query, scope)
        assert set(a) == set(b)
        for mid, row in a.items():
            assert np.allclose(b[mid], row, atol=1e-6), (query, mid)


async def test_tenant_search_scores_as_session_search(target: str, store: Store) -> None:
    """A message's evidence of its own is the same in a tenant-wide pass and in its
    session's: every feature but the relative and scoped ones. The relative ones place it
    among every message of the conversations searched (the sessions of more than one
    message), so a memory alone in its session keeps its semantic probability and, in hybrid
    mode, the answer gate's judge's log-odds (its hybrid probability also compares it with the
    best of everything searched)."""
    async with Memory.open(target, settings=SETTINGS, background=False) as mem:
        for n, s in enumerate(("a", "b", "c", "d")):
            await mem.add_many(s, _chat(12 + 3 * n, start=7 * n))
        for n in range(5):
            await mem.add_many(f"memory-{n}", _chat(1, start=3 + 11 * n))
        await mem.add("b", "user", "not embedded yet: blue kite over paris", sender="ann")
        await mem.flush()
        await mem.add("c", "user", "also waiting: the ocean at night")
        index = await _sync(LiveIndexes(2**30), store)
        scope = list(index.sessions)
        memory_ids = set(index.select([s for s in scope if s.startswith("memory")]
                                      ).ids.tolist())
        absolute = [j for j, name in enumerate(FEATURES) if name not in SCOPED + RELATIVE]
        placed = [j for j, name in enumerate(FEATURES) if name not in SCOPED]
        for query in QUERIES:
            together = _features(index, query, scope)
            for s in scope:
                kept = placed if s.startswith("memory") else absolute
                for mid, row in _features(index, query, [s]).items():
                    np.testing.assert_allclose(together[mid][kept], row[kept], atol=1e-6)
        for mode, ranker, query, terms, q in await _cases(mem):
            everywhere = rank_tenant(index, scope, terms, q, ranker, k=200,
                                     now=4 * 10**18, hybrid=mode == "hybrid")
            assert everywhere
            own: dict[int, float | None] = {}
            for s in index.sessions:
                for r in rank_tenant(index, [s], terms, q, ranker, k=200, now=4 * 10**18,
                                     hybrid=mode == "hybrid"):
                    own[r.id] = r.judged if mode == "hybrid" else r.score
            memories = [r for r in everywhere if r.id in memory_ids]
            assert memories, (mode, query)
            for r in memories:
                mine = r.judged if mode == "hybrid" else r.score
                theirs = own[r.id]
                assert mine is not None and theirs is not None, (mode, query, r)
                assert abs(mine - theirs) < 1e-5, (mode, query, r)


async def test_kept_index_ranks_as_the_session_index(target: str, store: Store) -> None:
    """The kept index and the per-session index built from ``load_hot`` rank a session's
    messages alike (probabilities within what int8 vectors move them, the same order but for
    near ties)."""
    async with Memory.open(target, settings=SETTINGS, background=False) as mem:
        first = await mem.add_many("s", _chat(40))
        await mem.flush()
        await mem.add_many("s", _chat(3, start=40))  # three not embedded yet
        live = LiveIndexes(2**30)
        await mem.forget(first[10].id)
        index = await _sync(live, store, "s")
        hot = await store.vectors.load_hot("default", "s", MODEL, 2 * DIM)
        built = build_session_index(hot.ids, hot.contents, hot.senders, hot.ats,
                                    hot.matrix[:, DIM:], own_vectors=hot.matrix[:, :DIM])
        assert mem.embedder is not None
        for mode in ("hybrid", "semantic"):
            ranker = ranker_for(RANKER, mode)
            assert ranker is not None
            for query in QUERIES:
                terms = query_terms_of(query)
                q = (await mem.embedder.embed([query]))[0]
                eligible = np.ones(len(hot.ids), dtype=np.bool_) if mode == "hybrid" \
                    else hot.embedded.copy()
                old = rank_learned(built, terms, q, ranker, k=10, now=4 * 10**18,
                                   eligible=eligible)
                new = rank_tenant(index, ["s"], terms, q, ranker, k=10, now=4 * 10**18,
                                  hybrid=mode == "hybrid")
                # The kept index holds int8 vectors: cosines within the quantisation error
                # (tests/test_quant.py), the keyword features exact. So the probabilities
                # agree within that error, position by position and message by message, and
                # the order differs only where two messages are that close (a near tie).
                assert np.allclose([r.score for r in new], [r.score for r in old], atol=2e-3)
                before = {r.id: r.score for r in old}
                for r in new:
                    if r.id in before:
                        assert abs(r.score - before[r.id]) <= 2e-3, (mode, query, r)
                    else:  # came in at the cut, in the place of one as likely
                        assert r.score <= old[-1].score + 2e-3, (mode, query, r)
                swapped = sum(a.id != b.id for a, b in zip(new, old, strict=True))
                assert swapped <= 2, (mode, query, [r.id for r in new], [r.id for r in old])


_WRITER = textwrap.dedent("""
    import asyncio, sys
    from memstrata import Memory, Settings

    async def main() -> None:
        settings = Settings(embedder="hash:512", summary_cron=None, compact_bytes=False)
        async with Memory.open(sys.argv[1], settings=settings, background=False) as mem:
            i = 0
            while True:
                await mem.add_many("k", [{"role": "user", "content": f"kill test {i} {j}"}
                                         for j in range(20)])
                print("batch", flush=True)
                await mem.flush()
                i += 1

    asyncio.run(main())
""")


async def test_kept_index_after_a_kill_during_indexing(target: str, store: Store) -> None:
    kept = LiveIndexes(2**30)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, target], stdout=subprocess.PIPE,
                            env=env)
    try:
        assert proc.stdout is not None
        for _ in range(3):
            line = await asyncio.to_thread(proc.stdout.readline)
            assert line.startswith(b"batch"), line
            await _sync(kept, store)  # the index follows a live writer in another process
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    await _same_as_rebuilt(kept, store)
    # A new process takes over the dead one's claims and finishes the backlog.
    async with Memory.open(target, settings=SETTINGS, background=False) as mem:
        await mem.add("k", "user", "after the kill")
        await asyncio.wait_for(mem.flush(), 60)
    await _same_as_rebuilt(kept, store)
    index = await _sync(kept, store)
    assert index.sessions["k"].alive == index.sessions["k"].embedded


async def test_index_read_afresh_once_most_rows_left(target: str, store: Store,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows that left are not kept for ever: once they outnumber the living (and a floor,
    lowered here), the next search reads the tenant afresh, and the index still equals one
    rebuilt from the store."""
    monkeypatch.setattr(_follow, "_DEAD_ROWS", 5)
    kept = LiveIndexes(2**30)
    async with Memory.open(target, settings=SETTINGS, background=False) as mem:
        await mem.add_many("a", _chat(20))
        await mem.add_many("b", _chat(6, start=30))
        await mem.flush()
        await _same_as_rebuilt(kept, store)
        await mem.reset("a", "all")
        await _same_as_rebuilt(kept, store)
        assert kept.rebuilds == 1
        index = await _sync(kept, store)
        assert index.size == index.alive_count == 6


async def test_memory_search_across_sessions_scores_as_each_session(
        target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through ``Memory.search`` (the learned ranker lent to the hashing embedder): a memory
    alone in its session has, in a tenant-wide semantic search, the score its own session's
    search gives it, before and right after a write to a conversation beside it, and a hybrid
    search finds the new message before it is embedded. (A conversation's message is placed
    among the messages of every conversation searched, and a hybrid score also compares a
    message with the best of everything searched.)"""
    for mode in ("hybrid", "semantic"):
        lent = ranker_for(RANKER, mode)
        assert lent is not None
        monkeypatch.setitem(load_rankers(), ("hash:512", mode), lent)
    async with Memory.open(target, settings=SETTINGS, background=False) as mem:
        for n, s in enumerate(("a", "b", "c")):
            await mem.add_many(s, _chat(10 + 5 * n, start=11 * n))
        memories = [f"memory-{n}" for n in range(8)]
        for n, s in enumerate(memories):
            await mem.add_many(s, _chat(1, start=2 + 5 * n))
        await mem.flush()
        for round_ in range(2):
            for query in QUERIES:
                found = await mem.search(None, query, match="semantic", limit=32, min_score=-1,
                                         exclude_window=False)
                assert any(h.message.session in memories for h in found if h.matched)
                for s in memories:
                    own = {h.message.id: h.score for h in await mem.search(
                        s, query, match="semantic", limit=32, min_score=-1,
                        exclude_window=False) if h.matched}
                    for h in found:
                        if h.matched and h.message.session == s:
                            assert h.score == pytest.approx(own[h.message.id], abs=2e-6)
            if round_ == 0:
                new = await mem.add("b", "user", "zebra crossing near the harbour")
                hits = await mem.search(None, "zebra harbour", match="hybrid",
                                        exclude_window=False)
                assert new.id in [h.message.id for h in hits if h.matched]
        # The learned path read the tenant index (the fusion would not have built one).
        assert mem._live_indexes.peek("default", MODEL) is not None


async def test_candidate_stage_scores_as_the_whole_scope(target: str, store: Store) -> None:
    """Past its row limit a tenant-wide search ranks only the sessions of its candidates:
    each hit it returns comes from a session holding a candidate, a memory alone in its
    session has the evidence of its own it has in the search of every row (its semantic
    probability; in hybrid mode the judge's log-odds), the best hit is the same, and with
    candidates enough for every row the answer is the same. (A message of a conversation is
    placed among the messages of the candidates' conversations, not of every one.)"""
    async with Memory.open(target, settings=SETTINGS, background=False) as mem:
        for s in range(24):
            await mem.add_many(f"s{s}", _chat(6 + s % 5, start=11 * s))
        for n in range(12):
            await mem.add_many(f"memory-{n}", _chat(1, start=5 + 7 * n))
        await mem.flush()
        index = await _sync(LiveIndexes(2**30), store)
        scope = list(index.sessions)
        memory_ids = set(index.select([s for s in scope if s.startswith("memory")]
                                      ).ids.tolist())
        for mode, ranker, query, terms, q in await _cases(mem):
            hybrid = mode == "hybrid"

            def ranked(k: int, rows: int = 10**9, candidates: int = 1,
                       terms: QueryTerms = terms, q: np.ndarray = q,
                       ranker: LearnedRanker = ranker, hybrid: bool = hybrid
                       ) -> list[tuple[int, float]]:
                found = rank_tenant(index, scope, terms, q, ranker, k=k, now=4 * 10**18,
                                    hybrid=hybrid, candidate_rows=rows, candidates=candidates)
                return [(r.id, r.judged if hybrid and r.judged is not None else r.score)
                        for r in found]

            every = ranked(8)
            exact = dict(ranked(10**6))
            few = ranked(2, rows=0, candidates=2)
            assert few
            chosen = index.candidate_scope(scope, q / np.linalg.norm(q), terms.terms,
                                           rows=4 * 2, vectors_only=not hybrid)
            assert len(chosen) < len(scope)
            assert {i for i, _ in few} <= set(index.select(chosen).ids.tolist())
            near = 1e-5 if hybrid else 1e-6  # log-odds, or a probability
            for i, score in ranked(24, rows=0, candidates=2):
                if i in memory_ids:
                    assert abs(score - exact[i]) < near, (mode, query, i)
            # A conversation's message is placed among fewer messages here: the best hit may
            # trade places with a near tie.
            assert few[0][0] in [i for i, _ in every[:2]], (mode, query, few, every)
            everything = ranked(8, rows=0, candidates=10**6)
            assert [i for i, _ in everything] == [i for i, _ in every]
            assert np.allclose([p for _, p in everything], [p for _, p in every],
                               rtol=0, atol=1e-6)


async def test_versions_follow_every_connections_writes(target: str, store: Store) -> None:
    """The sessions' vector versions a tenant-wide search reads (kept between reads while
    the database does not change) move with a write through this connection and through
    another."""
    async with Memory.open(target, settings=SETTINGS, background=False) as mem:
        await mem.add_many("a", _chat(3))
        await mem.flush()
        first = await store.vectors.versions("default", None)
        assert await store.vectors.versions("default", None) == first
        await mem.add("a", "user", "one more")  # another connection
        await mem.flush()
        second = await store.vectors.versions("default", None)
        assert second["a"] != first["a"]
        newest = (await store.recent("default", "a", 1))[0]
        assert await store.forget("default", newest.id)  # this connection
        third = await store.vectors.versions("default", None)
        assert third["a"] != second["a"]
