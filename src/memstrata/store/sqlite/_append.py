"""Appending messages on the connection's thread: the rows, their full-text index entries, the
session counters, the index queue, and the compaction that may follow, all in the caller's
transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from itertools import repeat
from typing import Any

from ..._bigrams import bigram_texts
from ..._compaction import CompactionPolicy, HotRow, decide, is_due
from ...types import Draft, Message
from .._batch import IMPORT_CHUNK, Totals, check_same, plan_keyed
from .._stored import stored_messages
from . import _sql as sql
from ._functions import fts_body, scope_tokens
from ._rows import row_message

__all__ = ["append", "append_import", "finish", "insert"]


def append(c: sqlite3.Connection, tenant: str, session: str, drafts: Sequence[Draft],
           now: int, policy: CompactionPolicy, index: bool) -> list[Message]:
    """Insert ``drafts``, then update the session and compact: one part of a transaction."""
    out, fresh = insert(c, tenant, session, drafts, index)
    finish(c, tenant, session, fresh, now, policy)
    return out


def append_import(c: sqlite3.Connection, tenant: str, session: str, drafts: Sequence[Draft],
                  now: int, policy: CompactionPolicy, index: bool) -> list[int]:
    """``append`` for an import, a chunk of drafts at a time; the id of each draft's message.

    The same rows as one ``append`` of all the drafts: a key stored by an earlier chunk is
    found by the later chunks' lookup (this transaction sees its own rows), so a key repeated
    in the import is stored once and checked against its first message, and the counters
    and compaction are applied once, at the end."""
    ids: list[int] = []
    totals = Totals()
    for lo in range(0, len(drafts), IMPORT_CHUNK):
        out, fresh = insert(c, tenant, session, drafts[lo:lo + IMPORT_CHUNK], index)
        ids.extend(m.id for m in out)
        totals.add(fresh)
    if totals.count:
        _count(c, tenant, session, totals.count, totals.size, totals.first_at,
               totals.last_at, now, policy)
    return ids


def insert(c: sqlite3.Connection, tenant: str, session: str, drafts: Sequence[Draft],
           index: bool) -> tuple[list[Message], list[Draft]]:
    """The messages for ``drafts`` (stored ones for repeated idempotency keys) and the drafts
    that were new."""
    out: list[Message] = []
    fresh: list[Draft] = []
    if len(drafts) > 1 and any(d.key is not None for d in drafts):
        return _insert_keyed_batch(c, tenant, session, drafts, index)
    if any(d.key is not None for d in drafts):
        for d in drafts:
            if d.key is not None:
                row = c.execute(sql.SELECT_BY_KEY, (tenant, session, d.key)).fetchone()
                if row is not None:
                    out.append(row_message(row))
                    check_same(out[-1], d)
                    continue
            seq = _take_numbers(c, tenant, 1)
            cur = c.execute(sql.INSERT_MESSAGE, _insert_params(tenant, session, d, seq))
            fresh.append(d)
            out.extend(stored_messages((seq,), session, (d,)))
            rowid = int(cur.lastrowid or 0)
            c.execute(sql.INDEX_MESSAGE, (rowid, fts_body(d.content),
                                          scope_tokens(tenant, session)))
            if index:
                c.execute(sql.ENQUEUE, (rowid, tenant, session))
        return out, fresh
    return _insert_all(c, tenant, session, drafts, index), list(drafts)


def _insert_all(c: sqlite3.Connection, tenant: str, session: str, drafts: Sequence[Draft],
                index: bool) -> list[Message]:
    # One writer holds the lock and row ids come from AUTOINCREMENT, so a batch gets
    # consecutive row ids ending at last_insert_rowid(), and consecutive tenant numbers.
    first = _take_numbers(c, tenant, len(drafts))
    seqs = range(first, first + len(drafts))
    c.executemany(sql.INSERT_MESSAGE, [_insert_params(tenant, session, d, n)
                                       for d, n in zip(drafts, seqs, strict=True)])
    last = int(c.execute("SELECT last_insert_rowid()").fetchone()[0])
    ids = range(last - len(drafts) + 1, last + 1)
    bodies = bigram_texts([d.content for d in drafts])
    c.executemany(sql.INDEX_MESSAGE, zip(ids, bodies, repeat(scope_tokens(tenant, session))))
    if index:
        c.executemany(sql.ENQUEUE, zip(ids, repeat(tenant), repeat(session)))
    return stored_messages(seqs, session, drafts)


def _insert_keyed_batch(c: sqlite3.Connection, tenant: str, session: str,
                        drafts: Sequence[Draft],
                        index: bool) -> tuple[list[Message], list[Draft]]:
    """A batch with idempotency keys (an import): one lookup of the stored keys, then the new
    drafts in one ``executemany``; a key repeated within the batch is stored once."""
    keys = [d.key for d in drafts if d.key is not None]
    stored = {str(r[7]): row_message(r[:7]) for r in
              c.execute(sql.SELECT_BY_KEYS, (tenant, session, json.dumps(keys)))}
    plan = plan_keyed(drafts, stored)
    new = _insert_all(c, tenant, session, plan.fresh, index) if plan.fresh else []
    return plan.answers(new), plan.fresh


def finish(c: sqlite3.Connection, tenant: str, session: str, fresh: Sequence[Draft], now: int,
           policy: CompactionPolicy) -> None:
    """Count the new messages in the session's row and apply the compaction policy."""
    if not fresh:
        return
    ats = [d.at for d in fresh]
    _count(c, tenant, session, len(fresh), sum(d.size for d in fresh), min(ats), max(ats),
           now, policy)


