"""memstrata as the chat store of LlamaIndex's ``Memory``: ``MemstrataChatStore``.

This module owns the mapping from LlamaIndex chat messages, and their status in ``Memory``'s
short-term queue (active or archived), to memstrata messages. A chat store key is a
memstrata session. Each chat message is stored exactly (its JSON in the messages' ``meta``,
split over several messages when large) beside its text (the ``content``), so LlamaIndex gets
it back unchanged while memstrata searches, summarises and shows it like any message.

memstrata never rewrites a message, so archiving is recorded, not applied: a message is
archived when it was written as archived, or when a later message carries an "archived
through" mark at or above its id. ``archive_oldest_messages`` writes that mark by storing the
session's newest message again (a copy with the mark, then the original is forgotten), so the
conversation keeps its order and one message is rewritten per archiving.

Install with ``pip install 'memstrata[llamaindex]'``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.storage.chat_store.base_db import AsyncDBChatStore, MessageStatus

from ..config import Settings
from ..errors import Closed
from ._bridge import History, history, newest, settled
from ._records import Stored, encode
from ._source import SharedMemory

__all__ = ["MemstrataChatStore"]

_TAG = "llamaindex"
_USER_SIDE = frozenset({"user", "system", "developer"})


class MemstrataChatStore(AsyncDBChatStore):
    """An ``AsyncDBChatStore`` for ``llama_index.core.memory.Memory``, kept in memstrata.

    ``Memory.from_defaults(chat_store=MemstrataChatStore("memory.db"), session_id="trip")``.
    Nothing is opened until the first call, when ``db`` is opened as a ``SyncMemory`` of the
    store's own (so the store works from any event loop, and from LlamaIndex's synchronous
    ``put``/``get``); ``memory=`` shares a memory you opened instead (``Memory``,
    ``RemoteMemory``, or a ``SyncMemory`` of either; ``close()`` then leaves it open). With a
    shared memory the tenant is the memory's (a ``RemoteMemory``'s key decides it): a
    different ``tenant=`` is refused. Keys must be memstrata session ids.
    """

    db: str = "memory.db"
    _source: Any = PrivateAttr(default=None)
    _memory: Any = PrivateAttr(default=None)
    _closed: bool = PrivateAttr(default=False)

    def __init__(self, db: str = "memory.db", *, memory: SharedMemory | None = None,
                 settings: Settings | None = None, tenant: str | None = None) -> None:
        # pydantic builds the keyword __init__; mypy runs without pydantic's plugin.
        super().__init__(db=str(db))  # type: ignore[call-arg]
        self._source, self._memory = history(str(db), memory, settings, tenant)

    @classmethod
    def class_name(cls) -> str:
        return "MemstrataChatStore"

    def _live(self) -> History:
        if self._closed:
            raise Closed("this MemstrataChatStore is closed")
        memory: History = self._memory
        return memory

    def close(self) -> None:
        """Close the memory this store opened (a shared ``memory=`` stays open)."""
        self._closed = True
        self._source.close()

    # -- reads -----------------------------------------------------------------------------

    async def _records(self, key: str, *,
                       active_only: bool = False) -> tuple[list[Stored], int]:
        """The records of ``key``, oldest first, and its "archived through" mark. With
        ``active_only`` the read, which goes from the newest message back, stops once it has
        passed the newest mark: everything older than that is archived anyway."""
        def past_the_mark(records: list[Stored]) -> bool:
            marks = [int(r.extra["through"]) for r in records if "through" in r.extra]
            return bool(marks) and records[0].id <= max(marks)

        records = await newest(self._live(), key, _TAG, None,
                               until=past_the_mark if active_only else None)
        through = max((int(r.extra.get("through", 0)) for r in records), default=0)
        return records, through

    async def _with_status(self, key: str,
                           status: MessageStatus | None) -> list[Stored]:
        records, through = await self._records(key,
                                               active_only=status == MessageStatus.ACTIVE)
        return [r for r in records if status is None or _status(r, through) == status]

    async def get_messages(self, key: str, status: MessageStatus | None = MessageStatus.ACTIVE,
                           limit: int | None = None,
                           offset: int | None = None) -> list[ChatMessage]:
        chosen = await self._with_status(key, status)
        start = offset or 0
        chosen = chosen[start:] if limit is None else chosen[start:start + limit]
        return [_message(r) for r in chosen]

    async def count_messages(self, key: str,
                             status: MessageStatus | None = MessageStatus.ACTIVE) -> int:
        return len(await self._with_status(key, status))

    async def get_keys(self) -> list[str]:
        return [s.id for s in await self._live().sessions()]

    # -- writes ----------------------------------------------------------------------------

    async def add_message(self, key: str, message: ChatMessage,
                          status: MessageStatus = MessageStatus.ACTIVE) -> None:
        await self.add_messages(key, [message], status)

    async def add_messages(self, key: str, messages: list[ChatMessage],
                           status: MessageStatus = MessageStatus.ACTIVE) -> None:
        """Append messages, all of them or (on an error) none."""
        memory = self._live()
        extra = {"s": "archived"} if status == MessageStatus.ARCHIVED else None
        rows: list[dict[str, Any]] = []
        for message in messages:
            rows.extend(_encode(message.model_dump(mode="json"), message,
                                memory.settings.max_content_chars, extra))
        if rows:
            await settled(memory.add_many(key, rows))

    async def set_messages(self, key: str, messages: list[ChatMessage],
                           status: MessageStatus = MessageStatus.ACTIVE) -> None:
        """Replace every message of ``key`` (the old ones are removed first, so a crash in
        between leaves the key empty rather than doubled)."""
        await settled(self._live().remove(key))
        await self.add_messages(key, messages, status)

    async def delete_message(self, key: str, idx: int) -> ChatMessage | None:
        """Delete the message whose id is ``idx`` (its first memstrata message's id)."""
        gone = await settled(self._drop(key, lambda records, _: [r for r in records
                                                                 if r.id == idx]))
        return _message(gone[0]) if gone else None

    async def delete_messages(self, key: str, status: MessageStatus | None = None) -> None:
        if status is None:
            await settled(self._live().remove(key))
            return
        await settled(self._drop(key, lambda records, through: [
            r for r in records if _status(r, through) == status]))

    async def delete_oldest_messages(self, key: str, n: int) -> list[ChatMessage]:
        """Delete the oldest ``n`` active messages and return them."""
        gone = await settled(self._drop(key, lambda records, through: [
            r for r in records if _status(r, through) == MessageStatus.ACTIVE][:max(0, n)]))
        return [_message(r) for r in gone]

    async def archive_oldest_messages(self, key: str, n: int) -> list[ChatMessage]:
        """Archive the oldest ``n`` active messages and return them."""
        return await settled(self._archive(key, n))

    async def _archive(self, key: str, n: int) -> list[ChatMessage]:
        while True:
            records, through = await self._records(key, active_only=True)
            oldest = [r for r in records
                      if _status(r, through) == MessageStatus.ACTIVE][:max(0, n)]
            if not oldest:
                return []
            if await self._move_mark(key, records[-1], oldest[-1].id):
                return [_message(r) for r in oldest]

    async def _drop(self, key: str, pick: Callable[[list[Stored], int], list[Stored]],
                    ) -> list[Stored]:
        """Forget the records ``pick`` chooses. When one of them carries the mark, the mark
        first moves to the newest record that stays, so nothing archived becomes active."""
        while True:
            records, through = await self._records(key)
            doomed = pick(records, through)
            ids = {r.id for r in doomed}
            staying = [r for r in records if r.id not in ids]
            if staying and any(r.extra.get("through") == through for r in doomed) \
                    and not await self._move_mark(key, staying[-1], through):
                continue  # another writer changed the session meanwhile: look again
            return [r for r in doomed if await self._forget(r)]

    async def _move_mark(self, key: str, tail: Stored, through: int) -> bool:
        """Store ``tail``, the session's newest record that stays, again, now carrying the
        mark ``through`` (so the order is kept); ``False``, with nothing changed, when
        another writer rewrote or removed ``tail`` first."""
        memory = self._live()
        extra = {k: v for k, v in tail.extra.items() if k != "through"}
        if _status(tail, through) == MessageStatus.ARCHIVED:
            extra["s"] = "archived"
        extra["through"] = through
        message = _message(tail)
        value = tail.value if tail.value is not None else message.model_dump(mode="json")
        copy = await memory.add_many(key, _encode(value, message,
                                                  memory.settings.max_content_chars, extra,
                                                  at=tail.message.at))
        # The copy goes in first, so a crash leaves a duplicate, never a loss; forgetting
        # the original is the claim, and the loser withdraws its copy.
        if await self._forget(tail):
            return True
        for m in copy:
            await memory.forget(m.id)
        return False

    async def _forget(self, record: Stored) -> bool:
        """Remove a record's messages, the first one first (the claim)."""
        memory = self._live()
        if not await memory.forget(record.id):
            return False
        for rest in record.ids[1:]:
            await memory.forget(rest)
        return True


def _status(record: Stored, through: int) -> MessageStatus:
    if record.extra.get("s") == "archived" or record.id <= through:
        return MessageStatus.ARCHIVED
    return MessageStatus.ACTIVE


def _message(record: Stored) -> ChatMessage:
    """The chat message of a record; a message another writer stored becomes a plain one."""
    if record.value is None:
        return ChatMessage(role=record.message.role, content=record.message.content)
    return ChatMessage.model_validate(record.value)


def _encode(value: Any, message: ChatMessage, max_chars: int,
            extra: dict[str, Any] | None, at: int | None = None) -> list[dict[str, Any]]:
    role = str(message.role.value)
    text = message.content or ""
    if not text.strip():
        calls = message.additional_kwargs.get("tool_calls")
        text = f"[{role}: tool calls]" if calls else f"[{role}]"
    return encode(value, text, role="user" if role in _USER_SIDE else "assistant", tag=_TAG,
                  max_chars=max_chars, extra=extra, at=at,
                  sender=None if role in ("user", "assistant") else role)
