"""Turning store rows into ranked, chronological hits (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from .errors import InvalidInput
from .store.base import KeywordRow
from .types import Hit

__all__ = ["TIME_RANGES", "rank_keyword", "since"]

_DAY_NS = 86_400 * 10**9
TIME_RANGES: dict[str, int | None] = {
    "1d": _DAY_NS, "7d": 7 * _DAY_NS, "1m": 30 * _DAY_NS, "1y": 365 * _DAY_NS, "all": None,
}


def since(time_range: object, now: int, field: str = "time_range") -> int | None:
    """The earliest ``at`` a time range admits (``None``: no limit)."""
    if not isinstance(time_range, str) or time_range not in TIME_RANGES:
        raise InvalidInput(field, f"must be one of {', '.join(TIME_RANGES)}; got {time_range!r}")
    span = TIME_RANGES[time_range]
    return None if span is None else now - span


def rank_keyword(rows: Sequence[KeywordRow], limit: int) -> list[Hit]:
    """The best ``limit`` keyword rows as hits, in chronological order.

    BM25 is scaled to (0, 1] by the best score of the query; a message that contains the whole
    query as written gets +1, so literal matches lead, then term matches by relevance.
    """
    top = max((r.bm25 for r in rows), default=0.0)

    def score(r: KeywordRow) -> float:
        return (r.bm25 / top if top > 0 else 0.0) + (1.0 if r.exact else 0.0)

    best = sorted(rows, key=lambda r: (score(r), r.message.id), reverse=True)[:limit]
    hits = [Hit(message=r.message, score=round(score(r), 6), rank=i + 1,
                source="archive" if r.bm25 > 0 else "recent")
            for i, r in enumerate(best)]
    return sorted(hits, key=lambda h: h.message.id)
