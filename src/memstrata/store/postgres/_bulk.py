"""The bulk path of an append: new messages go in through one ``COPY`` instead of one
``INSERT`` per message.

``COPY`` computes no expression, and every message needs its ``tsvector`` computed by the
server from its prepared text (``_text.indexed_text``), so each row carries that text in the
``search`` column, and a ``BEFORE INSERT`` trigger (migration 2) turns it into ``fts`` and
clears it as the row arrives: the server indexes rows while the client is still sending the
next ones. ``COPY`` returns no ids, so they are taken from the identity's sequence first, in
one round trip; that happens after the session's row is locked, so the guarantee of the plain
path holds (appends to one session commit in id order), and ids from the same sequence are
never reused.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...types import Draft
from . import _sql as sql
from ._connection import Conn
from ._text import indexed_texts

__all__ = ["BULK_MIN", "copy_in"]

BULK_MIN = 16
"""Batches of at least this many new messages take the bulk path: below it, its two round
trips (ids, then the copy) gain nothing over the pipelined inserts they replace."""


async def copy_in(c: Conn, tenant: str, session: str, fresh: Sequence[Draft],
                  seqs: Sequence[int], index: bool) -> list[int]:
    """Insert ``fresh`` (new drafts: keys already resolved) under the tenant numbers ``seqs``
    and queue them when ``index``; return their row ids, in the order of ``fresh``."""
    cur = await c.execute(sql.RESERVE_IDS, (len(fresh),))
    ids = [int(r[0]) for r in await cur.fetchall()]
    texts = indexed_texts([d.content for d in fresh])
    async with c.cursor() as cur:
        async with cur.copy(sql.COPY_MESSAGES) as copy:
            copy.set_types(list(sql.COPY_TYPES))
            for mid, d, text, seq in zip(ids, fresh, texts, seqs, strict=True):
                await copy.write_row((tenant, mid, session, d.role, d.content, d.sender, d.at,
                                      d.meta_json, d.size, d.key, text, seq))
        if index:
            await cur.execute(sql.ENQUEUE_MANY, (tenant, ids, session))
    return ids
