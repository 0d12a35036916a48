"""Words in a query that ask how a thing stood at first or how it stands now (pure).

"What did we first plan for?", "Before the raise, how much went to the cards?", "一開始我說
報表多久做一次？" ask about the earliest of several messages on a subject; "What is the
budget at this point?", "目前用哪個版本？" about the latest. Without a cue the ranker cannot
tell which of two messages on one subject the question wants: both hold its words, and the
one after an update is no closer in meaning. :func:`query_cues` finds the two kinds, which
the features multiply with a message's age and its place in its session's time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Cues", "query_cues"]

_EARLY_WORDS = (
    "first", "firstly", "originally", "original", "initially", "initial", "earlier",
    "earliest", "before", "previously", "previous", "formerly", "prior", "used to",
    "at the start", "in the beginning", "at the beginning", "to begin with", "back then",
    "at first", "to start with", "started with", "start with",
)
_LATE_WORDS = (
    "now", "currently", "current", "latest", "recently", "recent", "lately", "nowadays",
    "these days", "at this point", "at the moment", "right now", "so far", "anymore",
    "final", "finally", "ended up", "end up", "in the end", "updated", "today", "still",
)
_EARLY_CJK = ("一開始", "一开始", "最初", "最早", "原本", "原來", "原来", "原先", "起初",
              "當初", "当初", "本來", "本来", "之前", "以前", "先前", "第一次", "一起頭")
_LATE_CJK = ("現在", "现在", "目前", "最近", "如今", "後來", "后来", "最後", "最后",
             "最新", "改成", "改為", "改为", "現階段", "现阶段", "最終", "最终", "還是")


def _pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(w).replace(r"\ ", r"\s+")
                            for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)


_EARLY = _pattern(_EARLY_WORDS)
_LATE = _pattern(_LATE_WORDS)


@dataclass(frozen=True, slots=True)
class Cues:
    """Whether a query asks about the earliest (``early``) or the latest (``late``) of what
    was said on its subject (both may hold, or neither)."""

    early: bool = False
    late: bool = False


def query_cues(query: str) -> Cues:
    """The cue words of ``query`` (English words matched whole, Chinese ones anywhere)."""
    early = bool(_EARLY.search(query)) or any(w in query for w in _EARLY_CJK)
    late = bool(_LATE.search(query)) or any(w in query for w in _LATE_CJK)
    return Cues(early, late)
