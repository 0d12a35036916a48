"""memstrata as a session of the OpenAI Agents SDK: ``MemstrataSession``.

This module owns the mapping from the SDK's input items (messages, function calls and their
outputs, reasoning, hosted tool calls) to memstrata messages and back. Each item is stored
exactly (its JSON, in the messages' ``meta``; split over several messages when it is large)
beside its readable text (the messages' ``content``), so the conversation an agent had is
searchable, summarised and shown in context windows like any memstrata conversation, while
the SDK gets every item back unchanged.

The session also offers the SDK's ``OpenAIResponsesCompactionSession`` what its own SQL
sessions offer it: a bounded read of the newest items with a replacement of a suffix of them
by the compacted items, so compaction works over a session whose reads are limited
(``session_settings.limit``) and never needs the whole history as a rollback copy.

Install with ``pip install 'memstrata[openai-agents]'``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, cast

from agents import TResponseInputItem
from agents.memory import SessionSettings
from agents.memory.session import _CompactionSnapshot
from agents.memory.session_settings import coerce_session_settings

from .._ingest import check_session
from ..config import Settings
from ..errors import Closed
from ._bridge import History, history, newest, newest_whole, settled
from ._records import Stored, encode
from ._source import SharedMemory

__all__ = ["MemstrataSession"]

_TAG = "openai_agents"
# Roles that speak for the user's side; everything else (assistant output, tool calls and
# results, reasoning) is the assistant's side of the conversation.
_USER_SIDE = frozenset({"user", "system", "developer"})


class MemstrataSession:
    """A session of the OpenAI Agents SDK stored in memstrata.

    Built like ``SQLiteSession(session_id, db_path)``: nothing is opened until the first
    call, when ``db`` (a path, ``sqlite:///…`` or ``":memory:"``) is opened as a
    ``memstrata.SyncMemory`` of the session's own (with ``settings`` and ``tenant``), so the
    session works from any event loop. Pass ``memory=`` to share a ``Memory`` or a
    ``RemoteMemory`` (used on the loop that opened it) or a ``SyncMemory`` you opened;
    ``close()`` then leaves it open. With a shared memory the tenant is the memory's (a
    ``RemoteMemory``'s API key decides it): a different ``tenant=`` is refused.
    ``session_id`` must be a memstrata session id (1-128 of ``A-Z a-z 0-9 . _ : @ -``).
    """

    def __init__(self, session_id: str, db: str = ":memory:", *,
                 memory: SharedMemory | None = None,
                 session_settings: SessionSettings | dict[str, Any] | None = None,
                 settings: Settings | None = None, tenant: str | None = None) -> None:
        self.session_id = check_session(session_id, "session_id")
        self.session_settings: SessionSettings | None = (
            coerce_session_settings(session_settings) if session_settings is not None
            else SessionSettings())
        self._source, self._memory = history(str(db), memory, settings, tenant)
        self._closed = False

    def _live(self) -> History:
        if self._closed:
            # The Agents SDK's sessions say "<their class> is closed" in a RuntimeError;
            # Closed is one, and a subclass of this session names itself the same way.
            raise Closed(f"{type(self).__name__} is closed (session {self.session_id!r})")
        return self._memory

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items, oldest first; with ``limit`` (else
        ``session_settings.limit``), the latest ``limit`` of them."""
        memory = self._live()
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        if limit is not None and limit == 0:
            return []
        want = limit if limit is not None and limit > 0 else None
        return [_item(r) for r in await newest(memory, self.session_id, _TAG, want)]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append items, all of them or (on an error) none."""
        memory = self._live()
        if not items:
            return
        max_chars = memory.settings.max_content_chars
        rows: list[dict[str, Any]] = []
        for item in items:
            rows.extend(_encode(item, max_chars))
        await settled(memory.add_many(self.session_id, rows))

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove the most recent item and return it (``None`` when the session is empty).

        Damaged records newer than it (a part missing, or JSON that does not parse, as
        another writer may leave) are removed on the way, not returned, as the SDK's own
        sessions drop rows they cannot read. The item's first message is forgotten first:
        that is the claim, so of two callers popping at once each gets a different item; a
        record missing its first message is no longer read, and its other parts go next.
        """
        return await settled(self._pop(self._live()))

    async def _pop(self, memory: History) -> TResponseInputItem | None:
        while True:
            record, damaged = await newest_whole(memory, self.session_id, _TAG)
            for message_id in damaged:
                await memory.forget(message_id)
            if record is None:
                return None
            if not await memory.forget(record.id):
                continue  # another caller popped it first
            for rest in record.ids[1:]:
                await memory.forget(rest)
            return _item(record)

    async def clear_session(self) -> None:
        """Remove every item (the memstrata session is removed from every stratum)."""
        await settled(self._live().remove(self.session_id))

    async def _get_compaction_snapshot(
            self, limit: int, *,
            prune_prefix: Callable[[TResponseInputItem], bool] | None = None,
    ) -> _CompactionSnapshot | None:
        """The newest ``limit`` items for the SDK's compaction session (found there by this
        name): whether they are all there is, and a replacement of a suffix of them.

        The replacement stores the compacted items, then removes the replaced ones (and,
        with ``prune_prefix``, the run of oldest items it accepts, such as expired encrypted
        ones): a failure part-way leaves both, never neither. It refuses (``False``) when
        the session's newest items are no longer the ones read here. A subclass that
        changes how items are read or written gets no snapshot (the SDK then falls back to
        its public calls), as the replacement would bypass its changes.
        """
        if limit <= 0 or not _plain(type(self)):
            return None
        memory = self._live()
        records = await newest(memory, self.session_id, _TAG, limit + 1)
        complete = len(records) <= limit
        records = records[-limit:]

        async def replace_suffix(start: int, output: list[TResponseInputItem]) -> bool:
            return await settled(self._replace(memory, records[start:], output, prune_prefix))

        return _CompactionSnapshot([_item(r) for r in records], complete, replace_suffix)

    async def _replace(self, memory: History, expected: list[Stored],
                       output: list[TResponseInputItem],
                       prune: Callable[[TResponseInputItem], bool] | None) -> bool:
        """Replace the session's newest records, if they are still ``expected``, by
        ``output``."""
        if not expected:
            return False
        current = await newest(memory, self.session_id, _TAG, len(expected))
        if [r.ids for r in current] != [r.ids for r in expected]:
            return False
        stale: list[Stored] = []
        if prune is not None:
            for record in await newest(memory, self.session_id, _TAG, None):
                if record.id >= expected[0].id or not prune(_item(record)):
                    break
                stale.append(record)
        if output:
            max_chars = memory.settings.max_content_chars
            await memory.add_many(self.session_id,
                                  [row for item in output for row in _encode(item, max_chars)])
        for record in (*stale, *expected):
            for message_id in record.ids:
                await memory.forget(message_id)
        return True

    def close(self) -> None:
        """Close the memory this session opened (a shared ``memory=`` stays open); later
        calls raise ``memstrata.Closed``."""
        self._closed = True
        self._source.close()


def _plain(kind: type[MemstrataSession]) -> bool:
    """Whether ``kind`` reads and writes items as ``MemstrataSession`` does."""
    return all(getattr(kind, name) is getattr(MemstrataSession, name)
               for name in ("get_items", "add_items", "pop_item", "clear_session"))


def _encode(item: TResponseInputItem, max_chars: int) -> list[dict[str, Any]]:
    """One item as ``add_many`` rows: its text for people and search, its JSON exactly."""
    raw = cast(Mapping[str, Any], item)
    kind = raw.get("type") or "message"
    role = raw.get("role")
    side = "user" if role in _USER_SIDE else "assistant"
    sender = None if kind == "message" and role in ("user", "assistant") else \
        str(role if kind == "message" else kind)[:256]
    return encode(dict(raw), text_of(raw), role=side, tag=_TAG, max_chars=max_chars,
                  sender=sender)


def _item(record: Stored) -> TResponseInputItem:
    """An item back from its record; a message another writer stored becomes an easy input
    message with its role and text."""
    if record.value is None:
        return cast(TResponseInputItem, {"role": record.message.role,
                                         "content": record.message.content})
    return cast(TResponseInputItem, record.value)


def text_of(item: Mapping[str, Any]) -> str:
    """The readable text of an item: what memstrata indexes and shows for it."""
    kind = item.get("type") or "message"
    if kind == "message" or "role" in item:
        return _content_text(item.get("content")) or f"[{item.get('role', 'message')}]"
    if kind == "function_call":
        return f"{item.get('name', '?')}({item.get('arguments', '')})"
    if kind == "function_call_output":
        return _content_text(item.get("output")) or "[empty tool output]"
    if kind == "reasoning":
        return _content_text(item.get("summary")) or "[reasoning]"
    return _content_text(item) or f"[{kind}]"


def _content_text(content: Any) -> str:
    """Text of message content: a string, or the text of its parts (placeholders for
    images and files, whose bytes stay in the stored JSON only)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (_content_text(part) for part in content) if t)
    if isinstance(content, Mapping):
        for key in ("text", "refusal", "output", "arguments", "query", "code"):
            value = content.get(key)
            if isinstance(value, str) and value:
                return value
        part = content.get("type")
        if part in ("input_image", "image"):
            return "[image]"
        if part in ("input_file", "file"):
            return f"[file {content.get('filename') or ''}]".replace(" ]", "]")
        return ""
    return json.dumps(content, ensure_ascii=False)
