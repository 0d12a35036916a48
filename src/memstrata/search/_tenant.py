"""A tenant's search index held in the process and changed write by write (pure).

One structure per tenant (and vector model) holds every hot message the process has seen, in
rows appended in arrival order: arrays grown by an eighth at a time (ids, session codes,
times, senders, the per-message signals, both vectors as int8 with a scale each:
:mod:`memstrata.search._quant`), explicit previous/next row links inside each session (so
sessions need not be contiguous), and the postings of each message's own terms
(:class:`memstrata.search._postings.Postings`). A message's neighbour key is its own terms
plus those of the two messages either side (:data:`DEFAULT_KEY_WEIGHTS`); it is not stored
but summed when a query reads a term: each own posting of the term is carried along the
links to the keys within reach. So appending a message adds its own terms only, a removal
relinks its neighbours, and the term frequencies (a few float32 weights times counts,
summed in float64: exact) equal those of a per-session build.

A query selects the rows it searches (one session's, or the tenant's), and gets the inputs of
:func:`memstrata.search._features.feature_matrix` for them: the query terms' own and key
frequencies, key and own lengths, links, cosines. Features therefore match those a
per-session build gives, for a session search and for a tenant-wide one alike.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ._bm25 import DEFAULT_KEY_WEIGHTS, KeywordIndex, tokens
from ._features import Groups, Signals, session_groups, signals
from ._postings import Postings
from ._quant import dequantise, dots, quantise, query_dots

__all__ = ["Selection", "TenantIndex"]

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]
Int8Array = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]

_KEY_REACH = max(abs(o) for o in DEFAULT_KEY_WEIGHTS)
# A query's terms read for candidates, rarest first, while their postings stay within this
# many (a term held by a large part of the tenant picks no session out: none is read).
_CANDIDATE_POSTINGS = 100_000
# Bytes a vocabulary entry costs in the process (the term's string and its dict slot), roughly.
_TERM_BYTES = 120


A = TypeVar("A", bound=npt.NDArray[Any])


def _widen(array: A, cap: int, used: int, fill: float = 0) -> A:
    """``array`` with room for ``cap`` rows, its first ``used`` rows kept."""
    shape = (cap, *array.shape[1:])
    out = (np.zeros(shape, dtype=array.dtype) if fill == 0
           else np.full(shape, fill, dtype=array.dtype))
    out[:used] = array[:used]
    widened: A = out  # type: ignore[assignment]
    return widened


def _step(links: Int32Array, rows: npt.NDArray[Any], steps: int) -> IntArray:
    """The row ``steps`` links from each of ``rows`` (-1: none that far)."""
    at = rows.astype(np.int64)
    for _ in range(steps):
        at = np.where(at >= 0, links[np.maximum(at, 0)], -1).astype(np.int64)
    return at


def _best(scores: npt.NDArray[Any], k: int) -> IntArray:
    """Positions of the ``k`` highest finite ``scores`` (fewer when fewer are finite; in no
    order). Over many scores, a strided sample's order statistic bounds the ``k`` best from
    below first, so the partition runs over a few of them, not all."""
    n = scores.shape[0]
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    pool: IntArray | None = None
    if n > 64 * k:
        stride = max(1, n // (64 * k))
        sample = scores[::stride]
        # About 4k of the scores are at least the sample's 4k/stride-th highest.
        m = min(sample.shape[0], max(1, (4 * k) // stride))
        bound = np.partition(sample, sample.shape[0] - m)[sample.shape[0] - m]
        if np.isfinite(bound):
            above = np.flatnonzero(scores >= bound)
            if above.shape[0] >= k:
                pool = above.astype(np.int64)
    if pool is None:
        pool = np.flatnonzero(np.isfinite(scores)).astype(np.int64)
    if pool.shape[0] <= k:
        return pool
    best: IntArray = pool[np.argpartition(-scores[pool], k - 1)[:k]]
    return best


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


@dataclass(frozen=True, slots=True)
class _Held:
    """The selection kept between searches, and the index it was taken from."""

    scope: tuple[str, ...] | None
    generation: int
    reshaped: int
    size: int
    selection: Selection


def _joined(first: Selection, then: Selection) -> Selection:
    """``first``'s rows followed by ``then``'s, every per-row array joined (the positions
    are ``then``'s, which must place both)."""
    parts: dict[str, Any] = {}
    for field in dataclasses.fields(Selection):
        a, b = getattr(first, field.name), getattr(then, field.name)
        if field.name == "pos":
            parts[field.name] = b
        elif isinstance(a, Signals):
            parts[field.name] = Signals(**{f.name: np.concatenate([getattr(a, f.name),
                                                                  getattr(b, f.name)])
                                           for f in dataclasses.fields(Signals)})
        elif isinstance(a, tuple):
            parts[field.name] = tuple(np.concatenate(pair) for pair in zip(a, b, strict=True))
        else:
            parts[field.name] = np.concatenate([a, b])
    return Selection(**parts)


# The per-row arrays: name, dtype, fill of unused rows, and whether a row is a vector.
_COLUMNS: tuple[tuple[str, type[np.generic], float, bool], ...] = (
    ("ids", np.int64, 0, False), ("codes", np.int32, 0, False),
    ("times", np.int64, 0, False), ("sender", np.int32, 0, False),
    ("alive", np.bool_, 0, False), ("present", np.bool_, 0, False),
    ("prev", np.int32, -1, False), ("next", np.int32, -1, False),
    ("own_len", np.float32, 0, False), ("length", np.float32, 0, False),
    ("cjk", np.float32, 0, False), ("question", np.float32, 0, False),
    ("content", np.float32, 0, False),
    ("own_q", np.int8, 0, True), ("own_scale", np.float32, 0, False),
    ("key_q", np.int8, 0, True), ("key_scale", np.float32, 0, False),
)


class TenantIndex:
    """Every hot message of a tenant the process holds, kept current by :meth:`append`,
    :meth:`remove`, :meth:`set_vectors` and :meth:`clear_vectors`."""

    ids: IntArray
    codes: Int32Array
    times: IntArray
    sender: Int32Array
    alive: BoolArray
    present: BoolArray
    prev: Int32Array
    next: Int32Array
    own_len: FloatArray
    length: FloatArray
    cjk: FloatArray
    question: FloatArray
    content: FloatArray
    own_q: Int8Array
    own_scale: FloatArray
    key_q: Int8Array
    key_scale: FloatArray

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.size = 0
        self.max_id = 0
        self.generation = 0  # moves with every change
        self._reshaped = 0  # moves with every change but appends and vectors coming or going
        self._selected: _Held | None = None
        self._keyed: tuple[Selection, list[tuple[float, Int32Array]]] | None = None
        self._grouped: tuple[Selection, bool, Groups] | None = None
        self.sessions: dict[str, _Session] = {}
        self._names: list[str] = []
        self.senders: dict[str | None, int] = {}
        self.vocab: dict[str, int] = {}
        self.terms = Postings()
        self._cap = 0
        for name, dtype, _, vector in _COLUMNS:
            setattr(self, name, np.zeros((0, dim) if vector else 0, dtype=dtype))
        self._grow(64)

    # -- storage ---------------------------------------------------------------------------

    def reserve(self, rows: int) -> None:
        """Room for ``rows`` more messages at once (a large delta grows the arrays once)."""
        self._grow(self.size + rows)

    def _grow(self, need: int) -> None:
        if need <= self._cap:
            return
        # An eighth more than needed: every growth copies the index, so it must be rare (not
        # the first write after a tenant was read whole), and the room stays a small part of
        # the index (a message's bytes at most 1.125 times).
        cap = max(need + need // 8, self._cap + self._cap // 8)
        for name, _, fill, _ in _COLUMNS:
            setattr(self, name, _widen(getattr(self, name), cap, self.size, fill))
        self._cap = cap

    @property
    def nbytes(self) -> int:
        """Bytes held (arrays at capacity, postings, the vocabulary, roughly), kept as the
        index grows."""
        arrays = sum(int(getattr(self, name).nbytes) for name, _, _, _ in _COLUMNS)
        return arrays + self.terms.nbytes + _TERM_BYTES * len(self.vocab)

    @property
    def alive_count(self) -> int:
        return sum(s.alive for s in self.sessions.values())

    def session(self, name: str) -> _Session:
        found = self.sessions.get(name)
        if found is None:
            found = self.sessions[name] = _Session(code=len(self._names))
            self._names.append(name)
        return found

    def vectors(self, rows: Sequence[int] | IntArray) -> tuple[FloatArray, FloatArray]:
        """The own-text and keyed vectors of ``rows`` as float32 (dequantised; zero rows
        where a message has none yet)."""
        at = np.asarray(rows, dtype=np.int64)
        return self.own_vectors(at), dequantise(self.key_q[at], self.key_scale[at])

    def own_vectors(self, rows: IntArray) -> FloatArray:
        """The own-text vectors of ``rows`` as float32 (dequantised; zero rows where a
        message has none yet)."""
        return dequantise(self.own_q[rows], self.own_scale[rows])

    def _put_vectors(self, rows: IntArray | Sequence[int], own: FloatArray,
                     keyed: FloatArray) -> None:
        at = np.asarray(rows, dtype=np.int64)
        q, s = quantise(own)
        self.own_q[at], self.own_scale[at] = q, s
        q, s = quantise(keyed)
        self.key_q[at], self.key_scale[at] = q, s

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
        self._put_vectors(rows, own, keyed)
        info = signals(texts)
        self.length[rows] = info.length
        self.cjk[rows] = info.cjk
        self.question[rows] = info.question
        self.content[rows] = info.content
        # Own terms: one (term, row) pair per distinct term of a message, with its count.
        token_lists = [tokens(f"{s}: {t}" if s else t)
                       for s, t in zip(senders, texts, strict=True)]
        lens = np.fromiter(map(len, token_lists), dtype=np.int64, count=n)
        vocab = self.vocab
        tids = np.fromiter((vocab.setdefault(t, len(vocab)) for toks in token_lists
                            for t in toks), dtype=np.int64, count=int(lens.sum()))
        width = max(len(vocab), 1)
        pairs, counts = np.unique(np.repeat(np.arange(n, dtype=np.int64), lens) * width + tids,
                                  return_counts=True)
        self.terms.add((pairs % width).astype(np.int32),
                       (start + pairs // width).astype(np.int32), counts.astype(np.float32))
        self.own_len[rows] = lens
        # Each session's new rows, linked after its tail.
        for st, a, b in segments:
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
        self.max_id = max(self.max_id, max(int(i) for i in ids))

    def remove(self, rows: Sequence[int] | IntArray) -> None:
        """Remove rows (forgotten, compacted, reset, removed): their neighbours are linked
        to each other, so the keys read through the links leave them out."""
        gone = sorted({int(r) for r in rows if self.alive[int(r)]})
        if not gone:
            return
        self.generation += 1
        self._reshaped += 1
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

    def set_vectors(self, rows: Sequence[int], own: FloatArray, keyed: FloatArray) -> None:
        self.generation += 1
        for r in rows:
            if not self.present[r] and self.alive[r]:
                self.sessions[self._names[int(self.codes[r])]].embedded += 1
            self.present[r] = True
        self._put_vectors(list(rows), own, keyed)

    def clear_vectors(self, rows: Sequence[int]) -> None:
        self.generation += 1
        for r in rows:
            if self.present[r] and self.alive[r]:
                self.sessions[self._names[int(self.codes[r])]].embedded -= 1
            self.present[r] = False
            self.own_q[r] = self.key_q[r] = 0
            self.own_scale[r] = self.key_scale[r] = 0.0

    def drop_session(self, name: str) -> None:
        """Every row of a session that is gone (no neighbour outside it to re-key)."""
        st = self.sessions.get(name)
        if st is None:
            return
        rows = self.session_rows(name)
        self.generation += 1
        self._reshaped += 1
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
        change, so warm searches of the same scope share it; after appends and vectors
        coming or going only, the kept one is extended by the new rows, not worked out
        again)."""
        key = None if scope is None else tuple(scope)
        held = self._selected
        if held is not None and held.scope == key and held.generation == self.generation:
            return held.selection
        if held is not None and held.scope == key and held.reshaped == self._reshaped:
            selection = self._extend(held.selection, scope, held.size)
        else:
            selection = self._select(scope)
        self._selected = _Held(key, self.generation, self._reshaped, self.size, selection)
        return selection

    def _alive_in(self, scope: Sequence[str] | None, start: int = 0) -> BoolArray:
        """Per row from ``start`` on, whether it is alive and of a session in ``scope``
        (``None``: any)."""
        n = self.size
        if scope is None or (len(set(scope)) >= len(self.sessions)
                             and all(name in self.sessions for name in scope)):
            out: BoolArray = self.alive[start:n].copy()  # every session: no codes to read
            return out
        wanted = np.zeros(len(self._names) + 1, dtype=np.bool_)
        for name in scope:
            st = self.sessions.get(name)
            if st is not None:
                wanted[st.code] = True
        masked: BoolArray = self.alive[start:n] & wanted[self.codes[start:n]]
        return masked

    def _select(self, scope: Sequence[str] | None) -> Selection:
        rows = np.flatnonzero(self._alive_in(scope)).astype(np.int64)
        pos = np.full(self.size + 1, -1, dtype=np.int64)  # pos[-1] stays -1 for "no row"
        pos[rows] = np.arange(rows.shape[0], dtype=np.int64)
        return self._gathered(rows, pos)

    def _gathered(self, rows: IntArray, pos: IntArray) -> Selection:
        """What a selection holds of ``rows`` (in row order), linked through the selected
        rows' positions ``pos``."""
        info = Signals(length=self.length[rows], cjk=self.cjk[rows],
                       question=self.question[rows], content=self.content[rows])
        return Selection(rows=rows, ids=self.ids[rows],
                         groups=self.codes[rows].astype(np.int64),
                         links=(pos[self.prev[rows]], pos[self.next[rows]]),
                         times=self.times[rows],
                         sender_codes=self.sender[rows].astype(np.int64),
                         present=self.present[rows], info=info,
                         own_lengths=self.own_len[rows],
                         key_lengths=self._key_lengths(rows), pos=pos)

    def _extend(self, old: Selection, scope: Sequence[str] | None, start: int) -> Selection:
        """``old``, the selection of ``scope`` when the index had ``start`` rows, brought up
        to date after appends only (and vectors that came or went): the new rows of the
        scope go after the old ones, the old sessions' tails link to them, and the key
        lengths (and the held key offsets) of the rows within reach before them are worked
        out again; what the new rows leave alone is kept."""
        new = np.flatnonzero(self._alive_in(scope, start)).astype(np.int64) + start
        m = old.rows.shape[0]
        pos = np.full(self.size + 1, -1, dtype=np.int64)
        pos[:start] = old.pos[:start]
        pos[new] = np.arange(m, m + new.shape[0], dtype=np.int64)
        joined = _joined(old, self._gathered(new, pos))
        nxt = joined.links[1]
        tails = np.flatnonzero(old.links[1] == -1)  # an old row that ended its session
        nxt[tails] = pos[self.next[old.rows[tails]]]
        # Old rows whose next rows within the key's reach are new ones.
        reach = [_step(self.prev, new, k) for k in range(1, _KEY_REACH + 1)]
        near = np.unique(np.concatenate([at[(at >= 0) & (at < start)] for at in reach]))
        joined.key_lengths[pos[near]] = self._key_lengths(near)
        # A vector that came or went moves an old row's flag too.
        selection = dataclasses.replace(joined, present=self.present[joined.rows])
        if self._keyed is not None and self._keyed[0] is old:
            self._keyed = (selection, self._keyed_extended(self._keyed[1], selection, start,
                                                           near))
        return selection

    def scope_rows(self, scope: Sequence[str]) -> int:
        """The number of alive rows of the sessions in ``scope``."""
        sessions = self.sessions
        return sum(st.alive for st in (sessions.get(name) for name in scope) if st is not None)

    def candidate_scope(self, scope: Sequence[str], q: FloatArray, terms: Sequence[str], *,
                        rows: int, since: int | None = None,
                        vectors_only: bool = False) -> list[str]:
        """The sessions of ``scope`` worth ranking for a query over many rows: those holding
        one of the ``rows`` messages whose own vectors are nearest the unit query ``q`` (one
        int8 product per row, the query rounded once), and, unless ``vectors_only`` (a
        semantic search), those holding one of the ``rows`` messages whose own text holds
        the most idf of the query's rarer ``terms`` (read rarest first within
        :data:`_CANDIDATE_POSTINGS` postings). A search then ranks every message of these
        sessions exactly, with the features a search of all of ``scope`` gives them; the
        others are left out. ``since`` leaves out messages sent before it."""
        n = self.size
        mask = self._alive_in(scope)
        if since is not None:
            mask &= self.times[:n] >= since
        chosen = np.zeros(len(self._names) + 1, dtype=np.bool_)
        qq, qs = quantise(q)
        if float(qs[0]) > 0.0:
            embedded = mask & self.present[:n]
            near = np.where(embedded, dots(self.own_q[:n], self.own_scale[:n], qq[0],
                                           float(qs[0])), -np.inf)
            chosen[self.codes[_best(near, rows)]] = True
        if not vectors_only and terms:
            chosen[self.codes[self._term_candidates(mask, terms, rows)]] = True
        return [self._names[int(c)] for c in np.flatnonzero(chosen)]

    def _term_candidates(self, mask: BoolArray, terms: Sequence[str], rows: int) -> IntArray:
        """Up to ``rows`` rows of ``mask`` whose own text holds the most idf of ``terms``
        (tenant-wide), read rarest first within :data:`_CANDIDATE_POSTINGS` postings."""
        found = sorted((self.terms.get(self.vocab[t]) for t in dict.fromkeys(terms)
                        if t in self.vocab), key=lambda part: int(part[0].shape[0]))
        total = float(np.count_nonzero(mask))
        at_parts: list[npt.NDArray[Any]] = []
        weight_parts: list[npt.NDArray[np.float64]] = []
        read = 0
        for src, _ in found:
            if read + src.shape[0] > _CANDIDATE_POSTINGS:
                break
            read += int(src.shape[0])
            held = src[mask[src]]
            df = float(held.shape[0])
            at_parts.append(held)
            weight_parts.append(np.full(held.shape[0], np.log1p((total - df + 0.5) / (df + 0.5))))
        if not at_parts:
            return np.zeros(0, dtype=np.int64)
        score = np.bincount(np.concatenate(at_parts), weights=np.concatenate(weight_parts),
                            minlength=mask.shape[0])
        return _best(np.where(score > 0, score, -np.inf), rows)

    def groups(self, selection: Selection, *, alone: bool) -> Groups:
        """The selected rows' :func:`memstrata.search._features.session_groups` (``alone``:
        as one session), kept with the selection: they do not depend on the query."""
        held = self._grouped
        if held is not None and held[0] is selection and held[1] == alone:
            return held[2]
        codes = (np.zeros(selection.rows.shape[0], dtype=np.int64) if alone
                 else selection.groups)
        grouped = session_groups(codes, selection.own_lengths, selection.key_lengths)
        self._grouped = (selection, alone, grouped)
        return grouped

    def _keyed_at(self, selection: Selection) -> list[tuple[float, Int32Array]]:
        """Per key offset, its weight and, for each row of the index, the position of the
        selected row whose key holds that row's terms at that offset (-1: none); worked out
        once per selection, on the first keyword read (a semantic search needs none)."""
        if self._keyed is not None and self._keyed[0] is selection:
            return self._keyed[1]
        every = np.arange(self.size, dtype=np.int64)
        keyed_at = [(float(np.float32(w)), self._keyed_rows(selection, offset, every))
                    for offset, w in DEFAULT_KEY_WEIGHTS.items()]
        self._keyed = (selection, keyed_at)
        return keyed_at

    def _keyed_rows(self, selection: Selection, offset: int, rows: IntArray) -> Int32Array:
        """For each of ``rows``: the position of the selected row whose key holds its terms
        at ``offset`` (the row ``offset`` before it; -1: none)."""
        dest = _step(self.prev if offset > 0 else self.next, rows, abs(offset))
        out: Int32Array = selection.pos[dest].astype(np.int32)
        return out

    def _keyed_extended(self, held: list[tuple[float, Int32Array]], selection: Selection,
                        start: int, near: IntArray) -> list[tuple[float, Int32Array]]:
        """The key offsets ``held`` for the index at ``start`` rows, after appends: the new
        rows' worked out, and the old rows' whose next rows within reach are new."""
        fresh = np.arange(start, self.size, dtype=np.int64)
        out = []
        for (w, dest), offset in zip(held, DEFAULT_KEY_WEIGHTS, strict=True):
            grown = np.concatenate([dest[:start], self._keyed_rows(selection, offset, fresh)])
            if offset < 0 and near.shape[0]:
                grown[near] = self._keyed_rows(selection, offset, near)
            out.append((w, grown))
        return out

    def _key_lengths(self, rows: IntArray) -> FloatArray:
        """Each row's key length: its neighbours' own lengths, weighted as in the key."""
        own = self.own_len
        total = float(np.float32(DEFAULT_KEY_WEIGHTS[0])) * own[rows].astype(np.float64)
        for offset in range(1, _KEY_REACH + 1):
            for links, weight in ((self.prev, DEFAULT_KEY_WEIGHTS[-offset]),
                                  (self.next, DEFAULT_KEY_WEIGHTS[offset])):
                at = _step(links, rows, offset)
                total += np.where(at >= 0, own[np.maximum(at, 0)], 0.0).astype(np.float64) \
                    * float(np.float32(weight))
        out: FloatArray = total.astype(np.float32)
        return out

    def keyword(self, selection: Selection, terms: Sequence[str], *,
                key: bool) -> KeywordIndex:
        """A keyword index of the selected rows restricted to ``terms``: their frequencies
        in the messages' own terms (``key=False``) or neighbour keys (each own posting
        carried to the keys within reach along the links), summed per row."""
        n = selection.rows.shape[0]
        pos = selection.pos
        vocab: dict[str, int] = {}
        docs_parts: list[IntArray] = []
        tf_parts: list[FloatArray] = []
        for term in terms:
            tid = self.vocab.get(term)
            if tid is None or term in vocab:
                continue
            src, counts = self.terms.get(tid)
            if key and 4 * n < self.size:
                # A few sessions of a large index: only their postings are carried along the
                # links (a row's key lies in its own session), in the same order as below.
                held = pos[src] >= 0
                src, base = src[held], counts[held].astype(np.float64)
                at = np.concatenate([
                    pos[_step(self.prev if offset > 0 else self.next, src, abs(offset))]
                    for offset in DEFAULT_KEY_WEIGHTS])
                weights = np.concatenate([base * float(np.float32(w))
                                          for w in DEFAULT_KEY_WEIGHTS.values()])
            elif key:
                keyed_at = self._keyed_at(selection)
                at = np.concatenate([dest[src] for _, dest in keyed_at])
                base = counts.astype(np.float64)
                weights = np.concatenate([base * w for w, _ in keyed_at])
            else:
                at, weights = pos[src], counts.astype(np.float64)
            keep = at >= 0
            # Summed per position: a few float32 weights times counts, exact in float64.
            tf = np.bincount(at[keep], weights=weights[keep], minlength=n)
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
        """Own-text and keyed cosines of the selected rows with the unit query ``q`` (int8
        rows: :func:`memstrata.search._quant.query_dots`): one product over the span of rows
        they occupy (a view, no copy), or over the rows themselves when they are a small
        part of it."""
        rows = selection.rows
        if not rows.shape[0]:
            empty = np.zeros(0, dtype=np.float32)
            return empty, empty.copy()
        lo, hi = int(rows[0]), int(rows[-1]) + 1
        if hi - lo <= 2 * rows.shape[0]:
            at = rows - lo
            own = query_dots(self.own_q[lo:hi], self.own_scale[lo:hi], q)[at]
            keyed = query_dots(self.key_q[lo:hi], self.key_scale[lo:hi], q)[at]
        else:
            own = query_dots(self.own_q[rows], self.own_scale[rows], q)
            keyed = query_dots(self.key_q[rows], self.key_scale[rows], q)
        return own, keyed

    def sender_names(self) -> tuple[str | None, ...]:
        return tuple(self.senders)

    # -- saving ----------------------------------------------------------------------------

    def state(self) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """Copies of what the index holds (its used rows and an eighth more of unused ones,
        so the index read back takes its next writes without a growth that copies it all;
        the postings merged) and the facts beside them, as :meth:`restore` takes them
        back."""
        n = self.size
        room = n + max(64, n // 8)
        arrays = {name: _widen(getattr(self, name), room, n, fill)
                  for name, _, fill, _ in _COLUMNS}
        indptr, rows, counts = self.terms.parts()
        arrays.update(indptr=indptr.copy(), post_rows=rows.copy(), post_counts=counts.copy())
        facts = {
            "dim": self.dim, "size": n, "max_id": self.max_id, "vocab": list(self.vocab),
            "senders": list(self.senders),
            "sessions": [[name, st.head, st.tail, st.alive, st.embedded, st.last_id,
                          st.version, st.cutoff]
                         for name, st in ((nm, self.sessions[nm]) for nm in self._names)],
        }
        return arrays, facts

    @classmethod
    def restore(cls, arrays: dict[str, npt.NDArray[Any]], facts: dict[str, Any]) -> TenantIndex:
        """The index :meth:`state` described; ``ValueError`` when the parts do not fit
        together (shapes, types, links or postings out of range)."""
        dim, n = int(facts["dim"]), int(facts["size"])
        index = cls(dim)
        cap = int(arrays["ids"].shape[0])  # the used rows, then room for more
        for name, dtype, _, vector in _COLUMNS:
            a = arrays[name]
            if a.dtype != dtype or a.shape != ((cap, dim) if vector else (cap,)) or cap < n:
                raise ValueError(f"column {name} does not fit")
        for name in ("prev", "next"):
            links = arrays[name]
            if n and (int(links[:n].max()) >= n or int(links.min()) < -1
                      or int(links[n:].max(initial=-1)) != -1):
                raise ValueError(f"links {name} out of range")
        rows = arrays["post_rows"]
        if rows.shape[0] and (int(rows.max()) >= n or int(rows.min()) < 0):
            raise ValueError("postings out of range")
        vocab = facts["vocab"]
        # (Its terms come from JSON: strings, or values no query term ever equals.)
        if not isinstance(vocab, list):
            raise ValueError("the vocabulary is not a list of terms")
        if arrays["indptr"].shape[0] != len(vocab) + 1:
            raise ValueError("postings do not match the vocabulary")
        index.terms = Postings.from_parts(arrays["indptr"].astype(np.int64, copy=False),
                                          rows.astype(np.int32, copy=False),
                                          arrays["post_counts"].astype(np.float32,
                                                                       copy=False))
        if bool(arrays["alive"][n:].any()):
            raise ValueError("rows past the used ones are alive")
        # The arrays read back become the index's own (no copy); appends fill their room.
        for name, _, _, _ in _COLUMNS:
            setattr(index, name, np.require(arrays[name], requirements=("C", "W")))
        index._cap, index.size = cap, n
        index.max_id = int(facts["max_id"])
        index.vocab = dict(zip(vocab, range(len(vocab)), strict=True))
        index.senders = {s: i for i, s in enumerate(facts["senders"])}
        for name, head, tail, alive, embedded, last_id, version, cutoff in facts["sessions"]:
            st = index.session(str(name))
            st.head, st.tail, st.alive, st.embedded = int(head), int(tail), int(alive), \
                int(embedded)
            st.last_id, st.cutoff = int(last_id), int(cutoff)
            st.version = None if version is None else int(version)
        codes = arrays["codes"]
        if n and (int(codes.max()) >= len(index._names) or int(codes.min()) < 0):
            raise ValueError("session codes out of range")
        return index
