"""Vectors held as int8 with one float32 scale per vector, and their dot products (pure).

A vector ``v`` is kept as ``q = round(v / s)`` with ``s = max|v| / 127``: 1 byte per
dimension instead of 4. Each component is off by at most ``s / 2``, so the cosine of two
unit vectors moves by at most ``(s_a * |b|_1 + s_b * |a|_1) / 2 + d * s_a * s_b / 4``
(:func:`dot_error_bound`); for 512-d unit vectors that is about 0.003 in practice. The
product of two int8 vectors is summed in integers by ``simsimd`` (exact, so the order rows
are read in never changes a score) and scaled once.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import simsimd

__all__ = ["dequantise", "dot_error_bound", "dots", "quantise", "query_dots"]

FloatArray = npt.NDArray[np.float32]
Int8Array = npt.NDArray[np.int8]

_LEVELS = 127.0


def quantise(vectors: npt.ArrayLike) -> tuple[Int8Array, FloatArray]:
    """Rows as int8 and their scales (a zero row: zeros, scale 0)."""
    v = np.asarray(vectors, dtype=np.float32)
    if v.ndim == 1:
        v = v[None, :]
    peak = np.abs(v).max(axis=1) if v.shape[1] else np.zeros(v.shape[0], dtype=np.float32)
    scale = (peak / np.float32(_LEVELS)).astype(np.float32)
    safe = np.where(scale > 0, scale, np.float32(1.0))
    q = np.clip(np.rint(v / safe[:, None]), -_LEVELS, _LEVELS).astype(np.int8)
    return q, scale


def dequantise(q: Int8Array, scale: FloatArray) -> FloatArray:
    """The float32 rows int8 rows stand for."""
    out: FloatArray = q.astype(np.float32) * scale.astype(np.float32)[:, None]
    return out


def dots(matrix: Int8Array, scales: FloatArray, query: Int8Array,
         query_scale: float) -> FloatArray:
    """Each row's dot product with the (quantised) query, as float32."""
    if not matrix.shape[0]:
        return np.zeros(0, dtype=np.float32)
    raw = np.asarray(simsimd.cdist(query.reshape(1, -1), matrix, metric="dot"),
                     dtype=np.float64)[0]
    out: FloatArray = (raw * scales.astype(np.float64) * float(query_scale)).astype(np.float32)
    return out


def query_dots(matrix: Int8Array, scales: FloatArray, query: FloatArray) -> FloatArray:
    """Each row's dot product with a float32 query, the query's own rounding all but
    removed: it is taken as two int8 vectors, itself and what rounding it left, so only the
    rows' rounding moves the result. Both are multiplied in one pass over the rows (each
    row read once, two integer products from it), which costs little more than one."""
    q1, s1 = quantise(query)
    residual = np.asarray(query, dtype=np.float32).ravel() - dequantise(q1, s1)[0]
    q2, s2 = quantise(residual)
    if not matrix.shape[0]:
        return np.zeros(0, dtype=np.float32)
    raw = np.asarray(simsimd.cdist(matrix, np.concatenate([q1, q2]), metric="dot"),
                     dtype=np.float64)
    row_scales = scales.astype(np.float64)
    # Each product scaled and rounded to float32 alone, as :func:`dots` gives it, then summed.
    first = (raw[:, 0] * row_scales * float(s1[0])).astype(np.float32).astype(np.float64)
    second = (raw[:, 1] * row_scales * float(s2[0])).astype(np.float32).astype(np.float64)
    out: FloatArray = (first + second).astype(np.float32)
    return out


def dot_error_bound(a: FloatArray, b: FloatArray) -> float:
    """The most quantising both ``a`` and ``b`` can move their dot product: each component
    is off by at most half its vector's scale."""
    sa = float(np.abs(a).max()) / _LEVELS
    sb = float(np.abs(b).max()) / _LEVELS
    return float((sa * float(np.abs(b).sum()) + sb * float(np.abs(a).sum())) / 2
                 + a.shape[0] * sa * sb / 4)
