"""Appending messages inside the caller's transaction: the session's row (locked first, so
appends to one session commit in id order), the rows with their ``tsvector``, the indexer's
queue, the session counters, and the compaction that may follow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._compaction import CompactionPolicy, HotRow, decide, is_due
from ...types import Draft, Message
from .._batch import IMPORT_CHUNK, Totals, plan_keyed
from .._stored import stored_messages
from . import _sql as sql
from . import _vectors_sql as vsql
from ._bulk import BULK_MIN, copy_in
from ._connection import Conn
from ._rows import row_message
from ._text import indexed_text, refuse_nul

__all__ = ["append", "append_import"]


async def _lock_for(c: Conn, tenant: str, session: str, drafts: Sequence[Draft],
                    now: int) -> None:
    """Refuse text PostgreSQL cannot store, then take the session's append lock."""
    for d in drafts:
        refuse_nul(d.content, "content")
        refuse_nul(d.sender, "sender")
        refuse_nul(d.key, "key")
    await c.execute(sql.LOCK_SESSION, {"tenant": tenant, "session": session, "now": now,
                                       "key": sql.APPEND_LOCK_KEY})


async def append(c: Conn, tenant: str, session: str, drafts: Sequence[Draft], now: int,
                 policy: CompactionPolicy, index: bool) -> list[Message]:
    """The messages for ``drafts`` (stored ones for repeated idempotency keys), counted in
    the session and compacted: one part of a write transaction."""
    if not drafts:
        return []
    await _lock_for(c, tenant, session, drafts, now)
    out, fresh = await _insert(c, tenant, session, drafts, index)
    if fresh:
        await _count(c, tenant, session, fresh, now, policy)
    return out


async def append_import(c: Conn, tenant: str, session: str, drafts: Sequence[Draft],
                        now: int, policy: CompactionPolicy, index: bool) -> list[int]:
    """``append`` for an import, a chunk of drafts at a time; the id of each draft's message.

    The same rows as one ``append`` of all the drafts: a key stored by an earlier chunk is
    found by the later chunks' lookup (this transaction sees its own rows), so a key repeated
    in the import is stored once and checked against its first message, and the counters
    and compaction are applied once, at the end."""
    if not drafts:
        return []
    await _lock_for(c, tenant, session, drafts, now)
    ids: list[int] = []
    totals = Totals()
    for lo in range(0, len(drafts), IMPORT_CHUNK):
        out, fresh = await _insert(c, tenant, session, drafts[lo:lo + IMPORT_CHUNK], index)
        ids.extend(m.id for m in out)
        totals.add(fresh)
    if totals.count:
        await _add_counts(c, tenant, session, totals.count, totals.size, totals.first_at,
                          totals.last_at, now, policy)
    return ids


async def _insert(c: Conn, tenant: str, session: str, drafts: Sequence[Draft],
                  index: bool) -> tuple[list[Message], list[Draft]]:
    """Look the batch's keys up once, insert the new drafts (a key repeated within the batch
    once) through ``COPY`` when there are many, else in one pipelined ``executemany``, and
    queue them when asked."""
    keys = [d.key for d in drafts if d.key is not None]
    stored: dict[str, Message] = {}
    if keys:
        cur = await c.execute(sql.SELECT_BY_KEYS, (tenant, session, keys))
        stored = {str(r[7]): row_message(r) for r in await cur.fetchall()}
    plan = plan_keyed(drafts, stored)
    fresh = plan.fresh
    if not fresh:
        return plan.answers([]), fresh
    # The tenant's numbers are taken after the session's row is locked (LOCK_SESSION), so a
    # session's numbers, like its row ids, commit in order.
    cur = await c.execute(sql.TAKE_NUMBERS, {"tenant": tenant, "n": len(fresh)})
    row = await cur.fetchone()
    assert row is not None
    first = int(row[0]) - len(fresh)
    seqs = list(range(first, first + len(fresh)))
    if len(fresh) >= BULK_MIN:
        await copy_in(c, tenant, session, fresh, seqs, index)
    else:
        await _insert_each(c, tenant, session, fresh, seqs, index)
    return plan.answers(stored_messages(seqs, session, fresh)), fresh


async def _insert_each(c: Conn, tenant: str, session: str, fresh: Sequence[Draft],
                       seqs: Sequence[int], index: bool) -> list[int]:
    """One pipelined ``INSERT … RETURNING`` per draft (and queue entry); their row ids."""
    ids: list[int] = []
    async with c.cursor() as cur:
        await cur.executemany(sql.INSERT_MESSAGE,
                              [_insert_params(tenant, session, d, n)
                               for d, n in zip(fresh, seqs, strict=True)],
                              returning=True)
        while True:
            row = await cur.fetchone()
            assert row is not None
            ids.append(int(row[0]))
            if not cur.nextset():
                break
    if index:
        async with c.cursor() as cur:
            await cur.executemany(vsql.ENQUEUE, [(tenant, mid, session) for mid in ids])
    return ids


async def _count(c: Conn, tenant: str, session: str, fresh: Sequence[Draft], now: int,
                 policy: CompactionPolicy) -> None:
    """Count the new messages in the session's row and apply the compaction policy."""
    ats = [d.at for d in fresh]
    await _add_counts(c, tenant, session, len(fresh), sum(d.size for d in fresh), min(ats),
                      max(ats), now, policy)


async def _add_counts(c: Conn, tenant: str, session: str, n: int, size: int, first_at: int,
                      last_at: int, now: int, policy: CompactionPolicy) -> None:
    cur = await c.execute(sql.ADD_SESSION_COUNTERS, {
        "n": n, "bytes": size, "first": first_at, "last": last_at, "now": now,
        "tenant": tenant, "session": session})
    row = await cur.fetchone()
    assert row is not None  # the row was created or locked by LOCK_SESSION
    hot_count, hot_bytes, cutoff = (int(v) for v in row)
    if is_due(hot_count, hot_bytes, policy):
        await _compact(c, tenant, session, cutoff, policy)


async def _compact(c: Conn, tenant: str, session: str, cutoff: int,
                   policy: CompactionPolicy) -> None:
    cur = await c.execute(sql.SELECT_HOT_ROWS, (tenant, session, cutoff))
    hot = [HotRow(int(i), r, int(s)) for i, r, s in await cur.fetchall()]
    verdict = decide(hot, policy)
    if verdict is None:
        return
    kept = [r for r in hot if r.id > verdict.cutoff]
    # The flag is the new cutoff: a summary whose cursor reaches it has covered what left.
    await c.execute(sql.UPDATE_CUTOFF, (verdict.cutoff, len(kept), sum(r.size for r in kept),
                                        verdict.cutoff if verdict.summary_due else 0, tenant,
                                        session))
    # Vectors exist only for hot messages: the ones behind the new cutoff go, in this same
    # transaction, and so does their place in the indexer's queue.
    behind = {"tenant": tenant, "session": session, "cutoff": verdict.cutoff}
    await c.execute(vsql.DROP_COLD_QUEUE, behind)
    await c.execute(vsql.DROP_COLD_VECTORS, behind)
    await c.execute(vsql.BUMP_VECTOR_VERSION, (tenant, session))


def _insert_params(tenant: str, session: str, d: Draft, seq: int) -> tuple[Any, ...]:
    return (tenant, session, d.role, d.content, d.sender, d.at, d.meta_json, d.size, d.key,
            indexed_text(d.content), seq)
