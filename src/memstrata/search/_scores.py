"""Scores of one session's messages for a query, and the steps that combine them (pure).

Cosines, neighbour smoothing, min-max scaling, the top-k selection and the sender prior: the
primitives :mod:`memstrata.search._fusion` ranks with.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._bm25 import tokens

__all__ = ["minmax", "neighbour_smooth", "semantic_scores", "sender_prior", "top_indices"]

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]


def semantic_scores(vectors: FloatArray, query_vector: FloatArray) -> FloatArray:
    """Cosine similarity of each row of ``vectors`` with ``query_vector`` (rows unit-length)."""
    q = np.asarray(query_vector, dtype=np.float32).ravel()
    norm = float(np.linalg.norm(q))
    if norm == 0.0 or vectors.shape[0] == 0:
        return np.zeros(vectors.shape[0], dtype=np.float32)
    out: FloatArray = (vectors @ (q / norm)).astype(np.float32)
    return out


def neighbour_smooth(scores: FloatArray, weights: dict[int, float],
                     groups: Sequence[int] | IntArray | None = None) -> FloatArray:
    """Each message's score plus its neighbours' scores, weighted by offset.

    ``out[i] = sum(w * scores[i + offset])`` over ``weights`` (offset 0 is the message itself),
    counting only neighbours that exist and share message ``i``'s group. ``scores`` may also
    be a matrix with one row per message (rows are smoothed the same way).
    """
    n = len(scores)
    g = None if groups is None else np.asarray(groups, dtype=np.int64)
    out = np.zeros(scores.shape, dtype=np.float32)
    for offset, w in weights.items():
        if w == 0 or (abs(offset) >= max(n, 1) and offset != 0):
            continue
        lo, hi = max(0, -offset), min(n, n - offset)
        part = scores[lo + offset : hi + offset] * np.float32(w)
        if g is not None:
            same = g[lo:hi] == g[lo + offset : hi + offset]
            part = np.where(same.reshape(-1, *([1] * (part.ndim - 1))), part, 0.0)
        out[lo:hi] += part
    return out


def minmax(scores: FloatArray) -> FloatArray:
    """``scores`` scaled linearly to [0, 1] (all zeros when they are all equal or empty)."""
    if scores.size == 0:
        return scores.astype(np.float32)
    low, high = float(scores.min()), float(scores.max())
    if not math.isfinite(high - low) or high - low <= 0.0:
        return np.zeros_like(scores, dtype=np.float32)
    out: FloatArray = ((scores - low) / (high - low)).astype(np.float32)
    return out


def top_indices(scores: FloatArray, k: int, eligible: npt.NDArray[np.bool_] | None = None
                ) -> IntArray:
    """Positions of the ``k`` best scores, best first; ties go to the later (newer) message.

    ``eligible`` (same length, optional) masks out messages that may not be returned, e.g.
    those still in the context window or outside the time range.
    """
    s = np.asarray(scores, dtype=np.float64)
    if eligible is not None:
        s = np.where(eligible, s, -np.inf)
    k = min(k, int(np.isfinite(s).sum()))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-s, k - 1)[:k] if k < len(s) else np.arange(len(s))
    order = np.lexsort((-part, -s[part]))
    out: IntArray = part[order].astype(np.int64)
    return out


def sender_prior(sender_codes: IntArray, sender_names: Sequence[str | None],
                 query: str | Sequence[str]) -> FloatArray:
    """1 for messages whose sender the query (text, or its terms) names ("What did Ann
    say…"), else 0.

    ``sender_codes[i]`` indexes ``sender_names``. All zeros when the query names no sender, or
    names every sender present (then the name tells the messages apart no more).
    """
    wanted = set(tokens(query) if isinstance(query, str) else query)
    named = np.asarray([bool(set(tokens(name or "")) & wanted) for name in sender_names]
                       + [False], dtype=np.bool_)
    hit = named[np.asarray(sender_codes, dtype=np.int64)]
    if not hit.any() or hit.all():
        return np.zeros(hit.shape, dtype=np.float32)
    return hit.astype(np.float32)
