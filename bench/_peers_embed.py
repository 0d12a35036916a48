"""One memstrata embedder, seen through the synchronous interfaces the peers expect.

The peers (mem0, LangChain, LlamaIndex) call their embedder synchronously; memstrata's
``Embedder`` is async. ``SyncEmbedder`` runs it on a private event loop, so every system in
the comparison embeds with the same model instance (loaded once) and the figures compare
the memory layers rather than the models.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from memstrata.providers import Embedder


class SyncEmbedder:
    """Blocking calls over a memstrata ``Embedder``."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.dim = embedder.dim
        self._loop = asyncio.new_event_loop()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._loop.run_until_complete(self.embedder.embed(list(texts)))
        return [row.tolist() for row in vectors]

    def close(self) -> None:
        self._loop.close()


def langchain_embeddings(sync: SyncEmbedder) -> Any:
    """A ``langchain_core`` ``Embeddings`` over ``sync`` (mem0 takes the same object through
    its ``langchain`` embedder provider)."""
    from langchain_core.embeddings import Embeddings

    class MemstrataEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return sync.embed(texts)

        def embed_query(self, text: str) -> list[float]:
            return sync.embed([text])[0]

    return MemstrataEmbeddings()
