"""Search over the strata: keyword (archive + hot tier), semantic and hybrid (hot tier).

Keyword search is the store's full-text search over the whole archive and the hot tier (whole
words; identifiers and CJK pairs also as substrings of hot messages). Semantic and hybrid
search score a session's hot messages with the learned ranker (``_ranker``, features from
``_features``), or with the hand-tuned ``fusion`` where no ranker was trained for the
embedder: a per-session index (BM25 over own text and neighbour keys, the message vectors)
built from the store, cached until the session's vectors change, and queried with the
query's embedding.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..config import Settings
from ..errors import ProviderError
from ..providers import Embedder, blas_threads
from ..store import Store, VectorStore
from ..types import Hit, HitSource
from ._across import rank_tenant
from ._cache import VectorCache
from ._features import query_terms_of
from ._follow import LiveIndexes
from ._fusion import (
    Ranked,
    SessionIndex,
    build_session_index,
    cap_related,
    rank_learned,
    rank_session,
    vector_dim,
    vector_model,
)
from ._modes import (
    check_exclude_window,
    check_limit,
    check_min_score,
    check_query,
    expand,
    keyword_match,
    keyword_ranking,
    match_mode,
    since,
)
from ._ranker import (
    BEST_SHARE,
    FUSION_FLOOR,
    HIT_FLOOR,
    Gate,
    log_odds,
    probability_of,
    ranker_for,
)

__all__ = ["CachedIndex", "Searcher"]

# Below this many messages an index is built inline; above it, in a worker thread so the event
# loop stays free.
_INLINE_BUILD = 2_000
# BLAS threads for a query's products over the session index (see providers._threads).
_QUERY_THREADS: int | None = 1


@dataclass(frozen=True, kw_only=True, slots=True)
class CachedIndex:
    """A session's search index with the vector version it was built from."""

    version: int
    index: SessionIndex
    embedded: npt.NDArray[np.bool_]
    ats: npt.NDArray[np.int64]
    nbytes: int


