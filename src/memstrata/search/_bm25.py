"""In-memory BM25 over neighbour-keyed messages (pure): the keyword side of the hybrid
ranking in :mod:`memstrata.fusion`.

Each message is indexed under a *key* made of its own terms and its neighbours' terms,
down-weighted with distance, so a question about facts spread over a few turns still finds
the turn that holds them; the hit is still the single message.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..text import STOP_WORDS, words

__all__ = ["DEFAULT_KEY_WEIGHTS", "KeywordIndex", "build_keyword_index", "keyword_scores",
           "stem", "tokens"]

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

_VOWEL = re.compile("[aeiouy]")

# Weight of a message's own text and of its neighbours' text in its keyword key, by offset.
DEFAULT_KEY_WEIGHTS: dict[int, float] = {-2: 0.42, -1: 0.65, 0: 1.0, 1: 0.65, 2: 0.42}


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light English stem: plural ``s``, ``ed``/``ing`` and final ``e`` removed.

    Only lower-case ASCII words longer than three letters are touched, so names, numbers and
    non-English words pass through unchanged. "painted", "paints", "painting" → "paint";
    "baking", "bakes" → "bak"; "running" → "run"; "stories" → "story".
    """
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 3 and _VOWEL.search(base):
            word = base
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """The index terms of ``text`` in order, duplicates kept (term frequency matters).

    Stop words are dropped; a CJK run becomes its overlapping 2-character pairs (one
    character stays one term).
    """
    # Stemming leaves CJK pairs alone (it only touches ASCII words), so every word goes
    # through it.
    return [stem(w) for w in words(text) if w not in STOP_WORDS]


@dataclass(frozen=True)
class KeywordIndex:
    """An in-memory BM25 index over the keys of ``size`` messages (positions ``0..size-1``).

    Postings are stored per term as slices ``indptr[t]:indptr[t+1]`` of ``docs`` (message
    positions) and ``weights`` (the BM25 contribution of one occurrence profile, idf included),
    so a query costs one scatter-add per query term.
    """

    size: int
    vocab: dict[str, int]
    indptr: IntArray
    docs: IntArray
    weights: FloatArray
    tf: FloatArray | None = None
    """Per posting, the term's (weighted) frequency in the key."""
    lengths: FloatArray | None = None
    """Per message, its key's (weighted) length in terms."""


def _key_postings(token_lists: Sequence[Sequence[str]], groups: IntArray | None,
                  key_weights: dict[int, float]
                  ) -> tuple[dict[str, int], IntArray, IntArray, FloatArray]:
    """(vocab, key position, term id, weight) of every token occurrence in every key."""
    vocab: dict[str, int] = {}
    term = np.asarray([vocab.setdefault(t, len(vocab)) for toks in token_lists for t in toks],
                      dtype=np.int64)
    n = len(token_lists)
    src = np.repeat(np.arange(n, dtype=np.int64),
                    np.fromiter(map(len, token_lists), dtype=np.int64, count=n))
    parts_doc, parts_term, parts_w = [], [], []
    for offset, weight in key_weights.items():
        if weight <= 0:
            continue
        dest = src - offset  # the message whose key includes its neighbour at ``offset``
        keep = (dest >= 0) & (dest < n)
        if groups is not None:
            keep[keep] &= groups[dest[keep]] == groups[src[keep]]
        parts_doc.append(dest[keep])
        parts_term.append(term[keep])
        parts_w.append(np.full(int(keep.sum()), weight, dtype=np.float32))
    if not parts_doc:
        raise ValueError("key_weights must give some offset a positive weight")
    return (vocab, np.concatenate(parts_doc), np.concatenate(parts_term),
            np.concatenate(parts_w))


def build_keyword_index(token_lists: Sequence[Sequence[str]], *,
                        groups: Sequence[int] | IntArray | None = None,
                        key_weights: dict[int, float] | None = None,
                        k1: float = 1.2, b: float = 0.75) -> KeywordIndex:
    """A BM25 index whose key for message ``i`` is its tokens plus its neighbours' tokens.

    ``token_lists[i]`` are message ``i``'s terms (:func:`tokens`), messages in chronological
    order. ``key_weights`` maps an offset to the weight of that neighbour's terms in the key
    (default :data:`DEFAULT_KEY_WEIGHTS`: the message itself 1, the messages next to it 0.65,
    those two away 0.42); term frequencies and key lengths are weighted sums. Messages are
    neighbours only when their ``groups`` values are equal (``None``: all one group).
    """
    n = len(token_lists)
    g = None if groups is None else np.asarray(groups, dtype=np.int64)
    if g is not None and len(g) != n:
        raise ValueError("groups must have one entry per message")
    vocab, doc, term, w = _key_postings(token_lists, g, key_weights or DEFAULT_KEY_WEIGHTS)
    pair, inverse = np.unique(term * max(n, 1) + doc, return_inverse=True)
    tf = np.bincount(inverse, weights=w).astype(np.float32)
    pair_term, pair_doc = pair // max(n, 1), pair % max(n, 1)
    key_len = np.bincount(doc, weights=w, minlength=n).astype(np.float32)
    avg = float(key_len.mean()) if n and key_len.mean() > 0 else 1.0
    df = np.bincount(pair_term, minlength=len(vocab)).astype(np.float64)
    idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
    norm = k1 * (1.0 - b + b * key_len[pair_doc] / avg)
    weights = idf[pair_term] * tf * (k1 + 1.0) / (tf + norm)
    indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_term, minlength=len(vocab)), out=indptr[1:])
    return KeywordIndex(size=n, vocab=vocab, indptr=indptr, docs=pair_doc.astype(np.int64),
                        weights=weights.astype(np.float32), tf=tf, lengths=key_len)


def keyword_scores(index: KeywordIndex, query: str | Sequence[str]) -> FloatArray:
    """BM25 score of every message's key for ``query`` (text, or its :func:`tokens`).

    Each distinct query term counts once; a message whose key holds no query term scores 0.
    """
    terms = tokens(query) if isinstance(query, str) else list(query)
    scores = np.zeros(index.size, dtype=np.float32)
    for term in dict.fromkeys(terms):
        tid = index.vocab.get(term)
        if tid is None:
            continue
        lo, hi = int(index.indptr[tid]), int(index.indptr[tid + 1])
        scores[index.docs[lo:hi]] += index.weights[lo:hi]
    return scores
