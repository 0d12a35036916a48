"""BM25 over the rows of one scope (a session, or a tenant), never over the whole database.

The full-text index says which messages hold which query term (stemmed, whole words, CJK pairs,
identifiers as phrases). How relevant each one is, is worked out here from the scope's own
figures only: how many messages the scope holds, how many of them hold each term, and the
lengths and term counts of the matching messages. So another tenant's volume or vocabulary
never moves a tenant's ranking, and a search costs what its own matches cost, not what the
whole database's matches of the same words cost (FTS5's ``bm25()`` counts every row of the
table that holds a term, at every query).

What differs from FTS5's figures, and why:

- the inverse document frequency is ``ln(1 + (N - n + 0.5) / (n + 0.5))``, which stays
  positive when a term is in more than half of a small session's messages (FTS5's form falls to
  nearly zero there and stops telling messages apart);
- a message's length and its term counts come from the words of its indexed text as the
  index's tokenizer splits them (letters and digits, case and Latin accents folded), and the
  average length is that of the matching messages, which are read anyway;
- a term that the index matched by its stem ("cats" for "cat") counts once when the message
  does not also hold it as written: the stem is the index's; a message the index found always
  counts the term at least once.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Scope", "index_words", "rank", "term_words"]

_K1 = 1.2
_B = 0.75
_WORD = re.compile(r"[^\W_]+")
_MARK = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def index_words(text: str) -> list[str]:
    """The words of indexed text as the index's tokenizer splits it: runs of letters and
    digits, lower-cased, Latin accents removed (CJK pairs come already split by spaces)."""
    folded = text.lower()
    if not folded.isascii():
        # Chinese and Japanese decompose to themselves: the marks are looked for only where
        # decomposing changed something.
        decomposed = unicodedata.normalize("NFKD", folded)
        if decomposed != folded:
            folded = _MARK.sub("", decomposed)
    return _WORD.findall(folded)


def term_words(term: str) -> tuple[str, ...]:
    """The words of one quoted term of a match expression (a phrase: "err 42")."""
    return tuple(index_words(term))


@dataclass(frozen=True, slots=True)
class Scope:
    """The figures of the scope a search ranks in: how many messages it holds, and per term
    how many of them hold that term."""

    messages: int
    holding: Sequence[int]


def _count(words: Sequence[str], phrase: tuple[str, ...]) -> int:
    if len(phrase) == 1:
        return words.count(phrase[0])
    n = len(phrase)
    return sum(1 for i in range(len(words) - n + 1) if tuple(words[i:i + n]) == phrase)


def rank(texts: Mapping[int, str], matched: Sequence[Iterable[int]],
         terms: Sequence[tuple[str, ...]], scope: Scope, limit: int) -> list[tuple[int, float]]:
    """The best ``limit`` of ``texts`` (id → indexed text) by BM25 over ``scope``, best
    first, ties newer (larger id) first. ``matched[i]`` holds the ids the index found for
    ``terms[i]``; ids not in ``texts`` (filtered out by the caller) are ignored."""
    if not texts:
        return []
    words = {i: index_words(t) for i, t in texts.items()}
    avg = max(sum(map(len, words.values())) / len(words), 1.0)
    scores = dict.fromkeys(texts, 0.0)
    for ids, phrase, holding in zip(matched, terms, scope.holding, strict=True):
        total = max(scope.messages, holding)
        idf = math.log(1.0 + (total - holding + 0.5) / (holding + 0.5))
        for i in ids:
            w = words.get(i)
            if w is None:
                continue
            tf = max(1, _count(w, phrase))
            norm = _K1 * (1.0 - _B + _B * len(w) / avg)
            scores[i] += idf * tf * (_K1 + 1.0) / (tf + norm)
    best = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    return best[:limit]