class Searcher:
    def __init__(self, store: Store, vectors: VectorStore | None, embedder: Embedder | None,
                 cache: VectorCache[CachedIndex], settings: Settings, tenant: str,
                 live: LiveIndexes | None = None) -> None:
        self._store = store
        self._live = live
        self._vectors = vectors
        self._embedder = embedder
        self._cache = cache
        self._settings = settings
        self._tenant = tenant

    async def search(self, session: str | None, query: object, *, match: object,
                     time_range: object, limit: object, exclude_window: object,
                     now: int, min_score: object = None) -> list[Hit]:
        """Check a search's arguments (``InvalidInput`` naming the field), then run it: keyword
        hits in chronological order, or semantic/hybrid hits with their neighbours.

        ``min_score`` (default ``Settings.search_min_score``, else the ranker's own) is the
        score a semantic or hybrid hit needs: a probability under the learned ranker, a
        similarity under the fusion. Keyword hits always hold a query term and are not
        filtered by it.
        """
        query = check_query(query)
        mode = match_mode(match, semantic=self._embedder is not None)
        lim = check_limit(limit, self._settings)
        low = since(time_range, now)
        exclude_window = check_exclude_window(exclude_window)
        floor = check_min_score(min_score, self._settings)
        if mode == "keyword":
            ranked = await self.keyword(session, query, since=low, limit=lim)
            return sorted(ranked, key=lambda h: h.message.id)
        return await self.ranked(session, query, mode=mode, since=low, limit=lim,
                                 exclude_window=exclude_window, min_score=floor, now=now)

    async def keyword(self, session: str | None, query: str, *, since: int | None,
                      limit: int) -> list[Hit]:
        """Keyword hits, best first (not expanded)."""
        rows = await self._store.keyword(self._tenant, session, keyword_match(query),
                                         query.strip(), since=since, limit=limit)
        return keyword_ranking(rows)[:limit]

    async def ranked(self, session: str | None, query: str, *, mode: HitSource,
                     since: int | None, limit: int, exclude_window: bool,
                     min_score: float | None = None, now: int = 0) -> list[Hit]:
        """Semantic or hybrid hits (``mode``), expanded with their neighbours (those in the
        time range).

        Under the learned ranker a hit needs a probability of at least ``min_score``; under
        the fusion a similarity of at least that, or in hybrid mode a query term of its own
        (-1: none). ``None``: the ranker's default floor, which the best hit must reach (or
        the search returns nothing; with the ranker's answer gate, a floor set by how close
        the best few hits come to the query), the other hits needing a share of the best's
        probability; under the fusion, its default floor for every hit. When the query
        cannot be embedded, semantic search raises ``ProviderError`` and hybrid search
        answers from the keyword side of the same index (by the fusion).
        """
        assert self._embedder is not None
        try:
            q: npt.NDArray[np.float32] | None = await self._embed_query(query)
            how = "semantic" if mode == "semantic" else "hybrid"
        except ProviderError:
            if mode == "semantic":
                raise
            q, how = None, "keyword"
        # The learned ranker where one was trained for this embedder: its score is a
        # probability, worked out in one pass over every message searched.
        learned = (ranker_for(self._embedder.model_id, how)
                   if q is not None and self._settings.ranker == "learned" else None)
        # Under the learned ranker the default floor is the best hit's: it decides whether the
        # search has an answer at all, and the share of the best below decides which hits
        # are in it. A floor the caller sets is every hit's.
        gate: float | None = None
        answer: Gate | None = None
        if min_score is None:
            if learned is not None:
                gate, min_score, answer = learned.best_floor, HIT_FLOOR, learned.gate
            else:
                min_score = FUSION_FLOOR
        # The ranker's answer gate reads the best few hits whatever their probability: they
        # are ranked with no floor, and the floor is applied after it.
        rank_floor = None if answer is not None else min_score
        k = limit if answer is None else max(limit, answer.top)
        terms = query_terms_of(query)
        skip: set[int] = set()
        if session is not None and exclude_window:
            window = await self._store.recent(self._tenant, session,
                                              self._settings.window_messages)
            skip = {m.id for m in window}
        found: list[Ranked] = []
        # One read of the vector versions names the sessions to search and validates their
        # cached indexes.
        assert self._vectors is not None
        versions = await self._vectors.versions(self._tenant, session)
        if learned is not None and q is not None and self._live is not None:
            # The tenant's index kept write by write: one pass over every session searched.
            index = await self._live.current(self._vectors, self._tenant,
                                             vector_model(self._embedder.model_id),
                                             self._embedder.dim, versions,
                                             whole=session is None)
            with blas_threads(_QUERY_THREADS):
                found = rank_tenant(index, list(versions), terms, q, learned, k=k,
                                    now=now, since=since, skip=skip, hybrid=how == "hybrid",
                                    min_probability=rank_floor)
            versions = {}
        for name, version in versions.items():
            cached = await self._index(name, version)
            if cached is None:
                continue
            # Hybrid also admits messages not yet embedded, when they hold a query term.
            eligible = cached.embedded.copy() if how == "semantic" else np.ones_like(
                cached.embedded)
            if since is not None:
                eligible &= cached.ats >= since
            if skip:
                eligible &= ~np.isin(cached.index.ids, np.fromiter(skip, dtype=np.int64))
            # One BLAS thread: a second one speeds a large product up only on an idle
            # machine, and made p95 worse while other work ran (docs/benchmarks.md).
            with blas_threads(_QUERY_THREADS):
                if learned is not None and q is not None:
                    # Without the tenant's live index (a benchmark's baseline), session by
                    # session: the scoped features then compare a message with its session's
                    # best, and weigh the query's words within it, only.
                    found += rank_learned(cached.index, terms, q, learned, k=k, now=now,
                                          eligible=eligible, min_probability=rank_floor)
                else:
                    found += rank_session(cached.index, query, q, k=limit, mode=how,
                                          eligible=eligible, min_similarity=min_score)
        found = _merge(found, hybrid=how == "hybrid")
        if learned is not None and found and min_score > -1.0:
            found = _evidence(found, gate if gate is not None else min_score, BEST_SHARE[how],
                              gated=gate is not None, answer=answer, every=min_score)
        return await self._hits(found[:limit], mode, since)

    def uncache(self, tenant: str, session: str) -> None:
        """Drop the cached index of a session that was removed or purged."""
        if self._embedder is not None:
            model = vector_model(self._embedder.model_id)
            self._cache.discard((tenant, session, model))
            if self._live is not None:
                self._live.discard(tenant, model, session)

    async def _index(self, session: str, version: int) -> CachedIndex | None:
        """The session's cached index, rebuilt when its vector version moved."""
        assert self._embedder is not None and self._vectors is not None
        model = vector_model(self._embedder.model_id)
        key = (self._tenant, session, model)
        cached = self._cache.get(key, version)
        if cached is not None:
            return cached
        dim = self._embedder.dim
        hot = await self._vectors.load_hot(self._tenant, session, model, vector_dim(dim))
        if not hot.ids:
            return None

        def build() -> SessionIndex:
            # A stored vector is the own-text vector, then the keyed one (views, no copies).
            return build_session_index(hot.ids, hot.contents, hot.senders, hot.ats,
                                       hot.matrix[:, dim:], own_vectors=hot.matrix[:, :dim])

        index = build() if len(hot.ids) <= _INLINE_BUILD else await asyncio.to_thread(build)
        entry = CachedIndex(version=hot.version, index=index, embedded=hot.embedded,
                            ats=np.asarray(hot.ats, dtype=np.int64),
                            nbytes=_index_bytes(index))
        self._cache.put(key, entry)
        return entry

    async def _hits(self, ranked: list[Ranked], source: HitSource,
                    since: int | None) -> list[Hit]:
        runs = await self._store.around(self._tenant, [r.id for r in ranked],
                                        self._settings.expand_before,
                                        self._settings.expand_after)
        if since is not None:  # neighbours keep to the time range too
            runs = {mid: [m for m in run if m.at >= since] for mid, run in runs.items()}
        hits = []
        for rank, r in enumerate(ranked, start=1):
            message = next((m for m in runs.get(r.id, ()) if m.id == r.id), None)
            if message is None:
                continue  # forgotten between the ranking and this read
            # The absolute similarity where there is one; the keyword score when the query
            # could not be embedded.
            score = r.similarity if r.similarity is not None else r.score
            hits.append(Hit(message=message, score=round(score, 6), rank=rank,
                            source=source, matched=True))
        return expand(hits, runs)

    async def _embed_query(self, query: str) -> npt.NDArray[np.float32]:
        assert self._embedder is not None
        try:
            matrix: npt.NDArray[np.float32] = await self._embedder.embed([query])
        except ProviderError:
            raise
        except Exception as exc:
            raise ProviderError(f"the embedder {self._embedder.model_id!r} failed on the "
                                f"query: {exc}") from exc
        row: npt.NDArray[np.float32] = matrix[0]
        return row


