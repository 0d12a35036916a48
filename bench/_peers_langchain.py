"""LangChain as a peer: ``SQLChatMessageHistory`` (langchain-community) on a SQLite file for
the conversation, plus an ``InMemoryVectorStore`` (langchain-core) over memstrata's embedder
for retrieval, each message written to both.

Search, as LangChain's documentation recommends for hybrid retrieval: an
``EnsembleRetriever`` (langchain-classic) fusing ``BM25Retriever`` (langchain-community, over
``rank_bm25``) and the vector store's retriever by weighted reciprocal rank, equal weights.
The BM25 retriever is an index built from a list of texts (it has no "add"), so it is built
per session when a search first needs it after writes; ``hybrid=False`` searches the vector
store alone (the set-up before ``rank_bm25`` was installed).

Reading the context: ``.messages`` returns the whole session (no "last N"); the caller keeps
the last ``window``. The vector store lives in the process (langchain-community's SQLite
vector store needs SQLite extension loading, which this Python build lacks).
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from typing import Any

from _peers_embed import SyncEmbedder, langchain_embeddings

NAME = "LangChain"
CONTEXT_READ = "SQLChatMessageHistory.messages (whole session), last 20"
SEARCH = ("EnsembleRetriever(BM25Retriever, InMemoryVectorStore retriever filtered by session), "
          "equal weights")
DENSE_SEARCH = "InMemoryVectorStore.similarity_search, filtered by session"


def hybrid_available() -> bool:
    """Whether ``BM25Retriever`` can run (it needs the ``rank_bm25`` package)."""
    return importlib.util.find_spec("rank_bm25") is not None


def version() -> str:
    from importlib.metadata import version as v

    return (f"langchain-community {v('langchain-community')}, "
            f"langchain-core {v('langchain-core')}, SQLAlchemy {v('SQLAlchemy')}")


class LangChainPeer:
    name = NAME
    can_search = True

    def __init__(self, work: Path, sync: SyncEmbedder, window: int, *,
                 hybrid: bool = True) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from langchain_community.chat_message_histories import SQLChatMessageHistory
            from langchain_core.messages import AIMessage, HumanMessage
            from langchain_core.vectorstores import InMemoryVectorStore
            from sqlalchemy import create_engine
        self._history_cls = SQLChatMessageHistory
        self._human, self._ai = HumanMessage, AIMessage
        self.engine = create_engine(f"sqlite:///{work / 'langchain.db'}")
        self.store = InMemoryVectorStore(embedding=langchain_embeddings(sync))
        self.window = window
        self._histories: dict[str, Any] = {}
        self._count = 0
        self.hybrid = hybrid and hybrid_available()
        self.search_label = SEARCH if self.hybrid else DENSE_SEARCH
        self._texts: dict[str, list[tuple[str, str]]] = {}
        self._bm25: dict[str, Any] = {}

    def _history(self, session: str) -> Any:
        if session not in self._histories:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                self._histories[session] = self._history_cls(session_id=session,
                                                             connection=self.engine)
        return self._histories[session]

    def _message(self, role: str, sender: str, text: str) -> Any:
        return (self._human if role == "user" else self._ai)(content=text, name=sender)

    def add(self, session: str, role: str, sender: str, text: str) -> None:
        self._history(session).add_messages([self._message(role, sender, text)])
        self._count += 1
        self.store.add_texts([text], metadatas=[{"session": session,
                                                 "id": f"{session}#{self._count}"}],
                             ids=[f"{session}#{self._count}"])
        self._remember(session, [(f"{session}#{self._count}", text)])

    def _remember(self, session: str, items: list[tuple[str, str]]) -> None:
        self._texts.setdefault(session, []).extend(items)
        self._bm25.pop(session, None)

    def add_many(self, session: str, items: list[tuple[str, str, str]]) -> list[str]:
        self._history(session).add_messages([self._message(*it) for it in items])
        ids = [f"{session}#{self._count + i + 1}" for i in range(len(items))]
        self._count += len(items)
        self.store.add_texts([t for _, _, t in items],
                             metadatas=[{"session": session, "id": i} for i in ids], ids=ids)
        self._remember(session, [(i, t) for i, (_, _, t) in zip(ids, items, strict=True)])
        return ids

    def context(self, session: str) -> list[str]:
        return [str(m.content) for m in self._history(session).messages[-self.window:]]

    def search(self, session: str, query: str, k: int) -> list[str]:
        def same(d: Any) -> bool:
            return bool(d.metadata.get("session") == session)

        if not self.hybrid or not self._texts.get(session):
            docs = self.store.similarity_search(query, k=k, filter=same)
            return [str(d.id) for d in docs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from langchain_classic.retrievers import EnsembleRetriever
            from langchain_community.retrievers import BM25Retriever
        bm25 = self._bm25.get(session)
        if bm25 is None:
            texts = self._texts[session]
            bm25 = BM25Retriever.from_texts([t for _, t in texts],
                                            metadatas=[{"id": i} for i, _ in texts])
            self._bm25[session] = bm25
        bm25.k = k
        dense = self.store.as_retriever(search_kwargs={"k": k, "filter": same})
        both = EnsembleRetriever(retrievers=[bm25, dense], weights=[0.5, 0.5], id_key="id")
        out: list[str] = []
        for d in both.invoke(query):
            found = str(d.metadata.get("id") or d.id)
            if found not in out:
                out.append(found)
        return out[:k]

    def close(self) -> None:
        self.engine.dispose()
