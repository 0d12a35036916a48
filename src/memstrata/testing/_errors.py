"""Conformance checks of the error-memory records: reading, expiry and sweeping, search
(keyword and semantic) and its renewal of what it returns, deleting by prefix, tenants."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ..store import Store
from ..text import bigram_text, fts_match_expression, query_terms
from ..types import ErrorOutcome, ErrorQuery, ErrorRecord, Vectors
from ._common import MODEL, OTHER_MODEL, T0, Check, unit

__all__ = ["ERROR_CHECKS"]

_DAY = 86_400 * 10**9


def _id(head: str) -> str:
    """A record id (32 lower-case hex characters) that starts with ``head``."""
    return head.ljust(32, "0")


def _rec(head: str, *, tool: str = "http_get", keywords: tuple[str, ...] = ("timeout",),
         symptom: str = "the request timed out", cause: str | None = None,
         action: str = "retry with a longer timeout", outcome: ErrorOutcome = "resolved",
         created: int = T0, expires: int = T0 + _DAY, hits: int = 0) -> ErrorRecord:
    return ErrorRecord(id=_id(head), tool_name=tool, keywords=keywords, symptom=symptom,
                       cause=cause, action=action, outcome=outcome, created_at=created,
                       expires_at=expires, hits=hits)


async def _insert(store: Store, tenant: str, record: ErrorRecord, vector: Vectors | None = None,
                  model: str | None = None) -> None:
    # The indexed text as error memory writes it: every field, CJK runs as bigrams.
    parts = [record.tool_name, " ".join(record.keywords), record.symptom, record.cause or "",
             record.action]
    await store.errors.insert(tenant, record, search_text=bigram_text("\n".join(
        p for p in parts if p)), vector=vector, model_id=model)


def _query(tenant: str, needle: str, *, now: int = T0, vector: Vectors | None = None,
           model: str | None = None, min_similarity: float = 0.8, tool: str | None = None,
           limit: int = 10, renew_until: int = T0 + 30 * _DAY) -> ErrorQuery:
    return ErrorQuery(tenant=tenant, needle=needle,
                      match=fts_match_expression(query_terms(needle)), vector=vector,
                      model_id=model if vector is not None else None,
                      min_similarity=min_similarity, tool=tool, limit=limit, now=now,
                      renew_until=renew_until)


async def _found(store: Store, query: ErrorQuery) -> list[str]:
    return [r.id for r in await store.errors.search(query)]


async def _live(store: Store, tenant: str, now: int = T0) -> list[str]:
    return sorted(r.id for r in await store.errors.all(tenant, tool=None, now=now))


async def check_error_insert_and_read(store: Store) -> None:
    """An inserted record reads back field for field by id or id prefix; ``all`` lists the
    tenant's records newest first, optionally of one tool."""
    old = _rec("aaaaaaaa")
    new = _rec("bbbbbbbb", tool="sql", keywords=("locked", "資料庫"), symptom="database is locked",
               cause="a long write", action="wait", outcome="failed", created=T0 + 10, hits=3)
    for r in (old, new):
        await _insert(store, "t", r)
    errors = store.errors
    assert await errors.by_prefix("t", "aaaaaaaa", now=T0, limit=10) == [old]
    assert await errors.by_prefix("t", new.id, now=T0, limit=10) == [new]
    assert await errors.by_prefix("t", "cccccccc", now=T0, limit=10) == []
    assert await errors.all("t", tool=None, now=T0) == [new, old]
    assert await errors.all("t", tool="sql", now=T0) == [new]
    twin = _rec("aaaaaaaa1")
    await _insert(store, "t", twin)
    assert await errors.by_prefix("t", "aaaaaaaa", now=T0, limit=10) in ([old, twin],
                                                                          [twin, old])
    assert len(await errors.by_prefix("t", "aaaaaaaa", now=T0, limit=1)) == 1


async def check_error_expired_absent(store: Store) -> None:
    """A record with ``expires_at <= now`` is absent from search (keyword and semantic),
    ``by_prefix``, ``all`` and ``delete``, before any sweep."""
    now = T0 + 100
    live = _rec("aaaaaaaa", expires=now + 1)
    edge = _rec("bbbbbbbb", expires=now)
    dead = _rec("cccccccc", expires=now - 1)
    for r in (live, edge, dead):
        await _insert(store, "t", r, unit(0), MODEL)
    assert await _live(store, "t", now) == [live.id]
    for r in (edge, dead):
        assert await store.errors.by_prefix("t", r.id, now=now, limit=10) == []
        assert await store.errors.delete("t", r.id, now=now, limit=10) == []
    assert await _found(store, _query("t", "timeout", now=now)) == [live.id]
    assert await _found(store, _query("t", "qqqq", now=now, vector=unit(0),
                                      model=MODEL)) == [live.id]
    # With its twin expired, a prefix names the live record alone.
    twin = _rec("dddddddd2", expires=now)
    await _insert(store, "t", _rec("dddddddd1", expires=now + 1))
    await _insert(store, "t", twin)
    assert await store.errors.delete("t", "dddddddd", now=now, limit=10) == [_id("dddddddd1")]