def _merge(found: list[Ranked], *, hybrid: bool) -> list[Ranked]:
    """The best of every session's hits, best first: those nearly saying the query lead; in
    hybrid mode a message holding a rare query term stays above those holding no query term,
    across sessions too."""
    if hybrid and found:
        scores = cap_related(np.asarray([r.score for r in found], dtype=np.float32),
                             np.asarray([r.rare for r in found], dtype=np.bool_),
                             np.asarray([r.related_only for r in found], dtype=np.bool_))
        order = sorted(range(len(found)),
                       key=lambda i: (found[i].lead, float(scores[i]), found[i].id),
                       reverse=True)
        return [found[i] for i in order]
    return sorted(found, key=lambda r: (r.lead, r.score, r.id), reverse=True)


def _index_bytes(index: SessionIndex) -> int:
    total = 64 * len(index.keyword.vocab)
    for array in (index.ids, index.times, index.sender_codes):
        total += int(array.nbytes)
    for kw in (index.keyword, index.own_terms):
        if kw is not None:
            total += int(kw.indptr.nbytes + kw.docs.nbytes + kw.weights.nbytes)
    for matrix in (index.vectors, index.own, index.present):
        if matrix is not None:
            total += int(matrix.nbytes)
    return total


def _evidence(found: list[Ranked], floor: float, share: float, *, gated: bool,
              answer: Gate | None = None,
              every: float = 0.0) -> list[Ranked]:
    """Evidence, not filler: the hits at least ``share`` as probable as the best one
    (a fact's filler neighbours stay context, not matches), and those whose own text holds a
    rare query word or nearly says the query if they reach ``floor`` (by the gate's judge,
    where it has one: a long message holding the rare word is no less evidence for a short
    one that says nearly the query). ``gated``: ``floor`` is the best hit's (nothing when it
    falls short); else every hit already reached it. With ``answer``, that gate decides
    instead whether the search has an answer (``floor`` stays the one of the hits holding a
    rare query word), and every hit needs ``every`` too."""
    top = max(r.score for r in found)
    if gated and answer is not None:
        best = sorted(found, key=lambda r: r.score, reverse=True)[:answer.top]
        cosine = max((r.closeness for r in best if r.closeness is not None), default=-1.0)
        # The judge's log-odds where the gate has one (the highest of the best few), else the
        # best hit's own.
        logit = max((r.judged for r in best if r.judged is not None), default=log_odds(top))
        # The gate's further features, each its highest among the best few.
        more = tuple(max((r.gate_more[k] for r in best if len(r.gate_more) > k), default=0.0)
                     for k in range(len(answer.more)))
        if not answer.answers(logit, cosine, more):
            return []
        found = [r for r in found
                 if r.score >= every or ((r.rare or r.lead) and _own(r) >= every)]
    elif gated and top < floor:
        return []
    return [r for r in found
            if r.score >= share * top or ((r.rare or r.lead) and _own(r) >= floor)]


def _own(hit: Ranked) -> float:
    """A hit's probability on its own evidence: the answer gate's judge's where it has one."""
    return hit.score if hit.judged is None else probability_of(hit.judged)
