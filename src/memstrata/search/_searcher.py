"""Search over the strata: keyword (archive + hot tier), semantic and hybrid (hot tier).

Keyword search is FTS5 over the whole archive plus a substring scan of the hot tier, ranked by
``retrieve``. Semantic and hybrid search rank a session's hot messages with ``fusion``: a
per-session index (neighbour-keyed BM25 and the message vectors) built from the store, cached
until the session's vectors change, and queried with the query's embedding.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..config import Settings
from ..errors import InvalidInput, ProviderError
from ..providers import Embedder
from ..store import Store, VectorStore
from ..text import check_unicode, fts_match_expression, query_terms
from ..types import Hit, HitSource
from ._cache import VectorCache
from ._fusion import SessionIndex, build_session_index, search_session, vector_model
from ._modes import check_limit, expand, keyword_ranking, match_mode, since

__all__ = ["CachedIndex", "Searcher"]

# Below this many messages an index is built inline; above it, in a worker thread so the event
# loop stays free.
_INLINE_BUILD = 2_000


@dataclass(frozen=True, kw_only=True, slots=True)
class CachedIndex:
    """A session's search index with the vector version it was built from."""

    version: int
    index: SessionIndex
    embedded: npt.NDArray[np.bool_]
    ats: npt.NDArray[np.int64]
    nbytes: int


@dataclass(frozen=True, kw_only=True, slots=True)
class _Scored:
    message_id: int
    score: float


class Searcher:
    def __init__(self, store: Store, vectors: VectorStore | None, embedder: Embedder | None,
                 cache: VectorCache[CachedIndex], settings: Settings, tenant: str) -> None:
        self._store = store
        self._vectors = vectors
        self._embedder = embedder
        self._cache = cache
        self._settings = settings
        self._tenant = tenant

    async def search(self, session: str | None, query: object, *, match: object,
                     time_range: object, limit: object, exclude_window: object,
                     now: int) -> list[Hit]:
        """Check a search's arguments (``InvalidInput`` naming the field), then run it: keyword
        hits in chronological order, or semantic/hybrid hits with their neighbours."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query", "must be non-empty text")
        check_unicode(query, "query")
        mode = match_mode(match, semantic=self._embedder is not None)
        lim = check_limit(limit, self._settings)
        low = since(time_range, now)
        if not isinstance(exclude_window, bool):
            raise InvalidInput("exclude_window", "must be true or false")
        if mode == "keyword":
            ranked = await self.keyword(session, query, since=low, limit=lim)
            return sorted(ranked, key=lambda h: h.message.id)
        return await self.ranked(session, query, mode=mode, since=low, limit=lim,
                                 exclude_window=exclude_window)

    async def keyword(self, session: str | None, query: str, *, since: int | None,
                      limit: int) -> list[Hit]:
        """Keyword hits, best first (not expanded)."""
        rows = await self._store.keyword(self._tenant, session,
                                         fts_match_expression(query_terms(query)),
                                         query.strip(), since=since, limit=limit)
        return keyword_ranking(rows)[:limit]

    async def ranked(self, session: str | None, query: str, *, mode: HitSource,
                     since: int | None, limit: int, exclude_window: bool) -> list[Hit]:
        """Semantic or hybrid hits (``mode``), expanded with their neighbours.

        When the query cannot be embedded, semantic search raises ``ProviderError`` and hybrid
        search answers from the keyword side of the same index.
        """
        assert self._embedder is not None
        try:
            q: npt.NDArray[np.float32] | None = await self._embed_query(query)
            how = "semantic" if mode == "semantic" else "hybrid"
        except ProviderError:
            if mode == "semantic":
                raise
            q, how = None, "keyword"
        skip: set[int] = set()
        if session is not None and exclude_window:
            window = await self._store.recent(self._tenant, session,
                                              self._settings.window_messages)
            skip = {m.id for m in window}
        found: list[_Scored] = []
        # One read of the vector versions names the sessions to search and validates their
        # cached indexes.
        assert self._vectors is not None
        for name, version in (await self._vectors.versions(self._tenant, session)).items():
            cached = await self._index(name, version)
            if cached is None:
                continue
            eligible = cached.embedded.copy() if how != "keyword" else np.ones_like(
                cached.embedded)
            if since is not None:
                eligible &= cached.ats >= since
            if skip:
                eligible &= ~np.isin(cached.index.ids, np.fromiter(skip, dtype=np.int64))
            for mid, score in search_session(cached.index, query, q, k=limit, mode=how,
                                             eligible=eligible):
                found.append(_Scored(message_id=mid, score=score))
        found.sort(key=lambda s: (s.score, s.message_id), reverse=True)
        return await self._hits(found[:limit], mode)

    async def _index(self, session: str, version: int) -> CachedIndex | None:
        """The session's cached index, rebuilt when its vector version moved."""
        assert self._embedder is not None and self._vectors is not None
        model = vector_model(self._embedder.model_id)
        key = (self._tenant, session, model)
        cached = self._cache.get(key, version)
        if cached is not None:
            return cached
        hot = await self._vectors.load_hot(self._tenant, session, model, self._embedder.dim)
        if not hot.ids:
            return None

        def build() -> SessionIndex:
            return build_session_index(hot.ids, hot.contents, hot.senders, hot.ats, hot.matrix)

        index = build() if len(hot.ids) <= _INLINE_BUILD else await asyncio.to_thread(build)
        entry = CachedIndex(version=hot.version, index=index, embedded=hot.embedded,
                            ats=np.asarray(hot.ats, dtype=np.int64),
                            nbytes=_index_bytes(index))
        self._cache.put(key, entry)
        return entry

    async def _hits(self, ranked: list[_Scored], source: HitSource) -> list[Hit]:
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


def _index_bytes(index: SessionIndex) -> int:
    kw = index.keyword
    total = 64 * len(kw.vocab)
    for array in (index.ids, index.times, index.sender_codes, kw.indptr, kw.docs, kw.weights):
        total += int(array.nbytes)
    if index.vectors is not None:
        total += int(index.vectors.nbytes)
    return total
