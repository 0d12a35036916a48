"""Keyword hits among one tenant's error records, ranked by the tenant's own figures.

The index is asked, term by term, which of the tenant's records hold the term (its scope column
carries the tenant's token, so FTS5 itself narrows the match), newest first and at most
:data:`CANDIDATES` of them; the records found are read by id, filtered by tenant, expiry and
tool, and ranked by ``_scoped_bm25.rank`` over the tenant's records. FTS5's ``bm25()`` is not
used: it counts every tenant's records holding a word, so another tenant's records moved a
tenant's order, and made its search slower the more often they used the same words.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .._scoped_bm25 import Scope, rank, term_counter, term_words
from . import _errors_sql as sql
from ._keyword_sql import newest_ids, terms_of

__all__ = ["CANDIDATES", "keyword_hits"]

# The newest matches of a term that are read, per term. When a term has this many, the ranking
# covers the tenant's records from the oldest of them on (every term's matches there are
# complete), and the figures (N, each term's count) are that span's: a search reads this many
# rows per term at most, however many records the tenant (or any other) holds.
CANDIDATES = 1000


def error_token(tenant: str) -> str:
    """The tenant's token in the error index's scope column (``_schema._ERROR_SCOPE``)."""
    return "e" + tenant.encode().hex().upper()


def keyword_hits(c: sqlite3.Connection, params: dict[str, Any], match: str,
                 limit: int) -> list[tuple[int, bool]]:
    """The best ``limit`` live records of ``params["tenant"]`` (of ``params["tool"]`` when
    set) holding a term of ``match``, best first, as (seq, whether the semantic pass could
    judge the record); ties newer first."""
    terms = terms_of(match)
    token = error_token(params["tenant"])
    size = c.execute(sql.COUNT_TENANT_ERRORS, (params["tenant"],)).fetchone()[0]
    matched = [newest_ids(c, (sql.SELECT_ERROR_TERM_SEQS, sql.SELECT_ERROR_TERM_SEQS_OLDEST_FIRST),
                          f'scope : "{token}" AND body : ({term})', CANDIDATES,
                          few=int(size or 0) < CANDIDATES) for term in terms]
    floor = max((seqs[-1] for seqs in matched if len(seqs) >= CANDIDATES), default=None)
    if floor is not None:
        matched = [[s for s in seqs if s >= floor] for seqs in matched]
        size = c.execute(sql.COUNT_SCOPE_ERRORS_SINCE, (f'scope : "{token}"', floor)).fetchone()[0]
    wanted = json.dumps(sorted({s for seqs in matched for s in seqs}))
    if wanted == "[]":
        return []
    rows = {int(r[0]): (str(r[1]), bool(r[2])) for r in c.execute(
        sql.SELECT_ERROR_TEXTS, {**params, "seqs": wanted})}
    sizes = dict(c.execute(sql.SELECT_ERROR_DOC_SIZES, (wanted,)).fetchall())
    docs = {s: (text.lower(), _words(sizes.get(s))) for s, (text, _) in rows.items()}
    counters = [term_counter(term_words(t[1:-1].replace('""', '"'))) for t in terms]
    best = rank(docs, matched, counters,
                Scope(messages=int(size or 0), holding=[len(s) for s in matched]), limit)
    return [(s, rows[s][1]) for s, _ in best]


def _words(size: bytes | None) -> int:
    """A record's length in words as the index counts it (every column), from its record of
    the column sizes (one varint per column)."""
    total = n = 0
    for byte in size or b"":
        n = (n << 7) | (byte & 0x7F)
        if byte < 0x80:
            total, n = total + n, 0
    return max(total, 1)
