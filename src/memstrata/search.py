"""Search over the strata: keyword (archive + hot tier), semantic (hot vectors), hybrid.

Reads come from the store (rows, vectors) and the pure functions of ``retrieve`` do the
ranking, fusion and neighbour expansion.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .config import Settings
from .errors import ProviderError
from .providers.base import Embedder
from .retrieve import expand, keyword_ranking, minmax, top_k
from .store.base import Store
from .store.sqlite_vectors import SessionVectors, SQLiteVectors
from .text import fts_match_expression, query_terms
from .types import Hit
from .vector_cache import VectorCache

__all__ = ["Searcher"]

# How many candidates each ranking contributes to a hybrid fusion.
_FUSION_POOL = 50
_COSINE_WEIGHT = 0.5


@dataclass(frozen=True, kw_only=True, slots=True)
class _Scored:
    message_id: int
    score: float


class Searcher:
    def __init__(self, store: Store, vectors: SQLiteVectors | None, embedder: Embedder | None,
                 cache: VectorCache, settings: Settings, tenant: str) -> None:
        self._store = store
        self._vectors = vectors
        self._embedder = embedder
        self._cache = cache
        self._settings = settings
        self._tenant = tenant

    async def keyword(self, session: str | None, query: str, *, since: int | None,
                      limit: int, pool: int | None = None) -> list[Hit]:
        """Keyword hits, best first (not expanded)."""
        rows = await self._store.keyword(self._tenant, session,
                                         fts_match_expression(query_terms(query)),
                                         query.strip(), since=since, limit=pool or limit)
        return keyword_ranking(rows)[:limit]

    async def semantic(self, session: str | None, query: str, *, since: int | None,
                       limit: int, exclude_window: bool) -> list[Hit]:
        ranked = await self._nearest(session, query, since=since, limit=limit,
                                     exclude_window=exclude_window)
        return await self._hits(ranked, "semantic")

    async def hybrid(self, session: str | None, query: str, *, since: int | None,
                     limit: int, exclude_window: bool) -> list[Hit]:
        """Score-level fusion: min-max BM25 plus a weighted min-max cosine."""
        pool = max(limit, _FUSION_POOL)
        words = await self.keyword(session, query, since=since, limit=pool)
        try:
            near = await self._nearest(session, query, since=since, limit=pool,
                                       exclude_window=exclude_window)
        except ProviderError:
            near = []  # the embedder is down: the keyword ranking alone still answers
        kw = minmax({h.message.id: h.score for h in words})
        cos = minmax({s.message_id: s.score for s in near})
        fused = {i: kw.get(i, 0.0) + _COSINE_WEIGHT * cos.get(i, 0.0) for i in kw.keys() | cos}
        best = sorted(fused.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:limit]
        return await self._hits([_Scored(message_id=i, score=s) for i, s in best], "hybrid")

    async def _hits(self, ranked: list[_Scored], source: str) -> list[Hit]:
        runs = await self._store.around(self._tenant, [s.message_id for s in ranked],
                                        self._settings.expand_before,
                                        self._settings.expand_after)
        hits = []
        for rank, s in enumerate(ranked, start=1):
            run = runs.get(s.message_id)
            if not run:
                continue  # forgotten between the ranking and this read
            message = next(m for m in run if m.id == s.message_id)
            hits.append(Hit(message=message, score=round(s.score, 6), rank=rank,
                            source=source, matched=True))  # type: ignore[arg-type]
        return expand(hits, runs)

    async def _nearest(self, session: str | None, query: str, *, since: int | None,
                       limit: int, exclude_window: bool) -> list[_Scored]:
        """The best ``limit`` hot messages by cosine similarity to the query."""
        assert self._embedder is not None and self._vectors is not None
        q = await self._embed_query(query)
        versions = await self._vectors.versions(self._tenant, session)
        skip: set[int] = set()
        if session is not None and exclude_window:
            window = await self._store.recent(self._tenant, session,
                                              self._settings.window_messages)
            skip = {m.id for m in window}
        found: list[_Scored] = []
        for name, version in versions.items():
            sv = await self._session_vectors(name, version)
            if sv.ids.size == 0:
                continue
            scores = sv.matrix @ q
            keep = np.ones(sv.ids.size, dtype=bool)
            if since is not None:
                keep &= sv.ats >= since
            if skip:
                keep &= ~np.isin(sv.ids, np.fromiter(skip, dtype=np.int64))
            scores = np.where(keep, scores, -np.inf).astype(np.float32)
            for idx in top_k(scores, min(limit, int(keep.sum()))):
                found.append(_Scored(message_id=int(sv.ids[idx]), score=float(scores[idx])))
        found.sort(key=lambda s: (s.score, s.message_id), reverse=True)
        return found[:limit]

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

    async def _session_vectors(self, session: str, version: int) -> SessionVectors:
        assert self._embedder is not None and self._vectors is not None
        key = (self._tenant, session, self._embedder.model_id)
        cached = self._cache.get(key, version)
        if cached is not None:
            return cached
        loaded = await self._vectors.load(self._tenant, session, self._embedder.model_id,
                                          self._embedder.dim)
        self._cache.put(key, loaded)
        return loaded
