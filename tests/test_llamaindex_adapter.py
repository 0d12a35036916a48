"""MemstrataChatStore as LlamaIndex's ``Memory`` uses it: messages come back exactly, the
short-term queue archives its oldest messages once it passes the token limit (and hands them
to memory blocks), concurrent puts store what sequential ones store, and memstrata keeps
every message searchable whatever its status."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, ImageBlock, MessageRole, TextBlock
from llama_index.core.bridge.pydantic import Field
from llama_index.core.memory import BaseMemoryBlock
from llama_index.core.memory import Memory as LlamaMemory
from llama_index.core.storage.chat_store.base_db import MessageStatus

from memstrata import Memory, Settings, SyncMemory
from memstrata.adapters.llamaindex import MemstrataChatStore

_NO_MODEL = Settings(embedder=None)


def _words(text: str) -> list[str]:
    # A word count stands in for a tokenizer: LlamaIndex's default one downloads its tables.
    return text.split()


@pytest.fixture
async def mem(tmp_path: Path) -> AsyncIterator[Memory]:
    async with Memory.open(str(tmp_path / "m.db"), settings=_NO_MODEL,
                           background=False) as m:
        yield m


ODD_MESSAGES = [
    ChatMessage(role=MessageRole.SYSTEM, content="Answer in one line."),
    ChatMessage(role=MessageRole.USER, blocks=[
        TextBlock(text="What is on this ticket?"),
        ImageBlock(image=b"\x89PNG" + bytes(range(256)) * 300, image_mimetype="image/png"),
    ]),
    ChatMessage(role=MessageRole.ASSISTANT, content="",
                additional_kwargs={"tool_calls": [{"id": "t1", "name": "read_ticket",
                                                   "arguments": '{"n": 7}'}]}),
    ChatMessage(role=MessageRole.TOOL, content="seat 12A, car 3 " * 2_000,
                additional_kwargs={"tool_call_id": "t1"}),
    ChatMessage(role=MessageRole.ASSISTANT, content="Seat 12A in car 3 — 車廂 3。"),
]


async def test_messages_round_trip_exactly(tmp_path: Path) -> None:
    db = str(tmp_path / "li.db")
    store = MemstrataChatStore(db, settings=_NO_MODEL)
    assert not (tmp_path / "li.db").exists()  # nothing opens before the first call
    await store.add_messages("ticket", ODD_MESSAGES[:2])
    for message in ODD_MESSAGES[2:]:
        await store.add_message("ticket", message)
    store.close()

    again = MemstrataChatStore(db, settings=_NO_MODEL)
    got = await again.get_messages("ticket")
    assert [m.model_dump(mode="json") for m in got] == \
        [m.model_dump(mode="json") for m in ODD_MESSAGES]
    assert await again.get_messages("ticket", limit=2, offset=1) == ODD_MESSAGES[1:3]
    assert await again.count_messages("ticket") == 5
    assert await again.get_keys() == ["ticket"]
    again.close()


async def test_statuses_deletes_and_replacement(mem: Memory) -> None:
    store = MemstrataChatStore(memory=mem)
    said = [ChatMessage(role="user", content=f"line {i}") for i in range(6)]
    await store.add_messages("k", said[:2], status=MessageStatus.ARCHIVED)
    await store.add_messages("k", said[2:])
    assert await store.get_messages("k") == said[2:]
    assert await store.get_messages("k", status=MessageStatus.ARCHIVED) == said[:2]
    assert await store.get_messages("k", status=None) == said

    assert await store.archive_oldest_messages("k", 2) == said[2:4]
    assert await store.count_messages("k", MessageStatus.ARCHIVED) == 4
    assert await store.get_messages("k", status=None) == said  # order kept

    assert await store.delete_oldest_messages("k", 1) == said[4:5]
    (first_id,) = [m.id for m in await mem.recent("k", limit=32) if m.content == "line 0"]
    assert await store.delete_message("k", first_id) == said[0]
    assert await store.delete_message("k", first_id) is None
    await store.delete_messages("k", MessageStatus.ARCHIVED)
    assert await store.get_messages("k", status=None) == said[5:]

    await store.set_messages("k", said[:1], status=MessageStatus.ARCHIVED)
    assert await store.get_messages("k", status=None) == said[:1]
    assert await store.count_messages("k") == 0
    await store.delete_messages("k")
    assert await store.get_keys() == []


async def test_archiving_every_active_message_then_adding_more(mem: Memory) -> None:
    store = MemstrataChatStore(memory=mem)
    a, b, c = (ChatMessage(role="user", content=t) for t in ("a", "b", "c"))
    await store.add_messages("k", [a, b])
    assert await store.archive_oldest_messages("k", 5) == [a, b]
    assert await store.archive_oldest_messages("k", 1) == []
    await store.add_message("k", c)
    assert await store.get_messages("k") == [c]
    assert await store.get_messages("k", status=None) == [a, b, c]


async def test_deleting_the_active_queue_keeps_the_archive_archived(mem: Memory) -> None:
    store = MemstrataChatStore(memory=mem)
    said = [ChatMessage(role="user", content=f"line {i}") for i in range(5)]
    await store.add_messages("k", said)
    assert await store.archive_oldest_messages("k", 3) == said[:3]
    # The newest message carries the archive's mark; deleting it must not lose the mark.
    await store.delete_messages("k", MessageStatus.ACTIVE)
    assert await store.get_messages("k") == []
    assert await store.get_messages("k", status=MessageStatus.ARCHIVED) == said[:3]
    await store.add_message("k", said[4])
    assert await store.get_messages("k") == said[4:]
    assert await store.delete_oldest_messages("k", 5) == said[4:]
    assert await store.count_messages("k", status=None) == 3


class _Collected(BaseMemoryBlock[str]):
    """A memory block that keeps what the short-term queue hands it."""

    received: list[ChatMessage] = Field(default_factory=list)

    async def _aget(self, messages: list[ChatMessage] | None = None,
                    **block_kwargs: Any) -> str:
        return " | ".join(m.content or "" for m in self.received)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        self.received.extend(messages)


async def test_memory_archives_after_the_flush_size(mem: Memory) -> None:
    block = _Collected(name="collected")
    memory = LlamaMemory.from_defaults(
        session_id="trip", chat_store=MemstrataChatStore(memory=mem), token_limit=60,
        chat_history_token_ratio=0.5, token_flush_size=10, tokenizer_fn=_words,
        memory_blocks=[block])
    said: list[ChatMessage] = []
    for i in range(12):
        role = "user" if i % 2 == 0 else "assistant"
        message = ChatMessage(role=role, content=f"turn {i} about the Hualien train trip")
        said.append(message)
        await memory.aput(message)

    store = MemstrataChatStore(memory=mem)
    active = await store.get_messages("trip")
    archived = await store.get_messages("trip", status=MessageStatus.ARCHIVED)
    assert archived and active
    assert archived + active == said  # the oldest are archived, in order
    # ...and handed to the memory block (which tags them with the session id).
    assert [m.blocks for m in block.received] == [m.blocks for m in archived]
    assert sum(len(_words(m.content or "")) for m in active) <= 30
    assert (await memory.aget())[-1] == said[-1]
    # memstrata keeps every message searchable, archived or not.
    hits = await mem.search("trip", "turn 0", match="keyword", exclude_window=False)
    assert hits[0].message.content == "turn 0 about the Hualien train trip"


def test_memory_from_synchronous_code(tmp_path: Path) -> None:
    store = MemstrataChatStore(str(tmp_path / "sync.db"), settings=_NO_MODEL)
    memory = LlamaMemory.from_defaults(session_id="s", chat_store=store, token_limit=1000,
                                       tokenizer_fn=_words)
    memory.put(ChatMessage(role="user", content="hello from a script"))
    memory.put(ChatMessage(role="assistant", content="hello back"))
    assert [m.content for m in memory.get()] == ["hello from a script", "hello back"]
    store.close()


async def test_concurrent_puts_store_what_sequential_puts_store(mem: Memory) -> None:
    store = MemstrataChatStore(memory=mem)
    said = [ChatMessage(role="user", content=f"message {i} " + "x" * (i * 997))
            for i in range(16)]
    for message in said:
        await store.add_message("one-by-one", message)
    await asyncio.gather(*(store.add_message("at-once", m) for m in said))

    sequential = await store.get_messages("one-by-one")
    concurrent = await store.get_messages("at-once")
    assert sequential == said
    assert sorted(m.model_dump_json() for m in concurrent) == \
        sorted(m.model_dump_json() for m in sequential)


def test_shares_a_sync_memory_and_leaves_it_open(tmp_path: Path) -> None:
    with SyncMemory.open(str(tmp_path / "shared.db"), settings=_NO_MODEL) as shared:
        store = MemstrataChatStore(memory=shared)
        memory = LlamaMemory.from_defaults(session_id="s", chat_store=store,
                                           token_limit=1000, tokenizer_fn=_words)
        memory.put(ChatMessage(role="user", content="one memory for both"))
        store.close()
        assert [m.content for m in shared.recent("s")] == ["one memory for both"]
