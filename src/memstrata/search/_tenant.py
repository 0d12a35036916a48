"""A tenant's search index held in the process and changed write by write (pure).

One structure per tenant (and vector model) holds every hot message the process has seen, in
rows appended in arrival order: arrays grown by doubling (ids, session codes, times, senders,
the per-message signals, both vectors), explicit previous/next row links inside each session
(so sessions need not be contiguous), and per-term postings of each message's own terms and of
its neighbour key. A message's key is its own terms plus those of the two messages either side
(:data:`DEFAULT_KEY_WEIGHTS`), so appending a message changes the keys of that message and of
the two before it only; a removal changes the keys of the two alive messages either side.
Postings are append-only (term, row, weight) triples: a key that changes gets its old
contribution subtracted and its new one added, and a query sums a term's triples per row
(exact: a few float32 weights summed in float64), so the index kept write by write gives the
same term frequencies as one built from scratch.

A query selects the rows it searches (one session's, or the tenant's), and gets the inputs of
:func:`memstrata.search._features.feature_matrix` for them: postings of the query's terms
only, key and own lengths, links, cosines. Features therefore match those a per-session build
gives, for a session search and for a tenant-wide one alike.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ._bm25 import DEFAULT_KEY_WEIGHTS, KeywordIndex, tokens
from ._features import Signals, signals

__all__ = ["Selection", "TenantIndex"]

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_KEY_REACH = max(abs(o) for o in DEFAULT_KEY_WEIGHTS)
_Triples = list[tuple[npt.NDArray[np.int32], int, npt.NDArray[np.float64]]]


A = TypeVar("A", bound=npt.NDArray[Any])


def _widen(array: A, cap: int, used: int, fill: float = 0) -> A:
    """``array`` with room for ``cap`` rows, its first ``used`` rows kept."""
    shape = (cap, *array.shape[1:])
    out = (np.zeros(shape, dtype=array.dtype) if fill == 0
           else np.full(shape, fill, dtype=array.dtype))
    out[:used] = array[:used]
    widened: A = out  # type: ignore[assignment]
    return widened


class _Postings:
    """One term's postings: rows and weights, grown by doubling."""

    __slots__ = ("rows", "size", "weights")

    def __init__(self) -> None:
        self.rows = np.empty(0, dtype=np.int32)
        self.weights = np.empty(0, dtype=np.float64)
        self.size = 0

    def extend(self, rows: npt.NDArray[np.int32], weights: npt.NDArray[np.float64]) -> int:
        """Append postings; returns the bytes the lists grew by."""
        add = rows.shape[0]
        if not self.size:
            self.rows, self.weights, self.size = rows.copy(), weights.copy(), add
            return int(12 * add)
        need = self.size + add
        grown = 0
        if need > self.rows.shape[0]:
            cap = max(need, 2 * self.rows.shape[0])
            grown = (cap - self.rows.shape[0]) * 12
            wider_rows = np.empty(cap, dtype=np.int32)
            wider_rows[:self.size] = self.rows[:self.size]
            wider_weights = np.empty(cap, dtype=np.float64)
            wider_weights[:self.size] = self.weights[:self.size]
            self.rows, self.weights = wider_rows, wider_weights
        self.rows[self.size:need] = rows
        self.weights[self.size:need] = weights
        self.size = need
        return grown


@dataclass(slots=True)
class _Session:
    code: int
    head: int = -1
    tail: int = -1
    alive: int = 0
    embedded: int = 0
    last_id: int = 0
    version: int | None = None
    cutoff: int = 0


@dataclass(frozen=True, slots=True)
class Selection:
    """The rows a query searches and what the features read of them (positions
    ``0..n-1``)."""

    rows: IntArray
    ids: IntArray
    groups: IntArray
    links: tuple[IntArray, IntArray]
    times: IntArray
    sender_codes: IntArray
    present: BoolArray
    info: Signals
    own_lengths: FloatArray
    key_lengths: FloatArray
    pos: IntArray
    """Each row's position in the selection (-1: not selected), one more entry for -1."""


