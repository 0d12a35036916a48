"""LlamaIndex as a peer: ``llama_index.core.memory.Memory`` on its SQLAlchemy chat store over a
SQLite file (``sqlite+aiosqlite``).

Reading the context: ``Memory.aget()``, the active short-term queue, which the class keeps
under ``token_limit * chat_history_token_ratio`` tokens by archiving the oldest messages on
every put. ``token_limit`` is set so that about 20 corpus messages stay active (the window of
the others), and the token counter is a whitespace split: LlamaIndex's default tokenizer
fetches tiktoken's files at run time, which cannot happen offline.

Search: ``Memory``'s own retrieval (``VectorMemoryBlock``) needs a vector store that stores
text (``stores_text``); none in llama-index-core does, and the block would only index messages
already archived out of the window. So each message also goes, as a ``TextNode`` with its
session in the metadata, into a ``VectorStoreIndex`` (llama-index-core's default in-memory
vector store and document store, memstrata's embedder behind a ``BaseEmbedding``), searched
with a retriever filtered to the session: the way LlamaIndex's documentation retrieves text,
dense only (its BM25 retriever is a separate package, ``llama-index-retrievers-bm25``, not
installed here).
"""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

from _peers_embed import SyncEmbedder

NAME = "LlamaIndex"
CONTEXT_READ = "Memory.aget(): active queue, token_limit=1000 x 0.7 (~20 messages)"
SEARCH = ("VectorStoreIndex (in-memory) retriever, filtered by session; Memory's own "
          "VectorMemoryBlock needs a text-storing vector store, none in llama-index-core")
TOKEN_LIMIT = 1000


def version() -> str:
    from importlib.metadata import version as v

    return f"llama-index-core {v('llama-index-core')}, aiosqlite {v('aiosqlite')}"


def _words(text: str) -> list[str]:
    return text.split()


def _embedding(sync: SyncEmbedder) -> Any:
    """A LlamaIndex ``BaseEmbedding`` over memstrata's embedder."""
    from llama_index.core.embeddings import BaseEmbedding

    class MemstrataEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return sync.embed([query])[0]

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return sync.embed([query])[0]

        def _get_text_embedding(self, text: str) -> list[float]:
            return sync.embed([text])[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return sync.embed(texts)

    return MemstrataEmbedding(model_name="memstrata", embed_batch_size=64)


class LlamaIndexPeer:
    name = NAME
    can_search = True

    def __init__(self, work: Path, sync: SyncEmbedder, window: int) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from llama_index.core import VectorStoreIndex
            from llama_index.core.base.llms.types import ChatMessage, MessageRole
            from llama_index.core.memory import Memory
            from llama_index.core.schema import TextNode
            from llama_index.core.vector_stores import ExactMatchFilter, MetadataFilters
        self._memory_cls, self._msg, self._role = Memory, ChatMessage, MessageRole
        self._node, self._filters, self._match = TextNode, MetadataFilters, ExactMatchFilter
        self._index = VectorStoreIndex(nodes=[], embed_model=_embedding(sync))
        self._count = 0
        self._uri = f"sqlite+aiosqlite:///{work / 'llamaindex.db'}"
        self._loop = asyncio.new_event_loop()
        self._mems: dict[str, Any] = {}

    def _mem(self, session: str) -> Any:
        if session not in self._mems:
            self._mems[session] = self._memory_cls.from_defaults(
                session_id=session, token_limit=TOKEN_LIMIT, tokenizer_fn=_words,
                async_database_uri=self._uri)
        return self._mems[session]

    def _message(self, role: str, text: str) -> Any:
        return self._msg(role=self._role.USER if role == "user" else self._role.ASSISTANT,
                         content=text)

    def _nodes(self, session: str, texts: list[str]) -> list[str]:
        ids = [f"{session}#{self._count + i + 1}" for i in range(len(texts))]
        self._count += len(texts)
        self._index.insert_nodes([self._node(text=t, id_=i, metadata={"session": session})
                                  for i, t in zip(ids, texts, strict=True)])
        return ids

    def add(self, session: str, role: str, sender: str, text: str) -> None:
        self._loop.run_until_complete(self._mem(session).aput(self._message(role, text)))
        self._nodes(session, [text])

    def add_many(self, session: str, items: list[tuple[str, str, str]]) -> list[str]:
        self._loop.run_until_complete(self._mem(session).aput_messages(
            [self._message(r, t) for r, _, t in items]))
        return self._nodes(session, [t for _, _, t in items])

    def context(self, session: str) -> list[str]:
        got = self._loop.run_until_complete(self._mem(session).aget())
        return [str(m.content) for m in got]

    def search(self, session: str, query: str, k: int) -> list[str]:
        only = self._filters(filters=[self._match(key="session", value=session)])
        found = self._index.as_retriever(similarity_top_k=k, filters=only).retrieve(query)
        return [n.node.node_id for n in found]

    def close(self) -> None:
        for mem in self._mems.values():
            engine = getattr(mem.sql_store, "_async_engine", None)
            if engine is not None:
                self._loop.run_until_complete(engine.dispose())
        self._loop.close()