def _count(c: sqlite3.Connection, tenant: str, session: str, n: int, size: int,
           first_at: int, last_at: int, now: int, policy: CompactionPolicy) -> None:
    hot_count, hot_bytes, cutoff = c.execute(sql.UPSERT_SESSION_COUNTERS, (
        tenant, session, n, n, size, first_at, last_at, now)).fetchone()
    if is_due(hot_count, hot_bytes, policy):
        _compact(c, tenant, session, cutoff, policy)


def _compact(c: sqlite3.Connection, tenant: str, session: str, cutoff: int,
             policy: CompactionPolicy) -> None:
    hot = [HotRow(i, r, s) for i, r, s in c.execute(sql.SELECT_HOT_ROWS,
                                                     (tenant, session, cutoff))]
    verdict = decide(hot, policy)
    if verdict is None:
        return
    kept = [r for r in hot if r.id > verdict.cutoff]
    # The flag is the new cutoff: a summary whose cursor reaches it has covered what left.
    c.execute(sql.UPDATE_CUTOFF, (verdict.cutoff, len(kept), sum(r.size for r in kept),
                                  verdict.cutoff if verdict.summary_due else 0, tenant,
                                  session))
    # Vectors exist only for hot messages: the ones behind the new cutoff go, in this same
    # transaction, and so does their place in the indexer's queue.
    c.execute(sql.DROP_COLD_QUEUE, (tenant, session, verdict.cutoff))
    c.execute(sql.DROP_COLD_VECTORS, (tenant, session, verdict.cutoff))
    c.execute(sql.BUMP_VECTOR_VERSION, (tenant, session))


def _take_numbers(c: sqlite3.Connection, tenant: str, n: int) -> int:
    """Take ``n`` consecutive numbers of the tenant (the ids its messages are known by); the
    first of them."""
    after = int(c.execute(sql.TAKE_NUMBERS, (tenant, n)).fetchone()[0])
    return after - n


def _insert_params(tenant: str, session: str, d: Draft, seq: int) -> tuple[Any, ...]:
    return (tenant, session, d.role, d.content, d.sender, d.at, d.meta_json, d.size, d.key,
            seq)