class TenantIndex:
    """Every hot message of a tenant the process holds, kept current by :meth:`append`,
    :meth:`remove`, :meth:`set_vectors` and :meth:`clear_vectors`."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.size = 0
        self.max_id = 0
        self._held = 0  # bytes of postings and per-row term lists
        self.generation = 0  # moves with every change
        self._selected: tuple[tuple[tuple[str, ...] | None, int], Selection] | None = None
        self.sessions: dict[str, _Session] = {}
        self._names: list[str] = []
        self.senders: dict[str | None, int] = {}
        self.vocab: dict[str, int] = {}
        self._own: list[_Postings] = []
        self._key: list[_Postings] = []
        # Each row's distinct own terms and their counts: a slice of one flat list.
        self._flat = _Postings()
        self._cap = 0
        self.ids: IntArray = np.zeros(0, dtype=np.int64)
        self.codes: IntArray = np.zeros(0, dtype=np.int64)
        self.times: IntArray = np.zeros(0, dtype=np.int64)
        self.sender: IntArray = np.zeros(0, dtype=np.int64)
        self.alive: BoolArray = np.zeros(0, dtype=np.bool_)
        self.present: BoolArray = np.zeros(0, dtype=np.bool_)
        self.prev: IntArray = np.zeros(0, dtype=np.int64)
        self.next: IntArray = np.zeros(0, dtype=np.int64)
        self.own_len: FloatArray = np.zeros(0, dtype=np.float32)
        self.key_len: npt.NDArray[np.float64] = np.zeros(0, dtype=np.float64)
        self.term_lo: IntArray = np.zeros(0, dtype=np.int64)
        self.term_hi: IntArray = np.zeros(0, dtype=np.int64)
        self.length: FloatArray = np.zeros(0, dtype=np.float32)
        self.cjk: FloatArray = np.zeros(0, dtype=np.float32)
        self.question: FloatArray = np.zeros(0, dtype=np.float32)
        self.content: FloatArray = np.zeros(0, dtype=np.float32)
        self.own_vectors: FloatArray = np.zeros((0, dim), dtype=np.float32)
        self.key_vectors: FloatArray = np.zeros((0, dim), dtype=np.float32)
        self._grow(64)

    # -- storage ---------------------------------------------------------------------------

    def reserve(self, rows: int) -> None:
        """Room for ``rows`` more messages at once (a large delta grows the arrays once)."""
        self._grow(self.size + rows)

    def _grow(self, need: int) -> None:
        if need <= self._cap:
            return
        cap = max(need, 2 * self._cap)
        self.ids = _widen(self.ids, cap, self.size)
        self.codes = _widen(self.codes, cap, self.size)
        self.times = _widen(self.times, cap, self.size)
        self.sender = _widen(self.sender, cap, self.size)
        self.alive = _widen(self.alive, cap, self.size)
        self.present = _widen(self.present, cap, self.size)
        self.prev = _widen(self.prev, cap, self.size, -1)
        self.next = _widen(self.next, cap, self.size, -1)
        self.own_len = _widen(self.own_len, cap, self.size)
        self.key_len = _widen(self.key_len, cap, self.size)
        self.term_lo = _widen(self.term_lo, cap, self.size)
        self.term_hi = _widen(self.term_hi, cap, self.size)
        self.length = _widen(self.length, cap, self.size)
        self.cjk = _widen(self.cjk, cap, self.size)
        self.question = _widen(self.question, cap, self.size)
        self.content = _widen(self.content, cap, self.size)
        self.own_vectors = _widen(self.own_vectors, cap, self.size)
        self.key_vectors = _widen(self.key_vectors, cap, self.size)
        self._cap = cap

    @property
    def nbytes(self) -> int:
        """Bytes held (arrays at capacity, postings, per-row term lists, roughly), kept as
        the index grows."""
        arrays = (self.ids, self.codes, self.times, self.sender, self.alive, self.present,
                  self.prev, self.next, self.own_len, self.key_len, self.term_lo,
                  self.term_hi, self.length, self.cjk,
                  self.question, self.content, self.own_vectors, self.key_vectors)
        total = sum(int(a.nbytes) for a in arrays)
        return total + self._held + (64 + 80) * len(self.vocab)

    @property
    def alive_count(self) -> int:
        return sum(s.alive for s in self.sessions.values())

    def session(self, name: str) -> _Session:
        found = self.sessions.get(name)
        if found is None:
            found = self.sessions[name] = _Session(code=len(self._names))
            self._names.append(name)
        return found

    # -- writes ----------------------------------------------------------------------------

    def append(self, sessions: str | Sequence[str], ids: Sequence[int], texts: Sequence[str],
               senders: Sequence[str | None], ats: Sequence[int], own: FloatArray,
               keyed: FloatArray, embedded: BoolArray) -> None:
        """Add new hot messages: of one session, or of several (``sessions`` names each
        message's; a session's messages contiguous), each session's in id order and after
        every message it holds. One vectorised pass whatever the number of sessions."""
        n = len(ids)
        if not n:
            return
        self.generation += 1
        names = [sessions] * n if isinstance(sessions, str) else list(sessions)
        cuts = [0, *(i for i in range(1, n) if names[i] != names[i - 1]), n]
        segments = [(self.session(names[a]), a, b) for a, b in itertools.pairwise(cuts)]
        for st, a, _ in segments:
            if ids[a] <= st.last_id:
                raise ValueError("messages must come after the session's newest")
        start = self.size
        self._grow(start + n)
        rows = np.arange(start, start + n, dtype=np.int64)
        self.size = start + n
        self.ids[rows] = ids
        self.codes[rows] = np.repeat([st.code for st, _, _ in segments],
                                     [b - a for _, a, b in segments])
        self.times[rows] = ats
        self.sender[rows] = [self.senders.setdefault(s, len(self.senders)) for s in senders]
        self.alive[rows] = True
        self.present[rows] = embedded
        self.own_vectors[rows] = own
        self.key_vectors[rows] = keyed
        info = signals(texts)
        self.length[rows] = info.length
        self.cjk[rows] = info.cjk
        self.question[rows] = info.question
        self.content[rows] = info.content
        # Own terms: one (term, row) pair per distinct term of a message, with its count.
        token_lists = [tokens(f"{s}: {t}" if s else t)
                       for s, t in zip(senders, texts, strict=True)]
        lens = np.fromiter(map(len, token_lists), dtype=np.int64, count=n)
        tids = np.fromiter((self._term(t) for toks in token_lists for t in toks),
                           dtype=np.int64, count=int(lens.sum()))
        width = max(len(self.vocab), 1)
        pairs, counts = np.unique(np.repeat(np.arange(n, dtype=np.int64), lens) * width + tids,
                                  return_counts=True)
        pair_row, pair_term = pairs // width, (pairs % width).astype(np.int32)
        weights = counts.astype(np.float64)
        base = self._flat.size
        self.term_lo[rows] = base + np.searchsorted(pair_row, np.arange(n))
        self.term_hi[rows] = base + np.searchsorted(pair_row, np.arange(n), side="right")
        self._held += self._flat.extend(pair_term, weights)
        self.own_len[rows] = lens
        self._post_arrays(self._own, pair_term, rows[pair_row], weights)
        # Each session's chain: the last two rows it held (oldest first), then its new rows,
        # linked after its tail.
        chain_parts: list[IntArray] = []
        seg_parts: list[IntArray] = []
        old_parts: list[npt.NDArray[np.bool_]] = []
        new_at = np.empty(n, dtype=np.int64)  # each new row's place in the chain
        length = 0
        for k, (st, a, b) in enumerate(segments):
            before = ([st.tail, *self._walk(st.tail, _KEY_REACH - 1, forward=False)]
                      if st.tail >= 0 else [])[::-1]
            mine = rows[a:b]
            if st.tail >= 0:
                self.next[st.tail] = mine[0]
            else:
                st.head = int(mine[0])
            self.prev[mine[0]] = st.tail
            self.prev[mine[1:]] = mine[:-1]
            self.next[mine[:-1]] = mine[1:]
            st.tail = int(mine[-1])
            st.alive += b - a
            st.embedded += int(np.count_nonzero(embedded[a:b]))
            st.last_id = int(ids[b - 1])
            chain_parts.append(np.concatenate((np.asarray(before, dtype=np.int64), mine)))
            seg_parts.append(np.full(len(before) + b - a, k, dtype=np.int64))
            old_parts.append(np.arange(len(before) + b - a) < len(before))
            new_at[a:b] = np.arange(length + len(before), length + len(before) + b - a)
            length += len(before) + b - a
        chain = np.concatenate(chain_parts)
        seg = np.concatenate(seg_parts)
        old = np.concatenate(old_parts)
        olds = chain[old].tolist()
        # Keys: every term occurrence of a chain goes to the keys within reach in the same
        # session, except what the old rows already hold of each other.
        held = [self._own_terms(r) for r in olds]
        term = np.concatenate([t for t, _ in held] + [pair_term]).astype(np.int64)
        src = np.concatenate([np.full(t.shape[0], i, dtype=np.int64)
                              for i, (t, _) in zip(np.flatnonzero(old).tolist(), held,
                                                   strict=True)] + [new_at[pair_row]])
        count = np.concatenate([c for _, c in held] + [weights])
        parts_t, parts_d, parts_w = [], [], []
        for offset, w in DEFAULT_KEY_WEIGHTS.items():
            dest = src - offset
            keep = (dest >= 0) & (dest < length)
            keep[keep] &= (seg[dest[keep]] == seg[src[keep]]) & ~(old[dest[keep]]
                                                                 & old[src[keep]])
            parts_t.append(term[keep])
            parts_d.append(dest[keep])
            parts_w.append(count[keep] * float(np.float32(w)))
        k_term = np.concatenate(parts_t)
        k_dest = np.concatenate(parts_d)
        k_w = np.concatenate(parts_w)
        self.key_len[chain] += np.bincount(k_dest, weights=k_w, minlength=length)
        keys, inverse = np.unique(k_term * length + k_dest, return_inverse=True)
        summed = np.bincount(inverse, weights=k_w, minlength=keys.shape[0]).astype(np.float64)
        self._post_arrays(self._key, (keys // length).astype(np.int32), chain[keys % length],
                          summed)
        self.max_id = max(self.max_id, max(int(i) for i in ids))

    def remove(self, rows: Sequence[int] | IntArray) -> None:
        """Remove rows (forgotten, compacted, reset, removed): the keys of the alive
        messages that had them as neighbours are recomputed without them."""
        gone = sorted({int(r) for r in rows if self.alive[int(r)]})
        if not gone:
            return
        self.generation += 1
        dead = set(gone)
        touched: set[int] = set()
        for r in gone:
            touched.update(self._walk(r, _KEY_REACH, forward=False))
            touched.update(self._walk(r, _KEY_REACH, forward=True))
        touched -= dead
        triples: _Triples = []
        for r in sorted(touched):
            self._key_of(triples, r, -1.0)
        for r in gone:
            st = self.sessions[self._names[int(self.codes[r])]]
            p, q = int(self.prev[r]), int(self.next[r])
            if p >= 0:
                self.next[p] = q
            else:
                st.head = q
            if q >= 0:
                self.prev[q] = p
            else:
                st.tail = p
            self.prev[r] = self.next[r] = -1
            self.alive[r] = False
            st.alive -= 1
            st.embedded -= int(self.present[r])
        for r in sorted(touched):
            self.key_len[r] = 0.0
            self._key_of(triples, r, 1.0)
        self._post(self._key, triples)

    def set_vectors(self, rows: Sequence[int], own: FloatArray, keyed: FloatArray) -> None:
        self.generation += 1
        for i, r in enumerate(rows):
            if not self.present[r] and self.alive[r]:
                self.sessions[self._names[int(self.codes[r])]].embedded += 1
            self.own_vectors[r] = own[i]
            self.key_vectors[r] = keyed[i]
            self.present[r] = True

    def clear_vectors(self, rows: Sequence[int]) -> None:
        self.generation += 1
        for r in rows:
            if self.present[r] and self.alive[r]:
                self.sessions[self._names[int(self.codes[r])]].embedded -= 1
            self.present[r] = False
            self.own_vectors[r] = 0.0
            self.key_vectors[r] = 0.0

    def drop_session(self, name: str) -> None:
        """Every row of a session that is gone (no neighbour outside it to re-key)."""
        st = self.sessions.get(name)
        if st is None:
            return
        rows = self.session_rows(name)
        self.generation += 1
        self.alive[rows] = False
        st.head = st.tail = -1
        st.alive = st.embedded = st.last_id = st.cutoff = 0
        st.version = None

    # -- reads -----------------------------------------------------------------------------

    def session_rows(self, name: str) -> IntArray:
        """The session's alive rows in order."""
        st = self.sessions.get(name)
        if st is None or st.alive == 0:
            return np.zeros(0, dtype=np.int64)
        n = self.size
        rows: IntArray = np.flatnonzero(self.alive[:n] & (self.codes[:n] == st.code))
        return rows.astype(np.int64)

    def select(self, scope: Sequence[str] | None) -> Selection:
        """The alive rows of the sessions in ``scope`` (``None``: every session), in row
        order, with their links, groups and per-message facts (kept until the next
        change, so warm searches of the same scope share it)."""
        key = (None if scope is None else tuple(scope), self.generation)
        if self._selected is not None and self._selected[0] == key:
            return self._selected[1]
        selection = self._select(scope)
        self._selected = (key, selection)
        return selection

    def _select(self, scope: Sequence[str] | None) -> Selection:
        n_all = self.size
        mask = self.alive[:n_all].copy()
        if scope is not None:
            wanted = np.zeros(len(self._names) + 1, dtype=np.bool_)
            for name in scope:
                st = self.sessions.get(name)
                if st is not None:
                    wanted[st.code] = True
            mask &= wanted[self.codes[:n_all]]
        rows = np.flatnonzero(mask).astype(np.int64)
        pos = np.full(n_all + 1, -1, dtype=np.int64)  # pos[-1] stays -1 for "no row"
        pos[rows] = np.arange(rows.shape[0], dtype=np.int64)
        prev = pos[self.prev[rows]]
        nxt = pos[self.next[rows]]
        info = Signals(length=self.length[rows], cjk=self.cjk[rows],
                       question=self.question[rows], content=self.content[rows])
        return Selection(rows=rows, ids=self.ids[rows], groups=self.codes[rows],
                         links=(prev, nxt), times=self.times[rows],
                         sender_codes=self.sender[rows], present=self.present[rows],
                         info=info, own_lengths=self.own_len[rows].astype(np.float32),
                         key_lengths=self.key_len[rows].astype(np.float32), pos=pos)

    def keyword(self, selection: Selection, terms: Sequence[str], *,
                key: bool) -> KeywordIndex:
        """A keyword index of the selected rows restricted to ``terms``: their postings in
        the messages' own terms (``key=False``) or neighbour keys, term frequencies summed."""
        n = selection.rows.shape[0]
        pos = selection.pos
        vocab: dict[str, int] = {}
        docs_parts: list[IntArray] = []
        tf_parts: list[FloatArray] = []
        lists = self._key if key else self._own
        for term in terms:
            tid = self.vocab.get(term)
            if tid is None or term in vocab:
                continue
            plist = lists[tid]
            at = pos[plist.rows[:plist.size]]
            keep = at >= 0
            at = at[keep]
            w = plist.weights[:plist.size][keep]
            # Summed per position (a few weights each, exact in float64); a key whose
            # contribution was taken back sums to exactly 0 and holds the term no more.
            tf = np.bincount(at, weights=w, minlength=n)
            docs = np.flatnonzero(tf > 0)
            vocab[term] = len(vocab)
            docs_parts.append(docs.astype(np.int64))
            tf_parts.append(tf[docs].astype(np.float32))
        indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum([d.shape[0] for d in docs_parts], out=indptr[1:])
        docs_all = (np.concatenate(docs_parts) if docs_parts
                    else np.zeros(0, dtype=np.int64))
        tf_all = (np.concatenate(tf_parts) if tf_parts else np.zeros(0, dtype=np.float32))
        return KeywordIndex(size=n, vocab=vocab, indptr=indptr, docs=docs_all,
                            weights=np.zeros(tf_all.shape[0], dtype=np.float32), tf=tf_all,
                            lengths=selection.key_lengths if key else selection.own_lengths)

    def cosines(self, selection: Selection, q: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Own-text and keyed cosines of the selected rows with the unit query ``q``: one
        product over the span of rows they occupy (a view, no copy), or over the rows
        themselves when they are a small part of it."""
        rows = selection.rows
        if not rows.shape[0]:
            empty = np.zeros(0, dtype=np.float32)
            return empty, empty.copy()
        lo, hi = int(rows[0]), int(rows[-1]) + 1
        if hi - lo <= 2 * rows.shape[0]:
            own = (self.own_vectors[lo:hi] @ q).astype(np.float32)[rows - lo]
            keyed = (self.key_vectors[lo:hi] @ q).astype(np.float32)[rows - lo]
        else:
            own = (self.own_vectors[rows] @ q).astype(np.float32)
            keyed = (self.key_vectors[rows] @ q).astype(np.float32)
        return own, keyed

    def sender_names(self) -> tuple[str | None, ...]:
        return tuple(self.senders)

    # -- keys ------------------------------------------------------------------------------

    def _term(self, term: str) -> int:
        tid = self.vocab.get(term)
        if tid is None:
            tid = self.vocab[term] = len(self.vocab)
            self._own.append(_Postings())
            self._key.append(_Postings())
            self._held += 2 * (48 + 2 * 112)
        return tid

    def _own_terms(self, row: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
        lo, hi = int(self.term_lo[row]), int(self.term_hi[row])
        return self._flat.rows[lo:hi], self._flat.weights[lo:hi]

    def _walk(self, row: int, steps: int, *, forward: bool) -> list[int]:
        """Up to ``steps`` rows before (or after) ``row`` in its session, nearest first."""
        links = self.next if forward else self.prev
        out: list[int] = []
        r = int(links[row])
        while r >= 0 and len(out) < steps:
            out.append(r)
            r = int(links[r])
        return out

    def _neighbours(self, row: int) -> list[tuple[int, float]]:
        """(row, weight) of every message in ``row``'s key, itself included."""
        out = [(row, DEFAULT_KEY_WEIGHTS[0])]
        r = row
        for offset in range(1, _KEY_REACH + 1):
            r = int(self.prev[r])
            if r < 0:
                break
            out.append((r, DEFAULT_KEY_WEIGHTS[-offset]))
        r = row
        for offset in range(1, _KEY_REACH + 1):
            r = int(self.next[r])
            if r < 0:
                break
            out.append((r, DEFAULT_KEY_WEIGHTS[offset]))
        return out

    def _key_of(self, triples: _Triples,
                row: int, sign: float) -> None:
        """Add (``sign`` 1) or take back (-1) ``row``'s whole key as its links stand."""
        for source, weight in self._neighbours(row):
            terms, counts = self._own_terms(source)
            w = counts * float(np.float32(weight))
            triples.append((terms, row, w if sign > 0 else -w))
            if sign > 0:
                self.key_len[row] += float(np.float32(weight)) * float(counts.sum())

    def _post(self, lists: list[_Postings],
              triples: _Triples) -> None:
        """Append (term, row, weight) triples to the terms' postings."""
        if not triples:
            return
        terms = np.concatenate([t for t, _, _ in triples])
        rows = np.concatenate([np.full(t.shape[0], r, dtype=np.int32)
                               for t, r, _ in triples])
        weights = np.concatenate([w for _, _, w in triples]).astype(np.float64)
        self._post_arrays(lists, terms, rows, weights)

    def _post_arrays(self, lists: list[_Postings], terms: npt.NDArray[np.int32],
                     rows: npt.NDArray[np.int32] | IntArray,
                     weights: npt.NDArray[np.float64]) -> None:
        if not terms.shape[0]:
            return
        rows = rows.astype(np.int32)
        order = np.argsort(terms, kind="stable")
        terms, rows, weights = terms[order], rows[order], weights[order]
        cuts = np.flatnonzero(np.diff(terms)) + 1
        starts = np.concatenate(([0], cuts))
        ends = np.concatenate((cuts, [terms.shape[0]]))
        for lo, hi in zip(starts.tolist(), ends.tolist(), strict=True):
            self._held += lists[int(terms[lo])].extend(rows[lo:hi], weights[lo:hi])
