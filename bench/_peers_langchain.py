"""LangChain as a peer: ``SQLChatMessageHistory`` (langchain-community) on a SQLite file for
the conversation, plus an ``InMemoryVectorStore`` (langchain-core) over memstrata's embedder
for retrieval, each message written to both.

Reading the context: ``.messages`` returns the whole session (no "last N"); the caller keeps
the last ``window``. The vector store lives in the process (langchain-community's SQLite
vector store needs SQLite extension loading, which this Python build lacks).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from _peers_embed import SyncEmbedder, langchain_embeddings

NAME = "LangChain"
CONTEXT_READ = "SQLChatMessageHistory.messages (whole session), last 20"
SEARCH = "InMemoryVectorStore.similarity_search, filtered by session"


def version() -> str:
    from importlib.metadata import version as v

    return (f"langchain-community {v('langchain-community')}, "
            f"langchain-core {v('langchain-core')}, SQLAlchemy {v('SQLAlchemy')}")


class LangChainPeer:
    name = NAME
    can_search = True

    def __init__(self, work: Path, sync: SyncEmbedder, window: int) -> None:
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
        self.store.add_texts([text], metadatas=[{"session": session}],
                             ids=[f"{session}#{self._count}"])

    def add_many(self, session: str, items: list[tuple[str, str, str]]) -> list[str]:
        self._history(session).add_messages([self._message(*it) for it in items])
        ids = [f"{session}#{self._count + i + 1}" for i in range(len(items))]
        self._count += len(items)
        self.store.add_texts([t for _, _, t in items],
                             metadatas=[{"session": session}] * len(items), ids=ids)
        return ids

    def context(self, session: str) -> list[str]:
        return [str(m.content) for m in self._history(session).messages[-self.window:]]

    def search(self, session: str, query: str, k: int) -> list[str]:
        docs = self.store.similarity_search(
            query, k=k, filter=lambda d: d.metadata.get("session") == session)
        return [str(d.id) for d in docs]

    def close(self) -> None:
        self.engine.dispose()
