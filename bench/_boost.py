"""Gradient-boosted trees over the ranker's features, fitted on the same loss as the linear
model (pointwise log loss + a listwise softmax per question), starting from its scores.

Deterministic: quantile bins from the data, exhaustive split search over the bins, Newton
leaf values, no sampling. The trees are complete binary trees of one depth; a node that
gains nothing by splitting sends every row left. The result is what
:class:`memstrata.search._ranker.Trees` evaluates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["BoostParams", "boost"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class BoostParams:
    trees: int = 60
    depth: int = 3
    rate: float = 0.1
    bins: int = 48
    l2: float = 10.0
    min_hessian: float = 1.0


def _edges(column: FloatArray, bins: int) -> FloatArray:
    qs = np.quantile(column, np.linspace(0, 1, bins + 1)[1:-1])
    out: FloatArray = np.unique(qs)
    return out


def _sigmoid(z: FloatArray) -> FloatArray:
    out: FloatArray = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
    return out


def boost(z: FloatArray, y: FloatArray, w: FloatArray, base: FloatArray, starts: IntArray,
          use: npt.NDArray[np.bool_], qweight: FloatArray, row_weight: FloatArray,
          listwise: float, params: BoostParams
          ) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Trees fitted to the combined loss from the scores ``base``; returns, per tree, the
    split features ``(T, 2^D - 1)``, thresholds ``(T, 2^D - 1)`` (go right when the
    standardised feature is above) and leaf values ``(T, 2^D)`` (learning rate applied).

    ``z``: standardised features of the rows; ``w``: pointwise weights; ``starts``: each
    question's first row (rows of a question contiguous); ``use``: which questions the
    listwise part covers; ``qweight``: their listwise weights; ``row_weight``: how many rows
    a row stands for in the softmax (negatives were subsampled)."""
    n, d = z.shape
    nb = params.bins + 1
    edges = [_edges(z[:, j], params.bins) for j in range(d)]
    binned = np.stack([np.searchsorted(edges[j], z[:, j], side="left") for j in range(d)],
                      axis=1).astype(np.int64)
    flat = binned + (np.arange(d, dtype=np.int64) * nb)[None, :]
    ends = np.append(starts[1:], n)
    qid = np.repeat(np.arange(len(starts)), ends - starts)
    pos_count = np.add.reduceat(y, starts)
    on = use & (pos_count > 0)
    lw = np.where(on, listwise * qweight, 0.0)
    per_pos = np.where(on, lw / np.maximum(pos_count, 1), 0.0)
    inner = 2 ** params.depth - 1
    feats = np.zeros((params.trees, inner), dtype=np.int16)
    thresholds = np.full((params.trees, inner), np.inf, dtype=np.float32)
    leaves = np.zeros((params.trees, 2 ** params.depth), dtype=np.float32)
    s = base.astype(np.float64).copy()
    for t in range(params.trees):
        p = _sigmoid(s)
        g = w * (p - y)
        h = w * p * (1 - p)
        top = np.maximum.reduceat(s, starts)
        e = np.exp(s - top[qid]) * row_weight
        total = np.add.reduceat(e, starts)
        soft = e / np.where(total > 0, total, 1.0)[qid]
        g = g + lw[qid] * soft - per_pos[qid] * y
        h = h + lw[qid] * soft * (1 - soft)
        node = np.zeros(n, dtype=np.int64)
        for level in range(params.depth):
            first = 2 ** level - 1
            width = 2 ** level
            local = node - first
            keys = (local[:, None] * (d * nb) + flat).ravel()
            size = width * d * nb
            gh = np.bincount(keys, weights=np.repeat(g, d), minlength=size).reshape(width, d, nb)
            hh = np.bincount(keys, weights=np.repeat(h, d), minlength=size).reshape(width, d, nb)
            gl = np.cumsum(gh, axis=2)[:, :, :-1]
            hl = np.cumsum(hh, axis=2)[:, :, :-1]
            gt = gh.sum(axis=2, keepdims=True)
            ht = hh.sum(axis=2, keepdims=True)
            gr, hr = gt - gl, ht - hl
            lam = params.l2
            gain = gl ** 2 / (hl + lam) + gr ** 2 / (hr + lam) - gt ** 2 / (ht + lam)
            gain = np.where((hl >= params.min_hessian) & (hr >= params.min_hessian), gain, 0.0)
            go_right = np.zeros(n, dtype=np.bool_)
            for k in range(width):
                flat_best = int(np.argmax(gain[k]))
                j, b = divmod(flat_best, nb - 1)
                if gain[k, j, b] <= 1e-12 or b >= len(edges[j]):
                    continue  # no split: every row goes left
                feats[t, first + k] = j
                thresholds[t, first + k] = np.float32(edges[j][b])
                rows = local == k
                go_right |= rows & (binned[:, j] > b)
            node = 2 * node + 1 + go_right
        leaf = node - inner
        gs = np.bincount(leaf, weights=g, minlength=2 ** params.depth)
        hs = np.bincount(leaf, weights=h, minlength=2 ** params.depth)
        values = -params.rate * gs / (hs + params.l2)
        leaves[t] = values.astype(np.float32)
        s += values[leaf]
    return feats, thresholds, leaves
