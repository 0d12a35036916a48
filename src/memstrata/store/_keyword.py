"""What a keyword search reads from either backend, made into rows (both backends).

The index finds whole words (stemmed) in every tier, and the messages that hold the query's
words as a phrase (``text.query_phrase``); the hot-tier scan adds the substrings a query holds
that are not plain words (``text.query_literals``). A message found more than once is one
row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..text import contains_phrase
from ..types import KeywordRow, Message

__all__ = ["keyword_rows"]


def keyword_rows(ranked: Sequence[tuple[Message, float]],
                 phrased: Iterable[tuple[Message, float]], scanned: Iterable[Message],
                 query: str, fold: Callable[[str], str]) -> list[KeywordRow]:
    """The terms' hits (with their scores), the phrase's hits and the scan's hits as rows,
    each message once.

    A message only the phrase search found keeps its score up to the terms' best, so the
    terms' search sets the scale. ``exact`` says the message holds the whole query as
    written, not inside a longer word, compared after ``fold`` (the backend's case folding,
    the one its scan uses).
    """
    literal = fold(query.strip())
    best = max((score for _, score in ranked), default=None)
    hot = {m.id: m for m in scanned}
    out: dict[int, KeywordRow] = {}

    def add(m: Message, score: float) -> None:
        if m.id not in out:
            out[m.id] = KeywordRow(message=m, bm25=score, hot=m.id in hot,
                                   exact=contains_phrase(fold(m.content), literal))

    for m, score in ranked:
        add(m, score)
    for m, score in phrased:
        add(m, score if best is None else min(score, best))
    for m in hot.values():
        add(m, 0.0)
    return list(out.values())
