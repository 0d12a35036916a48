"""Rows of a hot-tier delta read by either backend, made into :class:`HotChanges` (pure).

Both backends select the same columns: the marks as (session, version, cutoff, hot count,
vector count), the new messages as (session, id, content, sender, at, vector or NULL), and
the vectors found for messages that had none as (id, vector). Each backend says how a stored
vector becomes an array.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..types import HotChanges, HotMark

__all__ = ["hot_changes"]


def hot_changes(marks: Sequence[Any], rows: Sequence[Any], found: Sequence[Any], dim: int,
                vector: Callable[[Any], npt.NDArray[np.float32]]) -> HotChanges:
    matrix = np.zeros((len(rows), dim), dtype=np.float32)
    embedded = np.zeros(len(rows), dtype=np.bool_)
    for i, r in enumerate(rows):
        if r[5] is not None:
            matrix[i] = vector(r[5])
            embedded[i] = True
    return HotChanges(
        marks={str(r[0]): HotMark(version=int(r[1]), cutoff=int(r[2]), hot=int(r[3]),
                                  embedded=int(r[4])) for r in marks},
        sessions=[str(r[0]) for r in rows], ids=[int(r[1]) for r in rows],
        contents=[r[2] for r in rows], senders=[r[3] for r in rows],
        ats=[int(r[4]) for r in rows], matrix=matrix, embedded=embedded,
        vectors={int(i): np.asarray(vector(v), dtype=np.float32) for i, v in found})
