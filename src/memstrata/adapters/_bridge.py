"""What the record adapters (Agents SDK, LlamaIndex) use of a memory, typed: a ``History``
over the adapter's ``MemorySource``, reading a session's newest records, and finishing a
write whose caller was cancelled.

A shared memory may be any of the ``MemoryAPI`` protocol, local or remote. An adapter's own
memory is a ``SyncMemory`` (opened on first use by ``MemorySource``): it
lives on its own loop thread, so the adapter works from any event loop (the Agents SDK's
``Runner.run_sync`` makes a new loop per call) and closes from synchronous code, as the
frameworks' own SQLite stores do.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol, TypeVar

from ..config import Settings
from ..types import Message, SessionInfo
from ._records import Stored, decode, decode_damaged
from ._source import MemorySource, SharedMemory

__all__ = ["History", "SourceHistory", "history", "newest", "newest_whole", "settled"]

T = TypeVar("T")


class History(Protocol):
    """What the adapters use of a memory (``Memory`` has all of it)."""

    @property
    def settings(self) -> Settings: ...

    async def add_many(self, session: str,
                       items: Iterable[Mapping[str, Any]]) -> list[Message]: ...

    async def recent(self, session: str | None, *, time_range: str = "all",
                     limit: int | None = None, before_id: int | None = None) -> list[Message]: ...

    async def forget(self, message_id: int) -> bool: ...

    async def remove(self, session: str) -> bool: ...

    async def sessions(self) -> list[SessionInfo]: ...


class SourceHistory:
    """The ``History`` of an adapter's ``MemorySource`` (shared or opened on first use)."""

    def __init__(self, source: MemorySource, settings: Settings) -> None:
        self._source = source
        self._settings = settings

    @property
    def settings(self) -> Settings:
        return self._settings

    async def add_many(self, session: str,
                       items: Iterable[Mapping[str, Any]]) -> list[Message]:
        out: list[Message] = await self._source.acall("add_many", session, list(items))
        return out

    async def recent(self, session: str | None, *, time_range: str = "all",
                     limit: int | None = None, before_id: int | None = None) -> list[Message]:
        out: list[Message] = await self._source.acall("recent", session, time_range=time_range,
                                                      limit=limit, before_id=before_id)
        return out

    async def forget(self, message_id: int) -> bool:
        return bool(await self._source.acall("forget", message_id))

    async def remove(self, session: str) -> bool:
        return bool(await self._source.acall("remove", session))

    async def sessions(self) -> list[SessionInfo]:
        out: list[SessionInfo] = await self._source.acall("sessions")
        return out


def history(db: str, memory: SharedMemory | None, settings: Settings | None,
            tenant: str | None) -> tuple[MemorySource, History]:
    """An adapter's memory: the source to close, and the ``History`` to use."""
    source = MemorySource(db, memory, settings=settings, tenant=tenant)
    chosen = memory.settings if memory is not None else \
        settings if settings is not None else Settings()
    return source, SourceHistory(source, chosen)


async def _pages(memory: History, session: str) -> AsyncIterator[tuple[list[Message], bool]]:
    """The session's messages read in pages from the newest backwards: after each page, all
    read so far (oldest first) and whether that was the last page."""
    page_size = memory.settings.search_limit_max
    messages: list[Message] = []
    before: int | None = None
    while True:
        page = await memory.recent(session, limit=page_size, before_id=before)
        messages[:0] = reversed(page)
        last = len(page) < page_size
        yield messages, last
        if last:
            return
        before = page[-1].id


async def newest(memory: History, session: str, tag: str, want: int | None, *,
                 until: Callable[[list[Stored]], bool] | None = None) -> list[Stored]:
    """The session's newest ``want`` records (all with ``None``), oldest first, read in
    pages from the newest message backwards until enough whole records are in (or until
    ``until`` says the records read so far are enough)."""
    async for messages, last in _pages(memory, session):
        if last:
            records = decode(messages, tag)
            return records if want is None else records[max(0, len(records) - want):]
        if want is not None or until is not None:
            # Only whole records are decoded, so a record cut by the page edge is not counted.
            records = decode(messages, tag)
            if want is not None and len(records) >= want:
                return records[max(0, len(records) - want):]
            if until is not None and records and until(records):
                return records
    raise AssertionError("the pages end with a last one")


async def newest_whole(memory: History, session: str,
                       tag: str) -> tuple[Stored | None, list[int]]:
    """The session's newest whole record (``None``: there is none), and the ids of the
    damaged messages newer than it (every damaged one when there is no record): parts of a
    record that lacks a part, or whose JSON does not parse."""
    async for messages, last in _pages(memory, session):
        records, damaged = decode_damaged(messages, tag)
        if records:
            # Whatever follows a whole record begins after it, so its damage is real; what
            # precedes it may be a record cut by the page's edge, and is not looked at.
            stop = records[-1].ids[-1]
            return records[-1], [i for i in damaged if i > stop]
        if last:
            return None, damaged
    raise AssertionError("the pages end with a last one")


async def settled(write: Awaitable[T]) -> T:
    """Run a write to its end even when the caller is cancelled meanwhile, then pass the
    cancellation on: a removal cut between two of a record's parts would leave it half gone,
    and the caller could not tell whether to retry."""
    task = asyncio.ensure_future(write)
    cancelled = False
    while not task.done():
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()