async def check_error_sweep_tenant(store: Store) -> None:
    """``sweep`` deletes the tenant's expired records (``expires_at <= now``) for good, keeps
    live ones, and leaves other tenants' expired records to their own sweep."""
    now = T0 + 100
    live = _rec("aaaaaaaa", expires=now + 1)
    for r in (live, _rec("bbbbbbbb", expires=now), _rec("cccccccc", expires=now - 50)):
        await _insert(store, "t", r)
    theirs = _rec("dddddddd", expires=now - 50)
    await _insert(store, "u", theirs)
    assert await store.errors.sweep("t", now=now) == 2
    # Read as of T0, when every record was alive: the swept ones are gone, not hidden.
    assert await _live(store, "t") == [live.id]
    assert await _live(store, "u") == [theirs.id]
    assert await store.errors.sweep("t", now=now) == 0
    assert await store.errors.sweep("u", now=now) == 1
    assert await _live(store, "u") == []


async def check_error_search_renews(store: Store) -> None:
    """``search`` renews exactly the records it returns (``hits + 1``, ``expires_at =
    renew_until``), returns them as stored, and loses no renewal under concurrent searches;
    reading by prefix or listing renews nothing."""
    a = _rec("aaaaaaaa", symptom="connection timeout talking to the api", hits=2)
    b = _rec("bbbbbbbb", symptom="connection timeout again", created=T0 + 1)
    c = _rec("cccccccc", keywords=(), symptom="disk full", action="free space")
    for r in (a, b, c):
        await _insert(store, "t", r)
    (hit,) = await store.errors.search(_query("t", "timeout", limit=1,
                                              renew_until=T0 + 7 * _DAY))
    before = {r.id: r for r in (a, b)}
    assert hit.hits == before[hit.id].hits + 1 and hit.expires_at == T0 + 7 * _DAY, hit
    stored = {r.id: r for r in await store.errors.all("t", tool=None, now=T0)}
    assert stored[hit.id] == hit
    missed = next(r for r in (a, b) if r.id != hit.id)
    assert stored[missed.id] == missed and stored[c.id] == c
    await store.errors.by_prefix("t", hit.id, now=T0, limit=10)
    both = await asyncio.gather(*(store.errors.search(_query("t", "disk")) for _ in range(2)))
    assert all([r.id for r in found] == [c.id] for found in both), both
    assert sorted(found[0].hits for found in both) == [1, 2]
    (again,) = await store.errors.by_prefix("t", c.id, now=T0, limit=10)
    assert again.hits == 2
    (same,) = await store.errors.by_prefix("t", hit.id, now=T0, limit=10)
    assert same == hit


async def check_error_keyword_search(store: Store) -> None:
    """Without a vector, search finds records by their terms (stemmed, CJK bigrams) and by
    substring (part of a word, one CJK character), filtered by tool, and survives hostile
    queries."""
    slow = _rec("aaaaaaaa", symptom="The request timed out after 30 seconds",
                action="retry with exponential backoff")
    locked = _rec("bbbbbbbb", tool="sqlite", keywords=("locked",), symptom="database is locked",
                  action="retry after the writer commits")
    cjk = _rec("cccccccc", tool="fetch", keywords=(), symptom="資料庫連線逾時",
               action="重新連線")
    for r in (slow, locked, cjk):
        await _insert(store, "t", r)

    async def ids(needle: str, tool: str | None = None) -> list[str]:
        return sorted(await _found(store, _query("t", needle, tool=tool)))

    assert await ids("timeouts") == [slow.id]
    assert await ids("database locking") == [locked.id]
    assert await ids("連線") == [cjk.id]
    assert await ids("逾") == [cjk.id]
    assert await ids("xponenti") == [slow.id]
    assert await ids("retry") == [slow.id, locked.id]
    assert await ids("retry", tool="sqlite") == [locked.id]
    assert await ids("zebra") == []
    for hostile in ['"', "AND OR NOT", "NEAR(a b)", "*", "col:x", "'; DROP TABLE x;--", "\\"]:
        await _found(store, _query("t", hostile))
    assert len(await _live(store, "t")) == 3


async def check_error_semantic_min_similarity(store: Store) -> None:
    """With a vector and model id, records of that model whose cosine reaches
    ``min_similarity`` are returned best first; records below it are not."""
    a = _rec("aaaaaaaa", symptom="alpha failure")
    b = _rec("bbbbbbbb", symptom="beta failure")
    c = _rec("cccccccc", symptom="gamma failure")
    for r, v in ((a, unit(0)), (b, unit(0, 1)), (c, unit(2))):
        await _insert(store, "t", r, v, MODEL)

    async def ids(vector: Vectors, min_similarity: float) -> list[str]:
        # A needle no record contains: only the semantic pass can find anything.
        return await _found(store, _query("t", "qqqq", vector=vector, model=MODEL,
                                          min_similarity=min_similarity))

    assert await ids(unit(0), 0.9) == [a.id]
    assert await ids(unit(0), 0.5) == [a.id, b.id]  # cosines 1.0 and 0.71
    assert await ids(unit(1), 0.5) == [b.id]
    assert await ids(unit(3), 0.1) == []


