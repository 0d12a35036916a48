"""Each term's postings in the messages' own text: (row, count) pairs, compact (pure).

Most postings sit in one array sorted by term (``indptr[t]:indptr[t+1]`` is term ``t``'s
slice: 8 bytes a posting, no object per term); a write appends to a small unsorted tail,
which a lookup scans too and which is merged into the sorted part (one linear pass, no sort
of the whole) once it outgrows a quarter of it. Rows that leave keep their postings: the
reader ignores rows it does not select, and the tenant index is read afresh once such rows
outnumber the living.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["Postings"]

IntArray = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float32]

_MIN_TAIL = 1 << 16


class Postings:
    """(row, count) pairs per term id; terms are ids ``0..``, in any order of arrival."""

    def __init__(self) -> None:
        self.indptr: IntArray = np.zeros(1, dtype=np.int64)
        self.rows: Int32Array = np.zeros(0, dtype=np.int32)
        self.counts: FloatArray = np.zeros(0, dtype=np.float32)
        self._clear_tail()

    def _clear_tail(self) -> None:
        self._t_terms: Int32Array = np.zeros(0, dtype=np.int32)
        self._t_rows: Int32Array = np.zeros(0, dtype=np.int32)
        self._t_counts: FloatArray = np.zeros(0, dtype=np.float32)
        self._t_size = 0

    @property
    def size(self) -> int:
        return int(self.rows.shape[0]) + self._t_size

    @property
    def nbytes(self) -> int:
        return int(self.indptr.nbytes + self.rows.nbytes + self.counts.nbytes
                   + self._t_terms.nbytes + self._t_rows.nbytes + self._t_counts.nbytes)

    def add(self, terms: Int32Array, rows: Int32Array, counts: FloatArray) -> None:
        """Append postings (one per distinct term of a row)."""
        add = int(terms.shape[0])
        if not add:
            return
        need = self._t_size + add
        if need > self._t_terms.shape[0]:
            cap = max(need, self._t_terms.shape[0] * 2, 1024)
            for name, dtype in (("_t_terms", np.int32), ("_t_rows", np.int32),
                                ("_t_counts", np.float32)):
                wider = np.empty(cap, dtype=dtype)
                wider[:self._t_size] = getattr(self, name)[:self._t_size]
                setattr(self, name, wider)
        self._t_terms[self._t_size:need] = terms
        self._t_rows[self._t_size:need] = rows
        self._t_counts[self._t_size:need] = counts
        self._t_size = need
        if self._t_size > max(_MIN_TAIL, self.rows.shape[0] // 4):
            self.merge()

    def get(self, term: int) -> tuple[Int32Array, FloatArray]:
        """Term ``term``'s rows and counts (sorted part first, then the tail)."""
        if term + 1 < self.indptr.shape[0]:
            lo, hi = int(self.indptr[term]), int(self.indptr[term + 1])
            rows, counts = self.rows[lo:hi], self.counts[lo:hi]
        else:
            rows, counts = self.rows[:0], self.counts[:0]
        if self._t_size:
            hit = np.flatnonzero(self._t_terms[:self._t_size] == term)
            if hit.shape[0]:
                rows = np.concatenate((rows, self._t_rows[hit]))
                counts = np.concatenate((counts, self._t_counts[hit]))
        return rows, counts

    def merge(self) -> None:
        """Fold the tail into the sorted part: every old posting moves up by the tail
        postings of lower terms, each tail posting lands after its term's old ones."""
        m = self._t_size
        if not m:
            return
        t_terms = self._t_terms[:m]
        vocab = max(self.indptr.shape[0] - 1, int(t_terms.max()) + 1)
        old = np.zeros(vocab, dtype=np.int64)
        old[:self.indptr.shape[0] - 1] = np.diff(self.indptr)
        added = np.bincount(t_terms, minlength=vocab).astype(np.int64)
        indptr = np.zeros(vocab + 1, dtype=np.int64)
        np.cumsum(old + added, out=indptr[1:])
        total = int(indptr[-1])
        rows = np.empty(total, dtype=np.int32)
        counts = np.empty(total, dtype=np.float32)
        n_old = int(self.rows.shape[0])
        if n_old:
            old_start = np.zeros(vocab, dtype=np.int64)
            old_start[1:] = np.cumsum(old)[:-1]
            shift = np.repeat(indptr[:-1] - old_start, old)
            at = np.arange(n_old, dtype=np.int64) + shift
            rows[at] = self.rows
            counts[at] = self.counts
        order = np.argsort(t_terms, kind="stable")
        sorted_terms = t_terms[order]
        rank = np.arange(m, dtype=np.int64) - np.searchsorted(sorted_terms, sorted_terms)
        at = indptr[sorted_terms] + old[sorted_terms] + rank
        rows[at] = self._t_rows[:m][order]
        counts[at] = self._t_counts[:m][order]
        self.indptr, self.rows, self.counts = indptr, rows, counts
        self._clear_tail()

    def parts(self) -> tuple[IntArray, Int32Array, FloatArray]:
        """The whole, merged (what a snapshot saves)."""
        self.merge()
        return self.indptr, self.rows, self.counts

    @classmethod
    def from_parts(cls, indptr: IntArray, rows: Int32Array, counts: FloatArray) -> Postings:
        out = cls()
        if indptr.shape[0] < 1 or int(indptr[-1]) != rows.shape[0] \
                or rows.shape[0] != counts.shape[0] or np.any(np.diff(indptr) < 0):
            raise ValueError("postings do not fit together")
        out.indptr, out.rows, out.counts = indptr, rows, counts
        return out
