"""BM25 over the rows of one scope (a session, or a tenant), never over the whole database.

The full-text index says which messages hold which query term (stemmed, whole words, CJK pairs,
identifiers as phrases). How relevant each one is, is worked out here from the scope's own
figures only: how many messages the scope holds, how many of them hold each term, and the
lengths and term counts of the matching messages. So another tenant's volume or vocabulary
never moves a tenant's ranking, and a search costs what its own matches cost, not what the
whole database's matches of the same words cost (FTS5's ``bm25()`` counts every row of the
table that holds a term, at every query).

What differs from FTS5's figures, and why:

- the inverse document frequency has FTS5's form, ``ln((N - n + 0.5) / (n + 0.5))`` with its
  floor of 1e-6, over the scope's N and n;
- a message's length is the index's own count of its words (FTS5's, both columns); the average
  length is the scope's hot messages' average size in bytes at the words per byte of the
  matching messages (no read of the whole scope), else that of the matching messages;
- how often a message holds a term is counted on its text as written (case folded): a word
  that the index matched by its stem ("cats" for "cat") counts once when the message does not
  also hold it as typed, and a message the index found always counts the term at least once.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from ..text import CJK_RANGES

__all__ = ["Counter", "Scope", "index_words", "rank", "term_counter", "term_words"]

_K1 = 1.2
_B = 0.75
_WORD = re.compile(r"[^\W_]+")
_MARK = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_CJK = re.compile(f"[{''.join(f'{chr(lo)}-{chr(hi)}' for lo, hi in CJK_RANGES)}]")


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


Counter = Callable[[str], int]


def term_counter(words: Sequence[str]) -> Counter:
    """How often a term (its words, see :func:`term_words`) occurs in a message's lower-cased
    content, counted on the text itself (C string search, no tokenizing in Python): a CJK
    term as its run of characters ("花蓮 蓮看" is 花蓮看), any other as whole words separated
    by anything that is not a letter or digit. A term mixing the two counts as 0 here (the
    caller counts a matched term at least once)."""
    if not words:
        return lambda text: 0
    if all(_CJK.match(w) for w in words):
        chain = all(len(a) == 2 and len(b) == 2 and a[1] == b[0]
                    for a, b in pairwise(words))
        if len(words) == 1 or chain:
            run = words[0] + "".join(w[-1] for w in words[1:])
            return lambda text: text.count(run)
        return lambda text: 0
    if any(_CJK.search(w) for w in words):
        return lambda text: 0
    pattern = re.compile(r"(?<![^\W_])" + r"[\W_]+".join(map(re.escape, words))
                         + r"(?![^\W_])")
    return lambda text: len(pattern.findall(text))


@dataclass(frozen=True, slots=True)
class Scope:
    """The figures of the scope a search ranks in: how many messages it holds, and per term
    how many of them hold that term."""

    messages: int
    holding: Sequence[int]
    length: float | None = None
    """The scope's average message length in words (``None``: the matching messages')."""


def rank(docs: Mapping[int, tuple[str, int]], matched: Sequence[Iterable[int]],
         terms: Sequence[Counter], scope: Scope, limit: int) -> list[tuple[int, float]]:
    """The best ``limit`` of ``docs`` (id → lower-cased content and its length in index
    words) by BM25 over ``scope``, best first, ties newer (larger id) first. ``matched[i]``
    holds the ids the index found for the term ``terms[i]`` counts; ids not in ``docs``
    (filtered out by the caller) are ignored."""
    if not docs:
        return []
    avg = scope.length or max(sum(n for _, n in docs.values()) / len(docs), 1.0)
    scores = dict.fromkeys(docs, 0.0)
    for ids, count, holding in zip(matched, terms, scope.holding, strict=True):
        total = max(scope.messages, holding)
        # FTS5's form, and its floor for a term in more than half of the scope's messages.
        idf = max(math.log((total - holding + 0.5) / (holding + 0.5)), 1e-6)
        for i in ids:
            doc = docs.get(i)
            if doc is None:
                continue
            tf = max(1, count(doc[0]))
            norm = _K1 * (1.0 - _B + _B * doc[1] / avg)
            scores[i] += idf * tf * (_K1 + 1.0) / (tf + norm)
    best = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    return best[:limit]
