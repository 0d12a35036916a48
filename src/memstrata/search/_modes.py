"""Checking a search's arguments, and turning store rows into ranked, chronological hits (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ..config import Settings
from ..errors import InvalidInput
from ..text import check_unicode, fts_match_expression, only_stop_words, query_terms
from ..types import Hit, KeywordRow, Message

__all__ = ["MATCH_MODES", "TIME_RANGES", "check_exclude_window", "check_limit",
           "check_min_score", "check_query", "expand", "keyword_match", "keyword_ranking",
           "match_mode", "since"]

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


MATCH_MODES = ("keyword", "semantic", "hybrid")


def check_query(query: object) -> str:
    """The text searched for: non-empty, valid Unicode."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query", "must be non-empty text")
    return check_unicode(query, "query")


def check_exclude_window(exclude_window: object) -> bool:
    if not isinstance(exclude_window, bool):
        raise InvalidInput("exclude_window", "must be true or false")
    return exclude_window


def match_mode(match: object, *, semantic: bool) -> Literal["keyword", "semantic", "hybrid"]:
    """The search mode asked for; ``None`` is hybrid with an embedder, keyword without."""
    if match is None:
        return "hybrid" if semantic else "keyword"
    if match == "keyword" or (match in MATCH_MODES and semantic):
        return match  # type: ignore[return-value]
    if match in MATCH_MODES:
        raise InvalidInput("match", f"{match!r} needs an embedder; none is configured, so "
                           "only 'keyword' is available")
    raise InvalidInput("match", f"must be one of {', '.join(MATCH_MODES)}, or left out for "
                       f"the default; got {match!r}")


def check_limit(limit: object, settings: Settings) -> int:
    """How many hits to return: ``search_limit`` by default, at most ``search_limit_max``."""
    if limit is None:
        return settings.search_limit
    top = settings.search_limit_max
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= top:
        raise InvalidInput("limit", f"must be an integer from 1 to {top}; got {limit!r}")
    return limit


def check_min_score(min_score: object, settings: Settings) -> float | None:
    """The floor of a semantic or hybrid search: ``search_min_score`` by default (``None``:
    the ranker's own default), else a number from -1 (no floor) to 1 (a probability for the
    learned ranker, a similarity for the fusion)."""
    if min_score is None:
        return settings.search_min_score
    if (isinstance(min_score, bool) or not isinstance(min_score, int | float)
            or not -1.0 <= min_score <= 1.0):
        raise InvalidInput("min_score", f"must be a number from -1 to 1 (the probability a "
                           f"hit needs; -1 turns the floor off) or None; got {min_score!r}")
    return float(min_score)


def keyword_match(query: str) -> str | None:
    """The full-text expression of a keyword search for ``query`` (``None``: no term the
    index can look for, as in a query of symbols only).

    A query whose only words are stop words ("the", "and the") is refused with
    ``InvalidInput`` naming ``query``: every message holds such words, so a keyword search
    for them has nothing to find. (Semantic and hybrid search still take such a query: it can
    be embedded.)
    """
    if only_stop_words(query):
        raise InvalidInput("query", "has only common words (stop words), so there is nothing "
                           "for a keyword search to look for; add a word that names what to "
                           "find")
    return fts_match_expression(query_terms(query))


def keyword_ranking(rows: Sequence[KeywordRow]) -> list[Hit]:
    """Keyword rows as hits, best first.

    BM25 is scaled to (0, 1] by the best score of the query; a message that contains the whole
    query as written gets +1, so literal matches lead, then term matches by relevance.
    """
    top = max((r.bm25 for r in rows), default=0.0)

    def score(r: KeywordRow) -> float:
        return (r.bm25 / top if top > 0 else 0.0) + (1.0 if r.exact else 0.0)

    best = sorted(rows, key=lambda r: (score(r), r.message.id), reverse=True)
    return [Hit(message=r.message, score=round(score(r), 6), rank=i + 1,
                source="archive" if r.bm25 > 0 else "recent")
            for i, r in enumerate(best)]


def expand(ranked: Sequence[Hit], runs: dict[int, list[Message]]) -> list[Hit]:
    """Matched hits plus their neighbours, without duplicates, in chronological order.

    ``runs`` maps a matched id to its run of messages (the hit with the messages before and
    after it). Overlapping runs merge; a neighbour that is itself matched stays a match.
    """
    out: dict[int, Hit] = {h.message.id: h for h in ranked}
    for h in ranked:
        for m in runs.get(h.message.id, []):
            if m.id not in out:
                out[m.id] = Hit(message=m, score=0.0, rank=None, source=h.source,
                                matched=False)
    return [out[i] for i in sorted(out)]
