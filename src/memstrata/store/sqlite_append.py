"""Appending messages on the connection's thread: the rows, the session counters, the index
queue, and the compaction that may follow, all in the caller's transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from ..compaction import CompactionPolicy, HotRow, decide, is_due
from ..types import Draft, Message
from . import sql
from .sqlite_base import row_message

__all__ = ["append"]


def append(c: sqlite3.Connection, tenant: str, session: str, drafts: Sequence[Draft],
            now: int, policy: CompactionPolicy, index: bool) -> list[Message]:
    out: list[Message | None] = []
    fresh: list[tuple[int, Draft]] = []
    keyed = any(d.key is not None for d in drafts)
    if keyed:
        for d in drafts:
            if d.key is not None:
                row = c.execute(sql.SELECT_BY_KEY, (tenant, session, d.key)).fetchone()
                if row is not None:
                    out.append(row_message(row))
                    continue
            cur = c.execute(sql.INSERT_MESSAGE, _insert_params(tenant, session, d))
            fresh.append((len(out), d))
            out.append(_message(int(cur.lastrowid or 0), session, d))
    else:
        # One writer holds the lock and ids come from AUTOINCREMENT, so a batch gets
        # consecutive ids ending at last_insert_rowid().
        c.executemany(sql.INSERT_MESSAGE, [_insert_params(tenant, session, d) for d in drafts])
        last = int(c.execute("SELECT last_insert_rowid()").fetchone()[0])
        first = last - len(drafts) + 1
        out = [_message(first + i, session, d) for i, d in enumerate(drafts)]
        fresh = list(enumerate(drafts))
    if fresh and index:
        c.executemany(sql.ENQUEUE, [(out[i].id, tenant, session)  # type: ignore[union-attr]
                                    for i, _ in fresh])
    if fresh:
        ats = [d.at for _, d in fresh]
        hot_count, hot_bytes, cutoff = c.execute(sql.UPSERT_SESSION_COUNTERS, (
            tenant, session, len(fresh), len(fresh), sum(d.size for _, d in fresh),
            min(ats), max(ats), now)).fetchone()
        if is_due(hot_count, hot_bytes, policy):
            _compact(c, tenant, session, cutoff, policy)
    return [m for m in out if m is not None]


def _compact(c: sqlite3.Connection, tenant: str, session: str, cutoff: int,
             policy: CompactionPolicy) -> None:
    hot = [HotRow(i, r, s) for i, r, s in c.execute(sql.SELECT_HOT_ROWS,
                                                     (tenant, session, cutoff))]
    verdict = decide(hot, policy)
    if verdict is None:
        return
    kept = [r for r in hot if r.id > verdict.cutoff]
    c.execute(sql.UPDATE_CUTOFF, (verdict.cutoff, len(kept), sum(r.size for r in kept),
                                  int(verdict.summary_due), tenant, session))
    # Vectors exist only for hot messages: the ones behind the new cutoff go, in this same
    # transaction, and so does their place in the indexer's queue.
    c.execute(sql.DROP_COLD_QUEUE, (tenant, session, verdict.cutoff))
    c.execute(sql.DROP_COLD_VECTORS, (tenant, session, verdict.cutoff))
    c.execute(sql.BUMP_VECTOR_VERSION, (tenant, session))


def _insert_params(tenant: str, session: str, d: Draft) -> tuple[Any, ...]:
    return (tenant, session, d.role, d.content, d.sender, d.at, d.meta_json, d.size,
            d.search_text, d.key)


def _message(mid: int, session: str, d: Draft) -> Message:
    return Message(id=mid, session=session, role=d.role, content=d.content, sender=d.sender,
                   at=d.at, meta=json.loads(d.meta_json) if d.meta_json is not None else None)
