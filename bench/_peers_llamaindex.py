"""LlamaIndex as a peer: ``llama_index.core.memory.Memory`` on its SQLAlchemy chat store over a
SQLite file (``sqlite+aiosqlite``).

Reading the context: ``Memory.aget()``, the active short-term queue, which the class keeps
under ``token_limit * chat_history_token_ratio`` tokens by archiving the oldest messages on
every put. ``token_limit`` is set so that about 20 corpus messages stay active (the window of
the others), and the token counter is a whitespace split: LlamaIndex's default tokenizer
fetches tiktoken's files at run time, which cannot happen offline.

Search: none. Memory's only retrieval is ``VectorMemoryBlock``, which needs a vector store that
stores text (``stores_text``); none in llama-index-core does (its ``SimpleVectorStore`` keeps
vectors only), and the block would only index messages already archived out of the window.
"""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

from _peers_embed import SyncEmbedder

NAME = "LlamaIndex"
CONTEXT_READ = "Memory.aget(): active queue, token_limit=1000 x 0.7 (~20 messages)"
SEARCH = ("cannot search: Memory's VectorMemoryBlock needs a text-storing vector store, "
          "none in llama-index-core")
TOKEN_LIMIT = 1000


def version() -> str:
    from importlib.metadata import version as v

    return f"llama-index-core {v('llama-index-core')}, aiosqlite {v('aiosqlite')}"


def _words(text: str) -> list[str]:
    return text.split()


class LlamaIndexPeer:
    name = NAME
    can_search = False

    def __init__(self, work: Path, sync: SyncEmbedder, window: int) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from llama_index.core.base.llms.types import ChatMessage, MessageRole
            from llama_index.core.memory import Memory
        self._memory_cls, self._msg, self._role = Memory, ChatMessage, MessageRole
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

    def add(self, session: str, role: str, sender: str, text: str) -> None:
        self._loop.run_until_complete(self._mem(session).aput(self._message(role, text)))

    def context(self, session: str) -> list[str]:
        got = self._loop.run_until_complete(self._mem(session).aget())
        return [str(m.content) for m in got]

    def search(self, session: str, query: str, k: int) -> list[str]:
        raise NotImplementedError(SEARCH)

    def close(self) -> None:
        for mem in self._mems.values():
            engine = getattr(mem.sql_store, "_async_engine", None)
            if engine is not None:
                self._loop.run_until_complete(engine.dispose())
        self._loop.close()
