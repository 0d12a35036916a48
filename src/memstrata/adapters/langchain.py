"""LangChain adapter: a chat message history and a retriever backed by memstrata.

Needs the ``langchain`` extra (``pip install 'memstrata[langchain]'``, which brings
langchain-core). Both classes take a database path, opened on first use (as a ``SyncMemory``
of their own; ``close()`` closes it), or share an open memory passed as ``memory=``: a
``Memory``, a ``RemoteMemory`` on a server (the API key decides the tenant) or a
``SyncMemory`` of either. Their sync methods block; their async methods never block the
running loop. How LangChain message types map onto memstrata's roles is described in
``_lc_messages``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr

from .._ingest import check_session
from ..config import Settings
from ..types import Hit, Message
from ._lc_messages import from_record, to_item
from ._source import MemorySource, SharedMemory

__all__ = ["MemstrataChatMessageHistory", "MemstrataRetriever"]


class MemstrataChatMessageHistory(BaseChatMessageHistory):
    """The messages of one memstrata session, as LangChain's chat message history.

    ``messages`` is every message of the session, oldest first (the archive, not only the
    context window). ``add_messages`` stores a batch atomically; ``clear`` removes the session
    from every stratum (messages, summary, vectors).
    """

    def __init__(self, session_id: str, db: str = "memory.db", *,
                 memory: SharedMemory | None = None,
                 settings: Settings | None = None) -> None:
        self.session_id = check_session(session_id, "session_id")
        self._source = MemorySource(db, memory, settings=settings)

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return _messages(self._source.call("export", self.session_id))

    async def aget_messages(self) -> list[BaseMessage]:
        return _messages(await self._source.acall("export", self.session_id))

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        items = [to_item(m) for m in messages]
        if items:
            self._source.call("add_many", self.session_id, items)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        items = [to_item(m) for m in messages]
        if items:
            await self._source.acall("add_many", self.session_id, items)

    def clear(self) -> None:
        self._source.call("remove", self.session_id)

    async def aclear(self) -> None:
        await self._source.acall("remove", self.session_id)

    def close(self) -> None:
        """Close the memory this history opened (a shared ``memory=`` stays open)."""
        self._source.close()


def _messages(records: list[dict[str, Any]]) -> list[BaseMessage]:
    return [from_record(r) for r in records if r.get("type") == "message"]


class MemstrataRetriever(BaseRetriever):
    """Search of one session (``session=``) or of every session of the tenant (``None``).

    Returns the ``k`` best matched messages, best first, when that many match (fewer when
    fewer do); each is a ``Document`` whose ``id`` is the message id and whose metadata holds
    ``session``, ``time`` (ISO 8601, UTC), ``score``, ``rank`` and ``neighbours`` (the messages
    around it that the search added for context, as dicts, oldest first), and also ``role``,
    ``sender``, ``at`` (UTC nanoseconds) and ``source``. ``k``, ``match`` and ``time_range``
    may also be given per call: ``retriever.invoke("query", k=2)``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    db: str = "memory.db"
    session: str | None = None
    k: int = Field(default=4, ge=1)
    match: str | None = None
    """``keyword``, ``semantic`` or ``hybrid``; ``None``: hybrid with an embedder, else keyword."""
    time_range: str = "all"
    exclude_window: bool = False
    """``True`` leaves out the session's context window (when the window is in the prompt)."""
    memory: Any = Field(default=None, exclude=True)
    """An open memory to share (``Memory``, ``RemoteMemory``, ``SyncMemory``); checked when
    the retriever is built, since pydantic cannot check a protocol."""
    settings: Settings | None = Field(default=None, exclude=True)
    _source: MemorySource = PrivateAttr()

    def __init__(self, db: str = "memory.db", session: str | None = None, k: int = 4,
                 match: str | None = None, memory: SharedMemory | None = None,
                 **kwargs: Any) -> None:
        fields: dict[str, Any] = {"db": db, "session": session, "k": k, "match": match,
                                  "memory": memory, **kwargs}
        super().__init__(**fields)
        if self.session is not None:
            check_session(self.session)
        self._source = MemorySource(self.db, self.memory, settings=self.settings)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                k: int | None = None, match: str | None = None,
                                time_range: str | None = None) -> list[Document]:
        hits = self._source.call("search", self.session, query,
                                 **self._options(k, match, time_range))
        return documents(hits)

    async def _aget_relevant_documents(
            self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
            k: int | None = None, match: str | None = None,
            time_range: str | None = None) -> list[Document]:
        hits = await self._source.acall("search", self.session, query,
                                        **self._options(k, match, time_range))
        return documents(hits)

    def _options(self, k: int | None, match: str | None,
                 time_range: str | None) -> dict[str, Any]:
        return {"match": match if match is not None else self.match,
                "time_range": time_range if time_range is not None else self.time_range,
                "limit": k if k is not None else self.k,
                "exclude_window": self.exclude_window}

    def close(self) -> None:
        """Close the memory this retriever opened (a shared ``memory=`` stays open)."""
        self._source.close()


def documents(hits: list[Hit]) -> list[Document]:
    """Matched hits as Documents, best first, each with the neighbours shown around it."""
    matched = [h for h in hits if h.matched]
    around: dict[int, list[Message]] = {h.message.id: [] for h in matched}
    for h in hits:
        if not h.matched and matched:
            # Expansion neighbours sit next to the hit they were added for: the nearest
            # matched message of the same session.
            same = [m for m in matched if m.message.session == h.message.session] or matched
            nearest = min(same, key=lambda m: abs(m.message.id - h.message.id))
            around[nearest.message.id].append(h.message)
    best_first = sorted(matched, key=lambda h: (h.rank is None, h.rank or 0))
    return [_document(h, around[h.message.id]) for h in best_first]


def _document(hit: Hit, neighbours: list[Message]) -> Document:
    m = hit.message
    return Document(page_content=m.content, id=str(m.id), metadata={
        "session": m.session, "time": _iso(m.at), "at": m.at, "role": m.role,
        "sender": m.sender, "score": hit.score, "rank": hit.rank, "source": hit.source,
        "neighbours": [{"id": n.id, "role": n.role, "content": n.content, "sender": n.sender,
                        "time": _iso(n.at)} for n in sorted(neighbours, key=lambda n: n.id)],
    })


def _iso(at_ns: int) -> str:
    return datetime.fromtimestamp(at_ns / 1e9, UTC).isoformat()