async def check_error_semantic_then_keywords(store: Store) -> None:
    """Only records of the query's model are compared; with semantic hits, keywords add only
    the records the semantic pass could not judge (no vector, another model); without any,
    keyword search covers every record."""
    near = _rec("aaaaaaaa", symptom="disk is full")
    other = _rec("bbbbbbbb", symptom="disk quota exceeded")
    plain = _rec("cccccccc", symptom="disk not mounted")
    judged = _rec("dddddddd", symptom="disk is slow")
    await _insert(store, "t", near, unit(0), MODEL)
    await _insert(store, "t", other, unit(0), OTHER_MODEL)
    await _insert(store, "t", plain)
    await _insert(store, "t", judged, unit(1), MODEL)
    assert await _found(store, _query("t", "qqqq", vector=unit(0), model=MODEL)) == [near.id]
    found = await _found(store, _query("t", "disk", vector=unit(0), model=MODEL))
    assert found[0] == near.id and sorted(found) == [near.id, other.id, plain.id], found
    fallback = await _found(store, _query("t", "disk", vector=unit(3), model=MODEL))
    assert sorted(fallback) == [near.id, other.id, plain.id, judged.id], fallback


async def check_error_delete_unique_prefix(store: Store) -> None:
    """``delete`` removes a record only when the prefix matches exactly one; an ambiguous
    prefix deletes nothing and returns every matching id."""
    one, two, solo = _rec("abcdef011"), _rec("abcdef012"), _rec("12345678")
    for r in (one, two, solo):
        await _insert(store, "t", r)
    assert sorted(await store.errors.delete("t", "abcdef01", now=T0, limit=10)) == [one.id,
                                                                                     two.id]
    assert await _live(store, "t") == sorted([one.id, two.id, solo.id])
    assert await store.errors.delete("t", "12345678", now=T0, limit=10) == [solo.id]
    assert await store.errors.delete("t", two.id, now=T0, limit=10) == [two.id]
    assert await _live(store, "t") == [one.id]
    assert await store.errors.delete("t", "ffffffff", now=T0, limit=10) == []


async def check_error_delete_ambiguous_any_limit(store: Store) -> None:
    """An ambiguous prefix deletes nothing even when ``limit`` is smaller than the number of
    matches, and the answer is not a single id (which would read as "deleted")."""
    records = [_rec(f"abcdef01{i}") for i in range(3)]
    for r in records:
        await _insert(store, "t", r)
    ids = await store.errors.delete("t", "abcdef01", now=T0, limit=1)
    assert await _live(store, "t") == sorted(r.id for r in records), ids
    assert len(ids) != 1, ids


async def check_error_tenant_scope(store: Store) -> None:
    """Another tenant never sees, renews, deletes or sweeps a tenant's records, even one with
    the same id."""
    mine = _rec("aaaaaaaa", symptom="timeout in mine")
    theirs = _rec("aaaaaaaa", symptom="timeout in theirs")
    also = _rec("bbbbbbbb", symptom="timeout too")
    await _insert(store, "t", mine, unit(0), MODEL)
    await _insert(store, "u", theirs, unit(0), MODEL)
    await _insert(store, "u", also)
    listed = await store.errors.all("u", tool=None, now=T0)
    assert sorted(listed, key=lambda r: r.id) == [theirs, also], listed
    found = await store.errors.search(_query("u", "timeout", vector=unit(0), model=MODEL))
    assert sorted(r.symptom for r in found) == sorted([theirs.symptom, also.symptom]), found
    assert await store.errors.by_prefix("t", mine.id, now=T0, limit=10) == [mine]
    assert await store.errors.delete("u", mine.id, now=T0, limit=10) == [mine.id]
    assert await store.errors.by_prefix("t", mine.id, now=T0, limit=10) == [mine]
    assert await store.errors.sweep("u", now=T0 + 60 * _DAY) == 1  # past the renewal
    assert await store.errors.all("t", tool=None, now=T0) == [mine]
    assert await _found(store, _query("u", "timeout")) == []


ERROR_CHECKS: Sequence[Check] = (
    check_error_insert_and_read, check_error_expired_absent, check_error_sweep_tenant,
    check_error_search_renews, check_error_keyword_search, check_error_semantic_min_similarity,
    check_error_semantic_then_keywords, check_error_delete_unique_prefix,
    check_error_delete_ambiguous_any_limit, check_error_tenant_scope,
)
