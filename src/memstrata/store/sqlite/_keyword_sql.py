"""Full-text hits of one scope (a session, or a tenant), ranked by the scope's own figures.

The index is asked, term by term, which of the scope's messages hold the term (its scope column
carries a token for the tenant and one for the session, so FTS5 itself narrows the match); the
messages found are read by id, filtered by tenant and time, and ranked by
``_scoped_bm25.rank``. Nothing here reads FTS5's ``bm25()``, whose document frequencies are
counted over every row of the table at every query: that made a session's search slower as the
database grew, and let another tenant's volume move a tenant's ranking.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

from .._scoped_bm25 import Scope, rank, term_counter, term_words
from . import _sql as sql
from ._functions import scope_token, tenant_token

__all__ = ["CANDIDATES", "newest_ids", "ranked", "terms_of"]

# The newest matches of a term that are read, per term. A word common in a large tenant (or a
# very long session) has far more matches than a ranking needs; when a term has this many, the
# ranking covers the scope's messages from the oldest of them on (every term's matches there
# are complete), and the figures (N, each term's count) are that span's: its cost is this
# many rows, however many the tenant holds.
CANDIDATES = 500
_QUOTED = re.compile(r'"((?:[^"]|"")*)"')


def terms_of(match: str) -> list[str]:
    """The quoted terms of an expression made by ``text.fts_match_expression``, as FTS5
    phrases (still quoted), without repeats."""
    return list(dict.fromkeys(m.group(0) for m in _QUOTED.finditer(match)))


def newest_ids(c: sqlite3.Connection, queries: tuple[str, str], match: str, limit: int,
               *, few: bool) -> list[int]:
    """The newest ``limit`` rows of a full-text index matching ``match``, newest first.
    ``queries`` is the statement that asks for them newest first and the one that asks oldest
    first (each taking the match and the limit).

    FTS5 walks a term's list of entries backwards at a cost that grows with the whole list
    (every tenant's rows holding the term), forwards by seeking at a cost that stays flat: a
    scope of ``few`` rows (fewer than ``limit``, as its counters say) is asked oldest first,
    which finds the same rows, and asked again newest first should the answer fill ``limit``
    (a counter behind its rows), so the rows found never depend on the counters."""
    newest_first, oldest_first = queries
    if few:
        ids = [int(r[0]) for r in c.execute(oldest_first, (match, limit))]
        if len(ids) < limit:
            ids.reverse()
            return ids
    return [int(r[0]) for r in c.execute(newest_first, (match, limit))]


def ranked(c: sqlite3.Connection, tenant: str, session: str | None, match: str | None,
           low: int, limit: int) -> list[tuple[Any, float]]:
    """The best ``limit`` messages of the session (or, with ``session=None``, the tenant) that
    hold a term of ``match`` and were written at or after ``low``: message rows with their
    scores, best first."""
    if match is None:
        return []
    terms = terms_of(match)
    if session is None:
        token = tenant_token(tenant)
        size, hot, hot_bytes = c.execute(sql.SELECT_TENANT_SIZE, (tenant,)).fetchone()
    else:
        token = scope_token(tenant, session)
        size, hot, hot_bytes = (c.execute(sql.SELECT_SESSION_SIZE, (tenant, session))
                                .fetchone() or (0, 0, 0))
    few = int(size or 0) < CANDIDATES
    matched = [newest_ids(c, (sql.SELECT_SCOPE_TERM_IDS, sql.SELECT_SCOPE_TERM_IDS_OLDEST_FIRST),
                          f'scope : "{token}" AND body : ({term})', CANDIDATES, few=few)
               for term in terms]
    floor = max((ids[-1] for ids in matched if len(ids) >= CANDIDATES), default=None)
    if floor is not None:
        matched = [[i for i in ids if i >= floor] for ids in matched]
        size = c.execute(sql.COUNT_SCOPE_SINCE, (f'scope : "{token}"', floor)).fetchone()[0]
    holding = [len(ids) for ids in matched]
    wanted = sorted({i for ids in matched for i in ids})
    if not wanted:
        return []
    wanted_json = json.dumps(wanted)
    # Keyed by row id (what the index holds); each row is the message's columns.
    rows = {r[0]: r[1:] for r in c.execute(sql.SELECT_MESSAGES_BY_IDS,
                                           (wanted_json, tenant, low))}
    sizes = dict(c.execute(sql.SELECT_DOC_SIZES, (wanted_json,)).fetchall())
    docs = {i: (r[3].lower(), _words(sizes.get(i))) for i, r in rows.items()}
    length = None
    if floor is None and hot and docs:
        # The scope's average length in words without reading all of it: its hot messages'
        # average size in bytes (kept in the sessions table) at the words per byte of the
        # messages just read.
        read = sum(len(r[3].encode()) for r in rows.values())
        length = hot_bytes / hot * sum(n for _, n in docs.values()) / max(read, 1)
    counters = [term_counter(term_words(t[1:-1].replace('""', '"'))) for t in terms]
    best = rank(docs, matched, counters,
                Scope(messages=int(size or 0), holding=holding, length=length), limit)
    return [(rows[i], score) for i, score in best]


def _words(size: bytes | None) -> int:
    """A message's length in words as FTS5's ``bm25()`` counts it (every column), from the
    index's record of its column sizes (one varint per column)."""
    total = n = 0
    for byte in size or b"":
        n = (n << 7) | (byte & 0x7F)
        if byte < 0x80:
            total, n = total + n, 0
    return max(total, 1)
